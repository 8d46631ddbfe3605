"""Reading history rows: the tail query and parsing stored record bodies."""

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


class Snapshot(NamedTuple):
    """What a turn starts from, read in one transaction (`SessionStore.snapshot`)."""

    state: SessionState
    """The session's current state."""
    tail: list[HistoryRecord]
    """Every record of the last requested turns, in seq order."""
    next_seq: int
    """The seq the turn's first record must use (or exceed)."""
