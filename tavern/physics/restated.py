"""Clamp `restated_event`: an event that only restates what everyone present already knows.

Two live soaks of the embedded 0.5B Director (24 turns): most beats carried events that
repeated a standing scene fact word for word ("The trapdoor to the cellar is shut and bolted
from the hall side.", five beats of twelve), or an event of an earlier beat. Each copy became
a memory line of every witness, so the small context filled with the same sentences, and
the human's screen showed them beat after beat. The facts are in every prompt already.

While an action awaits adjudication such an event stays: it may be the action's outcome
("the trapdoor is bolted" after a pull at it). Texts compare as the spoken-copy rule compares
them: case, spacing, quotes and end punctuation aside.
"""

from __future__ import annotations

from itertools import compress, repeat
from operator import attrgetter
from typing import TYPE_CHECKING

from tavern.physics.cast_refs import SPOKEN_COPY_WINDOW, line_key
from tavern.records import ClampChange, DirectorDecision, EventRecord, PerceptionEvent

if TYPE_CHECKING:
    from tavern.physics.clamps import ClampContext

_TEXT = attrgetter("text")


def drop_restated_events(
    d: DirectorDecision, ctx: ClampContext
) -> tuple[DirectorDecision, list[ClampChange]]:
    """Drop events whose text is a standing scene fact or an event of the last
    `SPOKEN_COPY_WINDOW` records, unless an action awaits adjudication."""
    if not d.events or ctx.mid_action:
        return d, []
    recent = ctx.history[-SPOKEN_COPY_WINDOW:]
    events = compress(recent, map(isinstance, recent, repeat(EventRecord)))
    known = {line_key(t) for t in (*ctx.scene.facts, *map(_TEXT, events))}
    kept: list[PerceptionEvent] = []
    changes: list[ClampChange] = []
    for i, ev in enumerate(d.events):
        if line_key(ev.text) in known:
            change = ClampChange(
                rule="restated_event", path=f"events[{i}]", before=ev.model_dump(), after=None
            )
            changes.append(change)
        else:
            kept.append(ev)
    if not changes:
        return d, []
    return d.model_copy(update={"events": kept}), changes
