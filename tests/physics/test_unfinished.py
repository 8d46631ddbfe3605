"""Event texts lose a last sentence that breaks off (`physics.unfinished`)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tavern.physics.clamps as clamps_module
from tavern.physics import ClampContext, clamp_decision, unfinished
from tavern.physics.unfinished import without_unfinished_end
from tavern.records import NARRATOR, DirectorDecision, PerceptionEvent

from .test_properties import SETTINGS
from .test_rules import CAST, FLAT

LIVE = (
    "He sees a window behind the trapdoor. He feels a sense of relief and a sense of being"
    " helped. He then hears a voice from the"
)
"""Vintners-wake #35 (seed 50), turn 2: the follow-up's outcome, after clamp
`restated_event` took its first sentence."""


def _clamped(*texts: str) -> list[str]:
    events = [PerceptionEvent(kind="world_event", text=t, witness_ids=list(CAST)) for t in texts]
    proposal = DirectorDecision(events=events, next_speakers=[NARRATOR])
    out, _ = clamp_decision(proposal, ClampContext(scene=FLAT, cast=CAST))
    return [e.text for e in out.events]


def test_the_live_broken_sentence_is_cut_and_a_broken_event_goes() -> None:
    finished = LIVE[: LIVE.index(" He then")]
    assert _clamped(LIVE, "A voice from the", "Rain falls on the roof") == [
        finished,
        "Rain falls on the roof",
    ]


def test_a_broken_last_clause_goes_and_the_sentence_stays() -> None:
    """A foreign word cut from "... lies open in the中间" (the foreign-script test's text)."""
    broken = "The candles gutter; the coffin lies open in the"
    assert _clamped(broken, "Rain falls, and the") == ["The candles gutter", "Rain falls"]


FRAGMENT = "The bell tolls twice. Despite his efforts"
"""Vintners-wake #35's rerun (seed 50), turn 5, after an outcome sentence: a clause alone."""


def test_an_openers_clause_alone_is_cut_a_whole_one_stays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    whole = "When the bell tolls the candles gutter low"
    assert _clamped(FRAGMENT, whole) == ["The bell tolls twice.", whole]
    monkeypatch.setattr(unfinished, "_fragment", lambda sentence: False)  # negative control
    assert _clamped(FRAGMENT) == [FRAGMENT]


def test_negative_control_without_the_rule_the_broken_sentence_is_told(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    without = [r for r in clamps_module.CLAMP_RULES if r.name != "unfinished_sentence"]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", without)
    assert _clamped(LIVE) == [LIVE]


WORDS = ["the", "door", "holds", "in", "on", "Maren", "and", "of", "her", "rain", "falls"]


@SETTINGS
@given(
    st.lists(st.sampled_from([*WORDS, "."]), min_size=1, max_size=12),
    st.sampled_from([".", "!", ""]),
)
def test_a_finished_text_stays_and_cutting_twice_is_cutting_once(
    words: list[str], mark: str
) -> None:
    text = " ".join(words).replace(" .", ".") + mark
    once = without_unfinished_end(text)
    assert without_unfinished_end(once) == once
    if mark or words[-1] not in {"the", "and", "of", "."}:
        assert once == text


OPEN_CLAUSE = "Dorotea Sand opens the coffin. The coffin lies open,"
"""Vintners-wake #59 (seed 75), turn 7: the follow-up's outcome, committed so."""


def test_an_event_ending_on_a_clause_mark_loses_the_mark(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _clamped(OPEN_CLAUSE, "Rain falls;", "The lamp gutters: the oil") == [
        OPEN_CLAUSE.removesuffix(","),
        "Rain falls",
        "The lamp gutters: the oil",
    ]
    monkeypatch.setattr(unfinished, "_OPEN_CLAUSE", re.compile(r"(?!)"))  # negative control
    assert _clamped(OPEN_CLAUSE) == [OPEN_CLAUSE]
