"""The last state read or written per session, reused while its row is unchanged.

Every turn starts by reading the session's state, and its JSON plus the ledgers' memory
lines (`_memory.py`) is the largest thing a turn reads; a write compares the new memory with
the cached one to store only the appended lines. A row's stamp (revision, write time, and the
state's first characters, which hold its schema version) changes with every write, by this
process or another, so a cached state is handed out only while the stamp still matches.
States are shared, never copied: the kernel derives new states with `model_copy(update=...)`
and never mutates one in place.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import OrderedDict

from tavern.records.session import SessionState
from tavern.store._memory import Ranges, parse_ranges, read_state, stored_ranges

Stamp = tuple[int, str, str]
"""(revision, updated_at, first characters of the state) of a session row."""


class StateCache:
    """Bounded, least recently used first out (tests: `tests/store/test_store_memo.py`).

    Thread-safe: the store puts a written state after its transaction, outside its lock.
    """

    def __init__(self, capacity: int = 64) -> None:
        self.capacity = capacity
        self.misses = 0
        self._states: OrderedDict[str, tuple[Stamp, SessionState]] = OrderedDict()
        self._ranges: dict[str, tuple[Stamp, Ranges | None]] = {}
        """Session -> the `memory_at` ranges of its row as last read or written, with the
        row's stamp: a commit needs them and reading them back was a query per turn."""
        self._lock = threading.RLock()

    def get(self, db: sqlite3.Connection, session_id: str, stamp: Stamp) -> SessionState:
        """The state of the row stamped `stamp`, read only when not already held."""
        with self._lock:
            hit = self._states.get(session_id)
            if hit is not None and hit[0] == stamp:
                self._states.move_to_end(session_id)
                return hit[1]
            self.misses += 1
            text, memory_at = db.execute(
                "SELECT state, memory_at FROM sessions WHERE id = ?", (session_id,)
            ).fetchone()
            state = read_state(db, session_id, text, memory_at, f"session {session_id!r}")
            self.put(session_id, stamp, state)
            self.put_ranges(session_id, stamp, parse_ranges(memory_at))
            return state

    def put(self, session_id: str, stamp: Stamp, state: SessionState) -> None:
        """Remember `state` as what the row stamped `stamp` holds."""
        with self._lock:
            self._states[session_id] = (stamp, state)
            self._states.move_to_end(session_id)
            while len(self._states) > self.capacity:
                self._states.popitem(last=False)

    def ranges(self, db: sqlite3.Connection, session_id: str, stamp: Stamp) -> Ranges | None:
        """The `memory_at` ranges of the row stamped `stamp`, read only when not held."""
        with self._lock:
            hit = self._ranges.get(session_id)
            if hit is not None and hit[0] == stamp:
                return hit[1]
        return stored_ranges(db, session_id)

    def put_row(
        self, session_id: str, stamp: Stamp, state: SessionState, ranges: Ranges | None
    ) -> None:
        """Remember a row just written: its state and its ranges."""
        self.put(session_id, stamp, state)
        self.put_ranges(session_id, stamp, ranges)

    def put_ranges(self, session_id: str, stamp: Stamp, ranges: Ranges | None) -> None:
        """Remember `ranges` as what the row stamped `stamp` holds in `memory_at`."""
        with self._lock:
            self._ranges.pop(session_id, None)
            self._ranges[session_id] = (stamp, ranges)
            while len(self._ranges) > self.capacity:
                del self._ranges[next(iter(self._ranges))]

    def drop(self, session_id: str) -> None:
        """Forget a session (deleted)."""
        with self._lock:
            self._states.pop(session_id, None)
            self._ranges.pop(session_id, None)
