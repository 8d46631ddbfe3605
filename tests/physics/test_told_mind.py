"""No event tells anyone's thinking (`physics.told_mind`): witnesses perceive acts, not minds."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tavern.physics.clamps as clamps_module
from tavern.physics import ClampContext, clamp_decision
from tavern.physics.told_mind import THINKING, without_thinking_clauses
from tavern.records import NARRATOR, DirectorDecision, PerceptionEvent

from .test_properties import SETTINGS
from .test_rules import CAST, FLAT, attempt

LIVE = "Ana reaches for the door, thinking he might have a reason to open the toll box."
"""Toll-house #62 (seed 76), turn 5, under the test cast's name for C1: the outcome of the
human's "reaches for the door" after her line "I think we should open it now."."""


def _outcomes(*texts: str) -> list[str]:
    events = [
        PerceptionEvent(kind="action_outcome", text=t, actor_id="C1", witness_ids=list(CAST))
        for t in texts
    ]
    ctx = ClampContext(
        scene=FLAT, cast=CAST, history=[attempt(1, "C1", "reaches for the door", turn=2)],
        turn_number=2,
    )  # fmt: skip
    out, _ = clamp_decision(DirectorDecision(events=events, next_speakers=[NARRATOR]), ctx)
    assert clamp_decision(out, ctx) == (out, [])
    return [e.text for e in out.events]


def test_the_live_thought_is_cut_and_the_reach_stays() -> None:
    assert _outcomes(LIVE) == ["Ana reaches for the door."]


@pytest.mark.parametrize(
    ("told", "committed"),
    [
        ("Ana reaches for the door. She wonders who locked it.", "Ana reaches for the door."),
        ("Ana reaches for the door. Rui wonders who locked it.", "Ana reaches for the door."),
        ("Ana reaches for the door, quietly hoping it is open.", "Ana reaches for the door."),
    ],
)
def test_a_cast_member_thinking_is_no_event(told: str, committed: str) -> None:
    assert _outcomes(told) == [committed]


@pytest.mark.parametrize(
    "kept",
    [
        "Ana reaches for the door and notices it is locked.",
        "Ana reaches for the door, realizing it is locked.",
        "Ana reaches for the door, and the rain keeps drumming on the shutters.",
        "Ana reaches for the door; the thought of the river stops her.",
    ],
)
def test_perceiving_and_finding_out_stay(kept: str) -> None:
    assert _outcomes(kept) == [kept]


def test_negative_control_without_the_rule_the_thought_is_an_outcome(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    without = [r for r in clamps_module.CLAMP_RULES if r.name != "told_mind"]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", without)
    assert _outcomes(LIVE) == [LIVE]


@SETTINGS
@given(
    st.sampled_from(["Ana waits", "Rain falls", "The lamp gutters low"]),
    st.sampled_from(THINKING),
    st.sampled_from(["of the river", "that the box is empty", "about the coin"]),
)
def test_a_thinking_clause_never_survives_and_cutting_is_idempotent(
    head: str, verb: str, tail: str
) -> None:
    text = f"{head}, {verb} {tail}."
    cut = without_thinking_clauses(text)
    assert cut == f"{head}."
    assert without_thinking_clauses(cut) == cut
