"""The window a snapshot hands out from memory equals the window read from SQLite.

A random play of commits (of zero or more records), undos, `replace_state`s and commits by a
second store on the same file (another process, as far as this store can tell), with a
snapshot of random size and step after each: every snapshot equals one taken by a fresh
store that holds nothing. The negative controls plant the two mistakes a window cache can
make: extending a window across a write it did not see, and trimming a window that still
claims to hold the whole session.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from store_strategies import plain_state, speech

from tavern.store import SessionStore, _tails

Op = tuple[str, int]
ops = st.lists(
    st.tuples(st.sampled_from(["commit", "commit", "commit", "undo", "replace", "other"]),
              st.integers(0, 3)),
    max_size=25,
)  # fmt: skip
windows = st.tuples(st.integers(0, 6), st.integers(1, 4))


def _dump(snapshot: Any) -> tuple[Any, ...]:
    return (
        snapshot.state.model_dump(),
        [r.model_dump() for r in snapshot.tail],
        snapshot.next_seq,
    )


def _commit(store: SessionStore, sid: str, records: int) -> None:
    state = store.load(sid)
    first = store.next_seq(sid)
    turn = state.turn_number + 1
    added = [speech(first + i, turn, f"line {first + i}") for i in range(records)]
    store.commit_turn(sid, turn, added, state, state.revision)


def play(data_dir: Path, steps: list[Op], asks: list[tuple[int, int]]) -> SessionStore:
    store, other = SessionStore(data_dir, synchronous="OFF"), SessionStore(data_dir)
    sid = store.create(plain_state("tails"), [speech(0, 0)]).id
    for (op, n), (turns, step) in zip(steps, asks * (1 + len(steps)), strict=False):
        state = store.load(sid)
        if op == "commit":
            _commit(store, sid, n)
        elif op == "other":
            _commit(other, sid, n)
        elif op == "undo" and state.turn_number > 0:
            store.undo(sid)
        elif op == "replace":
            store.replace_state(sid, state.model_copy(update={"title": f"t{n}"}), state.revision)
        got = store.snapshot(sid, turns, step)
        fresh = SessionStore(data_dir).snapshot(sid, turns, step)
        assert _dump(got) == _dump(fresh), (op, turns, step)
    return store


@settings(max_examples=60, deadline=None)
@given(ops, st.lists(windows, min_size=1, max_size=4))
def test_remembered_windows_equal_windows_read_afresh(
    tmp_path_factory: pytest.TempPathFactory, steps: list[Op], asks: list[tuple[int, int]]
) -> None:
    play(tmp_path_factory.mktemp("tails"), steps, asks)


def test_a_turn_after_a_commit_reads_nothing(tmp_path: Path) -> None:
    store = play(tmp_path, [("commit", 2)] * 6, [(3, 1)])
    reads = store._tails.reads
    _commit(store, "tails", 2)
    store.snapshot("tails", 3)
    assert store._tails.reads == reads


def _unseen_write(data_dir: Path) -> tuple[Any, Any]:
    """A window read, another store's commit, this store's commit, then a snapshot: this
    store and a fresh one."""
    store, other = SessionStore(data_dir, synchronous="OFF"), SessionStore(data_dir)
    sid = store.create(plain_state("tails"), [speech(0, 0)]).id
    _commit(store, sid, 1)
    store.snapshot(sid, 4)
    _commit(other, sid, 1)
    _commit(store, sid, 1)
    return _dump(store.snapshot(sid, 4)), _dump(SessionStore(data_dir).snapshot(sid, 4))


def test_negative_control_extending_across_an_unseen_write_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    got, fresh = _unseen_write(tmp_path / "clean")
    assert got == fresh

    def careless(self: Any, session_id: str, before: Any, after: Any, added: Any) -> None:
        window = self._windows.get(session_id)
        if window is not None:  # planted: no stamp check
            self._windows[session_id] = window.extended(after, added)

    monkeypatch.setattr(_tails.TailCache, "extend", careless)
    got, fresh = _unseen_write(tmp_path / "planted")
    assert got != fresh  # the other store's record is missing


def test_negative_control_a_trimmed_window_claiming_the_whole_session_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_tails, "SPARE_TURNS", 0)
    steps: list[Op] = [("commit", 1)] * 11 + [("replace", 0)]
    asks = [(9, 1)] * 11 + [(12, 1)]
    play(tmp_path / "clean", steps, asks)
    real = _tails._Window.extended

    def keeps_whole(self: Any, stamp: Any, added: Any) -> Any:
        extended = real(self, stamp, added)
        return _tails._Window(  # planted: trimming forgets to clear `whole`
            extended.stamp, extended.records, extended.starts, self.whole,
            extended.next_seq, extended.wanted,
        )  # fmt: skip

    monkeypatch.setattr(_tails._Window, "extended", keeps_whole)
    with pytest.raises(AssertionError):
        play(tmp_path / "planted", steps, asks)
