"""Reading history rows: the tail and turn-range queries, and a bounded memo of parsed
record bodies.

Every turn reads the same recent records again (the Director's window, the perception
window), and parsing and validating each record's JSON was the largest single cost of a
turn. A stored body never changes, so a body text is a complete key for its parsed record:
an undone turn's rows simply stop being asked for, and a re-played turn with a reused seq
has a different body, hence a different key. Parsed records are frozen models, so sharing
one between callers cannot leak a change from one to another.
"""

from __future__ import annotations

import sqlite3
from collections import OrderedDict
from collections.abc import Iterable
from typing import NamedTuple

from tavern.records.history import HISTORY_RECORD_ADAPTER, HistoryRecord
from tavern.records.session import SessionState

MEMO_RECORDS = 8192
"""Parsed records kept: several long windows of several sessions."""


class ParsedRecords:
    """Least-recently-used memo from a stored body to its parsed record.

    >>> memo = ParsedRecords(capacity=2)
    >>> body = '{"kind": "system", "seq": 1, "turn_number": 1, "speaker": "World",'
    >>> body += ' "author": "kernel", "audience": {"origin": "public"}, "marker": "x",'
    >>> body += ' "text": "Dawn."}'
    >>> first, again = memo.parse([body, body])
    >>> first is again, first.text, memo.misses
    (True, 'Dawn.', 1)
    """

    def __init__(self, capacity: int = MEMO_RECORDS) -> None:
        self.capacity = capacity
        self.misses = 0
        self._memo: OrderedDict[str, HistoryRecord] = OrderedDict()

    def put(self, body: str, record: HistoryRecord) -> None:
        """Remember `record` as the parse of `body` (the record it was serialized from)."""
        self._memo[body] = record
        self._memo.move_to_end(body)
        if len(self._memo) > self.capacity:
            self._memo.popitem(last=False)

    def parse(self, bodies: Iterable[str], *, remember: bool = True) -> list[HistoryRecord]:
        """The records of `bodies`, in order, each parsed at most once while remembered.

        `remember=False` (a whole-session read) uses the memo without filling it, so one
        export does not evict the windows that every turn reads again.
        """
        memo, out = self._memo, []
        for body in bodies:
            record = memo.get(body)
            if record is None:
                self.misses += 1
                record = HISTORY_RECORD_ADAPTER.validate_json(body)
                if remember:
                    memo[body] = record
                    if len(memo) > self.capacity:
                        memo.popitem(last=False)
            else:
                memo.move_to_end(body)
            out.append(record)
        return out


def remember(memo: ParsedRecords, bodies: Iterable[str], records: Iterable[HistoryRecord]) -> None:
    """Enter committed records under their stored bodies: the next read of the window hands
    out the very objects the writer holds, so identity-keyed caches carry over the commit."""
    for body, record in zip(bodies, records, strict=True):
        memo.put(body, record)


def tail_bodies(db: sqlite3.Connection, session_id: str, turns: int) -> list[str]:
    """Bodies of every record of the last `turns` turn numbers present, in seq order.

    Two index searches: the lowest of the last `turns` distinct turn numbers (a reverse scan
    of the turn index that stops after them), then the records from it on. The cost follows
    the window, never the session's length.
    """
    row = db.execute(
        "SELECT min(t) FROM (SELECT DISTINCT turn_number AS t FROM history"
        " WHERE session_id = ? ORDER BY t DESC LIMIT ?)",
        (session_id, turns),
    ).fetchone()
    if row[0] is None:
        return []
    rows = db.execute(
        "SELECT body FROM history INDEXED BY history_by_turn"
        " WHERE session_id = ? AND turn_number >= ? ORDER BY seq",
        (session_id, int(row[0])),
    ).fetchall()
    return [r[0] for r in rows]


def tail_bodies_before(
    db: sqlite3.Connection, session_id: str, turns: int, turn_number: int
) -> list[str]:
    """`tail_bodies` as it read just before `turn_number` was played: the last `turns` turn
    numbers present below it (a rerun of the last turn starts from this window)."""
    row = db.execute(
        "SELECT min(t) FROM (SELECT DISTINCT turn_number AS t FROM history"
        " WHERE session_id = ? AND turn_number < ? ORDER BY t DESC LIMIT ?)",
        (session_id, turn_number, turns),
    ).fetchone()
    if row[0] is None:
        return []
    return bodies_of_turns(db, session_id, int(row[0]), turn_number - 1)


def bodies_of_turns(db: sqlite3.Connection, session_id: str, first: int, last: int) -> list[str]:
    """Bodies of every record of turns `first` to `last` (both included), in seq order."""
    rows = db.execute(
        "SELECT body FROM history INDEXED BY history_by_turn"
        " WHERE session_id = ? AND turn_number BETWEEN ? AND ? ORDER BY seq",
        (session_id, first, last),
    ).fetchall()
    return [r[0] for r in rows]


def turn_ticks(db: sqlite3.Connection, session_id: str, first: int, last: int) -> dict[int, int]:
    """Turn -> the story tick it started at (its checkpoint's clock), for turns `first` to
    `last` that have a checkpoint; turn 0 starts at tick 0."""
    rows = db.execute(
        "SELECT turn_number, json_extract(pre_state, '$.clock.tick') FROM checkpoints"
        " WHERE session_id = ? AND turn_number BETWEEN ? AND ?",
        (session_id, first, last),
    ).fetchall()
    ticks = {int(t): int(tick or 0) for t, tick in rows}
    if first <= 0 <= last:
        ticks[0] = 0
    return ticks


class Snapshot(NamedTuple):
    """What a turn starts from, read in one transaction (`SessionStore.snapshot`)."""

    state: SessionState
    """The session's current state."""
    tail: list[HistoryRecord]
    """Every record of the last requested turns, in seq order."""
    next_seq: int
    """The seq the turn's first record must use (or exceed)."""
