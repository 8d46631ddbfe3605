"""Hypothesis properties of the narrative physics, against random worlds and hostile proposals."""

from __future__ import annotations

import os
import re
from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tavern.physics import (
    CLAMP_RULES,
    ClampContext,
    advance,
    audience_for,
    clamp_decision,
    event_audience,
    fire,
    learn_names,
    observe,
)
from tavern.physics.identity import initial_identities
from tavern.physics.redaction import salient_tokens
from tavern.physics.zones import perceivers_of_zone, zone_of
from tavern.records import (
    NARRATOR,
    ActDeadline,
    ActionRecord,
    DirectorDecision,
    EventRecord,
    HistoryRecord,
    NarrativeClock,
)

from .worlds import World, hostile_decisions, worlds

EXAMPLES = int(os.environ.get("TAVERN_HYPOTHESIS_EXAMPLES", "40"))
SETTINGS = settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
SLOT = re.compile(r"\bC[1-9][0-9]?\b")


@st.composite
def world_and_decision(draw: st.DrawFn) -> tuple[World, object]:
    world = draw(worlds())
    decision = draw(hostile_decisions(world))
    if draw(st.booleans()):  # the movers asked to go there (clamp `agency_move` keeps it)
        world = _with_attempts_to_move(world, decision)
    return world, decision


def _with_attempts_to_move(world: World, decision: DirectorDecision) -> World:
    history = list(world.history)
    turn = history[-1].turn_number if history else 1
    scene = world.state.scene
    secret = {*world.thought_words, *world.whisper_words}
    for move in decision.zone_moves:
        label = " ".join(w for w in (move.new_zone_label or "").split() if w not in secret)
        if move.character_id in scene.present:
            history.append(
                ActionRecord(
                    seq=len(history),
                    turn_number=turn,
                    speaker=move.character_id,
                    author="character",
                    text=f"goes to {move.to_zone} {label}",  # a public act: no secret word
                    audience=audience_for(scene, move.character_id, "action"),
                )
            )
    return replace(world, history=history)


def _persist(world: World, decision: object) -> list[HistoryRecord]:
    """History plus the decision's events stored as records (clamped or not)."""
    history = list(world.history)
    for ev in decision.events:  # type: ignore[attr-defined]
        history.append(
            EventRecord(
                seq=len(history),
                turn_number=99,
                speaker="World",
                author="director",
                event_kind=ev.kind,
                text=ev.text,
                actor_id=ev.actor_id,
                audience=event_audience(ev.witness_ids),
            )
        )
    return history


def with_planted_event(
    proposal: DirectorDecision, text: str, data: st.DataObject
) -> DirectorDecision:
    """`proposal` plus a copy of one of its events (drawn) carrying `text`: a planted copy a
    clamp must catch. Unchanged when the proposal has no event."""
    if not proposal.events:
        return proposal
    i = data.draw(st.integers(0, len(proposal.events) - 1))
    planted = proposal.events[i].model_copy(update={"text": text})
    return proposal.model_copy(update={"events": [*proposal.events, planted]})


@SETTINGS
@given(world_and_decision())
def test_clamps_never_widen_and_are_idempotent(pair: tuple[World, object]) -> None:
    world, proposal = pair
    ctx = ClampContext(scene=world.state.scene, history=world.history)
    clamped, changes = clamp_decision(proposal, ctx)  # type: ignore[arg-type]
    present = set(world.state.scene.present)
    # An event is only ever dropped, cut, or merged into an earlier one of the beat (whose
    # witnesses are then the copies' own): replay the drops, rule by rule.
    dropping = [rule.name for rule in CLAMP_RULES]
    events = list(enumerate(proposal.events))  # type: ignore[attr-defined]
    # A change's path counts the events still there when its rule ran: replay the drops.
    # Within one rule, paths count that rule's input.
    alive = [i for i, _ in events]
    merged: set[str] = set()
    for rule in dropping:
        gone = []
        for change in (c for c in changes if c.rule == rule):
            at = re.fullmatch(r"events\[(\d+)\](.*)", change.path)
            if at is None:
                continue
            k = int(at.group(1))
            if not at.group(2) and change.after is None:
                gone.append(k)
            elif not at.group(2):
                merged.add(f"events[{alive[k]}]")
        for k in sorted(gone, reverse=True):
            alive.pop(k)
    sources = [(f"events[{i}]", proposal.events[i]) for i in alive]  # type: ignore[attr-defined]
    assert len(clamped.events) == len(sources)
    anyone = set().union(*(e.witness_ids for _, e in events))
    for (path, before), after in zip(sources, clamped.events, strict=True):
        assert set(after.witness_ids) <= (anyone if path in merged else set(before.witness_ids))
        assert set(after.witness_ids) <= present
        if after.actor_id is not None:
            zone = zone_of(world.state.scene, after.actor_id)
            assert zone is not None
    assert set(clamped.next_speakers) <= (set(proposal.next_speakers) & present) | {NARRATOR}  # type: ignore[attr-defined]
    assert 1 <= len(clamped.next_speakers) <= 3
    assert 0 <= clamped.time_skip_ticks <= min(proposal.time_skip_ticks, 3)  # type: ignore[attr-defined]
    assert all(m.character_id in present for m in clamped.zone_moves)
    again, more = clamp_decision(clamped, ctx)
    assert again == clamped
    assert more == []
    assert (clamped == proposal) == (changes == [])


@SETTINGS
@given(world_and_decision())
def test_thought_tokens_never_survive_a_clamp(pair: tuple[World, object]) -> None:
    world, proposal = pair
    ctx = ClampContext(scene=world.state.scene, history=world.history)
    clamped, _ = clamp_decision(proposal, ctx)  # type: ignore[arg-type]
    secrets = set(world.thought_words)
    visible = [e.text for e in clamped.events] + clamped.scene.add_facts
    visible += [clamped.scene.new_location or ""] + list(clamped.mood_updates.values())
    visible += [m.new_zone_label or "" for m in clamped.zone_moves]
    for text in visible:
        assert not salient_tokens(text) & secrets


@SETTINGS
@given(world_and_decision(), st.booleans())
def test_projection_holds_every_boundary(pair: tuple[World, object], clamp_first: bool) -> None:
    """Even unclamped hostile events, once persisted, never leak through `observe`."""
    world, proposal = pair
    if clamp_first:
        ctx = ClampContext(scene=world.state.scene, history=world.history)
        proposal, _ = clamp_decision(proposal, ctx)  # type: ignore[arg-type]
    history = _persist(world, proposal)
    cast = world.state.cast
    for viewer in cast:
        obs = observe(world.state, history, viewer)
        tokens = set().union(*(salient_tokens(t) for t in obs.texts()))
        text = "\n".join(obs.texts())
        # thoughts reach their owner only
        for word, owner in world.thought_words.items():
            if owner != viewer:
                assert word not in tokens, (word, viewer)
        # whisper content reaches its audience only
        for word, audience in world.whisper_words.items():
            if viewer not in audience:
                assert word not in tokens, (word, viewer)
        # no internal ids, no minds
        assert not SLOT.search(text)
        assert "mindsecret" not in text
        # no unlearned true names
        ledger = initial_identities(cast)[viewer]
        for record in history:
            ledger = learn_names(ledger, record, cast, viewer)
        learned = " | ".join(e.name for e in ledger.identities.values() if e.name)
        # A line the viewer said itself is shown back verbatim: its own words teach it nothing
        # and leak nothing (the generator may have it say any name).
        own = [r.text for r in history if r.speaker == viewer and r.text]
        told = text
        for line in own:
            told = told.replace(line, "")
        for slot in ledger.identities:
            true = cast[slot].body.display_name
            for form in {true, true.split()[0], true.split()[-1]}:
                if form not in learned and form not in cast[viewer].body.display_name:
                    assert not re.search(rf"\b{re.escape(form)}\b", told), (form, viewer)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(-5, 20), max_size=30),
    st.lists(st.integers(1, 60), max_size=5),
)
def test_clock_never_goes_backwards(skips: list[int], deadline_ticks: list[int]) -> None:
    deadlines = [
        ActDeadline(id=f"d{i}", at_tick=t, event="bell") for i, t in enumerate(deadline_ticks)
    ]
    clock = NarrativeClock(deadlines=deadlines)
    fired: set[str] = set()
    from tavern.physics import due_deadlines

    for skip in skips:
        nxt = advance(clock, skip)
        assert nxt.tick >= clock.tick + 1
        assert nxt.tick == clock.tick + 1 + max(0, skip)
        due = due_deadlines(nxt)
        assert all(d.at_tick <= nxt.tick and d.id not in fired for d in due)
        clock = fire(nxt, [d.id for d in due])
        assert clock.tick == nxt.tick
        fired |= {d.id for d in due}
        assert set(clock.fired) == fired
        assert due_deadlines(clock) == []


def test_perceivers_helper_matches_zone_of() -> None:
    # A sanity anchor for the strategies: a flat scene puts everyone in one zone.
    from tavern.records import Scene

    scene = Scene(location="inn", present=["C1", "C2"])
    assert perceivers_of_zone(scene, zone_of(scene, "C1") or "", ["sound"]) == ["C1", "C2"]


@SETTINGS
@given(worlds(), st.data())
def test_audiences_stay_inside_presence_and_zones(world: World, data: st.DataObject) -> None:
    from tavern.physics import audience_for, can_hear, can_see

    scene = world.state.scene
    slots = list(world.state.cast)
    speaker = data.draw(st.sampled_from(scene.present))
    targets = data.draw(st.lists(st.sampled_from([*slots, "C9"]), max_size=3))
    for kind in ("speech", "action", "thought"):
        aud = audience_for(scene, speaker, kind, whisper_to=targets)  # type: ignore[arg-type]
        assert set(aud.perceivers) <= set(scene.present)
        assert not set(aud.perceivers) & set(aud.aware)
        if kind == "thought":
            assert aud.perceivers == [speaker]
        elif aud.origin == "whisper":
            zone = zone_of(scene, speaker)
            assert {zone_of(scene, s) for s in aud.perceivers + aud.aware} <= {zone}
            assert set(aud.perceivers) <= {speaker, *targets}
        else:
            check = can_hear if kind == "speech" else can_see
            origin = zone_of(scene, speaker) or ""
            assert all(check(scene, s, origin) for s in aud.perceivers)
    for record in world.history:
        if record.kind == "speech" and record.reply_to is not None:  # type: ignore[union-attr]
            source = next(r for r in world.history if r.seq == record.reply_to)
            assert set(record.audience.perceivers) <= set(source.audience.perceivers)
