"""Narration that recites the stage or an appearance is cut in code (`agents.recital`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tavern.agents import prose, recital
from tavern.agents.recital import RECITAL_WORDS, drop_recitals
from tavern.records import NarrationRecord, SessionState, TurnInput
from tavern.runner.limits import KernelLimits

from .kit import recording_runner, run
from .test_narration_contract import _prose_says
from .test_prompt_echo import _cut, wake

__all__ = ["wake"]  # the fixture, shared with the prompt-copy tests

LIVE_STAGE = (
    "In the vintner's house on the hill, a stone house: a long hall with the open coffin under"
    " candles, a narrow balcony above it, and a vaulted cellar below reached by a trapdoor in"
    " the hall floor, now shut."
)
"""Vintners-wake soak #15 (seed 31), turns 3, 5, 7 and 8: location and description."""
LIVE_LOOKS = (
    "A small, upright woman in layered black silk and a black lace veil, a cane of dark"
    " vinewood in her gloved hand."
)
"""The same soak, turn 4: Agnese Corvo's appearance (the human's character)."""
FACT = "The trapdoor to the cellar is shut and bolted from the hall side."

BORROWINGS = [
    "Candles gutter over the open coffin under the balcony.",
    "Agnese Corvo, upright in her black silk, grips the cane in her gloved hand.",
    "The trapdoor in the hall floor stays shut.",
    "Rain drums on the narrow balcony above the long hall.",
]
"""Sentences that borrow a few words of the stage or an appearance to tell something: kept."""


def test_the_live_recitals_are_cut(wake: SessionState) -> None:
    assert _cut(f"{LIVE_STAGE} {FACT}", wake) == FACT
    assert _cut(f"{LIVE_LOOKS} {LIVE_STAGE[3:].capitalize()} {FACT}", wake) == FACT
    assert _cut(LIVE_STAGE, wake) == ""


@pytest.mark.parametrize("sentence", BORROWINGS)
def test_a_borrowing_that_tells_something_stays(sentence: str, wake: SessionState) -> None:
    assert _cut(sentence, wake) == sentence


def test_an_events_own_words_are_no_recital(wake: SessionState) -> None:
    """The Director may describe a person as the sheet does; telling that event is no recital."""
    told = "A small, upright woman in layered black silk and a black lace veil steps in."
    assert _cut(told, wake, events=[told]) == told
    assert _cut(told, wake) == ""


WORD = st.sampled_from("rain lamp door river bell hall coffin candle wax silk".split())


@given(
    st.lists(st.tuples(st.lists(WORD, min_size=2, max_size=12), st.booleans()), min_size=1),
    st.integers(0, 10),
)
def test_exactly_the_sentences_with_a_long_run_of_the_stage_go(
    plan: list[tuple[list[str], bool]], at: int
) -> None:
    """Sentences of words the stage never uses, some holding a run of the stage's own words
    (`RECITAL_WORDS` long, from any position): exactly those go, and cutting again keeps all."""
    stage = LIVE_STAGE.rstrip(".").replace(",", "").replace(":", "").split()
    run_words = stage[at : at + RECITAL_WORDS]
    sentences = [
        " ".join([*words[:1], *run_words, *words[1:]] if recites else words).capitalize() + "."
        for words, recites in plan
    ]
    kept = drop_recitals(" ".join(sentences), [LIVE_STAGE])
    told = [s for s, (_, recites) in zip(sentences, plan, strict=True) if not recites]
    assert kept == " ".join(told)
    assert drop_recitals(kept, [LIVE_STAGE]) == kept


def _narrated(tmp_path: Path, narration: str) -> list[str]:
    runner, store, _ = recording_runner(tmp_path, _prose_says(narration), KernelLimits())
    sid = run(runner.create_session("the-vintners-wake")).id
    run(runner.play_turn(sid, TurnInput(thought="Someone here is lying to me.")))
    return [r.text for r in store.history(sid) if isinstance(r, NarrationRecord)]


def test_a_turn_commits_no_recital(tmp_path: Path) -> None:
    """A thought-only beat (turn 3 of the soak): the recital goes, and with it the narration."""
    assert _narrated(tmp_path, LIVE_STAGE) == []
    assert _narrated(tmp_path / "2", f"{LIVE_STAGE} Rain drums on the roof.") == [
        "Rain drums on the roof."
    ]


def test_negative_control_without_the_filter_the_recital_is_committed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(prose, "drop_recitals", lambda text, *_: text)
    assert _narrated(tmp_path, LIVE_STAGE) == [LIVE_STAGE]


def test_negative_control_a_shorter_run_would_cut_a_borrowing(
    wake: SessionState, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Why `RECITAL_WORDS` is 8: at 4, the borrowings above would go too."""
    monkeypatch.setattr(recital, "RECITAL_WORDS", 4)
    recital._runs.cache_clear()
    try:
        assert _cut(BORROWINGS[0], wake) == ""
    finally:
        recital._runs.cache_clear()
