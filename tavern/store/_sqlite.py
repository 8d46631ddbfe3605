"""SQLite plumbing of the session store: file layout, connection set-up, row helpers.

Callers hold the transaction; these helpers only read and write rows inside it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from tavern.records.history import HistoryRecord
from tavern.records.session import SESSION_SCHEMA_VERSION, SessionState, utc_now
from tavern.store.errors import InvalidTurn, SchemaVersionMismatch, SessionNotFound

STORE_FORMAT = 1
"""Layout version of the SQLite file (`PRAGMA user_version`)."""
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
    state TEXT NOT NULL
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
    PRIMARY KEY (session_id, turn_number)
) WITHOUT ROWID;
"""


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
    if version not in (0, STORE_FORMAT):
        raise SchemaVersionMismatch(f"session store {path}", version, STORE_FORMAT)
    # journal_mode=WAL is persistent and a no-op (no write) when already set.
    if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
        db.execute("PRAGMA journal_mode = WAL")
    db.execute(f"PRAGMA synchronous = {synchronous}")
    if version == 0:
        db.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have created the tables while we waited for the lock.
            if db.execute("PRAGMA user_version").fetchone()[0] == 0:
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute(f"PRAGMA user_version = {STORE_FORMAT}")
            db.execute("COMMIT")
        except BaseException:
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


STATE_HEAD = 64
"""Characters of a state's JSON that a read compares before reusing a parsed state: they
hold its `schema_version`, so even an edit that left revision and time alone is seen."""


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


def session_head(db: sqlite3.Connection, session_id: str) -> tuple[int, int, tuple[int, str, str]]:
    """(revision, turn_number, stamp) without the state's text; the stamp (revision, write
    time, first characters of the state) changes with every write.

    Raises:
        SessionNotFound, SchemaVersionMismatch: as `session_row`.
    """
    _, revision, turn, updated, head = _checked_row(
        db, session_id, f"revision, turn_number, updated_at, substr(state, 1, {STATE_HEAD})"
    )
    return revision, turn, (revision, updated, head)


def session_row(db: sqlite3.Connection, session_id: str) -> tuple[int, int, int, str]:
    version, revision, turn, state = _checked_row(db, session_id, "revision, turn_number, state")
    return version, revision, turn, state


def write_state(
    db: sqlite3.Connection, state: SessionState, *, insert: bool
) -> tuple[int, str, str]:
    """Write the session row; returns its stamp (see `session_head`)."""
    values = (
        state.schema_version,
        state.revision,
        state.turn_number,
        state.title,
        state.scenario_id,
        utc_now().isoformat(),
        state.model_dump_json(),
        state.id,
    )
    if insert:
        db.execute(
            "INSERT INTO sessions (schema_version, revision, turn_number, title, scenario_id,"
            " updated_at, state, id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            values,
        )
    else:
        db.execute(
            "UPDATE sessions SET schema_version = ?, revision = ?, turn_number = ?, title = ?,"
            " scenario_id = ?, updated_at = ?, state = ? WHERE id = ?",
            values,
        )
    return state.revision, str(values[5]), str(values[6])[:STATE_HEAD]


def insert_records(
    db: sqlite3.Connection, session_id: str, records: Sequence[HistoryRecord]
) -> list[str]:
    """Insert the records; returns their stored bodies, in order."""
    bodies = [r.model_dump_json() for r in records]
    db.executemany(
        "INSERT INTO history (session_id, seq, turn_number, body) VALUES (?, ?, ?, ?)",
        [(session_id, r.seq, r.turn_number, b) for r, b in zip(records, bodies, strict=True)],
    )
    return bodies


def next_seq_in(db: sqlite3.Connection, session_id: str) -> int:
    row = db.execute("SELECT max(seq) FROM history WHERE session_id = ?", (session_id,)).fetchone()
    return 0 if row[0] is None else int(row[0]) + 1


def check_seqs(records: Sequence[HistoryRecord], first_free: int) -> None:
    expected = first_free
    for record in records:
        if record.seq < expected:
            raise InvalidTurn(f"record seq {record.seq} must be >= {expected} and increasing")
        expected = record.seq + 1
