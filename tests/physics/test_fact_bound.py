"""Clamp `fact_bound`: at most `MAX_NEW_FACTS` new facts a beat and `MAX_FACTS` standing;
the beat's first proposals are kept, the rest refused and journaled (issue 41, hole 3)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tavern.physics.clamps as clamps_module
from tavern.physics import ClampContext, apply_canon, clamp_decision
from tavern.physics.clamps import MAX_FACTS, MAX_NEW_FACTS, bound_facts
from tavern.records import DirectorDecision, Scene, SceneDelta

FACTS = [f"The {n}th lamp is lit." for n in range(40)]


def _beat(scene: Scene, add: list[str], remove: list[str] = ()) -> tuple[Scene, list[str]]:  # type: ignore[assignment]
    """The stage after one clamped beat proposing `add` and `remove`, and the refused facts."""
    proposal = DirectorDecision(scene=SceneDelta(add_facts=add, remove_facts=list(remove)))
    out, changes = clamp_decision(proposal, ClampContext(scene=scene))
    assert clamp_decision(out, ClampContext(scene=scene)) == (out, [])  # idempotent
    refused = [c.before for c in changes if c.rule == "fact_bound"]
    return apply_canon(scene, out), refused


def test_a_beat_adds_at_most_its_share_and_the_first_ones() -> None:
    scene, refused = _beat(Scene(location="inn"), FACTS[:3])
    assert scene.facts == FACTS[:MAX_NEW_FACTS] and refused == FACTS[MAX_NEW_FACTS:3]


def test_the_stage_holds_at_most_max_facts_and_a_removal_makes_room() -> None:
    full = Scene(location="inn", facts=FACTS[:MAX_FACTS])
    scene, refused = _beat(full, [FACTS[20]])
    assert scene.facts == full.facts and refused == [FACTS[20]]
    scene, refused = _beat(full, [FACTS[20]], remove=[FACTS[0]])
    assert scene.facts == [*FACTS[1:MAX_FACTS], FACTS[20]] and refused == []


def test_a_standing_fact_costs_no_room_and_a_repeated_one_goes() -> None:
    full = Scene(location="inn", facts=FACTS[:MAX_FACTS])
    proposal = DirectorDecision(scene=SceneDelta(add_facts=[FACTS[0], FACTS[1]]))
    assert bound_facts(proposal, ClampContext(scene=full)) == (proposal, [])
    scene, refused = _beat(Scene(location="inn"), [FACTS[5], FACTS[5]])
    assert scene.facts == [FACTS[5]] and refused == [FACTS[5]]


@given(st.lists(st.lists(st.sampled_from(FACTS), max_size=3), max_size=30))
def test_facts_stay_bounded_over_any_beats(beats: list[list[str]]) -> None:
    scene = Scene(location="inn", facts=FACTS[:3])
    for add in beats:
        before = len(scene.facts)
        scene, _ = _beat(scene, add)
        assert len(scene.facts) <= max(MAX_FACTS, before)
        assert len(scene.facts) - before <= MAX_NEW_FACTS


def test_negative_control_without_the_rule_the_stage_overflows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    without = [r for r in clamps_module.CLAMP_RULES if r.name != "fact_bound"]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", without)
    scene = Scene(location="inn")
    for i in range(0, 39, 3):
        scene, _ = _beat(scene, FACTS[i : i + 3])
    assert len(scene.facts) > MAX_FACTS
