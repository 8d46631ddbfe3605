"""The witness clamp's shortcuts answer exactly what their plain forms answered.

`perceivers_of_zone` looks the zone ids and the links from the zone up once, not per present
character and channel; `clamp_witnesses` applies the canon only once an event has an actor
and asks each (stage, zone) once; it, `clamp_zone_moves` and `clamp_link_updates` hand the
decision back itself when they change nothing (a copy equal to it before). Each equals the
form it replaced, on generated worlds with hostile decisions, on every intermediate decision
of the recorded play's clamp calls, and in whole `clamp_decision` answers. The negative
control plants a perceivers lookup that reads every link as open for sound, and is caught.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tavern.physics import structure, zones
from tavern.physics.canon import apply_canon, preview_zone_ids
from tavern.physics.clamps import CLAMP_RULES, ClampContext, clamp_decision
from tavern.physics.zones import Channel, zone_of, zone_reaches
from tavern.records import ClampChange, DirectorDecision, Scene, SpeechRecord

from .played import played
from .worlds import World, hostile_decisions, worlds

Answer = tuple[DirectorDecision, list[ClampChange]]


def _reference_perceivers(scene: Scene, zone: str, channels: Sequence[Channel]) -> list[str]:
    """`perceivers_of_zone` as first written."""
    found = []
    for slot in scene.present:
        own = zone_of(scene, slot)
        if own is not None and any(zone_reaches(scene, zone, own, c) for c in channels):
            found.append(slot)
    return found


def _reference_speech_audience(ctx: ClampContext, seq: int | None) -> set[str] | None:
    if seq is None:
        return None
    for record in ctx.history:
        if isinstance(record, SpeechRecord) and record.seq == seq:
            return set(record.audience.perceivers) | set(record.audience.aware)
    return None


def _reference_witnesses(d: DirectorDecision, ctx: ClampContext) -> Answer:
    """`clamp_witnesses` as first written."""
    after = apply_canon(ctx.scene, d)
    events, changes = [], []
    for i, ev in enumerate(d.events):
        if ev.actor_id is not None and ev.actor_id not in ctx.present:
            changes.append(
                ClampChange(
                    rule="witness_zone", path=f"events[{i}].actor_id", before=ev.actor_id,
                    after=None,
                )
            )  # fmt: skip
            ev = ev.model_copy(update={"actor_id": None})
        allowed = set(ctx.present)
        if ev.actor_id is not None:
            allowed = {ev.actor_id}
            for scene in (ctx.scene, after):
                origin = zone_of(scene, ev.actor_id)
                if origin is not None:
                    allowed |= set(_reference_perceivers(scene, origin, ["sound", "sight"]))
            allowed &= set(ctx.present)
        heard = _reference_speech_audience(ctx, ev.utterance_ref)
        if heard is not None:
            allowed &= heard
        witnesses = [w for w in dict.fromkeys(ev.witness_ids) if w in allowed]
        if witnesses != ev.witness_ids:
            changes.append(
                ClampChange(
                    rule="witness_zone", path=f"events[{i}].witness_ids",
                    before=ev.witness_ids, after=witnesses,
                )
            )  # fmt: skip
            ev = ev.model_copy(update={"witness_ids": witnesses})
        events.append(ev)
    return d.model_copy(update={"events": events}), changes


def _reference_zone_moves(d: DirectorDecision, ctx: ClampContext) -> Answer:
    """`clamp_zone_moves` as first written (always a copy)."""
    existing = set(preview_zone_ids(ctx.scene, []))
    declared: set[str] = set()
    moved: set[str] = set()
    kept, changes = [], []
    for i, move in enumerate(d.zone_moves):
        reason = None
        if move.character_id not in ctx.present or move.character_id in moved:
            reason = "absent or repeated character"
        elif move.to_zone not in existing | declared and not (
            move.new_zone_label and structure._ZONE_ID.match(move.to_zone)
        ):
            reason = "unknown zone"
        if reason:
            changes.append(
                ClampChange(
                    rule="zone_move", path=f"zone_moves[{i}]", before=move.model_dump(), after=None
                )
            )
            continue
        if move.new_zone_label and move.to_zone in existing | declared:
            fixed = move.model_copy(update={"new_zone_label": None})
            changes.append(
                ClampChange(
                    rule="zone_move", path=f"zone_moves[{i}].new_zone_label",
                    before=move.new_zone_label, after=None,
                )
            )  # fmt: skip
            move = fixed
        if move.new_zone_label:
            declared.add(move.to_zone)
        moved.add(move.character_id)
        kept.append(move)
    return d.model_copy(update={"zone_moves": kept}), changes


def _reference_link_updates(d: DirectorDecision, ctx: ClampContext) -> Answer:
    """`clamp_link_updates` as first written (always a copy)."""
    known = set(preview_zone_ids(ctx.scene, d.zone_moves))
    kept, changes = [], []
    for i, up in enumerate(d.link_updates):
        valid = up.source != up.target and {up.source, up.target} <= known
        if valid and (up.sound or up.sight):
            kept.append(up)
        else:
            changes.append(
                ClampChange(
                    rule="link_update", path=f"link_updates[{i}]", before=up.model_dump(),
                    after=None,
                )
            )  # fmt: skip
    return d.model_copy(update={"link_updates": kept}), changes


_REFERENCES = {
    "zone_move": _reference_zone_moves,
    "link_update": _reference_link_updates,
    "witness_zone": _reference_witnesses,
}


def _differing_rules(d: DirectorDecision, ctx: ClampContext) -> list[str]:
    """Rules whose answer differs from their reference on the decision they are handed
    in `clamp_decision` (each intermediate decision), and "clamp_decision" when the whole
    answer differs from the one with every reference in place."""
    found = []
    decision, changes = d, []
    for rule in CLAMP_RULES:
        answer = rule.apply(decision, ctx)
        reference = _REFERENCES.get(rule.name)
        if reference is not None and answer != reference(decision, ctx):
            found.append(rule.name)
        decision, more = answer
        changes += more
    plain = [replace(r, apply=_REFERENCES.get(r.name, r.apply)) for r in CLAMP_RULES]
    kept = list(CLAMP_RULES)
    CLAMP_RULES[:] = plain
    try:
        reference_answer = clamp_decision(d, ctx)
    finally:
        CLAMP_RULES[:] = kept
    if (decision, changes) != reference_answer:
        found.append("clamp_decision")
    return found


def _context(world: World) -> ClampContext:
    state = world.state
    return ClampContext(scene=state.scene, history=world.history, cast=state.cast)


@settings(max_examples=150, deadline=None)
@given(worlds(), st.data())
def test_perceivers_equal_their_reference(world: World, data: st.DataObject) -> None:
    scene = world.state.scene
    zone = data.draw(st.sampled_from([*zones.zone_ids(scene), "loft", "nowhere"]))
    channels: Any = data.draw(st.lists(st.sampled_from(["sound", "sight"]), max_size=2))
    assert zones.perceivers_of_zone(scene, zone, channels) == _reference_perceivers(
        scene, zone, channels
    )


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_witness_rules_equal_their_references(data: st.DataObject) -> None:
    world = data.draw(worlds())
    decision = data.draw(hostile_decisions(world))
    assert _differing_rules(decision, _context(world)) == []


def test_witness_rules_equal_their_references_on_the_recorded_play() -> None:
    calls = played().clamps
    assert calls
    assert [
        (i, found) for i, (d, ctx) in enumerate(calls) if (found := _differing_rules(d, ctx))
    ] == []


def test_negative_control_every_link_read_as_open_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Planted: a perceivers lookup that reads every link as open. A present character
    behind a sealed door becomes a witness, and the same check goes red."""
    from tavern.records import PerceptionEvent, Zone, ZoneLink

    scene = Scene(
        location="the inn",
        zones=[Zone(id="hall", label="the hall"), Zone(id="cellar", label="the cellar")],
        links=[ZoneLink(source="hall", target="cellar", sound="sealed", sight="sealed")],
        positions={"C1": "hall", "C2": "cellar"},
        present=["C1", "C2"],
    )
    ctx = ClampContext(scene=scene)
    event = PerceptionEvent(
        kind="world_event", text="A cup falls.", actor_id="C1", witness_ids=["C1", "C2"]
    )
    decision = DirectorDecision(events=[event])
    assert _differing_rules(decision, ctx) == []

    def every_link_open(scene: Scene, zone: str, channels: Sequence[Channel]) -> list[str]:
        linked = {link.target for link in scene.links if link.source == zone}
        return [s for s in scene.present if zone_of(scene, s) in {zone, *linked}]

    monkeypatch.setattr(structure, "perceivers_of_zone", every_link_open)
    assert "witness_zone" in _differing_rules(decision, ctx)
