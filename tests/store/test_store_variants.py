"""Variants of the last turn (store format 3): a rerun sets the committed turn aside, a flip
swaps one back, and every state reads back exactly.

The property test plays any sequence of commits, reruns (`replace_last_turn`), flips, undos
and reopened stores, with ledger memories evolving as in the memory-line property; after
every step the committed state and records read back exactly, the variant list matches a
model, and the memory ranges end at their key's last line. Undoing every turn restores the
created state. Negative controls plant a set-aside that keeps the committed turn's memory
lines and one that forgets its records; forks at a turn and renames are checked by example.
"""

from __future__ import annotations

import sqlite3
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from store_strategies import plain_state, session_states, speech
from test_store_memory_lines import _check_rows, _evolve, edits

from tavern.records import HistoryRecord, PerspectiveLedger, SessionState, TurnInput
from tavern.store import (
    InvalidTurn,
    NothingToUndo,
    RevisionConflict,
    SessionStore,
    StoreError,
)

Op = tuple[Any, ...]
"""("commit", edit, n), ("rerun", edit, n), ("flip", k), ("undo",) or ("reopen",)."""

operations = st.lists(
    st.one_of(
        st.tuples(st.just("commit"), edits, st.integers(0, 3)),
        st.tuples(st.just("rerun"), edits, st.integers(0, 3)),
        st.tuples(st.just("flip"), st.integers(0, 5)),
        st.just(("undo",)),
        st.just(("reopen",)),
    ),
    max_size=16,
)


@dataclass
class Level:
    """The model of one turn: its committed variant and the set-aside ones."""

    first_seq: int
    committed: tuple[int, dict[str, Any], list[HistoryRecord], str | None]
    aside: dict[int, tuple[dict[str, Any], list[HistoryRecord], str | None]] = field(
        default_factory=dict
    )


def _content(state: SessionState) -> dict[str, Any]:
    return state.model_dump(exclude={"revision"})


def _records(first: int, turn: int, n: int, tag: str) -> list[HistoryRecord]:
    return [speech(first + i, turn, f"{tag} {i}") for i in range(n)]


def _check(store: SessionStore, sid: str, current: SessionState, levels: list[Level]) -> None:
    assert store.load(sid).model_dump() == current.model_dump()
    top = levels[-1] if levels else None
    assert store.history(sid) == [r for level in levels for r in level.committed[2]]
    listed = store.variants(sid)
    if top is None:
        assert listed == []
        return
    expected = {top.committed[0]: (True, top.committed[3])} | {
        v: (False, entry[2]) for v, entry in top.aside.items()
    }
    assert {
        v.variant: (v.committed, None if v.input is None else v.input.speech) for v in listed
    } == expected


def play(data_dir: Path, initial: SessionState, ops: list[Op]) -> None:
    """Run `ops` on a new session, checking every read against the model."""
    sid = initial.id
    store = SessionStore(data_dir, synchronous="OFF")
    current = store.create(initial)
    levels: list[Level] = []
    try:
        for n, op in enumerate(ops):
            kind = op[0]
            if kind == "reopen":
                store.close()
                store = SessionStore(data_dir, synchronous="OFF")
                continue
            if kind == "undo":
                if not levels:
                    continue
                current = store.undo(sid)
                levels.pop()
                expected = levels[-1].committed[1] if levels else _content(initial)
                assert _content(current) == expected
            elif kind == "commit":
                turn = current.turn_number + 1
                first = store.next_seq(sid)
                records = _records(first, turn, op[2], f"op {n}")
                said = TurnInput(speech=f"said {n}")
                new = _evolve(current, op[1], f"op {n}")
                current = store.commit_turn(
                    sid, turn, records, new, current.revision, turn_input=said
                )
                levels.append(Level(first, (0, _content(current), records, said.speech)))
            elif kind == "rerun":
                if not levels:
                    with pytest.raises(NothingToUndo):
                        store.rerun_base(sid, 3)
                    continue
                top = levels[-1]
                base = store.rerun_base(sid, 3)
                assert base.snapshot.next_seq == top.first_seq
                assert base.revision == current.revision
                before = levels[-2].committed[1] if len(levels) > 1 else _content(initial)
                assert _content(base.snapshot.state) == before
                turn = current.turn_number
                records = _records(top.first_seq, turn, op[2], f"rerun {n}")
                said = TurnInput(speech=f"again {n}")
                new = _evolve(base.snapshot.state, op[1], f"op {n}")
                set_aside = top.committed
                current = store.replace_last_turn(sid, records, new, current.revision, said)
                number = max([set_aside[0], *top.aside]) + 1
                top.aside[set_aside[0]] = set_aside[1:]
                top.committed = (number, _content(current), records, said.speech)
            else:  # flip
                if not levels or not levels[-1].aside:
                    continue
                top = levels[-1]
                variant = sorted(top.aside)[op[1] % len(top.aside)]
                current, records = store.flip_last_turn(sid, variant, current.revision)
                content, expected_records, said_text = top.aside.pop(variant)
                assert records == expected_records
                assert _content(current) == content
                top.aside[top.committed[0]] = top.committed[1:]
                top.committed = (variant, content, expected_records, said_text)
            _check(store, sid, current, levels)
            with SessionStore(data_dir, synchronous="OFF") as fresh:
                _check(fresh, sid, current, levels)
            _check_rows(data_dir, sid, current.turn_number)
        while current.turn_number > 0:
            current = store.undo(sid)
        assert _content(current) == _content(initial)
        assert store.variants(sid) == []
        store.delete(sid)
    finally:
        store.close()


@settings(max_examples=60, deadline=None)
@given(initial=session_states(), ops=operations)
def test_any_play_with_reruns_and_flips_reads_back_exactly(
    initial: SessionState, ops: list[Op]
) -> None:
    with tempfile.TemporaryDirectory(prefix="tavern-variants-") as tmp:
        play(Path(tmp), initial, ops)


RERUN_THEN_FLIP: list[Op] = [
    ("commit", {"C1": ("append", ["first"])}, 2),
    ("rerun", {"C1": ("append", ["second"])}, 1),
    ("flip", 0),
    ("flip", 0),
]


LEDGERS = {"C1": PerspectiveLedger(owner="C1", memory=["C1 line 0"])}


def test_the_rerun_then_flip_plays_clean(tmp_path: Path) -> None:
    start = plain_state("var-one").model_copy(update={"ledgers": LEDGERS})
    play(tmp_path, start, RERUN_THEN_FLIP)  # control for the planted ones


def test_negative_control_a_set_aside_keeping_memory_lines_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_execute = sqlite3.Connection.execute

    def keeps_lines(
        db: sqlite3.Connection, sid: str, turn: int, checkpoint: Any, state: SessionState
    ) -> None:
        bodies = [
            r[0]
            for r in real_execute(db, "SELECT body FROM history WHERE turn_number = ?", (turn,))
        ]
        db.execute(
            "INSERT INTO alternatives (session_id, turn_number, variant, input, records, state,"
            " created_at) VALUES (?, ?, ?, ?, ?, ?, '2026-01-01T00:00:00+00:00')",
            (
                sid,
                turn,
                checkpoint.variant,
                checkpoint.input,
                "[" + ",".join(bodies) + "]",
                state.model_dump_json(),
            ),
        )
        db.execute("DELETE FROM history WHERE session_id = ? AND turn_number >= ?", (sid, turn))
        # planted: the committed variant's memory lines stay

    monkeypatch.setattr("tavern.store.sessions.set_aside", keeps_lines)
    with pytest.raises(sqlite3.IntegrityError, match="UNIQUE"):
        play(
            tmp_path,
            plain_state("var-two").model_copy(update={"ledgers": LEDGERS}),
            RERUN_THEN_FLIP,
        )


def test_negative_control_a_set_aside_forgetting_records_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def forgets_records(
        db: sqlite3.Connection, sid: str, turn: int, checkpoint: Any, state: SessionState
    ) -> None:
        db.execute(
            "INSERT INTO alternatives (session_id, turn_number, variant, input, records, state,"
            " created_at) VALUES (?, ?, ?, ?, '[]', ?, '2026-01-01T00:00:00+00:00')",
            (sid, turn, checkpoint.variant, checkpoint.input, state.model_dump_json()),
        )  # planted: the records are not kept with the variant
        for table in ("history", "memory_lines"):
            db.execute(
                f"DELETE FROM {table} WHERE session_id = ? AND turn_number >= ?", (sid, turn)
            )

    monkeypatch.setattr("tavern.store.sessions.set_aside", forgets_records)
    with pytest.raises(AssertionError):
        play(tmp_path, plain_state("var-three"), RERUN_THEN_FLIP)


def test_stale_revision_and_unknown_variant_write_nothing(tmp_path: Path) -> None:
    with SessionStore(tmp_path, synchronous="OFF") as store:
        state = store.create(plain_state("var-four"))
        state = store.commit_turn(state.id, 1, [speech(0, 1)], state, state.revision)
        with pytest.raises(RevisionConflict):
            store.replace_last_turn(state.id, [speech(0, 1, "x")], state, state.revision - 1)
        with pytest.raises(RevisionConflict):
            store.flip_last_turn(state.id, 0, state.revision + 5)
        with pytest.raises(StoreError, match="no variant 7"):
            store.flip_last_turn(state.id, 7, state.revision)
        with pytest.raises(InvalidTurn):  # a record of another turn
            store.replace_last_turn(state.id, [speech(0, 2, "x")], state, state.revision)
        assert store.history(state.id) == [speech(0, 1)]
        assert [v.variant for v in store.variants(state.id)] == [0]
        assert store.load(state.id).revision == state.revision


def test_fork_at_a_turn_and_rename(tmp_path: Path) -> None:
    with SessionStore(tmp_path, synchronous="OFF") as store:
        state = store.create(plain_state("var-five"))
        states = [state]
        for turn in (1, 2, 3):
            new = state.model_copy(update={"story_summary": f"after {turn}"})
            state = store.commit_turn(
                state.id, turn, [speech(turn - 1, turn, f"t{turn}")], new, state.revision
            )
            states.append(state)
        forked = store.fork(state.id, "var-five-b", at_turn=1)
        assert forked.turn_number == 1 and forked.story_summary == "after 1"
        assert [r.text for r in store.history("var-five-b")] == ["t1"]  # type: ignore[union-attr]
        assert store.load("var-five").turn_number == 3  # the source is untouched
        summary = {s.id: s for s in store.list()}["var-five-b"]
        assert (summary.forked_from, summary.forked_at_turn) == ("var-five", 1)
        assert summary.controlled_name == "C1"
        store.commit_turn("var-five-b", 2, [speech(1, 2, "new")], forked, forked.revision)
        assert [r.text for r in store.history("var-five-b")] == ["t1", "new"]  # type: ignore[union-attr]
        with pytest.raises(InvalidTurn):
            store.fork(state.id, "var-five-c", at_turn=4)
        assert not store.exists("var-five-c")
        store.rename("var-five", "My evening")
        assert {s.id: s.name for s in store.list()}["var-five"] == "My evening"
        assert store.load("var-five") == states[-1]  # a rename leaves the state alone
        page = store.turns("var-five", 2, 3)
        assert [r.turn_number for r in page.records] == [2, 3] and set(page.ticks) == {2, 3}
