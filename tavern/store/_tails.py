"""The last history window read per session, extended by each commit instead of read again.

Every turn starts by reading the same window it ended with, plus the records it just
committed: reading it back costs two index searches, ~250 bodies through `sqlite3` and a
memo lookup per body (about as much as the whole store commit). The store knows exactly
what a commit appends, so the window it holds is extended in place of that read.

A window is kept with the stamp of the session row it was read or extended under, and is
handed out only while the row still has that stamp: any other write (an undo, another
process's commit, a `replace_state` through another store) changes the stamp, and the next
read goes to SQLite again. A window holds every record of each turn it covers, so the last
`turns` turn numbers of it are the last `turns` of the session whenever it covers that many,
or whenever it holds the whole session.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from tavern.records.history import HistoryRecord
from tavern.store._history import ParsedRecords, tail_bodies
from tavern.store._sqlite import next_seq_in
from tavern.store._states import Stamp

SPARE_TURNS = 16
"""Turns kept beyond the most ever asked for, so a window's start can move back a little
(`snapshot`'s step) without a read."""


@dataclass(frozen=True)
class _Window:
    stamp: Stamp
    records: list[HistoryRecord]
    starts: list[int]
    """Index in `records` where each turn number begins, oldest first."""
    whole: bool
    """The window holds every record of the session."""
    next_seq: int
    wanted: int
    """Most turns ever asked of this window."""

    def covers(self, turns: int) -> bool:
        return self.whole or len(self.starts) >= turns

    def last(self, turns: int) -> list[HistoryRecord]:
        if turns >= len(self.starts):
            return list(self.records)
        return self.records[self.starts[-turns] :]

    def extended(self, stamp: Stamp, added: Sequence[HistoryRecord]) -> _Window:
        records, starts = [*self.records], [*self.starts]
        for record in added:
            if not records or record.turn_number != records[-1].turn_number:
                starts.append(len(records))
            records.append(record)
        whole = self.whole
        keep = self.wanted + SPARE_TURNS
        if len(starts) > keep:
            cut = starts[-keep]
            records = records[cut:]
            starts = [s - cut for s in starts[-keep:]]
            whole = False
        next_seq = max(self.next_seq, added[-1].seq + 1) if added else self.next_seq
        return _Window(stamp, records, starts, whole, next_seq, self.wanted)


def _window(
    stamp: Stamp, records: list[HistoryRecord], turns: int, next_seq: int, wanted: int
) -> _Window:
    starts = [
        i
        for i, record in enumerate(records)
        if i == 0 or record.turn_number != records[i - 1].turn_number
    ]
    return _Window(stamp, records, starts, len(starts) < turns, next_seq, wanted)


class TailCache:
    """Bounded, least recently used first out; thread-safe (tests:
    `tests/store/test_store_tails.py`)."""

    def __init__(self, capacity: int = 64) -> None:
        self.capacity = capacity
        self.reads = 0
        """Windows read from SQLite (the rest were served from memory)."""
        self._windows: OrderedDict[str, _Window] = OrderedDict()
        self._lock = threading.Lock()

    def read(
        self,
        db: sqlite3.Connection,
        session_id: str,
        stamp: Stamp,
        turns: int,
        memo: ParsedRecords,
    ) -> tuple[list[HistoryRecord], int]:
        """Every record of the last `turns` turn numbers present (none for `turns <= 0`),
        and the next free seq, of the row stamped `stamp`."""
        with self._lock:
            window = self._windows.get(session_id)
            if window is not None and window.stamp == stamp and window.covers(turns):
                self._windows.move_to_end(session_id)
                return (window.last(turns) if turns > 0 else []), window.next_seq
        self.reads += 1
        wanted = max(turns, window.wanted if window is not None else 0)
        records = memo.parse(tail_bodies(db, session_id, wanted)) if wanted > 0 else []
        next_seq = next_seq_in(db, session_id)
        fresh = _window(stamp, records, wanted, next_seq, wanted)
        with self._lock:
            self._windows[session_id] = fresh
            self._windows.move_to_end(session_id)
            while len(self._windows) > self.capacity:
                self._windows.popitem(last=False)
        return (fresh.last(turns) if turns > 0 else []), next_seq

    def extend(
        self, session_id: str, before: Stamp, after: Stamp, added: Sequence[HistoryRecord]
    ) -> None:
        """The session's row went from `before` to `after` by appending `added` (in seq
        order): a window read at `before` becomes the window at `after`."""
        with self._lock:
            window = self._windows.get(session_id)
            if window is None:
                return
            if window.stamp != before:
                del self._windows[session_id]
                return
            self._windows[session_id] = window.extended(after, added)

    def next_seq(self, db: sqlite3.Connection, session_id: str, stamp: Stamp) -> int:
        """The next free seq of the row stamped `stamp`: a commit checks its records against
        it, from the window read at that stamp when one is held, else from SQLite."""
        with self._lock:
            window = self._windows.get(session_id)
            if window is not None and window.stamp == stamp:
                return window.next_seq
        return next_seq_in(db, session_id)

    def drop(self, session_id: str) -> None:
        """Forget the session's window."""
        with self._lock:
            self._windows.pop(session_id, None)
