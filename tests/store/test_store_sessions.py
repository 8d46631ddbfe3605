"""Session store behaviour: versions, undo, fork, delete, revisions, ids, queries."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from store_strategies import plain_state, session_states, speech, turn_records

from tavern.records import SESSION_SCHEMA_VERSION, CommitLine, SessionState, utc_now
from tavern.store import (
    InvalidIdError,
    InvalidTurn,
    JournalWriter,
    NothingToUndo,
    RevisionConflict,
    SchemaVersionMismatch,
    SessionExists,
    SessionNotFound,
    SessionStore,
    journal_path,
    read_journal,
    session_dir,
)


@pytest.fixture
def store(tavern_data_dir: Path) -> Iterator[SessionStore]:
    with SessionStore(tavern_data_dir, synchronous="NORMAL") as opened:
        yield opened


def _play(store: SessionStore, state: SessionState, turns: int) -> SessionState:
    for _ in range(turns):
        turn = state.turn_number + 1
        seq = store.next_seq(state.id)
        records = [speech(seq, turn, f"t{turn}a"), speech(seq + 1, turn, f"t{turn}b")]
        new = state.model_copy(
            update={"story_summary": f"after {turn}", "moods": {"C1": str(turn)}}
        )
        state = store.commit_turn(state.id, turn, records, new, state.revision)
    return state


def _digest(data_dir: Path) -> dict[str, str]:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(data_dir.rglob("*"))
        if p.is_file()
    }


def _plant_version(db_path: Path, session_id: str, version: int) -> None:
    db = sqlite3.connect(db_path)
    with db:
        db.execute(
            "UPDATE sessions SET schema_version = ?, state = json_set(state, '$.schema_version', ?)"
            " WHERE id = ?",
            (version, version, session_id),
        )
    db.close()


def test_wrong_schema_version_is_refused_and_nothing_changes(tavern_data_dir: Path) -> None:
    with SessionStore(tavern_data_dir) as store:
        state = store.create(plain_state(), [speech(0, 0)])
        _play(store, state, 2)
        assert store.load(state.id).turn_number == 2  # control: the session loads before planting
    _plant_version(tavern_data_dir / "sessions.sqlite3", state.id, SESSION_SCHEMA_VERSION + 1)
    before = _digest(tavern_data_dir)
    with SessionStore(tavern_data_dir) as store:
        for attempt in (
            lambda: store.load(state.id),
            lambda: store.undo(state.id),
            lambda: store.history(state.id),
            lambda: store.commit_turn(state.id, 3, [], state, 2),
            lambda: store.fork(state.id, "the-fork"),
        ):
            with pytest.raises(SchemaVersionMismatch) as caught:
                attempt()
            message = str(caught.value)
            assert f"schema_version {SESSION_SCHEMA_VERSION + 1}" in message
            assert f"schema_version {SESSION_SCHEMA_VERSION}" in message
    assert _digest(tavern_data_dir) == before


def test_state_json_of_another_version_is_refused_even_if_the_column_agrees(
    store: SessionStore, tavern_data_dir: Path
) -> None:
    state = store.create(plain_state())
    db = sqlite3.connect(tavern_data_dir / "sessions.sqlite3")
    with db:
        db.execute("UPDATE sessions SET state = json_set(state, '$.schema_version', 7)")
    db.close()
    with pytest.raises(SchemaVersionMismatch, match="schema_version 7"):
        store.load(state.id)


def test_store_file_of_a_newer_layout_is_refused(tavern_data_dir: Path) -> None:
    with SessionStore(tavern_data_dir) as store:
        store.create(plain_state())
    db = sqlite3.connect(tavern_data_dir / "sessions.sqlite3")
    db.execute("PRAGMA user_version = 99")
    db.close()
    before = _digest(tavern_data_dir)
    with pytest.raises(SchemaVersionMismatch, match="schema_version 99"):
        SessionStore(tavern_data_dir).list()
    assert _digest(tavern_data_dir) == before


def test_undo_restores_exactly_and_repeats_down_to_turn_zero(store: SessionStore) -> None:
    state = store.create(plain_state(), [speech(0, 0, "opening")])
    snapshots = [(store.load(state.id), store.history(state.id))]
    current = state
    for _ in range(3):
        current = _play(store, current, 1)
        snapshots.append((store.load(state.id), store.history(state.id)))
    for expected_state, expected_history in reversed(snapshots[:-1]):
        restored = store.undo(state.id)
        assert restored.revision > expected_state.revision
        assert restored.model_copy(update={"revision": 0}) == expected_state.model_copy(
            update={"revision": 0}
        )
        assert store.load(state.id) == restored
        assert store.history(state.id) == expected_history
    with pytest.raises(NothingToUndo):
        store.undo(state.id)
    assert [r.text for r in store.history(state.id)] == ["opening"]  # type: ignore[union-attr]


@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_undo_restores_any_pre_turn_state(tmp_path: Path, data: st.DataObject) -> None:
    with SessionStore(tmp_path, synchronous="OFF") as store:
        first = data.draw(session_states())
        if store.exists(first.id):
            store.delete(first.id)
        current = store.create(first, data.draw(turn_records(0, 0)))
        history_before = store.history(first.id)
        records = data.draw(turn_records(store.next_seq(first.id), 1))
        after = data.draw(session_states(session_id=first.id))
        store.commit_turn(first.id, 1, records, after, current.revision)
        restored = store.undo(first.id)
        assert restored == first.model_copy(update={"revision": 2})
        assert store.history(first.id) == history_before
        store.delete(first.id)


def test_stale_revision_conflicts_and_writes_nothing(store: SessionStore) -> None:
    state = store.create(plain_state())
    fresh = _play(store, state, 1)
    with pytest.raises(RevisionConflict):
        store.commit_turn(state.id, 2, [speech(2, 2)], fresh, expected_revision=0)
    assert store.load(state.id) == fresh
    assert len(store.history(state.id)) == 2


def test_undo_makes_a_held_revision_stale(store: SessionStore) -> None:
    state = _play(store, store.create(plain_state()), 2)
    store.undo(state.id)
    with pytest.raises(RevisionConflict):
        store.commit_turn(state.id, 2, [], state, state.revision)


@pytest.mark.parametrize(
    ("turn", "records", "why"),
    [
        (3, [], "skips a turn"),
        (1, [], "repeats a turn"),
        (2, [speech(10, 1)], "record of another turn"),
        (2, [speech(1, 2)], "seq collides with a stored record"),
        (2, [speech(5, 2), speech(5, 2)], "seqs not increasing"),
    ],
)
def test_malformed_turns_are_refused(
    store: SessionStore, turn: int, records: list[object], why: str
) -> None:
    state = _play(store, store.create(plain_state()), 1)
    with pytest.raises(InvalidTurn):
        store.commit_turn(state.id, turn, records, state, state.revision)  # type: ignore[arg-type]
    assert store.load(state.id) == state, why


def test_commit_of_another_sessions_state_is_refused(store: SessionStore) -> None:
    state = store.create(plain_state())
    with pytest.raises(InvalidTurn):
        store.commit_turn(state.id, 1, [], plain_state("other-one"), 0)


def test_fork_is_independent(store: SessionStore, tavern_data_dir: Path) -> None:
    state = _play(store, store.create(plain_state(), [speech(0, 0)]), 2)
    writer = JournalWriter(tavern_data_dir, durable=False)
    line = CommitLine(
        ts=utc_now(), session_id=state.id, turn_number=2, revision=2, record_count=2, tick=0,
        control_returned=True,
    )  # fmt: skip
    writer.append(state.id, line)
    forked = store.fork(state.id, "the-fork")
    assert forked.id == "the-fork"
    assert forked.model_copy(update={"id": state.id}) == state
    assert store.history("the-fork") == store.history(state.id)
    assert read_journal(journal_path(tavern_data_dir, "the-fork")) == [line]

    _play(store, forked, 1)  # write to the fork: the original does not move
    writer.append("the-fork", line.model_copy(update={"session_id": "the-fork"}))
    assert store.load(state.id) == state
    assert len(store.history(state.id)) == 5
    assert len(read_journal(journal_path(tavern_data_dir, state.id))) == 1

    store.undo(state.id)  # undo the original: the fork keeps its turns and checkpoints
    store.undo(state.id)
    assert store.load("the-fork").turn_number == 3
    for expected_turn in (2, 1, 0):
        assert store.undo("the-fork").turn_number == expected_turn
    assert store.load("the-fork").id == "the-fork"
    with pytest.raises(SessionExists):
        store.fork(state.id, "the-fork")


def test_delete_removes_everything(store: SessionStore, tavern_data_dir: Path) -> None:
    keep = _play(store, store.create(plain_state("keep-me")), 1)
    state = _play(store, store.create(plain_state(), [speech(0, 0)]), 2)
    JournalWriter(tavern_data_dir, durable=False).append(
        state.id,
        CommitLine(
            ts=utc_now(), session_id=state.id, turn_number=1, revision=1, record_count=1, tick=0,
            control_returned=True,
        ),
    )  # fmt: skip
    db_path = tavern_data_dir / "sessions.sqlite3"

    def rows() -> dict[str, int]:
        db = sqlite3.connect(db_path)
        try:
            return {
                table: db.execute(
                    f"SELECT count(*) FROM {table} WHERE {col} = ?", (state.id,)
                ).fetchone()[0]
                for table, col in (
                    ("sessions", "id"),
                    ("history", "session_id"),
                    ("checkpoints", "session_id"),
                )
            }
        finally:
            db.close()

    assert rows() == {"sessions": 1, "history": 5, "checkpoints": 2}  # control: there is something
    assert session_dir(tavern_data_dir, state.id).is_dir()
    store.delete(state.id)
    assert rows() == {"sessions": 0, "history": 0, "checkpoints": 0}
    assert not session_dir(tavern_data_dir, state.id).exists()
    assert [s.id for s in store.list()] == [keep.id]
    assert store.load(keep.id) == keep
    with pytest.raises(SessionNotFound):
        store.load(state.id)
    with pytest.raises(SessionNotFound):
        store.delete(state.id)


@pytest.mark.parametrize(
    "bad", ["../etc", "a/b", "..", "ab", "UPPER-case", "", "x" * 65, "abc\n", "é-ab"]
)
def test_traversal_and_malformed_ids_are_refused(store: SessionStore, bad: str) -> None:
    for call in (store.load, store.delete, store.history, lambda i: store.fork("sess-one", i)):
        with pytest.raises(InvalidIdError):
            call(bad)
    with pytest.raises(InvalidIdError):
        journal_path(Path("/tmp"), bad)


def test_missing_session_raises_not_found(store: SessionStore) -> None:
    with pytest.raises(SessionNotFound):
        store.load("nobody-here")
    with pytest.raises(SessionNotFound):
        store.history("nobody-here")
    with pytest.raises(SessionNotFound):
        store.commit_turn("nobody-here", 1, [], plain_state("nobody-here"), 0)


def test_create_twice_is_refused(store: SessionStore) -> None:
    store.create(plain_state())
    with pytest.raises(SessionExists):
        store.create(plain_state())


def test_history_pages_and_tail(store: SessionStore) -> None:
    state = _play(store, store.create(plain_state(), [speech(0, 0)]), 4)
    seqs = [r.seq for r in store.history(state.id)]
    assert seqs == list(range(9))
    assert [r.seq for r in store.history(state.id, after_seq=3, limit=2)] == [4, 5]
    assert [r.turn_number for r in store.history_tail(state.id, 2)] == [3, 3, 4, 4]
    assert len(store.history_tail(state.id, 100)) == 9
    assert store.history_tail(state.id, 0) == []
    assert store.next_seq(state.id) == 9


def test_history_tail_counts_turns_present_and_skips_empty_ones(store: SessionStore) -> None:
    state = store.create(plain_state(), [speech(0, 0)])
    state = store.commit_turn(state.id, 1, [speech(1, 1)], state, state.revision)
    state = store.commit_turn(state.id, 2, [], state, state.revision)  # a turn with no records
    state = store.commit_turn(state.id, 3, [speech(2, 3), speech(3, 3)], state, state.revision)
    assert [r.turn_number for r in store.history_tail(state.id, 1)] == [3, 3]
    assert [r.turn_number for r in store.history_tail(state.id, 2)] == [1, 3, 3]
    assert [r.turn_number for r in store.history_tail(state.id, 3)] == [0, 1, 3, 3]
    store.undo(state.id)
    assert [r.turn_number for r in store.history_tail(state.id, 1)] == [1]


def test_list_summarises_sessions(store: SessionStore) -> None:
    _play(store, store.create(plain_state("first-one")), 2)
    store.create(plain_state("second-one"))
    summaries = {s.id: s for s in store.list()}
    assert summaries["first-one"].turn_number == 2
    assert summaries["second-one"].turn_number == 0
    assert summaries["first-one"].title == "A title"
    assert summaries["first-one"].scenario_id == "sc"


def test_replace_state_bumps_revision_and_keeps_turn(store: SessionStore) -> None:
    state = _play(store, store.create(plain_state()), 1)
    compacted = store.replace_state(
        state.id, state.model_copy(update={"story_summary": "short"}), state.revision
    )
    assert compacted.revision == state.revision + 1
    assert store.load(state.id).story_summary == "short"
    with pytest.raises(InvalidTurn):
        store.replace_state(
            state.id, compacted.model_copy(update={"turn_number": 5}), compacted.revision
        )


def test_database_is_in_wal_mode(store: SessionStore, tavern_data_dir: Path) -> None:
    store.create(plain_state())
    db = sqlite3.connect(tavern_data_dir / "sessions.sqlite3")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()


def test_checkpoint_rows_hold_the_pre_turn_state(
    store: SessionStore, tavern_data_dir: Path
) -> None:
    state = _play(store, store.create(plain_state()), 2)
    db = sqlite3.connect(tavern_data_dir / "sessions.sqlite3")
    rows = db.execute(
        "SELECT turn_number, pre_state FROM checkpoints WHERE session_id = ?", (state.id,)
    )
    pre = {t: json.loads(body) for t, body in rows}
    db.close()
    assert pre[1]["turn_number"] == 0 and pre[2]["story_summary"] == "after 1"


def test_a_failed_commit_leaves_the_connection_usable(store: SessionStore) -> None:
    state = store.create(plain_state())
    db = store._conn()
    db.execute(
        "CREATE TEMP TRIGGER refuse BEFORE INSERT ON checkpoints"
        " BEGIN SELECT RAISE(ABORT, 'disk full'); END"
    )
    with pytest.raises(sqlite3.IntegrityError, match="disk full"):
        store.commit_turn(state.id, 1, [speech(0, 1)], state, state.revision)
    assert not db.in_transaction
    assert store.history(state.id) == []  # nothing of the turn is visible
    db.execute("DROP TRIGGER refuse")
    assert store.commit_turn(state.id, 1, [speech(0, 1)], state, state.revision).turn_number == 1


def test_public_names_are_exported() -> None:
    import inspect

    import tavern.store

    public = {
        name
        for name, value in vars(tavern.store).items()
        if not name.startswith("_") and not inspect.ismodule(value)
    }
    assert public == set(tavern.store.__all__)


def test_snapshot_is_load_tail_and_next_seq_in_one_read(store: SessionStore) -> None:
    state = _play(store, store.create(plain_state(), [speech(0, 0)]), 4)
    snap = store.snapshot(state.id, 2)
    assert snap.state == store.load(state.id)
    assert snap.tail == store.history_tail(state.id, 2)
    assert snap.next_seq == store.next_seq(state.id) == 9
    assert store.snapshot(state.id, 0).tail == []
    with pytest.raises(SessionNotFound):
        store.snapshot("no-such-one", 1)


def test_snapshot_with_a_step_moves_its_first_turn_only_every_step(store: SessionStore) -> None:
    state = store.create(plain_state(), [speech(0, 0)])
    firsts = []
    for turn in range(1, 13):
        state = store.commit_turn(state.id, turn, [speech(turn, turn)], state, state.revision)
        tail = store.snapshot(state.id, 2, step=4).tail
        firsts.append(tail[0].turn_number)
        assert len({r.turn_number for r in tail}) >= 2  # never less than asked
    assert firsts == [0, 0, 0, 3, 3, 3, 3, 7, 7, 7, 7, 11]
