"""A store file of format 1 (ledger memory inside the state JSON) migrates and plays on.

`data/format1.sqlite3` was written by the format-1 store (`data/make_format1.py`): `old-alpha`
at turn 6 (memory appended, evicted, rewritten by `replace_state`, a ledger added and one
dropped), `old-beta` at turn 2, `old-gamma` at turn 0. The truth each test compares with is
read from the copy with plain SQLite before the store opens it.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from store_strategies import speech

from tavern.records import HISTORY_RECORD_ADAPTER, PerspectiveLedger, SessionState
from tavern.store import NothingToUndo, SchemaVersionMismatch, SessionNotFound, SessionStore
from tavern.store import _sqlite as sqlite_module

FIXTURE = Path(__file__).parent / "data" / "format1.sqlite3"
SESSIONS = {"old-alpha": 6, "old-beta": 2, "old-gamma": 0}


class Truth:
    """What the format-1 file holds, parsed without the store."""

    def __init__(self, path: Path) -> None:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            self.states = {
                sid: SessionState.model_validate_json(text)
                for sid, text in db.execute("SELECT id, state FROM sessions")
            }
            self.pre = {
                (sid, turn): SessionState.model_validate_json(text)
                for sid, turn, text in db.execute(
                    "SELECT session_id, turn_number, pre_state FROM checkpoints"
                )
            }
            self.history = {
                sid: [
                    HISTORY_RECORD_ADAPTER.validate_json(body)
                    for (body,) in db.execute(
                        "SELECT body FROM history WHERE session_id = ? ORDER BY seq", (sid,)
                    )
                ]
                for sid in SESSIONS
            }
        finally:
            db.close()


def _content(state: SessionState) -> dict[str, Any]:
    return state.model_dump(exclude={"revision"})


def _db_path(data_dir: Path) -> Path:
    return data_dir / "sessions.sqlite3"


def _query(data_dir: Path, sql: str, *args: object) -> list[tuple[Any, ...]]:
    db = sqlite3.connect(_db_path(data_dir))
    try:
        return db.execute(sql, args).fetchall()
    finally:
        db.close()


@pytest.fixture
def old_dir(tmp_path: Path) -> Path:
    data_dir = tmp_path / "old"
    data_dir.mkdir()
    shutil.copyfile(FIXTURE, _db_path(data_dir))
    return data_dir


def test_the_fixture_is_a_small_format_1_file_with_memory_in_its_json(old_dir: Path) -> None:
    assert FIXTURE.stat().st_size < 200_000
    assert _query(old_dir, "PRAGMA user_version") == [(1,)]
    tables = {name for (name,) in _query(old_dir, "SELECT name FROM sqlite_schema")}
    assert "memory_lines" not in tables
    truth = Truth(_db_path(old_dir))
    assert {sid: s.turn_number for sid, s in truth.states.items()} == SESSIONS
    assert sorted(t for sid, t in truth.pre if sid == "old-alpha") == [1, 2, 3, 4, 5, 6]
    assert truth.states["old-alpha"].ledgers["C3"].memory  # memory inside the JSON
    assert truth.pre[("old-alpha", 3)].ledgers["C2"].memory[0] == (
        "C2 remembers, in short, the first turns"  # the replace_state rewrite of turn 2
    )


def test_opening_migrates_the_layout_and_old_rows_read_as_they_are(old_dir: Path) -> None:
    truth = Truth(_db_path(old_dir))
    with SessionStore(old_dir) as store:
        for sid, state in truth.states.items():
            assert store.load(sid) == state
            assert store.history(sid) == truth.history[sid]
        assert {s.id for s in store.list()} == set(SESSIONS)
    assert _query(old_dir, "PRAGMA user_version") == [(sqlite_module.STORE_FORMAT,)]
    assert _query(old_dir, "SELECT count(*) FROM memory_lines") == [(0,)]
    assert _query(old_dir, "SELECT count(*) FROM sessions WHERE memory_at IS NULL") == [(3,)]
    assert _query(old_dir, "SELECT count(*) FROM checkpoints WHERE pre_memory_at IS NULL") == [(8,)]
    with SessionStore(
        old_dir
    ) as again:  # a second open finds the current format and changes nothing
        assert again.load("old-beta") == truth.states["old-beta"]


def _play_turn(store: SessionStore, state: SessionState, extra: dict[str, str]) -> SessionState:
    turn = state.turn_number + 1
    ledgers = dict(state.ledgers)
    for key, line in extra.items():
        ledger = ledgers.get(key) or PerspectiveLedger(owner=key)
        ledgers[key] = ledger.model_copy(update={"memory": [*ledger.memory, line]})
    new = state.model_copy(update={"ledgers": ledgers, "story_summary": f"new {turn}"})
    seq = store.next_seq(state.id)
    return store.commit_turn(state.id, turn, [speech(seq, turn)], new, state.revision)


def test_an_old_session_plays_on_and_undoes_back_to_turn_zero_exactly(old_dir: Path) -> None:
    truth = Truth(_db_path(old_dir))
    sid = "old-alpha"
    store = SessionStore(old_dir)
    seven = _play_turn(store, store.load(sid), {"C2": "seven", "C3": "seven", "C5": "new one"})
    eight = _play_turn(store, seven, {"C2": "eight"})
    with SessionStore(old_dir) as fresh:
        assert fresh.load(sid) == eight
    assert eight.ledgers["C2"].memory[-2:] == ["seven", "eight"]
    # The first write moved the session's memory into memory_lines; the JSON holds none.
    ((text, memory_at),) = _query(
        old_dir, "SELECT state, memory_at FROM sessions WHERE id = ?", sid
    )
    assert json.loads(memory_at).keys() == {"C2", "C3", "C5"}
    assert all("memory" not in ledger for ledger in json.loads(text)["ledgers"].values())
    assert _query(old_dir, "SELECT count(*) FROM memory_lines WHERE session_id = ?", sid) == [
        ((8 + 6 + 1) + 1,)  # turn 7 stores each memory whole (C2, C3, C5), turn 8 one line
    ]

    assert _content(store.undo(sid)) == _content(seven)
    assert _content(store.undo(sid)) == _content(truth.states[sid])
    assert _query(old_dir, "SELECT count(*) FROM memory_lines WHERE session_id = ?", sid) == [(0,)]
    for turn in range(6, 0, -1):
        restored = store.undo(sid)
        assert _content(restored) == _content(truth.pre[(sid, turn)])
        with SessionStore(old_dir) as fresh:
            assert fresh.load(sid) == restored
            assert fresh.history(sid) == [r for r in truth.history[sid] if r.turn_number < turn]
    with pytest.raises(NothingToUndo):
        store.undo(sid)
    # Played on again from turn 0, in format 2 from the start.
    one = _play_turn(store, store.load(sid), {"C1": "again"})
    with SessionStore(old_dir) as fresh:
        assert fresh.load(sid) == one
    store.close()


def test_an_old_session_forks_and_deletes(old_dir: Path) -> None:
    truth = Truth(_db_path(old_dir))
    with SessionStore(old_dir) as store:
        forked = store.fork("old-beta", "beta-fork")
        assert _content(forked) == _content(
            truth.states["old-beta"].model_copy(update={"id": "beta-fork"})
        )
        grown = _play_turn(store, forked, {"C1": "fork only"})
        assert store.load("old-beta") == truth.states["old-beta"]
        assert grown.turn_number == 3
        for turn in (3, 2, 1):  # undone turn -> the state before it
            restored = store.undo("beta-fork")
            before = truth.states["old-beta"] if turn == 3 else truth.pre[("old-beta", turn)]
            assert _content(restored) == _content(before.model_copy(update={"id": "beta-fork"}))
        store.delete("old-alpha")
        with pytest.raises(SessionNotFound):
            store.load("old-alpha")
        assert store.load("old-gamma") == truth.states["old-gamma"]
    for table, column in (
        ("sessions", "id"),
        ("history", "session_id"),
        ("checkpoints", "session_id"),
        ("memory_lines", "session_id"),
    ):
        count = _query(old_dir, f"SELECT count(*) FROM {table} WHERE {column} = 'old-alpha'")
        assert count == [(0,)], table


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_failed_migration_leaves_the_file_in_format_1(
    old_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    steps = sqlite_module._MIGRATIONS[1] + "; CREATE TABLE sessions (x INTEGER)"  # fails last
    monkeypatch.setitem(sqlite_module._MIGRATIONS, 1, steps)
    with pytest.raises(sqlite3.OperationalError, match="already exists"):
        SessionStore(old_dir).list()
    assert _query(old_dir, "PRAGMA user_version") == [(1,)]
    columns = {row[1] for row in _query(old_dir, "PRAGMA table_info(sessions)")}
    assert "memory_at" not in columns
    monkeypatch.undo()
    with SessionStore(old_dir) as store:  # and a later open migrates it whole
        assert store.load("old-gamma") == Truth(FIXTURE).states["old-gamma"]


def test_a_file_of_a_later_format_is_refused_untouched(old_dir: Path) -> None:
    with SessionStore(old_dir) as store:
        store.load("old-gamma")
    db = sqlite3.connect(_db_path(old_dir))
    db.execute(f"PRAGMA user_version = {sqlite_module.STORE_FORMAT + 1}")
    db.close()
    before = _digest(_db_path(old_dir))
    with pytest.raises(
        SchemaVersionMismatch, match=f"schema_version {sqlite_module.STORE_FORMAT + 1}"
    ):
        SessionStore(old_dir).list()
    assert _digest(_db_path(old_dir)) == before
