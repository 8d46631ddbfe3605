"""Every read reflects the file as it is now, whoever wrote it.

Another store on the same file (another process, as far as this one can tell) may commit,
delete and recreate a session between two reads; an undone turn's seq may be replayed with
other text. Each read must show what the file holds. The negative control plants the
mistake any remembered read makes: a store that hands out what it read before.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from store_strategies import plain_state, speech

from tavern.records import SessionState
from tavern.store import SessionStore


def _commit(store: SessionStore, state: SessionState, text: str) -> SessionState:
    turn = state.turn_number + 1
    added = [speech(store.next_seq(state.id), turn, text)]
    return store.commit_turn(state.id, turn, added, state, state.revision)


def _reads(data_dir: Path) -> list[Any]:
    """What one store reads around another store's writes on the same file."""
    store, other = SessionStore(data_dir, synchronous="OFF"), SessionStore(data_dir)
    state = _commit(store, store.create(plain_state("fresh"), [speech(0, 0)]), "mine")
    sid = state.id
    store.snapshot(sid, 4)
    _commit(other, other.load(sid), "theirs")  # another process commits
    seen: list[Any] = [[r.text for r in store.snapshot(sid, 4).tail]]
    state = _commit(store, store.undo(sid), "replayed")  # the undone seq again, other text
    seen.append([r.text for r in store.history_tail(sid, 1)])
    store.load(sid)
    other.delete(sid)  # deleted and recreated: same id and revision, another title
    recreated = state.model_copy(update={"title": "Recreated", "turn_number": 0})
    other.create(recreated, [speech(0, 0)])
    seen.append(store.load(sid).title)
    store.close()
    other.close()
    return seen


EXPECTED = [["hello", "mine", "theirs"], ["replayed"], "Recreated"]
"""The opening record's text, both commits; the replayed text; the recreated title."""


def test_reads_show_the_file_as_it_is(tmp_path: Path) -> None:
    assert _reads(tmp_path) == EXPECTED


def test_negative_control_a_store_remembering_its_reads_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_load, real_snapshot = SessionStore.load, SessionStore.snapshot
    states: dict[tuple[int, str], SessionState] = {}
    snapshots: dict[tuple[int, str], Any] = {}

    def remembered_load(self: SessionStore, sid: str) -> SessionState:
        return states.setdefault((id(self), sid), real_load(self, sid))

    def remembered_snapshot(self: SessionStore, sid: str, turns: int, step: int = 1) -> Any:
        return snapshots.setdefault((id(self), sid), real_snapshot(self, sid, turns, step))

    monkeypatch.setattr(SessionStore, "load", remembered_load)
    monkeypatch.setattr(SessionStore, "snapshot", remembered_snapshot)
    seen = _reads(tmp_path)
    assert seen[0] != EXPECTED[0] and seen[2] != EXPECTED[2]
