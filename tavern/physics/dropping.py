"""The shapes the clamps that remove text share: whole events a test picks, texts rewritten,
and sentences cut, each with one journaled change per text it touched."""

from __future__ import annotations

from collections.abc import Callable

from tavern.records import ClampChange, DirectorDecision, PerceptionEvent
from tavern.text import without_sentences


def drop_events(
    d: DirectorDecision, rule: str, goes: Callable[[PerceptionEvent], bool]
) -> tuple[DirectorDecision, list[ClampChange]]:
    """`d` without the events for which `goes` holds, and a `rule` change for each (its
    `before` the event, `after` None); `d` itself when none goes."""
    changes: list[ClampChange] = []
    kept: list[PerceptionEvent] = []
    for i, ev in enumerate(d.events):
        if goes(ev):
            changes.append(
                ClampChange(rule=rule, path=f"events[{i}]", before=ev.model_dump(), after=None)
            )
        else:
            kept.append(ev)
    if not changes:
        return d, []
    return d.model_copy(update={"events": kept}), changes


def rewrite_told(
    d: DirectorDecision, rule: str, rewrite: Callable[[str], str]
) -> tuple[DirectorDecision, list[ClampChange]]:
    """`d` with each event text and new fact replaced by `rewrite(text)`, a `rule` change for
    each text it changed (`events[i].text`, `scene.add_facts[i]`); `d` itself when none."""
    changes: list[ClampChange] = []

    def rewritten(path: str, text: str) -> str:
        new = rewrite(text)
        if new != text:
            changes.append(ClampChange(rule=rule, path=path, before=text, after=new))
        return new

    events = [
        ev if (text := rewritten(f"events[{i}].text", ev.text)) == ev.text
        else ev.model_copy(update={"text": text})
        for i, ev in enumerate(d.events)
    ]  # fmt: skip
    facts = [rewritten(f"scene.add_facts[{i}]", f) for i, f in enumerate(d.scene.add_facts)]
    if not changes:
        return d, []
    scene = d.scene.model_copy(update={"add_facts": facts})
    return d.model_copy(update={"events": events, "scene": scene}), changes


def rewrite_events(
    d: DirectorDecision, rule: str, rewrite: Callable[[PerceptionEvent], str]
) -> tuple[DirectorDecision, list[ClampChange]]:
    """`d` with each event's text replaced by `rewrite(event)`: the same text keeps the
    event, another text replaces it (a `rule` change of `events[i].text`), "" drops it (a
    change of `events[i]`, `after` None); `d` itself when nothing changed."""
    events: list[PerceptionEvent] = []
    changes: list[ClampChange] = []
    for i, ev in enumerate(d.events):
        text = rewrite(ev)
        if text == ev.text:
            events.append(ev)
        elif text:
            events.append(ev.model_copy(update={"text": text}))
            changes.append(
                ClampChange(rule=rule, path=f"events[{i}].text", before=ev.text, after=text)
            )
        else:
            changes.append(
                ClampChange(rule=rule, path=f"events[{i}]", before=ev.model_dump(), after=None)
            )
    return (d.model_copy(update={"events": events}) if changes else d), changes


def cut_sentences(
    d: DirectorDecision, rule: str, goes: Callable[[str], bool], *, facts: bool = False
) -> tuple[DirectorDecision, list[ClampChange]]:
    """`d` with each event text, and each added fact when `facts`, without its sentences
    for which `goes` holds; an event or fact left with none goes. One `rule` change per text
    changed (`events[i].text`, `scene.add_facts[i]`, or `events[i]` for an event that goes);
    `d` itself when nothing changed."""
    d, changes = rewrite_events(d, rule, lambda ev: without_sentences(ev.text, goes))
    if not facts or not d.scene.add_facts:
        return d, changes
    kept: list[str] = []
    for i, fact in enumerate(d.scene.add_facts):
        new = without_sentences(fact, goes)
        if new != fact:
            changes.append(
                ClampChange(rule=rule, path=f"scene.add_facts[{i}]", before=fact, after=new or None)
            )
        if new:
            kept.append(new)
    if kept == d.scene.add_facts:
        return d, changes
    return d.model_copy(update={"scene": d.scene.model_copy(update={"add_facts": kept})}), changes
