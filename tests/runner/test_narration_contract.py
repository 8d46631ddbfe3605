"""Narration keeps the renderer's contract in code: no invented dialogue (`agents.quoted`),
no assistant's words (`agents.out_of_world`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tavern.agents import out_of_world, prose
from tavern.agents.out_of_world import NARRATOR_OUT_OF_WORLD, drop_out_of_world
from tavern.agents.quoted import drop_quoted_speech
from tavern.llm.provider import ProviderRequest
from tavern.physics.quotations import quotations
from tavern.records import NarrationRecord, TurnInput
from tavern.runner import turn
from tavern.runner.follow_up import AGENT as FOLLOW_UP
from tavern.runner.limits import KernelLimits

from .kit import director_answer, narrated_once, recording_runner, run

LIVE = (
    "As Agnese Corvo opened the trapdoor, Brother Caspar speaks to him. He says, 'We have no"
    " more ideas or ideas yet. I'm just here to help you with what I've got. What can I assist"
    " you with today?'"
)
"""Soak of the-vintners-wake #7, turn 4 (40ad71e), as the model wrote it."""


def test_the_live_narration_keeps_only_what_the_events_establish() -> None:
    assert prose.parse({"narration": LIVE}) == (
        "As Agnese Corvo opened the trapdoor, Brother Caspar speaks to him."
    )


@pytest.mark.parametrize(
    "text",
    [
        "Caspar's lamp gutters; the boys' boots drip on the stair.",
        "Rain drums on the 'Widow's Bell' sign.",  # a name, not speech
        "Nobody speaks. The cellar door creaks open.",
        'He calls it "mine".',
    ],
)
def test_apostrophes_names_and_short_quotes_stay(text: str) -> None:
    assert drop_quoted_speech(text) == text


def test_a_quotation_from_the_public_scene_stays() -> None:
    public = ["A placard by the gate: Tolls paid in coin, never in kind."]
    text = "Ilse taps the placard: 'Tolls paid in coin, never in kind.' The gate holds."
    assert drop_quoted_speech(text, public) == text
    assert drop_quoted_speech(text) == "The gate holds."


SENTENCE = st.from_regex(r"[A-Z][a-z]{2,8}( [a-z]{2,8}){1,6}\.", fullmatch=True)
QUOTED = st.tuples(
    st.sampled_from(['"{}"', "“{}”", "'{}'", "‘{}’"]),
    st.from_regex(r"[A-Z][a-z]{1,8}('[a-z]{1,2})?( [a-z]{2,8}){2,8}[.!?]", fullmatch=True),
    st.sampled_from(["She says, {}", "{} he adds.", "{}"]),
).map(lambda t: t[2].format(t[0].format(t[1])))


@given(st.lists(st.tuples(SENTENCE, st.booleans()), min_size=1, max_size=6), QUOTED)
def test_a_quotation_never_survives_and_the_other_sentences_do(
    plan: list[tuple[str, bool]], quoted: str
) -> None:
    sentences = [s for s, _ in plan]
    text = " ".join(quoted if with_quote else s for s, with_quote in plan)
    kept = drop_quoted_speech(text)
    assert quotations(kept) == []
    assert kept == " ".join(s for s, with_quote in plan if not with_quote)
    assert drop_quoted_speech(kept) == kept
    assert all(s in text for s in sentences if s in kept)


@pytest.mark.parametrize(
    "line",
    [
        "What can I assist you with today?",
        "I hope this helps.",
        "Here is the narration of the beat.",
        "Feel free to ask for more.",
        "Em que posso ajudar?",
        "The sound is sealed, suggesting that the narrator is unable to see the window or the"
        " sound clearly.",  # vintners-wake #51 (seed 67), turns 2 and 7
        "O narrador não vê a janela.",
        "I am standing in the vintner's house on the hill.",  # vintners-wake #56 (seed 72)
        "I'm watching the candles.",
        "I can't believe it's happening.",  # toll-house #64 (seed 78), turn 1, whole
        "I wonder who opened it.",
        "Eu estou no salão.",
    ],
)
def test_a_narrators_assistant_words_are_recognised(line: str) -> None:
    assert NARRATOR_OUT_OF_WORLD.search(line)
    assert drop_out_of_world(f"The lamp gutters. {line} Rain falls.") == (
        "The lamp gutters. Rain falls."
    )


@pytest.mark.parametrize(
    "line",
    [
        "The notary's assistant waits by the coffin.",
        "Maren helps Teodor with the cask.",
        "No one offers to help.",
        "The notary reads the will aloud to the hall.",
        'Ilse taps the placard. "I am the toll," it reads.',  # a quote opens the sentence
        "Ivan am Tor waits.",
        "In the hall, Ilse waits.",
        "It is late. Ink dries on the ledger.",
    ],
)
def test_a_narration_of_the_world_stays(line: str) -> None:
    assert drop_out_of_world(line) == line


FIRST_PERSON_LIVE = (
    "I am standing in the vintner's house on the hill. The coffin lies open in the middle of"
    " the hall. I am standing in the vintner's house on the hill."
)
"""Vintners-wake #56 (seed 72), turn 7: the renderer's narration, its middle sentence kept
from the facts it also recited."""


def test_the_live_first_person_narration_is_cut_in_the_runner(tmp_path: Path) -> None:
    told = _narrated(tmp_path, f"Candles gutter. {FIRST_PERSON_LIVE}")
    assert all("I am" not in t for t in told)
    assert told and told[0].startswith("Candles gutter.")


def test_negative_control_without_the_first_person_pattern_the_narrator_says_i(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pattern = out_of_world.NARRATOR_OUT_OF_WORLD.pattern.replace(out_of_world.FIRST_PERSON, "")
    monkeypatch.setattr(out_of_world, "NARRATOR_OUT_OF_WORLD", re.compile(pattern, re.I))
    told = _narrated(tmp_path, f"Candles gutter. {FIRST_PERSON_LIVE}")
    assert any("I am standing" in t for t in told)


def _prose_says(narration: str) -> Callable[[ProviderRequest], Any]:
    def answer(request: ProviderRequest) -> Any:
        if request.agent == "director":
            return director_answer([])
        if request.agent == "prose":
            return {"narration": narration}
        if request.agent == FOLLOW_UP:  # an attempt's outcome, which the Director left out
            return {"outcome": "Nothing comes of it."}
        return {"speech": None, "thought": "Hm.", "action_intent": None}

    return answer


def _narrated(tmp_path: Path, narration: str) -> list[str]:
    runner, store, _ = recording_runner(tmp_path, _prose_says(narration), KernelLimits())
    sid = run(runner.create_session("the-vintners-wake")).id
    run(runner.play_turn(sid, TurnInput(speech="Good evening.")))
    return [r.text for r in store.history(sid) if isinstance(r, NarrationRecord)]


@pytest.fixture
def acts_unchecked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Set aside the filter of unconfirmed acts (`physics.agency`), which would drop the
    whole live text (no line of Caspar's backs "Brother Caspar speaks"), to show what the
    dialogue filters do alone."""
    monkeypatch.setattr(turn, "unconfirmed_acts", lambda text, cast, recent, turn: text)


@pytest.mark.usefixtures("acts_unchecked")
def test_a_turn_commits_the_narration_without_invented_dialogue(tmp_path: Path) -> None:
    assert _narrated(tmp_path, LIVE) == [
        "As Agnese Corvo opened the trapdoor, Brother Caspar speaks to him."
    ]


@pytest.mark.usefixtures("acts_unchecked")
def test_negative_control_without_the_filters_the_dialogue_is_narrated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(prose, "drop_quoted_speech", lambda text, public=(): text)
    monkeypatch.setattr(prose, "drop_out_of_world", lambda text: text)
    assert _narrated(tmp_path, LIVE) == [LIVE]


PHRASES = [
    "as an AI", "language model", "how can I help", "assist you", "role-play", "here to help",
    "I hope this helps", "feel free to", "let me know if", "em que posso ajudar", "the lamp",
    "rain falls", ".", "Maren helps Rui", "the narrator",
]  # fmt: skip
CASED = st.tuples(st.sampled_from(PHRASES), st.sampled_from([str.upper, str.title, str.lower]))


@given(st.lists(CASED.map(lambda pair: pair[1](pair[0])), max_size=6))
def test_the_branch_search_agrees_with_the_pattern(phrases: list[str]) -> None:
    text = " ".join(phrases)
    assert (drop_out_of_world(text) == text) == (NARRATOR_OUT_OF_WORLD.search(text) is None)


LIVE_UNCLOSED = (
    "Ilse Brandt looks up at the window to see who is outside. Maren Holt looks at Ilse Brandt"
    " and says, 'You're the one outside. You have the seal ring in your pocket. You're not"
    " outside. You're inside. You're inside."
)
"""Soak of the-toll-house #5, turn 8 (29aa1e6), as committed: the loop was cut, the quote
it was in never closed."""


def test_a_quotation_cut_before_its_close_goes_to_the_end() -> None:
    assert prose.parse({"narration": LIVE_UNCLOSED}) == (
        "Ilse Brandt looks up at the window to see who is outside."
    )


@given(
    st.lists(SENTENCE, max_size=4),
    st.sampled_from(['"', "“", "'", "‘"]),
    st.from_regex(r"[A-Z][a-z]{1,8}('[a-z]{1,2})?( [a-z]{2,8}){2,8}[.!?]?", fullmatch=True),
)
def test_an_unclosed_quotation_at_the_end_never_survives(
    before: list[str], mark: str, words: str
) -> None:
    text = " ".join([*before, f"She says, {mark}{words}"])
    assert drop_quoted_speech(text) == " ".join(before)


MISSPELT_ACT = "Agnesse Corvo attempts to cross the cellar until dawn."
"""Toll-house #35 (seed 49), turn 8, in the wake's cast: "Ilsse Brandt attempts to cross the
river until dawn.", the human's character misspelt, doing what nobody attempted."""


def test_a_misspelt_name_is_spelt_right_and_its_unconfirmed_act_cut(tmp_path: Path) -> None:
    assert _narrated(tmp_path, f"{MISSPELT_ACT} Candles gutter.") == ["Candles gutter."]


def test_negative_control_unmended_the_misspelt_act_is_narrated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(prose, "respelt_names", lambda text, names: text)
    assert _narrated(tmp_path, f"{MISSPELT_ACT} Candles gutter.") == [
        f"{MISSPELT_ACT} Candles gutter."
    ]


WORDLESS = "..."
"""Toll-house #64 (seed 78), turns 3, 8 and 10, and vintners-wake #62 (seed 78), turn 10: the
renderer's whole narration."""


@pytest.mark.parametrize("text", [WORDLESS, "…", " - ", '".."'])
def test_a_narration_of_no_word_is_none(text: str) -> None:
    assert prose.parse({"narration": text}) == ""


def test_a_narration_with_a_word_stays() -> None:
    assert prose.parse({"narration": "Rain..."}) == "Rain..."


def test_a_turn_commits_no_wordless_narration(tmp_path: Path) -> None:
    assert narrated_once(tmp_path, WORDLESS) == []


def test_negative_control_without_the_word_test_the_dots_are_narrated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(prose, "_A_WORD", re.compile(""))
    assert narrated_once(tmp_path, WORDLESS) == [WORDLESS]
