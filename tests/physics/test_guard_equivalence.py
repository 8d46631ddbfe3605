"""`redact_visible` copies only the parts of a decision whose text changed: it answers
exactly what its plain form (every part copied) answers, on generated worlds and hostile
decisions; the negative control plants a shortcut that skips the facts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.physics import clamps
from tavern.physics.redaction import redact
from tavern.records import ClampChange, DirectorDecision, SceneDelta

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


def _world_and_decision(data: st.DataObject) -> tuple[Any, DirectorDecision]:
    world = data.draw(worlds())
    return world, data.draw(hostile_decisions(world))


@settings(max_examples=80, deadline=None)
@given(st.data(), st.sets(st.sampled_from(["bread", "lamp", "door", "rain", "cider"])))
def test_redact_visible_equals_its_plain_form(data: st.DataObject, hidden: set[str]) -> None:
    _, decision = _world_and_decision(data)

    def per_event(i: int) -> set[str]:
        return hidden if i % 2 == 0 else set()

    got = clamps.redact_visible(decision, "demo", per_event, hidden)
    assert got == _plain_redact_visible(decision, "demo", per_event, hidden)


def test_negative_control_a_copy_that_skips_the_facts_is_caught() -> None:
    """Planted: a shortcut that returns the decision unchanged when its events are clean
    leaves a hidden word in a fact; the plain form redacts it."""
    decision = DirectorDecision(scene=SceneDelta(add_facts=["the lamp is lit"]))

    def events_only(d: DirectorDecision, rule: str, per_event: Any, hidden: Any) -> Any:
        return (d, []) if not d.events else clamps.redact_visible(d, rule, per_event, hidden)

    planted = events_only(decision, "demo", lambda _i: set(), {"lamp"})
    assert planted != _plain_redact_visible(decision, "demo", lambda _i: set(), {"lamp"})
    assert clamps.redact_visible(decision, "demo", lambda _i: set(), {"lamp"}) == (
        _plain_redact_visible(decision, "demo", lambda _i: set(), {"lamp"})
    )
