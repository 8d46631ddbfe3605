"""One happening told twice in a beat, in other words (`physics.near_duplicate`)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tavern.physics.clamps as clamps_module
from tavern.physics import ClampContext, clamp_decision
from tavern.physics.attempt_told import act_stem
from tavern.physics.near_duplicate import ATTEMPTING, drop_near_duplicates
from tavern.physics.redaction import salient_tokens
from tavern.records import NARRATOR, DirectorDecision, PerceptionEvent

from .test_properties import SETTINGS
from .test_rules import CAST, FLAT, attempt

HALL = list(CAST)
LIVE_PAIRS = [
    (
        "Tomas walks slowly to the nearest window and looks outside",
        "Tomas tries this, walks slowly to the nearest window and looks outside.",
    ),  # toll-house #35's rerun (seed 49), turn 2, in this cast
]


def _event(text: str, witnesses: list[str], actor: str | None = None) -> PerceptionEvent:
    return PerceptionEvent(kind="world_event", text=text, actor_id=actor, witness_ids=witnesses)


def _clamped(*events: PerceptionEvent) -> list[str]:
    proposal = DirectorDecision(events=list(events), next_speakers=[NARRATOR])
    walk = attempt(1, "C3", "walks slowly to the nearest window and looks outside")
    out, _ = clamp_decision(proposal, ClampContext(scene=FLAT, cast=CAST, history=[walk]))
    return [e.text for e in out.events]


@pytest.mark.parametrize(("first", "again"), LIVE_PAIRS)
def test_the_live_second_wording_goes(first: str, again: str) -> None:
    assert _clamped(_event(first, HALL), _event(again, HALL)) == [first]


LAMP = "The light in the lamp flickers and the hearthstone begins to drop."
SHORTER = "The lamp flickers and the hearthstone drops."
"""Toll-house #37 (seed 51), turn 1: a shorter paraphrase, which stays (`SAME_SHARE`)."""


def test_a_second_wording_for_more_witnesses_with_news_or_shorter_stays() -> None:
    first, again = LIVE_PAIRS[0]
    assert _clamped(_event(first, ["C1"]), _event(again, HALL)) == [first, again]
    news = "The light in the lamp flickers and the hearthstone begins to drop and crack."
    assert _clamped(_event(LAMP, HALL), _event(news, HALL)) == [LAMP, news]
    assert _clamped(_event(LAMP, HALL), _event(SHORTER, HALL)) == [LAMP, SHORTER]


@pytest.mark.parametrize(("first", "again"), LIVE_PAIRS)
def test_negative_control_without_the_rule_both_wordings_are_told(
    monkeypatch: pytest.MonkeyPatch, first: str, again: str
) -> None:
    without = [r for r in clamps_module.CLAMP_RULES if r.name != "near_duplicate_event"]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", without)
    assert _clamped(_event(first, HALL), _event(again, HALL)) == [first, again]


WORDS = ["lamp", "door", "flickers", "drops", "the", "and", "tries", "rain", "bolt"]


def _words(text: str) -> set[str]:
    return {act_stem(w) for w in salient_tokens(text)} - ATTEMPTING


def _lost_words(events: list[PerceptionEvent], kept: list[PerceptionEvent]) -> set[str]:
    """Words of the dropped events that some witness of theirs reads in no kept event."""
    lost: set[str] = set()
    for ev in events:
        if ev in kept:
            continue
        for witness in ev.witness_ids:
            seen = set().union(*(_words(k.text) for k in kept if witness in k.witness_ids))
            lost |= _words(ev.text) - seen
    return lost


DRAFTS = st.lists(
    st.tuples(
        st.lists(st.sampled_from(WORDS), min_size=1, max_size=6),
        st.lists(st.sampled_from(HALL), min_size=1, max_size=3, unique=True),
    ),
    max_size=5,
)


@SETTINGS
@given(DRAFTS)
def test_no_witness_loses_a_word_it_would_have_read(
    drafts: list[tuple[list[str], list[str]]],
) -> None:
    events = [_event(" ".join(words), witnesses) for words, witnesses in drafts]
    out, _ = drop_near_duplicates(DirectorDecision(events=events), None)  # type: ignore[arg-type]
    assert _lost_words(events, out.events) == set()


def test_negative_control_a_rule_blind_to_witnesses_and_words_is_caught() -> None:
    """Dropping every later event of one actor, as a careless rule would, loses words."""
    events = [_event("the lamp flickers", ["C1"]), _event("the bolt drops", ["C1", "C2"])]
    assert _lost_words(events, events[:1]) == {"bolt", "drop"}
