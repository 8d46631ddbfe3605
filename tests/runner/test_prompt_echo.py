"""Narration that copies the renderer's prompt is cut in code (`agents.prompt_echo`): the
transcript's attempt marker and the scene block's labels."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import find, given
from hypothesis import strategies as st

from tavern.agents import prompt_echo, prose
from tavern.agents.prompt_echo import PROMPT_LABEL, cut_copies, drop_prompt_echo
from tavern.llm.provider import ProviderRequest
from tavern.records import NarrationRecord, SessionState, TurnInput
from tavern.runner.limits import KernelLimits

from .kit import director_answer, recording_runner, run
from .test_narration_contract import _prose_says

TOLL = ["Ilse Brandt", "Maren Holt", "Teodor Vask"]

LIVE_MARKERS = (
    "Ilse Brandt and Maren Holt make attempts to make an attempt. Time passes. Ilse Brandt"
    " whispers something."
)
"""Soak of the-toll-house #3, turn 7 (42618f9): the transcript's "(... makes an attempt.)"."""
LIVE_LABEL = (
    "Agnese Corvo and Brother Caspar walk around in the hall. Present: Agnese Corvo and Brother"
    " Caspar walking around in the hall."
)
"""Soak of the-vintners-wake #9, turn 10 (9bffd6a): the scene block's "Present:" line."""
LIVE_TITLE = "The Vintner's Wake"
LIVE_STAGING = (
    "In the vintner's house on the hill, Agnese Corvo in the long hall with the open coffin;"
    " Brother Caspar in the long hall with the open coffin; Lio Mendez in the vaulted wine"
    " cellar beneath the hall; Dorotea Sand in the long hall with the ope"
)
"""Soak of the-vintners-wake #13, turn 4 (ac9036e): the staging line without "Present:"."""

STORY = [
    "Teodor Vask makes an attempt on the bolt, and it holds.",
    "Ilse Brandt and Maren Holt make attempts, their voices barely audible.",
    "Maren Holt attempts to speak.",
    "Ilse Brandt whispers something.",
    "Present company watched the notary break the seal.",
    "The facts of the will were read aloud at midnight.",
    "Nothing material happens; the lamp burns lower and the river keeps rising.",
    "Someone makes an attempt at a smile.",
    "The Vintner's Wake was a sombre affair.",
    "Time passes slowly while the rain drums on the shutters.",
    "Some time passes before Maren Holt answers.",
    "Maren Holt stays in the doorway; the rain comes in.",
    "Ilse Brandt sits in silence; Maren Holt stands.",
]
"""Sentences a story may hold, some close to each rule: none is cut."""


@pytest.fixture(scope="module")
def wake(tmp_path_factory: pytest.TempPathFactory) -> SessionState:
    runner, store, _ = recording_runner(
        tmp_path_factory.mktemp("wake"), _prose_says("Rain."), KernelLimits()
    )
    return store.load(run(runner.create_session("the-vintners-wake")).id)


def _cut(text: str, state: SessionState, events: Sequence[str] = ()) -> str:
    """`text` as `prose.parse` commits it in `state` (nothing told before) in a beat whose
    events say `events`."""
    return prose.parse(
        {"narration": text},
        frozenset(),
        prose.public_corpus(state),
        prose.cast_names(state),
        state.title,
        prose.recited_texts(state),
        events,
        prose.staging_parts(state),
    )


def test_the_live_copies_are_cut(wake: SessionState) -> None:
    assert drop_prompt_echo(LIVE_MARKERS, TOLL) == "Ilse Brandt whispers something."
    assert _cut(LIVE_LABEL, wake) == "Agnese Corvo and Brother Caspar walk around in the hall."
    assert _cut(LIVE_TITLE, wake) == ""  # vintners-wake soaks #7-#9, turn 1
    assert _cut(f"{LIVE_TITLE}. A bell tolls.", wake) == "A bell tolls."  # soak #9, turn 6
    assert _cut(f"A bell tolls. {LIVE_STAGING}", wake) == "A bell tolls."
    assert _cut("No material happens.", wake) == ""  # vintners-wake soak #13, turn 7
    assert _cut("Rain. Nothing material happens.", wake) == "Rain."


@pytest.mark.parametrize("sentence", STORY)
def test_story_sentences_stay(sentence: str, wake: SessionState) -> None:
    assert drop_prompt_echo(sentence, TOLL) == sentence
    assert _cut(sentence, wake) == sentence


def test_the_prompts_labels_are_the_ones_the_filter_knows(wake: SessionState) -> None:
    """A line label of the prompt that `PROMPT_LABEL` misses is one a narration may copy."""
    _, user = prose.build_messages(wake, [], [])
    labels = re.findall(r"^(\w+):", user.content, re.MULTILINE)
    assert labels
    for label in labels:
        assert PROMPT_LABEL.search(f"{label}: x")
    assert PROMPT_LABEL.search("## Scene now")


NAME = st.sampled_from(TOLL)
MARKER = st.tuples(
    st.lists(NAME, min_size=1, max_size=3, unique=True),
    st.sampled_from(["makes an attempt", "make attempts", "make attempts to make an attempt"]),
).map(lambda t: f"{' and '.join(t[0])} {t[1]}.")
SENTENCE = st.from_regex(r"[A-Z][a-z]{2,8}( [a-z]{2,8}){1,6}\.", fullmatch=True)


@given(st.lists(st.tuples(SENTENCE, st.booleans()), min_size=1, max_size=6), MARKER)
def test_a_marker_never_survives_and_the_other_sentences_do(
    plan: list[tuple[str, bool]], marker: str
) -> None:
    text = " ".join(marker if is_marker else s for s, is_marker in plan)
    kept = drop_prompt_echo(text, TOLL)
    assert kept == " ".join(s for s, is_marker in plan if not is_marker)
    assert drop_prompt_echo(kept, TOLL) == kept


def _narrated(tmp_path: Path, narration: str) -> list[str]:
    runner, store, _ = recording_runner(tmp_path, _prose_says(narration), KernelLimits())
    sid = run(runner.create_session("the-vintners-wake")).id
    run(runner.play_turn(sid, TurnInput(action="tries the trapdoor")))
    return [r.text for r in store.history(sid) if isinstance(r, NarrationRecord)]


COPIED = "Agnese Corvo makes an attempt. The bolt holds. Present: Agnese Corvo in the hall."


def test_a_turn_commits_the_narration_without_copies_of_the_prompt(tmp_path: Path) -> None:
    assert _narrated(tmp_path, COPIED) == ["The bolt holds."]


def test_negative_control_without_the_filter_the_copies_are_committed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(prose, "drop_prompt_echo", lambda text, *_: text)
    # The marker sentence is also an act no event confirms (`physics.agency`): it goes
    # either way; the label line only goes with this filter.
    assert _narrated(tmp_path, COPIED) == ["The bolt holds. Present: Agnese Corvo in the hall."]


PIECE = st.sampled_from(
    ["Teodor Vask", "makes", "an", "attempt", "ATTEMPTS", "Present:", "Facts:", "(event)",
     "##", "## Scene", "the", "lamp", "rain.", "door.", "\n", "\n## This beat\n", ".",
     "The Vintner's", "Wake", "Wake.", ";", "Maren Holt in the hall", "No", "material",
     "happens.", "Ilse Brandt", "in the loft", "\n\n", "speaks.", "Someone", "sound",
     "is", "sealed.", "It", "succeeds."]
)  # fmt: skip


STAGED = ["Maren Holt in the hall", "Ilse Brandt in the loft"]


def _agrees(shortcut: Callable[[str, list[str], str, list[str]], str], pieces: list[str]) -> bool:
    text = " ".join(pieces)
    return shortcut(text, TOLL, LIVE_TITLE, STAGED) == cut_copies(text, TOLL, LIVE_TITLE, STAGED)


@given(st.lists(PIECE, max_size=14))
def test_the_shortcut_never_changes_the_result(pieces: list[str]) -> None:
    assert _agrees(drop_prompt_echo, pieces)


def test_negative_control_the_generator_catches_a_lossy_shortcut() -> None:
    """A shortcut that trusted the label pattern alone misses a heading after a sentence, a
    title, the empty beat's placeholder, a staging part, the speech marker, a zone link told
    as a fact or a bare outcome: the generator finds one of them."""

    def lossy(text: str, names: list[str], title: str, staged: list[str]) -> str:
        if "attempt" not in text.casefold() and not PROMPT_LABEL.search(text):
            return text
        return cut_copies(text, names, title, staged)

    found = " ".join(find(st.lists(PIECE, max_size=14), lambda p: not _agrees(lossy, p)))
    missed = (
        "##", "Wake", "material", "Maren Holt in the hall", "in the loft", "speaks", "sealed",
        "succeeds",
    )  # fmt: skip
    assert any(piece in found for piece in missed), found


def test_negative_control_without_the_staging_test_the_copy_stays(
    wake: SessionState, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(prompt_echo, "_copies_staging", lambda sentence, names: False)
    assert _cut(f"A bell tolls. {LIVE_STAGING}", wake) == f"A bell tolls. {LIVE_STAGING}"


LIVE_MASKED = (
    "The toll House at Low Water has been at the river crossing for three hours. Teodor Vask"
    " tries to [...] the toll box. Maren Holt attempts to [...] the toll box."
)
"""Toll-house soak #16 (seed 33), turn 8: events of its prompt copied with their mask."""


def test_a_sentence_copying_the_mask_is_cut_whole() -> None:
    kept = "The toll House at Low Water has been at the river crossing for three hours."
    assert drop_prompt_echo(LIVE_MASKED, TOLL) == kept


LIVE_EVENT_LABEL = (
    "Event: Agnese Corvo whispers a short greeting to everyone, then walks slowly to the nearest"
    " window and looks outside."
)
"""Vintners-wake soak #32 (seed 47), turn 4: turn 2's event told again under "Event:"."""


def test_the_event_tag_as_a_label_is_cut(wake: SessionState) -> None:
    assert _cut(LIVE_EVENT_LABEL + " Rain.", wake) == "Rain."
    kept = "The event of the night was the reading of the will."
    assert _cut(kept, wake) == kept


def test_negative_control_without_event_in_the_labels_the_copy_stays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    old = re.compile(prompt_echo.PROMPT_LABEL.pattern.replace(r"|\bEvent:", ""), re.MULTILINE)
    monkeypatch.setattr(prompt_echo, "PROMPT_LABEL", old)
    assert drop_prompt_echo(LIVE_EVENT_LABEL, TOLL) == LIVE_EVENT_LABEL


def test_negative_control_without_the_mask_in_the_labels_the_copies_stay(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    old = re.compile(r"\b(?:Location|Facts|Present):|\(event\)|^#{2,} ", re.MULTILINE)
    monkeypatch.setattr(prompt_echo, "PROMPT_LABEL", old)
    assert "[...]" in drop_prompt_echo(LIVE_MASKED, TOLL)


LIVE_STAGED_SENTENCES = (
    "Lio Mendez in the vaulted wine cellar beneath the hall. Dorotea Sand in the long hall"
    " with the open coffin. Felix Aubert in the narrow balcony above the hall."
)
"""Vintners-wake soak #22 (seed 35), turn 7: the staging line's parts as sentences, the
whole narration."""
LIVE_TITLE_LINE = "The Vintner's Wake\n\nAgnese Corvo makes an attempt."
"""The same soak, turn 3: two transcript lines copied, shown as one sentence."""


def test_staging_parts_as_sentences_and_copied_lines_are_cut(wake: SessionState) -> None:
    assert _cut(f"{LIVE_STAGED_SENTENCES} A bell tolls.", wake) == "A bell tolls."
    assert _cut(f"{LIVE_TITLE_LINE}\nRain.", wake) == "Rain."
    told = "Lio Mendez in the cellar listens. Dorotea Sand in the long hall waits."
    assert _cut(told, wake) == told


def test_negative_control_without_the_staging_parts_the_sentences_stay(
    wake: SessionState,
) -> None:
    names = prose.cast_names(wake)
    assert drop_prompt_echo(LIVE_STAGED_SENTENCES, names, wake.title) == LIVE_STAGED_SENTENCES


def test_negative_control_without_line_breaks_the_title_line_stays(
    wake: SessionState, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(prompt_echo, "_lines_of", lambda text, spans: spans)
    assert _cut(LIVE_TITLE_LINE, wake) == LIVE_TITLE_LINE


def test_a_turn_commits_the_narration_without_a_staging_part(tmp_path: Path) -> None:
    staged = "Agnese Corvo in the long hall with the open coffin. The bolt holds."
    assert _narrated(tmp_path, staged) == ["The bolt holds."]


def test_the_speech_marker_as_prose_is_cut(wake: SessionState) -> None:
    """Vintners-wake soak #23 (seed 36), turns 1, 3 and 5: "(Agnese Corvo speaks.)" and
    "(someone speaks.)" told as the narration; the reader has the line on screen."""
    assert _cut("Agnese Corvo speaks. Someone speaks. Rain.", wake) == "Rain."
    kept = "Agnese Corvo speaks softly to the room."
    assert _cut(kept, wake) == kept


LIVE_TIME_MARKER = (
    "Ilse Brandt speaks. Maren Holt makes an attempt. Time passes. Ilse Brandt makes an attempt."
)
"""Toll-house soak #32 (seed 46), turn 8, in part: the clamps left "Time passes." alone, a
copy of turn 1's "(Time passes.)" marker in a beat in which no time passed."""


def test_the_time_skip_marker_as_prose_is_cut(wake: SessionState) -> None:
    assert drop_prompt_echo(LIVE_TIME_MARKER, TOLL) == ""
    assert _cut("Time passes. Some time passed. Rain.", wake) == "Rain."
    assert _cut("The time passes.", wake) == ""  # toll-house #34's rerun, turns 5 and 7
    kept = "Time passes slowly while the rain drums on the shutters."
    assert _cut(kept, wake) == kept


def test_negative_control_without_the_time_marker_words_the_copy_stays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(prompt_echo, "_TIME_MARKER_WORDS", frozenset())
    assert drop_prompt_echo(LIVE_TIME_MARKER, TOLL) == "Time passes."


LIVE_BARE = "Fails. The trapdoor to the cellar is shut and bolted from the hall side."
"""Vintners-wake soak #31's rerun (seed 46), turn 4: the turn-2 event "Fails" told again."""


def test_an_outcome_word_without_anyone_who_failed_is_cut(wake: SessionState) -> None:
    kept = "The trapdoor to the cellar is shut and bolted from the hall side."
    assert drop_prompt_echo(LIVE_BARE, TOLL) == kept
    assert _cut("Fails.", wake) == ""
    assert (
        _cut("Agnese Corvo fails. Everyone fails.", wake) == "Agnese Corvo fails. Everyone fails."
    )


def test_negative_control_with_no_bare_outcomes_the_fragment_stays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(prompt_echo, "BARE_OUTCOMES", frozenset())
    assert drop_prompt_echo(LIVE_BARE, TOLL) == LIVE_BARE


def test_negative_control_without_the_speech_marker_words_the_copy_stays(
    wake: SessionState, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(prompt_echo, "_SPEECH_MARKER_WORDS", frozenset())
    assert _cut("Agnese Corvo speaks. Rain.", wake) == "Agnese Corvo speaks. Rain."


TITLED_WHISPER = "The Vintner's Wake whispers something."
"""Vintners-wake #35's rerun (seed 50), turn 6: the whole narration, after Agnese whispered."""


def test_a_marker_with_the_title_as_its_speaker_is_cut(wake: SessionState) -> None:
    assert _cut(f"{TITLED_WHISPER} A bell tolls.", wake) == "A bell tolls."
    kept = "Agnese Corvo whispers something. The wake whispers on in the rain."
    assert _cut(kept, wake) == kept


def test_negative_control_without_the_title_test_the_titled_marker_stays(
    wake: SessionState, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(prompt_echo, "_titled_marker", lambda words, title: False)
    assert _cut(f"{TITLED_WHISPER} A bell tolls.", wake) == f"{TITLED_WHISPER} A bell tolls."


LIVE_LINKS = (
    "The room is still locked, and the sound of the trapdoor is sealed. The sound of the"
    " trapdoor is sealed."
)
"""Vintners-wake #52 (seed 68), turn 2: the stage's "from hall to cellar: sound sealed, sight
sealed" as a fact of the story, twice."""


@pytest.mark.parametrize(
    "copy",
    [
        LIVE_LINKS,
        "The sound is sealed.",  # vintners-wake #51 (seed 67), turns 2 and 7
        "From the hall to the balcony, sound open and sight open.",
        "The sight of the balcony remains open.",
        "The sound of the trapdoor to the cellar is sealed and the sound of the trapdoor to the"
        " cellar is sealed.",  # vintners-wake #56 (seed 72), turn 2
    ],
)
def test_the_stage_links_told_as_facts_are_cut(copy: str, wake: SessionState) -> None:
    assert _cut(f"A bell tolls. {copy}", wake) == "A bell tolls."


@pytest.mark.parametrize(
    "story",
    [
        "No sound came from the sealed cellar.",
        "The sound of the bell carries through the open door.",
        "Felix Aubert was out of sight on the balcony.",
    ],
)
def test_a_story_of_sounds_and_sights_stays(story: str, wake: SessionState) -> None:
    assert _cut(story, wake) == story


def test_negative_control_with_a_gap_of_five_words_the_live_link_stays(
    wake: SessionState, monkeypatch: pytest.MonkeyPatch
) -> None:
    narrow = prompt_echo.LINK_STAGING.pattern.replace(r"{0,6}?", r"{0,5}?")
    assert narrow != prompt_echo.LINK_STAGING.pattern
    monkeypatch.setattr(prompt_echo, "LINK_STAGING", re.compile(narrow, re.IGNORECASE))
    live = "The sound of the trapdoor to the cellar is sealed."
    assert _cut(f"A bell tolls. {live}", wake) == f"A bell tolls. {live}"


def test_negative_control_without_the_link_pattern_the_copy_stays(
    wake: SessionState, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(prompt_echo, "LINK_STAGING", re.compile(r"(?!)"))
    # The repetition cut still takes the second telling (a clause said again as a sentence).
    told = LIVE_LINKS[: LIVE_LINKS.rindex(" The sound")]
    assert _cut(f"A bell tolls. {LIVE_LINKS}", wake) == f"A bell tolls. {told}"


def test_an_outcome_pointing_at_nothing_opens_no_narration(wake: SessionState) -> None:
    """Vintners-wake #53 (seed 69), turn 5: "It succeeds." was the whole narration."""
    assert _cut("It succeeds.", wake) == ""
    assert _cut("It fails. The candles gutter.", wake) == "The candles gutter."
    after_an_act = "Agnese Corvo pulls at the bolt. It fails."
    assert _cut(after_an_act, wake) == after_an_act


LIVE_EVENT_TAGS = (
    "event The chapel bell tolls midnight; by custom the will must now be read aloud over the"
    " coffin. event Agnese Corvo reaches for the door and opens the coffin."
)
"""Vintners-wake #54 (seed 70), turn 5: the transcript's event tag, bare, before each event."""


def test_live_orphans_and_bare_event_tags_are_cut(wake: SessionState) -> None:
    """Vintners-wake #54 (seed 70), turn 8: the speech marker went, then "It fails." opened."""
    live = "Agnese Corvo speaks. It fails. The coffin lies open in the middle of the hall."
    assert _cut(live, wake) == "The coffin lies open in the middle of the hall."
    assert _cut(LIVE_EVENT_TAGS, wake) == ""
    story = "It was an event Agnese never forgot."
    assert _cut(story, wake) == story


def test_negative_control_without_the_bare_tag_the_event_tags_stay(
    wake: SessionState, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = re.compile(PROMPT_LABEL.pattern.replace("|(?:^|(?<=[.!?;] ))event (?=[A-Z])", ""), re.M)
    assert old.pattern != PROMPT_LABEL.pattern
    monkeypatch.setattr(prompt_echo, "PROMPT_LABEL", old)
    assert _cut(LIVE_EVENT_TAGS, wake) == LIVE_EVENT_TAGS


def test_negative_control_without_the_orphan_test_it_succeeds_is_narrated(
    wake: SessionState, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(prompt_echo, "_orphan_outcome", lambda sentence: False)
    assert _cut("It succeeds.", wake) == "It succeeds."


LIVE_BARE_MARKER = "(Dorotea Sand attempts to...)"
"""Vintners-wake #57 (seed 73), turn 10: the whole committed narration, the attempt marker
without its make-verb, unfinished."""


@pytest.mark.parametrize(
    "story", ["Maren Holt attempts it again.", "Dorotea Sand attempts to lift the lid."]
)
def test_the_marker_without_its_verb_is_cut(story: str, wake: SessionState) -> None:
    assert _cut(LIVE_BARE_MARKER, wake) == ""
    assert _cut(f"Rain. {LIVE_BARE_MARKER}", wake) == "Rain."
    assert _cut("Dorotea Sand and Felix Aubert attempt.", wake) == ""
    assert _cut(story, wake) == story


LIVE_BACKING = "Dorotea Sand attempts to read aloud over the coffin, but no words come."
"""The outcome in that turn of Dorotea Sand's attempt of the beat before, "read aloud over the
coffin" (live "Dorotea Sand's attempt to ... was not successful."; a possessive names no
act): it backs her "attempts" for `physics.agency`, which would otherwise cut the marker as
an act no event confirms."""


def _narrated_beside_backing(tmp_path: Path, narration: str) -> list[str]:
    """The narration of a second turn whose event is the outcome of Dorotea Sand's (C4)
    attempt of the first."""
    beats: list[str] = []

    def answer(request: ProviderRequest) -> Any:
        if request.agent == "director":
            beats.append(request.agent)
            if len(beats) == 1:
                return director_answer(["C4"])
            event = {"kind": "action_outcome", "text": LIVE_BACKING, "actor_id": "C4",
                     "witness_ids": ["C1", "C2", "C4", "C5"], "utterance_ref": None}  # fmt: skip
            return director_answer([], events=[event])
        if request.agent == "prose":
            return {"narration": "Rain." if len(beats) == 1 else narration}
        if request.agent.startswith("character"):
            return {"speech": None, "thought": None, "action_intent": "read aloud over the coffin"}
        return {"outcome": LIVE_BACKING}

    runner, store, _ = recording_runner(tmp_path, answer, KernelLimits())
    sid = run(runner.create_session("the-vintners-wake")).id
    run(runner.play_turn(sid, TurnInput(speech="Read it.")))
    run(runner.play_turn(sid, TurnInput(speech="Let's get on with it.")))
    return [r.text for r in store.history(sid) if isinstance(r, NarrationRecord)]


def test_a_turn_commits_no_marker_without_its_verb(tmp_path: Path) -> None:
    told = _narrated_beside_backing(tmp_path, f"The bolt holds. {LIVE_BARE_MARKER}")
    assert told == ["Rain.", "The bolt holds."]


def test_negative_control_without_the_attempt_only_words_the_marker_is_committed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(prompt_echo, "_ATTEMPT_ONLY", frozenset())
    told = f"The bolt holds. {LIVE_BARE_MARKER}"
    unbracketed = f"The bolt holds. {LIVE_BARE_MARKER[1:-1]}"  # `without_brackets`
    assert _narrated_beside_backing(tmp_path, told) == ["Rain.", unbracketed]


BRACKETED = (
    "The Vintner's Wake. (Agnese Corvo speaks.)\n(Dorotea Sand attempts to read the will at"
    " midnight as the law requires, despite having no vision. She succeeds and remains silent.)"
)
"""Vintners-wake #61 (seed 77), turn 2: the renderer's whole answer, the transcript's form."""


def test_sentences_in_the_transcripts_brackets_are_told_without_them(
    wake: SessionState,
) -> None:
    event = BRACKETED[BRACKETED.index("(Dorotea") + 1 : -1]
    assert _cut(BRACKETED, wake, [event]) == event
    aside = "Maren (the keeper of the keys) nods."
    assert _cut(aside, wake) == aside


def test_negative_control_without_the_unbracketing_the_reader_sees_brackets(
    wake: SessionState, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(prompt_echo, "without_brackets", lambda text: text)
    assert _cut(BRACKETED, wake, [BRACKETED[BRACKETED.index("(Dorotea") + 1 : -1]]).startswith("(")
