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
