"""Ledger memory lines in their own append-only table (store format 2).

A ledger's memory (up to ~32,000 characters of digest lines per character) was most of a
session's state JSON, and every commit wrote that JSON twice (the row and the checkpoint).
Yet between two writes a memory only changes at its ends: lines are appended, and the oldest
are evicted from the front. So the lines live in `memory_lines`, one row per line at a
growing `position` per (session, ledger key), and a state row stores only which contiguous
range of positions each ledger's memory is: `memory_at` = `{key: [from, count]}` (the state
JSON itself is written without any ledger's `memory`). A checkpoint copies `memory_at` with
the state, so it costs a few hundred bytes of ranges instead of the memory.

Invariants (design note: `docs/store-memory-lines.md`):

- The current row's ranges end exactly at the last stored position of their key (`from +
  count` is the next free position), so an append needs no lookup.
- A write inserts only the lines appended to the stored memory (after dropping any number
  from its front, checked line by line on the overlap); any other change (a rewrite) stores
  the whole new memory as a fresh range after the key's last position. Either way, lines
  that some row or checkpoint references are never changed.
- Every inserted line is tagged with the turn number being written, so all lines of a
  session are tagged <= its turn. Undoing turn T deletes the lines tagged >= T: exactly
  those written since its checkpoint was taken, which no remaining row references.

A row whose `memory_at` is NULL was written by format 1 and holds its memory in its JSON.
"""

from __future__ import annotations

import json
import sqlite3

from tavern.records.session import SessionState
from tavern.store._sqlite import parse_state, write_state
from tavern.store.errors import StoreError

Ranges = dict[str, tuple[int, int]]
"""Ledger key -> (first position, count) of its memory lines."""

_RANGE = (
    "SELECT line FROM memory_lines WHERE session_id = ? AND owner = ?"
    " AND position >= ? AND position < ? ORDER BY position"
)


def parse_ranges(text: str | None) -> Ranges | None:
    """The ranges of a `memory_at` column; None for a format-1 row (memory in the JSON)."""
    if text is None:
        return None
    return {key: (int(pair[0]), int(pair[1])) for key, pair in json.loads(text).items()}


def dump_ranges(ranges: Ranges) -> str:
    """The `memory_at` text of `ranges`."""
    return json.dumps({key: list(pair) for key, pair in ranges.items()}, separators=(",", ":"))


def dropped_front(old: list[str], new: list[str]) -> int:
    """A count k such that `new` is `old` without its first k lines, then appended lines:
    `new == old[k:] + new[len(old) - k:]`.

    k = `len(old)` always fits (a rewrite: every line of `new` is new). The smallest k that
    fits is returned: candidates are the positions of `new[0]` in `old`, each checked on
    the whole overlap.

    >>> dropped_front(["a", "b", "c"], ["b", "c", "d"])
    1
    >>> dropped_front(["a", "b", "c"], ["a", "b", "c"]), dropped_front(["a"], [])
    (0, 1)
    >>> dropped_front(["a", "b", "c"], ["b", "x", "d"])  # a rewrite
    3
    """
    size = len(old)
    if not new:
        return size
    for k, line in enumerate(old):
        if line == new[0] and len(new) >= size - k and old[k:] == new[: size - k]:
            return k
    return size  # every old line dropped: `new` is all appended


def _next_position(db: sqlite3.Connection, session_id: str, owner: str) -> int:
    row = db.execute(
        "SELECT max(position) FROM memory_lines WHERE session_id = ? AND owner = ?",
        (session_id, owner),
    ).fetchone()
    return 0 if row[0] is None else int(row[0]) + 1


Stored = dict[str, tuple[list[str], int, int]]
"""Ledger key -> (memory lines, first position, count) of a row as stored."""


def stored_memory(db: sqlite3.Connection, session_id: str, what: str) -> Stored:
    """Each ledger's memory as the session's row holds it: empty for a format-1 row (its
    memory is in its JSON; the next write stores each as a fresh range).

    Raises:
        StoreError: a range whose lines are missing (a damaged file).
    """
    row = db.execute("SELECT memory_at FROM sessions WHERE id = ?", (session_id,)).fetchone()
    ranges = None if row is None else parse_ranges(row[0])
    return {
        owner: (_lines(db, session_id, owner, start, count, what), start, count)
        for owner, (start, count) in (ranges or {}).items()
    }


def _lines(
    db: sqlite3.Connection, session_id: str, owner: str, start: int, count: int, what: str
) -> list[str]:
    """The `count` memory lines of `owner` from `start`; StoreError when some are missing."""
    lines = [r[0] for r in db.execute(_RANGE, (session_id, owner, start, start + count))]
    if len(lines) != count:
        raise StoreError(
            f"{what}: memory of {owner!r} should be {count} lines from position {start},"
            f" found {len(lines)}"
        )
    return lines


def write_memory(
    db: sqlite3.Connection, turn_number: int, stored: Stored, new: SessionState
) -> Ranges:
    """Insert the memory lines `new` adds to the stored memory; return `new`'s ranges.

    Args:
        db: Inside the caller's write transaction.
        turn_number: The tag of the inserted lines (the turn being written).
        stored: The row's memory now (`stored_memory`; empty for a new session).
        new: The state about to be written to the row.
    """
    out: Ranges = {}
    rows: list[tuple[str, str, int, int, str]] = []
    for owner, ledger in new.ledgers.items():
        memory = ledger.memory
        if owner in stored:
            # `start + count` is the key's next free position (invariant), so a rewrite
            # (k = count) is a fresh range there.
            before, start, count = stored[owner]
            k = dropped_front(before, memory)
            first_new, appended = start + count, memory[count - k :]
            out[owner] = (start + k, len(memory))
        else:
            first_new, appended = _next_position(db, new.id, owner), memory
            out[owner] = (first_new, len(memory))
        rows += [
            (new.id, owner, first_new + i, turn_number, line) for i, line in enumerate(appended)
        ]
    if rows:
        # A plain INSERT: a broken invariant (a line already at that position) fails loudly.
        db.executemany(
            "INSERT INTO memory_lines (session_id, owner, position, turn_number, line)"
            " VALUES (?, ?, ?, ?, ?)",
            rows,
        )
    return out


def write_row(
    db: sqlite3.Connection, new: SessionState, turn_number: int, stored: Stored, *, insert: bool
) -> None:
    """Insert the lines `new`'s memory appends to the stored one, then write the row.

    Args:
        db: Inside the caller's write transaction.
        new: The state to store.
        turn_number: The tag of the inserted lines (the turn being written).
        stored: The row's memory now (`stored_memory`), empty for a new row.
        insert: The row is new.
    """
    written = write_memory(db, turn_number, stored, new)
    write_state(db, new, insert=insert, memory_at=dump_ranges(written))


def read_state(
    db: sqlite3.Connection, session_id: str, text: str, memory_at: str | None, what: str
) -> SessionState:
    """Parse a stored state and fill each ledger's memory from its range of lines.

    Raises:
        SchemaVersionMismatch: as `parse_state`.
        StoreError: a range whose lines are missing (a damaged file).
    """
    state = parse_state(text, what)
    ranges = parse_ranges(memory_at)
    if not ranges:
        return state
    ledgers = dict(state.ledgers)
    for owner, (start, count) in ranges.items():
        ledger = ledgers.get(owner)
        if ledger is None:
            raise StoreError(f"{what}: memory of {owner!r} stored, and no ledger")
        lines = _lines(db, session_id, owner, start, count, what)
        ledgers[owner] = ledger.model_copy(update={"memory": lines})
    return state.model_copy(update={"ledgers": ledgers})
