"""Whether the last beat of a history still holds an action awaiting adjudication."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress, islice
from operator import attrgetter

from tavern.records import ActionRecord, HistoryRecord

_TURN_NUMBER = attrgetter("turn_number")


def has_unresolved_action(history: Sequence[HistoryRecord]) -> bool:
    """Whether the last beat (highest turn number) holds an action not yet adjudicated.

    Example:
        >>> has_unresolved_action([])
        False
    """
    if not history:
        return False
    # C-level passes pick the last beat's records out of a window of hundreds.
    turns = list(map(_TURN_NUMBER, history))
    last = max(turns)
    # The last beat's records start at its first one: in a window (seq order) that is near
    # the end, so the per-record test below skips the rest; any order still reads them all.
    start = turns.index(last)
    in_last_beat = map(last.__eq__, islice(turns, start, None))
    return any(
        isinstance(r, ActionRecord) and not r.resolved
        for r in compress(islice(history, start, None), in_last_beat)
    )
