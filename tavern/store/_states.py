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
from tavern.store._memory import read_state

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
            return state

    def put(self, session_id: str, stamp: Stamp, state: SessionState) -> None:
        """Remember `state` as what the row stamped `stamp` holds."""
        with self._lock:
            self._states[session_id] = (stamp, state)
            self._states.move_to_end(session_id)
            while len(self._states) > self.capacity:
                self._states.popitem(last=False)

    def drop(self, session_id: str) -> None:
        """Forget a session (deleted)."""
        with self._lock:
            self._states.pop(session_id, None)
