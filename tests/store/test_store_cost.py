"""Commit and tail cost do not grow with session length, counted in SQLite VM steps.

Wall-clock figures live in `python -m benchmarks.store`; here the count of virtual-machine
instructions SQLite executes is deterministic, so the guard cannot flake.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from functools import partial
from pathlib import Path

from store_strategies import plain_state, speech

from tavern.records import SessionState
from tavern.store import SessionStore

LONG = 400
SHORT = 4


def _grow(store: SessionStore, session_id: str, turns: int) -> SessionState:
    state = store.create(plain_state(session_id))
    for turn in range(1, turns + 1):
        seq = store.next_seq(session_id)
        records = [speech(seq, turn), speech(seq + 1, turn)]
        state = store.commit_turn(session_id, turn, records, state, state.revision)
    return state


def _steps(db: sqlite3.Connection, action: Callable[[], object]) -> int:
    count = 0

    def tick() -> int:
        nonlocal count
        count += 1
        return 0

    db.set_progress_handler(tick, 10)
    try:
        action()
    finally:
        db.set_progress_handler(None, 0)
    return count


def _fetch(db: sqlite3.Connection, sql: str, session_id: str) -> object:
    return db.execute(sql, (session_id,)).fetchall()


def _sessions(tmp_path: Path) -> tuple[SessionStore, dict[str, SessionState]]:
    store = SessionStore(tmp_path, synchronous="OFF")
    states = {
        "short-one": _grow(store, "short-one", SHORT),
        "long-one": _grow(store, "long-one", LONG),
    }
    return store, states


def test_commit_and_undo_cost_do_not_grow_with_history(tmp_path: Path) -> None:
    store, states = _sessions(tmp_path)
    db = store._conn()
    commit: dict[str, int] = {}
    undo: dict[str, int] = {}
    for sid, state in states.items():
        turn = state.turn_number + 1
        records = [speech(store.next_seq(sid), turn), speech(store.next_seq(sid) + 1, turn)]
        commit[sid] = _steps(
            db, partial(store.commit_turn, sid, turn, records, state, state.revision)
        )
        undo[sid] = _steps(db, partial(store.undo, sid))
    assert commit["long-one"] <= 1.3 * commit["short-one"], commit
    assert undo["long-one"] <= 1.3 * undo["short-one"], undo
    store.close()


def test_history_tail_cost_does_not_grow_and_a_scan_would_be_caught(tmp_path: Path) -> None:
    store, _ = _sessions(tmp_path)
    db = store._conn()
    tail = {
        sid: _steps(db, partial(store.history_tail, sid, 3)) for sid in ("short-one", "long-one")
    }
    assert tail["long-one"] <= 1.3 * tail["short-one"], tail

    # Negative control: the obvious DISTINCT query scans the whole session, and the counter sees it.
    scan = (
        "SELECT body FROM history WHERE session_id = ?1 AND turn_number >= ("
        " SELECT min(t) FROM (SELECT DISTINCT turn_number AS t FROM history"
        " WHERE session_id = ?1 ORDER BY t DESC LIMIT 3)) ORDER BY seq"
    )
    naive = {sid: _steps(db, partial(_fetch, db, scan, sid)) for sid in ("short-one", "long-one")}
    assert naive["long-one"] > 10 * naive["short-one"], naive
    store.close()
