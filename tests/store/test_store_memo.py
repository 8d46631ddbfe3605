"""The parsed-record memo behind `history_tail`: shared frozen records, never a stale one."""

from __future__ import annotations

from pathlib import Path

import pydantic
import pytest
from store_strategies import plain_state, speech

from tavern.records import HistoryRecord
from tavern.records.history import HISTORY_RECORD_ADAPTER
from tavern.store import SessionStore
from tavern.store import _history as history_module


def _replayed_tail(store: SessionStore) -> list[str]:
    """Commit a turn, read it, undo it, commit another text at the same seq, read again."""
    state = store.create(plain_state(), [speech(0, 0)])
    state = store.commit_turn(state.id, 1, [speech(1, 1, "first take")], state, state.revision)
    assert [r.text for r in store.history_tail(state.id, 1)] == ["first take"]
    state = store.undo(state.id)
    store.commit_turn(state.id, 1, [speech(1, 1, "second take")], state, state.revision)
    return [r.text for r in store.history_tail(state.id, 1)]


def test_a_window_read_twice_is_parsed_once_and_shared(tmp_path: Path) -> None:
    store = SessionStore(tmp_path, synchronous="OFF")
    state = store.create(plain_state(), [speech(0, 0)])
    state = store.commit_turn(state.id, 1, [speech(1, 1), speech(2, 1)], state, state.revision)
    first = store.history_tail(state.id, 2)
    misses = store._records.misses
    again = store.history_tail(state.id, 2)
    assert store._records.misses == misses
    assert all(a is b for a, b in zip(first, again, strict=True))
    with pytest.raises(pydantic.ValidationError):
        first[0].text = "changed"  # type: ignore[misc]  # frozen: no reader can alter it
    store.close()


def test_an_undone_and_replayed_seq_is_read_fresh(tmp_path: Path) -> None:
    store = SessionStore(tmp_path, synchronous="OFF")
    assert _replayed_tail(store) == ["second take"]
    store.close()


class _SeqKeyed(history_module.ParsedRecords):
    """Planted fault: a memo keyed by seq instead of the stored body."""

    def parse(self, bodies: object, *, remember: bool = True) -> list[HistoryRecord]:
        out = []
        for body in bodies:  # type: ignore[attr-defined]
            record = HISTORY_RECORD_ADAPTER.validate_json(body)
            out.append(self._by_seq.setdefault(record.seq, record))
        return out

    def __init__(self) -> None:
        super().__init__()
        self._by_seq: dict[int, HistoryRecord] = {}


def test_negative_control_a_seq_keyed_memo_serves_the_undone_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tavern.store.sessions.ParsedRecords", _SeqKeyed)
    store = SessionStore(tmp_path, synchronous="OFF")
    assert _replayed_tail(store) == ["first take"]
    store.close()


def test_state_reads_reuse_the_parsed_state_until_the_row_changes(tmp_path: Path) -> None:
    store = SessionStore(tmp_path, synchronous="OFF")
    state = store.create(plain_state(), [speech(0, 0)])
    first = store.load(state.id)
    misses = store._states.misses
    assert store.snapshot(state.id, 1).state is first and store._states.misses == misses
    # Another writer (another process, or another store on the same file) commits a turn.
    other = SessionStore(tmp_path, synchronous="OFF")
    other.commit_turn(state.id, 1, [speech(1, 1)], first, first.revision)
    assert store.load(state.id).turn_number == 1
    other.close()
    store.close()


def _recreated_title(store: SessionStore, other: SessionStore) -> str:
    """Read a session, let another store delete and recreate it (same id and revision,
    another title), then read it again."""
    state = store.create(plain_state(), [speech(0, 0)])
    store.load(state.id)
    other.delete(state.id)
    other.create(state.model_copy(update={"title": "Recreated"}), [speech(0, 0)])
    return store.load(state.id).title


def test_a_recreated_session_is_read_fresh(tmp_path: Path) -> None:
    store, other = SessionStore(tmp_path), SessionStore(tmp_path)
    assert _recreated_title(store, other) == "Recreated"
    store.close()
    other.close()


def test_negative_control_a_revision_only_stamp_serves_the_deleted_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tavern.store import _states

    real_get = _states.StateCache.get

    def revision_only(self: _states.StateCache, db: object, sid: str, stamp: tuple[int, str]):  # type: ignore[no-untyped-def]
        return real_get(self, db, sid, (stamp[0], ""))  # planted: ignores the write time

    real_put = _states.StateCache.put
    monkeypatch.setattr(_states.StateCache, "get", revision_only)
    monkeypatch.setattr(
        _states.StateCache,
        "put",
        lambda self, sid, stamp, st: real_put(self, sid, (stamp[0], ""), st),
    )
    store, other = SessionStore(tmp_path), SessionStore(tmp_path)
    assert _recreated_title(store, other) != "Recreated"
    store.close()
    other.close()
