"""A commit takes the row's memory ranges and the next free seq from memory, not SQLite.

`StateCache.ranges` holds the `memory_at` of the row stamped as last read or written, and
`TailCache.next_seq` the next seq of a window read at that stamp; both replaced a query per
commit. The property plays commits, `replace_state`s and undos, some through a second store
on the same file (so stamps move behind the first store's back), and compares every row of
the file with the same plan played with both caches disabled, i.e. with the queries the
store made before (kept here as the reference). Negative controls: ranges or a next seq
served without checking the stamp are caught.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from store_strategies import plain_state, speech

from tavern.records import PerspectiveLedger, SessionState
from tavern.store import SessionStore, StoreError
from tavern.store import _memory as memory_module
from tavern.store._memory import stored_ranges
from tavern.store._sqlite import next_seq_in
from tavern.store._states import StateCache
from tavern.store._tails import TailCache
from tavern.store.errors import InvalidTurn

Step = tuple[str, int, int]
"""(operation, which store 0/1, lines appended or evicted)."""

steps = st.lists(
    st.tuples(
        st.sampled_from(["commit", "commit", "replace", "undo", "read"]),
        st.integers(0, 1),
        st.integers(-2, 3),
    ),
    max_size=14,
)


def _evolve(state: SessionState, change: int, n: int) -> SessionState:
    ledgers = {}
    for key in ("C1", "C2"):
        memory = (state.ledgers.get(key) or PerspectiveLedger(owner=key)).memory
        memory = (
            memory[-change:]
            if change < 0
            else [*memory, *[f"{key} {n}.{i}" for i in range(change)]]
        )
        ledgers[key] = PerspectiveLedger(owner=key, memory=memory)
    return state.model_copy(update={"ledgers": ledgers})


def _rows(data_dir: Path) -> list[Any]:
    db = sqlite3.connect(data_dir / "sessions.sqlite3")
    try:
        out: list[Any] = [
            r[:6] + r[7:] for r in db.execute("SELECT * FROM sessions ORDER BY id")
        ]  # without updated_at
        for table in ("history", "checkpoints", "memory_lines"):
            out += db.execute(f"SELECT * FROM {table} ORDER BY 1, 2, 3").fetchall()
        return out
    finally:
        db.close()


def play(data_dir: Path, plan: list[Step]) -> list[Any]:
    stores = [SessionStore(data_dir, synchronous="OFF") for _ in range(2)]
    state = stores[0].create(plain_state(), [speech(0, 0)])
    try:
        for n, (op, which, change) in enumerate(plan):
            store = stores[which]
            snap = store.snapshot(state.id, 2)
            state = snap.state
            if op == "commit":
                record = speech(snap.next_seq, state.turn_number + 1, f"w{n}")
                state = store.commit_turn(
                    state.id, state.turn_number + 1, [record], _evolve(state, change, n),
                    state.revision,
                )  # fmt: skip
            elif op == "replace":
                state = store.replace_state(state.id, _evolve(state, change, n), state.revision)
            elif op == "undo" and state.turn_number > 0:
                state = store.undo(state.id)
        return _rows(data_dir)
    finally:
        for store in stores:
            store.close()


def _without_caches(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reference: every commit asks SQLite, as the store did before the caches."""
    monkeypatch.setattr(StateCache, "ranges", lambda self, db, sid, stamp: stored_ranges(db, sid))
    monkeypatch.setattr(TailCache, "next_seq", lambda self, db, sid, stamp: next_seq_in(db, sid))


@settings(max_examples=40, deadline=None)
@given(steps)
def test_rows_never_depend_on_the_caches(plan: list[Step]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as cached, tempfile.TemporaryDirectory() as plain:
        got = play(Path(cached), plan)
        with pytest.MonkeyPatch.context() as patch:
            _without_caches(patch)
            expected = play(Path(plain), plan)
    assert got == expected


def test_the_caches_replace_the_queries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    real_ranges, real_next = memory_module.stored_ranges, next_seq_in
    monkeypatch.setattr(
        "tavern.store._states.stored_ranges",
        lambda db, sid: asked.append("ranges") or real_ranges(db, sid),
    )
    monkeypatch.setattr(
        "tavern.store._tails.next_seq_in",
        lambda db, sid: asked.append("seq") or real_next(db, sid),
    )
    play(tmp_path, [("commit", 0, 2)] * 3)
    assert asked == ["seq"]  # the first window read's; none by the three commits


# Planted: a read keeps the ranges it held, and they are served whatever the row's stamp.
def _stale_ranges(monkeypatch: pytest.MonkeyPatch) -> None:
    real_get = StateCache.get

    def keeping_get(self: StateCache, db: Any, sid: str, stamp: Any) -> SessionState:
        held = self._ranges.get(sid)
        state = real_get(self, db, sid, stamp)
        if held is not None:
            self._ranges[sid] = held
        return state

    def any_stamp(self: StateCache, db: Any, sid: str, stamp: Any) -> Any:
        hit = self._ranges.get(sid)
        return hit[1] if hit is not None else stored_ranges(db, sid)

    monkeypatch.setattr(StateCache, "get", keeping_get)
    monkeypatch.setattr(StateCache, "ranges", any_stamp)


# Store 0 commits, store 1 commits behind its back, store 0 commits again.
BEHIND_ITS_BACK: list[Step] = [("commit", 0, 2), ("commit", 1, 2), ("commit", 0, 1)]


def test_negative_control_ranges_without_the_stamp_are_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = play(tmp_path / "clean", BEHIND_ITS_BACK)
    _stale_ranges(monkeypatch)
    try:
        got = play(tmp_path / "planted", BEHIND_ITS_BACK)
    except (StoreError, sqlite3.IntegrityError):
        return  # caught as a broken invariant
    assert got != expected


def _stale_window_commit(data_dir: Path) -> None:
    """Store 0 reads a window, store 1 commits seq 1, store 0 reloads only the state and
    commits seq 1 again: the seq check must refuse it."""
    stores = [SessionStore(data_dir, synchronous="OFF") for _ in range(2)]
    try:
        state = stores[0].create(plain_state(), [speech(0, 0)])
        stores[0].snapshot(state.id, 2)
        other = stores[1].snapshot(state.id, 2)
        stores[1].commit_turn(state.id, 1, [speech(other.next_seq, 1)], other.state, 0)
        reloaded = stores[0].load(state.id)
        stores[0].commit_turn(state.id, 2, [speech(1, 2)], reloaded, reloaded.revision)
    finally:
        for store in stores:
            store.close()


def test_negative_control_a_next_seq_without_the_stamp_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(InvalidTurn):
        _stale_window_commit(tmp_path / "clean")

    def any_stamp(self: TailCache, db: Any, sid: str, stamp: Any) -> int:
        window = self._windows.get(sid)
        return next_seq_in(db, sid) if window is None else window.next_seq

    monkeypatch.setattr(TailCache, "next_seq", any_stamp)
    with pytest.raises(sqlite3.IntegrityError):  # the stale seq got past the check
        _stale_window_commit(tmp_path / "planted")
