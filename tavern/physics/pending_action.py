"""Whether the last beat of a history still holds an action awaiting adjudication."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress, islice
from operator import attrgetter

from tavern.physics.record_memo import RecordMemo
from tavern.records import ActionRecord, HistoryRecord

_TURN_NUMBER = attrgetter("turn_number")

_TURNS: RecordMemo[int] = RecordMemo()
"""Each record's turn number, per window: the runner asks once a beat about a window of
hundreds of records that repeats the last one but for its ends, and reading the numbers
again cost more than finding the repeat by identity (`RecordMemo.all`)."""
_TURNS_KEY = _TURNS.number("turn_number")


def has_unresolved_action(history: Sequence[HistoryRecord]) -> bool:
    """Whether the last beat (highest turn number) holds an action not yet adjudicated.

    Example:
        >>> has_unresolved_action([])
        False
    """
    if not history:
        return False
    turns = _TURNS.all(history, _TURNS_KEY, _TURN_NUMBER)
    last = max(turns)
    # The last beat's records start at its first one: in a window (seq order) that is near
    # the end, so the per-record test below skips the rest; any order still reads them all.
    start = turns.index(last)
    in_last_beat = map(last.__eq__, islice(turns, start, None))
    return any(
        isinstance(r, ActionRecord) and not r.resolved
        for r in compress(islice(history, start, None), in_last_beat)
    )
