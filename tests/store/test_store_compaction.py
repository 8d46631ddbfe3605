"""The store's side of compaction: forks, seqs after eviction, and the guards on a sealed
checkpoint (each refused with nothing written; the same call sealed right goes through)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from store_strategies import plain_state, speech

from tavern.records import CompactionCheckpoint, SessionState, seal_checkpoint, utc_now
from tavern.store import CheckpointError, CompactedTurn, InvalidTurn, SessionStore


@pytest.fixture
def store(tavern_data_dir: Path) -> Iterator[SessionStore]:
    with SessionStore(tavern_data_dir, synchronous="NORMAL") as opened:
        yield opened


def _played(store: SessionStore, turns: int, session_id: str = "sess-one") -> SessionState:
    state = store.create(plain_state(session_id), [speech(0, 0, "start")])
    for turn in range(1, turns + 1):
        seq = store.next_seq(state.id)
        records = [speech(seq, turn, f"t{turn}a"), speech(seq + 1, turn, f"t{turn}b")]
        state = store.commit_turn(state.id, turn, records, state, state.revision)
    return state


def _compact(store: SessionStore, sid: str, keep: int, summary: str = "S") -> SessionState:
    base = store.evictable(sid, keep)
    checkpoint = seal_checkpoint(
        sid, base.parent_id, base.cutoff_turn, base.records, base.state.story_summary,
        summary, utc_now(),
    )  # fmt: skip
    return store.compact(sid, checkpoint, base.state.revision)


def test_a_fork_reseals_its_checkpoints_and_restores_on_its_own(store: SessionStore) -> None:
    state = _played(store, 5)
    _compact(store, state.id, 3, "first")
    _compact(store, state.id, 2, "second")
    forked = store.fork(state.id, "sess-two")
    mine, theirs = store.checkpoints(state.id), store.checkpoints(forked.id)
    assert [c.session_id for c in theirs] == ["sess-two"] * 2
    assert theirs[1].parent_id == theirs[0].id and theirs[0].id != mine[0].id
    restored, _ = store.restore(forked.id, store.load(forked.id).revision)
    assert restored.story_summary == "first"
    assert store.load(state.id).story_summary == "second"  # the source is untouched
    with pytest.raises(InvalidTurn, match="compacted"):
        store.fork(state.id, "sess-three", at_turn=1)


def test_seqs_keep_counting_past_evicted_records(store: SessionStore) -> None:
    state = _played(store, 3)
    _compact(store, state.id, 1)
    store.undo(state.id)  # turn 3 goes: the live history is empty
    assert store.history(state.id) == []
    assert store.next_seq(state.id) == 5  # not 0: the checkpoint holds seqs 0 to 4
    with pytest.raises(CompactedTurn):
        store.undo(state.id)


def test_a_checkpoint_that_does_not_hold_the_live_records_is_refused(
    store: SessionStore,
) -> None:
    state = _played(store, 4)
    base = store.evictable(state.id, 2)
    short = seal_checkpoint(state.id, None, base.cutoff_turn, base.records[:-1], "", "S", utc_now())
    with pytest.raises(CheckpointError, match="does not hold the live records"):
        store.compact(state.id, short, state.revision)
    foreign = seal_checkpoint("sess-else", None, base.cutoff_turn, base.records, "", "S", utc_now())
    with pytest.raises(CheckpointError, match="foreign"):
        store.compact(state.id, foreign, state.revision)
    forged = short.model_copy(update={"records": base.records})  # edited after sealing
    with pytest.raises(CheckpointError, match="tampered"):
        store.compact(state.id, forged, state.revision)
    assert store.checkpoints(state.id) == [] and len(store.history(state.id)) == 9
    _compact(store, state.id, 2)  # negative control: sealed right, it goes through
    assert len(store.history(state.id)) == 4


def test_a_checkpoint_off_the_chain_the_summary_or_the_cutoffs_is_refused(
    store: SessionStore,
) -> None:
    state = _played(store, 5)
    base = store.evictable(state.id, 3)
    records, cutoff = base.records, base.cutoff_turn

    def sealed(parent: str | None, turn: int, previous: str = "") -> CompactionCheckpoint:
        return seal_checkpoint(state.id, parent, turn, records, previous, "S", utc_now())

    with pytest.raises(CheckpointError, match="its parent is cp-a"):
        store.compact(state.id, sealed("cp-" + "a" * 16, cutoff), state.revision)
    with pytest.raises(CheckpointError, match="another story summary"):
        store.compact(state.id, sealed(None, cutoff, "not the state's"), state.revision)
    with pytest.raises(InvalidTurn, match="before the current turn 5"):
        store.compact(state.id, sealed(None, 5), state.revision)
    assert store.checkpoints(state.id) == [] and len(store.history(state.id)) == 11
    first = store.compact(state.id, sealed(None, cutoff), state.revision)  # control
    (done,) = store.checkpoints(state.id)
    again = seal_checkpoint(state.id, done.id, cutoff, [], "S", "S2", utc_now())
    with pytest.raises(InvalidTurn, match="after the last compaction's"):
        store.compact(state.id, again, first.revision)
    assert _compact(store, state.id, 1, "S2").story_summary == "S2"  # control: cutoff 4


def _put_row(store: SessionStore, sid: str, **columns: str) -> None:
    """Overwrite columns of the session's only compaction row (a planted violation)."""
    sets = ", ".join(f"{name} = ?" for name in columns)
    with store._conn() as db:
        db.execute(
            f"UPDATE compactions SET {sets} WHERE session_id = ?",
            (*columns.values(), sid),
        )


def test_restore_checks_the_row_the_summary_and_the_fit_before_anything_moves(
    store: SessionStore,
) -> None:
    state = _compact(store, _played(store, 4).id, 2, "S")
    sid = state.id
    (cp,) = store.checkpoints(sid)
    body = cp.model_dump_json()
    first_live = store.history(sid)[0].seq
    late = [
        r.model_copy(update={"seq": first_live}) if r is cp.records[-1] else r for r in cp.records
    ]
    unfit = seal_checkpoint(sid, None, cp.cutoff_turn, late, "", "S", cp.created_at)
    plants: list[tuple[dict[str, str], str]] = [
        ({"body": "{}"}, "does not read"),
        ({"id": "cp-" + "b" * 16}, "its row names cp-bbbb"),
        (
            {"id": unfit.id, "content_hash": unfit.content_hash, "body": unfit.model_dump_json()},
            "does not fit before the live history",
        ),
    ]
    for columns, message in plants:
        _put_row(store, sid, **columns)
        with pytest.raises(CheckpointError, match=message):
            store.restore(sid, state.revision)
        _put_row(store, sid, id=cp.id, content_hash=cp.content_hash, body=body)
    moved = store.replace_state(
        sid, state.model_copy(update={"story_summary": "E"}), state.revision
    )
    with pytest.raises(CheckpointError, match="summary changed since"):
        store.restore(sid, moved.revision)
    assert len(store.history(sid)) == 4 and store.checkpoints(sid) == [cp]
    back = store.replace_state(sid, moved.model_copy(update={"story_summary": "S"}), moved.revision)
    restored, _ = store.restore(sid, back.revision)  # control: the row as stored goes through
    assert restored.story_summary == "" and len(store.history(sid)) == 9
