"""SQLite plumbing of the session store: file layout, connection set-up, row helpers.

Callers hold the transaction; these helpers only read and write rows inside it.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from pydantic.main import IncEx

from tavern.records.history import HistoryRecord
from tavern.records.session import SESSION_SCHEMA_VERSION, SessionState, utc_now
from tavern.store.errors import InvalidTurn, SchemaVersionMismatch, SessionNotFound

STORE_FORMAT = 4
"""Layout version of the SQLite file (`PRAGMA user_version`). Format 2 added the
`memory_lines` table and the `memory_at` columns (`_memory.py`); format 3 the session list's
`name` and fork origin, each checkpoint's turn `input` and `variant`, and the `alternatives`
of a turn (`_variants.py`); format 4 the `compactions` table (`_compactions.py`). An older
file is migrated one format at a time when opened, and its rows stay readable as they are
(a format-1 row's memory is inside its JSON)."""
DB_NAME = "sessions.sqlite3"
BUSY_TIMEOUT_S = 30.0

_SCHEMA = """
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    schema_version INTEGER NOT NULL,
    revision INTEGER NOT NULL,
    turn_number INTEGER NOT NULL,
    title TEXT NOT NULL,
    scenario_id TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    state TEXT NOT NULL,
    memory_at TEXT
);
CREATE TABLE history (
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    turn_number INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;
CREATE INDEX history_by_turn ON history (session_id, turn_number);
CREATE TABLE checkpoints (
    session_id TEXT NOT NULL,
    turn_number INTEGER NOT NULL,
    pre_state TEXT NOT NULL,
    pre_memory_at TEXT,
    PRIMARY KEY (session_id, turn_number)
) WITHOUT ROWID;
"""
_MEMORY_LINES = """
CREATE TABLE memory_lines (
    session_id TEXT NOT NULL,
    owner TEXT NOT NULL,
    position INTEGER NOT NULL,
    turn_number INTEGER NOT NULL,
    line TEXT NOT NULL,
    PRIMARY KEY (session_id, owner, position)
) WITHOUT ROWID;
CREATE INDEX memory_lines_by_turn ON memory_lines (session_id, turn_number);
"""
_FORMAT_3 = """
ALTER TABLE sessions ADD COLUMN name TEXT;
ALTER TABLE sessions ADD COLUMN forked_from TEXT;
ALTER TABLE sessions ADD COLUMN forked_at_turn INTEGER;
ALTER TABLE checkpoints ADD COLUMN input TEXT;
ALTER TABLE checkpoints ADD COLUMN variant INTEGER NOT NULL DEFAULT 0;
CREATE TABLE alternatives (
    session_id TEXT NOT NULL,
    turn_number INTEGER NOT NULL,
    variant INTEGER NOT NULL,
    input TEXT,
    records TEXT NOT NULL,
    state TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (session_id, turn_number, variant)
) WITHOUT ROWID;
"""
_FORMAT_4 = """
CREATE TABLE compactions (
    session_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    id TEXT NOT NULL,
    parent_id TEXT,
    cutoff_turn INTEGER NOT NULL,
    max_seq INTEGER,
    content_hash TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (session_id, position)
) WITHOUT ROWID;
"""
_MIGRATIONS = {
    # from format -> statements to the next one, applied in order in one transaction
    0: _SCHEMA + _MEMORY_LINES,  # a new file: the format-2 layout at once, then format 3
    1: "ALTER TABLE sessions ADD COLUMN memory_at TEXT;"
    " ALTER TABLE checkpoints ADD COLUMN pre_memory_at TEXT;" + _MEMORY_LINES,
    2: _FORMAT_3,
    3: _FORMAT_4,
}
_STEP = {0: 2, 1: 2, 2: 3, 3: 4}
"""The format each entry of `_MIGRATIONS` leads to."""
MEMORY_EXCLUDE: IncEx = {"ledgers": {"__all__": {"memory"}}}
"""What a format-2 row leaves out of its state JSON (the lines live in `memory_lines`)."""


def open_db(path: Path, synchronous: str) -> sqlite3.Connection:
    """Connect in autocommit mode (transactions are explicit), set WAL and create the tables."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(
        path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
    )
    try:
        _prepare(db, path, synchronous)
    except BaseException:
        db.close()
        raise
    return db


def _prepare(db: sqlite3.Connection, path: Path, synchronous: str) -> None:
    db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version not in (*_MIGRATIONS, STORE_FORMAT):
        raise SchemaVersionMismatch(f"session store {path}", version, STORE_FORMAT)
    # journal_mode=WAL is persistent and a no-op (no write) when already set.
    if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
        db.execute("PRAGMA journal_mode = WAL")
    db.execute(f"PRAGMA synchronous = {synchronous}")
    if version != STORE_FORMAT:
        _migrate(db)


def _migrate(db: sqlite3.Connection) -> None:
    """Create or upgrade the layout to `STORE_FORMAT`, all in one transaction."""
    db.execute("BEGIN IMMEDIATE")
    try:
        # Another process may have created or migrated the tables while we waited.
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version != STORE_FORMAT:
            while version != STORE_FORMAT:
                for statement in _MIGRATIONS[version].split(";"):
                    if statement.strip():
                        db.execute(statement)
                version = _STEP[version]
            db.execute(f"PRAGMA user_version = {STORE_FORMAT}")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


class Database:
    """One connection behind a re-entrant lock, opened on first use; explicit transactions."""

    def __init__(self, path: Path, synchronous: str) -> None:
        self.path = path
        self.synchronous = synchronous
        self.lock = threading.RLock()
        self._db: sqlite3.Connection | None = None

    def conn(self) -> sqlite3.Connection:
        """The connection (call under `lock`)."""
        if self._db is None:
            self._db = open_db(self.path, self.synchronous)
        return self._db

    def close(self) -> None:
        """Close the connection (reopened lazily on the next call)."""
        with self.lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    @contextmanager
    def transaction(self, mode: str = "IMMEDIATE") -> Iterator[sqlite3.Connection]:
        """`BEGIN <mode>` ... `COMMIT` under the lock, rolled back on any exception."""
        with self.lock:
            db = self.conn()
            db.execute(f"BEGIN {mode}")
            try:
                yield db
                db.execute("COMMIT")
            except BaseException:
                # Also after a failed COMMIT (disk full): never leave the connection inside a
                # transaction, or every later call would fail to BEGIN.
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise


def parse_state(text: str, what: str) -> SessionState:
    try:  # the common case in one pass (parsing to a dict first costs half as much again)
        state = SessionState.model_validate_json(text)
        if state.schema_version == SESSION_SCHEMA_VERSION:
            return state
    except ValidationError:
        pass
    # Check the version before validating, so a future format is refused by name rather
    # than failing on some field it renamed.
    raw = json.loads(text)
    found = raw.get("schema_version") if isinstance(raw, dict) else None
    if found != SESSION_SCHEMA_VERSION:
        raise SchemaVersionMismatch(
            what, found if isinstance(found, int) else -1, SESSION_SCHEMA_VERSION
        )
    return SessionState.model_validate(raw)


def _checked_row(db: sqlite3.Connection, session_id: str, columns: str) -> tuple[Any, ...]:
    """`schema_version` then `columns` of a session's row, refusing a missing or foreign one."""
    row = db.execute(
        f"SELECT schema_version, {columns} FROM sessions WHERE id = ?", (session_id,)
    ).fetchone()
    if row is None:
        raise SessionNotFound(f"no session {session_id!r}")
    if row[0] != SESSION_SCHEMA_VERSION:
        raise SchemaVersionMismatch(f"session {session_id!r}", row[0], SESSION_SCHEMA_VERSION)
    return tuple(row)


def session_head(db: sqlite3.Connection, session_id: str) -> tuple[int, int]:
    """(revision, turn_number) of a session's row, without the state's text.

    Raises:
        SessionNotFound: no such session.
        SchemaVersionMismatch: the row's `schema_version` is not this Tavern's.
    """
    _, revision, turn = _checked_row(db, session_id, "revision, turn_number")
    return revision, turn


def read_row(db: sqlite3.Connection, session_id: str) -> tuple[str, str | None]:
    """(state JSON, `memory_at`) of a session's row, which must exist."""
    text, memory_at = db.execute(
        "SELECT state, memory_at FROM sessions WHERE id = ?", (session_id,)
    ).fetchone()
    return text, memory_at


def write_state(
    db: sqlite3.Connection, state: SessionState, *, insert: bool, memory_at: str | None
) -> None:
    """Write the session row.

    With `memory_at` (format 2), the JSON leaves out every ledger's memory; without it, the
    row is written as format 1 did, memory inside the JSON (an undo back to a format-1
    checkpoint).
    """
    text = (
        state.model_dump_json()
        if memory_at is None
        else state.model_dump_json(exclude=MEMORY_EXCLUDE)
    )
    values = (
        state.schema_version,
        state.revision,
        state.turn_number,
        state.title,
        state.scenario_id,
        utc_now().isoformat(),
        text,
        memory_at,
        state.id,
    )
    if insert:
        db.execute(
            "INSERT INTO sessions (schema_version, revision, turn_number, title, scenario_id,"
            " updated_at, state, memory_at, id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            values,
        )
    else:
        db.execute(
            "UPDATE sessions SET schema_version = ?, revision = ?, turn_number = ?, title = ?,"
            " scenario_id = ?, updated_at = ?, state = ?, memory_at = ? WHERE id = ?",
            values,
        )


def copy_rows(db: sqlite3.Connection, source_id: str, forked: SessionState) -> None:
    """Insert `forked` (the source's state under another id) with the source's `memory_at`,
    and copy the source's history, checkpoints (ids rewritten) and every memory line
    (checkpoints reference old ones too)."""
    target_id = forked.id
    memory_at = db.execute("SELECT memory_at FROM sessions WHERE id = ?", (source_id,))
    write_state(db, forked, insert=True, memory_at=memory_at.fetchone()[0])
    db.execute(
        "INSERT INTO history (session_id, seq, turn_number, body)"
        " SELECT ?, seq, turn_number, body FROM history WHERE session_id = ?",
        (target_id, source_id),
    )
    db.execute(
        "INSERT INTO checkpoints (session_id, turn_number, pre_state, pre_memory_at, input,"
        " variant) SELECT ?1, turn_number, json_set(pre_state, '$.id', ?1), pre_memory_at,"
        " input, variant FROM checkpoints WHERE session_id = ?2",
        (target_id, source_id),
    )
    db.execute(
        "INSERT INTO alternatives (session_id, turn_number, variant, input, records, state,"
        " created_at) SELECT ?1, turn_number, variant, input, records,"
        " json_set(state, '$.id', ?1), created_at FROM alternatives WHERE session_id = ?2",
        (target_id, source_id),
    )
    db.execute(
        "INSERT INTO memory_lines (session_id, owner, position, turn_number, line)"
        " SELECT ?, owner, position, turn_number, line FROM memory_lines WHERE session_id = ?",
        (target_id, source_id),
    )


def delete_rows(db: sqlite3.Connection, session_id: str, from_turn: int | None = None) -> int:
    """Delete a session's rows of turns `from_turn` and later (history, checkpoints, memory
    lines, alternatives), or with no `from_turn` all its rows and its state row; returns the
    state rows deleted."""
    for table in ("history", "checkpoints", "memory_lines", "alternatives"):
        if from_turn is None:
            db.execute(f"DELETE FROM {table} WHERE session_id = ?", (session_id,))
        else:
            db.execute(
                f"DELETE FROM {table} WHERE session_id = ? AND turn_number >= ?",
                (session_id, from_turn),
            )
    if from_turn is not None:
        return 0
    db.execute("DELETE FROM compactions WHERE session_id = ?", (session_id,))
    return db.execute("DELETE FROM sessions WHERE id = ?", (session_id,)).rowcount


def insert_records(
    db: sqlite3.Connection, session_id: str, records: Sequence[HistoryRecord]
) -> None:
    """Insert the records."""
    db.executemany(
        "INSERT INTO history (session_id, seq, turn_number, body) VALUES (?, ?, ?, ?)",
        [(session_id, r.seq, r.turn_number, r.model_dump_json()) for r in records],
    )


def next_seq_in(db: sqlite3.Connection, session_id: str) -> int:
    """The first seq no record of the session holds, live or evicted by a compaction."""
    row = db.execute(
        "SELECT max(m) FROM (SELECT max(seq) AS m FROM history WHERE session_id = ?1"
        " UNION ALL SELECT max(max_seq) FROM compactions WHERE session_id = ?1)",
        (session_id,),
    ).fetchone()
    return 0 if row[0] is None else int(row[0]) + 1


def check_turns(records: Sequence[HistoryRecord], turn_number: int) -> None:
    for record in records:
        if record.turn_number != turn_number:
            raise InvalidTurn(
                f"record seq {record.seq} is of turn {record.turn_number}, not {turn_number}"
            )


def check_seqs(records: Sequence[HistoryRecord], first_free: int) -> None:
    expected = first_free
    for record in records:
        if record.seq < expected:
            raise InvalidTurn(f"record seq {record.seq} must be >= {expected} and increasing")
        expected = record.seq + 1
