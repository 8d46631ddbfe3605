"""The last state read or written per session, reused while its row is unchanged.

Every turn starts by reading the session's state, and that JSON (ledger memories included)
is the largest thing a turn parses. A row's stamp (revision, write time, and the state's
first characters, which hold its schema version) changes with every write, by this process
or another, so a cached state is handed out only while the stamp still matches. States are
shared, never copied: the kernel derives new states with `model_copy(update=...)` and never
mutates one in place.
"""

from __future__ import annotations

import sqlite3
from collections import OrderedDict

from tavern.records.session import SessionState
from tavern.store._sqlite import parse_state

Stamp = tuple[int, str, str]
"""(revision, updated_at, first characters of the state) of a session row."""


class StateCache:
    """Bounded, least recently used first out (tests: `tests/store/test_store_memo.py`)."""

    def __init__(self, capacity: int = 64) -> None:
        self.capacity = capacity
        self.misses = 0
        self._states: OrderedDict[str, tuple[Stamp, SessionState]] = OrderedDict()

    def get(self, db: sqlite3.Connection, session_id: str, stamp: Stamp) -> SessionState:
        """The state of the row stamped `stamp`, parsed only when not already held."""
        hit = self._states.get(session_id)
        if hit is not None and hit[0] == stamp:
            self._states.move_to_end(session_id)
            return hit[1]
        self.misses += 1
        text = db.execute("SELECT state FROM sessions WHERE id = ?", (session_id,)).fetchone()[0]
        state = parse_state(text, f"session {session_id!r}")
        self.put(session_id, stamp, state)
        return state

    def put(self, session_id: str, stamp: Stamp, state: SessionState) -> None:
        """Remember `state` as what the row stamped `stamp` holds."""
        self._states[session_id] = (stamp, state)
        self._states.move_to_end(session_id)
        while len(self._states) > self.capacity:
            self._states.popitem(last=False)

    def drop(self, session_id: str) -> None:
        """Forget a session (deleted)."""
        self._states.pop(session_id, None)
