"""Per-session asyncio locks held in a weak registry.

A lock lives as long as someone holds a reference to it (typically the `async with` of a
running turn); finished sessions leave nothing behind. Across processes, the SQLite
revision check is what serializes writers.
"""

from __future__ import annotations

import asyncio
import weakref


class SessionLocks:
    """Hands out one `asyncio.Lock` per session id.

    Example:
        >>> locks = SessionLocks()
        >>> async def turn():                       # doctest: +SKIP
        ...     async with locks.get("abc"):
        ...         ...
    """

    def __init__(self) -> None:
        """Start with an empty registry."""
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    def get(self, session_id: str) -> asyncio.Lock:
        """The lock of `session_id`; the same object while anyone holds a reference to it."""
        lock = self._locks.get(session_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[session_id] = lock
        return lock

    def __len__(self) -> int:
        """How many locks are alive (for tests of the weak registry)."""
        return len(self._locks)
