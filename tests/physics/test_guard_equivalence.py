"""The guards' shortcuts answer exactly what their plain forms answer (property tests).

`speech_guard` pools spoken tokens per audience instead of walking every spoken line for
each event, and `redact_visible` copies only the parts of a decision whose text changed.
Both are compared with the plain forms they replaced, on generated worlds and hostile
decisions; the negative control plants a pooling that drops an audience.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.physics import clamps
from tavern.physics.redaction import redact
from tavern.records import (
    ClampChange,
    DirectorDecision,
    HistoryRecord,
    SessionState,
)
from tavern.runner import speech_guard as guard_module

from .worlds import hostile_decisions, worlds


def _plain_redact_visible(
    d: DirectorDecision,
    rule: str,
    hide_in_event: Callable[[int], Any],
    everywhere: Any,
) -> tuple[DirectorDecision, list[ClampChange]]:
    """The form before: every event, move and the decision copied, changed or not."""
    changes: list[ClampChange] = []

    def scrub(path: str, text: str, tokens: Any) -> str:
        new = redact(text, tokens)
        if new != text:
            changes.append(ClampChange(rule=rule, path=path, before=text, after=new))
        return new

    events = [
        ev.model_copy(update={"text": scrub(f"events[{i}].text", ev.text, hide_in_event(i))})
        for i, ev in enumerate(d.events)
    ]
    delta = d.scene
    facts = [scrub(f"scene.add_facts[{i}]", f, everywhere) for i, f in enumerate(delta.add_facts)]
    location = delta.new_location and scrub("scene.new_location", delta.new_location, everywhere)
    moves = [
        m.model_copy(
            update={
                "new_zone_label": m.new_zone_label
                and scrub(f"zone_moves[{i}].new_zone_label", m.new_zone_label, everywhere)
            }
        )
        for i, m in enumerate(d.zone_moves)
    ]
    moods = {k: scrub(f"mood_updates.{k}", v, everywhere) for k, v in d.mood_updates.items()}
    new_delta = delta.model_copy(update={"add_facts": facts, "new_location": location})
    update = {"events": events, "scene": new_delta, "zone_moves": moves, "mood_updates": moods}
    return d.model_copy(update=update), changes


def _plain_speech_guard(
    decision: DirectorDecision, state: SessionState, context: Sequence[HistoryRecord]
) -> tuple[DirectorDecision, list[ClampChange]]:
    """The form before: each event walks every spoken line."""
    payloads = guard_module._payloads(state, context)
    if not payloads:
        return decision, []
    present = set(state.scene.present)
    everywhere = {t for audience, toks in payloads if not present <= audience for t in toks}

    def hidden_in_event(i: int) -> set[str]:
        witnesses = set(decision.events[i].witness_ids)
        return {
            t
            for audience, toks in payloads
            if not witnesses or not witnesses <= audience
            for t in toks
        }

    return _plain_redact_visible(decision, guard_module.RULE, hidden_in_event, everywhere)


def _world_and_decision(data: st.DataObject) -> tuple[Any, DirectorDecision]:
    world = data.draw(worlds())
    return world, data.draw(hostile_decisions(world))


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_speech_guard_equals_its_plain_form(data: st.DataObject) -> None:
    world, decision = _world_and_decision(data)
    got = guard_module.speech_guard(decision, world.state, world.history)
    assert got == _plain_speech_guard(decision, world.state, world.history)


@settings(max_examples=80, deadline=None)
@given(st.data(), st.sets(st.sampled_from(["bread", "lamp", "door", "rain", "cider"])))
def test_redact_visible_equals_its_plain_form(data: st.DataObject, hidden: set[str]) -> None:
    _, decision = _world_and_decision(data)

    def per_event(i: int) -> set[str]:
        return hidden if i % 2 == 0 else set()

    got = clamps.redact_visible(decision, "demo", per_event, hidden)
    assert got == _plain_redact_visible(decision, "demo", per_event, hidden)


def test_negative_control_pooling_that_drops_an_audience_is_caught() -> None:
    """Planted: pool only the first audience's tokens; a plain walk still finds the rest."""
    from tavern.records import Audience, PerceptionEvent, SpeechRecord

    world_state = None

    @given(st.data())
    @settings(max_examples=1, deadline=None)
    def grab(data: st.DataObject) -> None:
        nonlocal world_state
        world_state = data.draw(worlds()).state

    grab()
    assert world_state is not None
    present = list(world_state.scene.present)
    lines = [
        SpeechRecord(
            seq=i, turn_number=1, speaker=present[0], author="character", text=word,
            audience=Audience(origin="public", perceivers=perceivers),
        )
        for i, (word, perceivers) in enumerate(
            [("zephyrword", present[:1]), ("quillword", ["C9"])]
        )
    ]  # fmt: skip
    decision = DirectorDecision(
        events=[PerceptionEvent(kind="world_event", text="zephyrword quillword", witness_ids=[])]
    )
    real = guard_module._payloads

    def first_audience_only(state: SessionState, context: Any) -> Any:
        found = real(state, context)
        return [p for p in found if p[0] == found[0][0]]

    guard_module._payloads = first_audience_only
    try:
        planted = guard_module.speech_guard(decision, world_state, lines)
    finally:
        guard_module._payloads = real
    assert planted != _plain_speech_guard(decision, world_state, lines)
