"""Reading history rows: the tail and turn-range queries, and parsing stored record bodies."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import NamedTuple

from tavern.records.history import HISTORY_RECORD_ADAPTER, HistoryRecord
from tavern.records.session import SessionState


def parse_records(bodies: Iterable[str]) -> list[HistoryRecord]:
    """The records of stored `bodies`, in order."""
    return [HISTORY_RECORD_ADAPTER.validate_json(body) for body in bodies]


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
