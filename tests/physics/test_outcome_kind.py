"""An actor's event telling their waiting attempt is its action_outcome (`physics.outcome_kind`)."""

from __future__ import annotations

import pytest

import tavern.physics.clamps as clamps_module
import tavern.physics.outcome_kind as outcome_kind
from tavern.physics import ClampContext, clamp_decision
from tavern.records import NARRATOR, DirectorDecision, PerceptionEvent

from .test_rules import CAST, EVERYONE, FLAT, attempt, speech

HALL = list(CAST)
WALK = "walks slowly to the nearest window and looks outside"
LIVE = (
    "A small, upright woman in layered black silk and a black lace veil walks slowly to the"
    " nearest window and looks outside."
)
"""Vintners-wake #42 (seed 58), turn 2: the Director's "arrival" by the human's character."""


def _event(text: str, kind: str = "arrival", actor: str | None = "C1") -> PerceptionEvent:
    return PerceptionEvent(kind=kind, text=text, actor_id=actor, witness_ids=HALL)  # type: ignore[arg-type]


def _kinds(*events: PerceptionEvent, attempts: tuple[str, ...] = (WALK,)) -> list[str]:
    history = [attempt(i + 1, "C1", text) for i, text in enumerate(attempts)]
    proposal = DirectorDecision(events=list(events), next_speakers=[NARRATOR])
    ctx = ClampContext(scene=FLAT, cast=CAST, history=history)
    out, changes = clamp_decision(proposal, ctx)
    assert clamp_decision(out, ctx) == (out, [])
    assert all(c.after == "action_outcome" for c in changes if c.rule == "outcome_kind")
    return [e.kind for e in out.events]


def test_the_live_arrival_telling_the_walk_is_its_outcome() -> None:
    assert _kinds(_event(LIVE)) == ["action_outcome"]


def test_other_events_keep_their_kind() -> None:
    bell = _event("A bell tolls in the chapel.", kind="world_event", actor=None)
    unrelated = _event("Smoke from the hearth stings her eyes.", kind="sensory_cue")
    assert _kinds(bell, unrelated, attempts=("reaches for the door",)) == [
        "world_event",
        "sensory_cue",
    ]


def test_every_telling_changes_beside_an_outcome_and_beside_another() -> None:
    outcome = _event("Ana reaches the window.", kind="action_outcome")
    assert _kinds(outcome, _event(LIVE)) == ["action_outcome", "action_outcome"]
    # Both tellings: a later rule may drop the first, and clamping again must change nothing.
    assert _kinds(_event(LIVE), _event("Ana looks outside.", kind="sensory_cue")) == [
        "action_outcome",
        "action_outcome",
    ]


def test_without_a_waiting_attempt_nothing_changes() -> None:
    assert _kinds(_event(LIVE), attempts=()) == ["arrival"]


def test_negative_control_without_the_rule_the_arrival_stays_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    without = [(n, r) for n, r in clamps_module.CLAMP_RULES if n != "outcome_kind"]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", without)
    assert _kinds(_event(LIVE)) == ["arrival"]


def test_an_outcome_a_later_rule_drops_leaves_the_clamps_idempotent() -> None:
    # The Director's own outcome copies a spoken line (dropped by `spoken_copy`, which runs
    # later); the arrival telling the walk must be its outcome in the first pass already.
    said = "I will look out of the window for you."
    line = speech(9, "C2", said, EVERYONE)
    copy = _event(said, kind="action_outcome")
    history = [attempt(1, "C1", WALK), line]
    proposal = DirectorDecision(events=[copy, _event(LIVE)], next_speakers=[NARRATOR])
    ctx = ClampContext(scene=FLAT, cast=CAST, history=history)
    out, _ = clamp_decision(proposal, ctx)
    assert [e.kind for e in out.events] == ["action_outcome"]
    assert clamp_decision(out, ctx) == (out, [])


SITS = "sits down by the fire"
LIVE_UTTERANCE = "Ana sits down by the fire."
"""Toll-house #67 (seed 81), turn 9: the Director's utterance by the human's character
("Ilse Brandt sits down by the fire.", here with a cast name of these tests); the attempt stayed
waiting and the follow-up then told "Ilse Brandt fails"."""


def test_an_utterance_telling_no_speech_is_the_attempts_outcome() -> None:
    assert _kinds(_event(LIVE_UTTERANCE, kind="utterance"), attempts=(SITS,)) == ["action_outcome"]


@pytest.mark.parametrize(
    "text",
    [
        "Ana says she sits down by the fire.",
        "Ana whispers about the fire.",
        "Ana calls out by the fire.",
    ],
)
def test_an_utterance_telling_speech_keeps_its_kind(text: str) -> None:
    assert _kinds(_event(text, kind="utterance"), attempts=(SITS,)) == ["utterance"]


def test_negative_control_with_every_utterance_as_speech_the_act_stays_an_utterance(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(outcome_kind, "_tells_speech", lambda ev: ev.kind == "utterance")
    assert _kinds(_event(LIVE_UTTERANCE, kind="utterance"), attempts=(SITS,)) == ["utterance"]


def test_an_apostrophe_is_no_quotation() -> None:
    """A curly apostrophe ("Ana’s") tells no speech: the first version of the speech test
    read it as a quotation mark. (An event with a quotation of its own words goes by the
    clamp `authored_speech` before this kind is read.)"""
    quoted = _event('Ana, by the fire: "Sit down."', kind="utterance")
    assert outcome_kind._tells_speech(quoted)
    curly = _event("Ana’s hand finds the fire; she sits down by it.", kind="utterance")
    assert _kinds(curly, attempts=(SITS,)) == ["action_outcome"]
