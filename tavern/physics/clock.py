"""The narrative clock: code-owned story time that only moves forward.

Undo does not live here: the store restores the pre-turn snapshot, clock included, so no
function in this module ever lowers a tick.
"""

from __future__ import annotations

from collections.abc import Iterable

from tavern.records import ActDeadline, NarrativeClock


def advance(clock: NarrativeClock, skip_ticks: int = 0) -> NarrativeClock:
    """One committed beat: +1 tick plus an already clamped time skip (negative counts as 0).

    Example:
        >>> advance(NarrativeClock(tick=4), skip_ticks=2).tick
        7
    """
    return clock.model_copy(update={"tick": clock.tick + 1 + max(0, skip_ticks)})


def due_deadlines(clock: NarrativeClock) -> list[ActDeadline]:
    """Deadlines whose tick has arrived and that have not fired yet, earliest first.

    Example:
        >>> c = NarrativeClock(tick=5, deadlines=[ActDeadline(id="bell", at_tick=5, event="x")])
        >>> [d.id for d in due_deadlines(c)]
        ['bell']
    """
    fired = set(clock.fired)
    due = [d for d in clock.deadlines if d.at_tick <= clock.tick and d.id not in fired]
    return sorted(due, key=lambda d: (d.at_tick, d.id))


def fire(clock: NarrativeClock, ids: Iterable[str]) -> NarrativeClock:
    """Mark deadlines as staged: they leave `deadlines` and join `fired` (once each).

    Unknown ids are ignored; the tick is untouched.

    Example:
        >>> c = NarrativeClock(tick=5, deadlines=[ActDeadline(id="bell", at_tick=5, event="x")])
        >>> c = fire(c, ["bell"])
        >>> c.deadlines, c.fired
        ([], ['bell'])
    """
    known = {d.id for d in clock.deadlines}
    wanted = [i for i in dict.fromkeys(ids) if i in known and i not in clock.fired]
    return clock.model_copy(
        update={
            "deadlines": [d for d in clock.deadlines if d.id not in wanted],
            "fired": [*clock.fired, *wanted],
        }
    )
