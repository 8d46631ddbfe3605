"""Store format 2: ledger memory lives in `memory_lines`, and every state reads back exactly.

The property test plays any sequence of commits, `replace_state`s, undos and reopened stores
(so reads come from disk) whose ledger memories evolve by appends, front evictions, rewrites,
equal copies, new and dropped ledgers; after every step the state reads back exactly (from
the store and from a fresh one), the stored ranges end at each key's last line, and undoing
every turn at the end restores the created state. Negative controls plant a writer that
trusts appends without comparing the overlap and an undo that keeps the undone turn's lines.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from store_strategies import plain_state, session_states, speech

from tavern.records import PerspectiveLedger, SessionState
from tavern.runner.memory import evict
from tavern.store import SessionStore, StoreError
from tavern.store import _memory as memory_module
from tavern.store import _sqlite as sqlite_module

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:  # benchmarks/ is a top-level folder, not an installed package
    sys.path.insert(0, str(REPO))

import benchmarks.crash_store as crash  # noqa: E402

# -- operations as plain data, applied to whatever the memory is when they run -------------

Change = tuple[Any, ...]
"""Per ledger key: ("same",) the very list, ("copy",) equal but distinct strings,
("append", lines), ("evict", k, lines) k lines off the front then lines appended,
("rewrite", lines), ("drop",) the ledger goes."""
Op = tuple[Any, ...]
"""("commit", {key: Change}), ("replace", {key: Change}), ("undo",) or ("reopen",)."""

KEYS = ["C1", "C2", "C3", "C4"]
line_lists = st.lists(st.text(alphabet="ab\x00é", max_size=3), max_size=4)  # many equal lines
changes = st.one_of(
    st.just(("same",)),
    st.just(("copy",)),
    st.tuples(st.just("append"), line_lists),
    st.tuples(st.just("evict"), st.integers(0, 6), line_lists),
    st.tuples(st.just("rewrite"), line_lists),
    st.just(("drop",)),
)
edits = st.dictionaries(st.sampled_from(KEYS), changes, max_size=3)
operations = st.lists(
    st.one_of(
        st.tuples(st.just("commit"), edits),
        st.tuples(st.just("replace"), edits),
        st.just(("undo",)),
        st.just(("reopen",)),
    ),
    max_size=20,
)


def _distinct(line: str) -> str:
    return "".join(list(line))  # equal; a new object unless CPython caches it (short ones)


def _apply(change: Change, memory: list[str]) -> list[str]:
    kind = change[0]
    if kind == "same":
        return memory
    if kind == "copy":
        return [_distinct(line) for line in memory]
    if kind == "append":
        return [*memory, *change[1]]
    if kind == "evict":
        return [*memory[change[1] :], *change[2]]
    return list(change[1])  # rewrite


def _evolve(state: SessionState, edit: dict[str, Change], note: str) -> SessionState:
    ledgers = dict(state.ledgers)
    for key, change in edit.items():
        if change[0] == "drop":
            ledgers.pop(key, None)
            continue
        ledger = ledgers.get(key) or PerspectiveLedger(owner=key)
        ledgers[key] = ledger.model_copy(update={"memory": _apply(change, ledger.memory)})
    return state.model_copy(update={"ledgers": ledgers, "story_summary": note})


def _content(state: SessionState) -> dict[str, Any]:
    return state.model_dump(exclude={"revision"})


def _check_rows(data_dir: Path, session_id: str, turn: int) -> None:
    """Ranges end at their key's last line; no line is tagged after the current turn; the
    row's JSON holds no memory."""
    db = sqlite3.connect(data_dir / "sessions.sqlite3")
    try:
        text, memory_at = db.execute(
            "SELECT state, memory_at FROM sessions WHERE id = ?", (session_id,)
        ).fetchone()
        last = dict(
            db.execute(
                "SELECT owner, max(position) FROM memory_lines WHERE session_id = ? GROUP BY owner",
                (session_id,),
            ).fetchall()
        )
        newest = db.execute(
            "SELECT max(turn_number) FROM memory_lines WHERE session_id = ?", (session_id,)
        ).fetchone()[0]
    finally:
        db.close()
    assert memory_at is not None
    for key, (start, count) in json.loads(memory_at).items():
        assert last.get(key, -1) == start + count - 1, (key, start, count, last)
    assert newest is None or newest <= turn
    assert all(not ledger.get("memory") for ledger in json.loads(text)["ledgers"].values())


def play(data_dir: Path, initial: SessionState, ops: list[Op]) -> None:
    """Run `ops` on a new session and check every read against what was written."""
    sid = initial.id
    store = SessionStore(data_dir, synchronous="OFF")
    current = store.create(initial)
    levels = [_content(current)]  # the expected content at each turn, current last
    try:
        for n, op in enumerate(ops):
            if op[0] == "reopen":
                store.close()
                store = SessionStore(data_dir, synchronous="OFF")
                continue
            if op[0] == "undo":
                if current.turn_number == 0:
                    continue
                current = store.undo(sid)
                levels.pop()
                assert _content(current) == levels[-1]
            else:
                new = _evolve(current, op[1], f"op {n}")
                expected = new.model_dump(exclude={"revision", "turn_number"})
                if op[0] == "commit":
                    turn = current.turn_number + 1
                    current = store.commit_turn(sid, turn, [], new, current.revision)
                    levels.append(_content(current))
                else:
                    current = store.replace_state(sid, new, current.revision)
                    levels[-1] = _content(current)
                assert current.model_dump(exclude={"revision", "turn_number"}) == expected
            assert store.load(sid).model_dump() == current.model_dump()
            with SessionStore(data_dir, synchronous="OFF") as fresh:
                assert fresh.load(sid).model_dump() == current.model_dump()
            _check_rows(data_dir, sid, current.turn_number)
        while current.turn_number > 0:
            current = store.undo(sid)
            levels.pop()
            assert _content(current) == levels[-1]
        assert _content(current) == levels[0]  # turn 0 as created (or replaced at turn 0)
        if not any(op[0] == "replace" for op in ops):
            assert levels[0] == _content(initial)
        with SessionStore(data_dir, synchronous="OFF") as fresh:
            assert _content(fresh.load(sid)) == levels[0]
        store.delete(sid)
    finally:
        store.close()


@settings(max_examples=100, deadline=None)
@given(initial=session_states(), ops=operations)
def test_any_play_reads_back_exactly_and_undoes_to_the_start(
    initial: SessionState, ops: list[Op]
) -> None:
    with tempfile.TemporaryDirectory(prefix="tavern-memory-") as tmp:
        play(Path(tmp), initial, ops)


def _with_memory(session_id: str = "mem-one") -> SessionState:
    state = plain_state(session_id)
    ledgers = {
        k: PerspectiveLedger(owner=k, memory=[f"{k} line {i}" for i in range(3)])
        for k in ("C1", "C2")
    }
    return state.model_copy(update={"ledgers": ledgers})


REWRITE_AS_IF_APPENDED: list[Op] = [
    ("commit", {"C1": ("append", ["c"])}),
    ("commit", {"C1": ("rewrite", ["x", "y", "z", "w", "v"])}),
]


def test_the_deterministic_rewrite_plays_clean(tmp_path: Path) -> None:
    play(tmp_path, _with_memory(), REWRITE_AS_IF_APPENDED)  # control for the planted writer


def test_negative_control_a_writer_trusting_appends_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def trusting(old: list[str], new: list[str]) -> int:
        return 0 if len(new) >= len(old) else len(old)  # planted: no look at the overlap

    monkeypatch.setattr(memory_module, "dropped_front", trusting)
    with pytest.raises(AssertionError):
        play(tmp_path, _with_memory(), REWRITE_AS_IF_APPENDED)
    with SessionStore(tmp_path) as fresh:  # what it stored: the old lines, then the last one
        stored = fresh.load("mem-one").ledgers["C1"].memory
    assert stored == ["C1 line 0", "C1 line 1", "C1 line 2", "c", "v"]


UNDO_THEN_COMMIT: list[Op] = [
    ("commit", {"C1": ("append", ["undone"])}),
    ("undo",),
    ("commit", {"C1": ("append", ["replayed"])}),
]


def test_the_undo_then_commit_plays_clean(tmp_path: Path) -> None:
    play(tmp_path, _with_memory(), UNDO_THEN_COMMIT)  # control for the planted undo


def test_negative_control_an_undo_keeping_the_undone_lines_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = sqlite_module.delete_rows

    def keeps_lines(db: sqlite3.Connection, session_id: str, from_turn: int | None = None) -> int:
        if from_turn is None:
            return real(db, session_id)
        for table in ("history", "checkpoints"):  # planted: memory_lines forgotten
            db.execute(
                f"DELETE FROM {table} WHERE session_id = ? AND turn_number >= ?",
                (session_id, from_turn),
            )
        return 0

    monkeypatch.setattr("tavern.store.sessions.delete_rows", keeps_lines)
    # The property's row check sees the line left beyond C1's restored range...
    with pytest.raises(AssertionError, match="'C1', 0, 3"):
        play(tmp_path / "play", _with_memory(), UNDO_THEN_COMMIT)
    # ...and without that check, the next commit appending to C1 fails.
    store = SessionStore(tmp_path / "direct", synchronous="OFF")
    state = store.create(_with_memory())
    new = _evolve(state, {"C1": ("append", ["undone"])}, "")
    state = store.commit_turn(state.id, 1, [], new, state.revision)
    state = store.undo(state.id)
    new = _evolve(state, {"C1": ("append", ["replayed"])}, "")
    with pytest.raises(sqlite3.IntegrityError, match="UNIQUE"):
        store.commit_turn(state.id, 1, [], new, state.revision)
    store.close()


def test_replace_state_then_commit_then_undo(tmp_path: Path) -> None:
    store = SessionStore(tmp_path, synchronous="OFF")
    start = store.create(_with_memory())
    one = store.commit_turn(
        start.id, 1, [], _evolve(start, {"C1": ("append", ["t1"])}, "one"), start.revision
    )
    # Compaction-like: C1 rewritten (a fresh range), C2 evicted, C3 new; lines tagged turn 1.
    edit = {"C1": ("rewrite", ["summary of C1"]), "C2": ("evict", 2, []), "C3": ("append", ["x"])}
    replaced = store.replace_state(one.id, _evolve(one, edit, "compacted"), one.revision)
    two = store.commit_turn(
        one.id, 2, [], _evolve(replaced, {"C1": ("append", ["t2"])}, "two"), replaced.revision
    )
    assert two.ledgers["C1"].memory == ["summary of C1", "t2"]
    back = store.undo(two.id)
    assert _content(back) == _content(replaced)
    with SessionStore(tmp_path) as fresh:
        assert _content(fresh.load(two.id)) == _content(replaced)
    _check_rows(tmp_path, two.id, 1)
    again = store.commit_turn(
        back.id, 2, [], _evolve(back, {"C1": ("append", ["t2 again"])}, "2"), back.revision
    )
    assert again.ledgers["C1"].memory == ["summary of C1", "t2 again"]
    store.undo(again.id)
    assert _content(store.undo(again.id)) == _content(start)  # the compaction goes with turn 1
    with SessionStore(tmp_path) as fresh:
        assert _content(fresh.load(again.id)) == _content(start)
    _check_rows(tmp_path, again.id, 0)
    store.close()


def _rows(data_dir: Path, sql: str, *args: object) -> list[tuple[Any, ...]]:
    db = sqlite3.connect(data_dir / "sessions.sqlite3")
    try:
        return db.execute(sql, args).fetchall()
    finally:
        db.close()


def test_state_and_checkpoint_rows_hold_no_memory(tmp_path: Path) -> None:
    store = SessionStore(tmp_path, synchronous="OFF")
    state = store.create(_with_memory())
    for turn in (1, 2, 3):
        new = _evolve(state, {"C1": ("append", [f"t{turn}"]), "C2": ("evict", 1, ["y"])}, "")
        state = store.commit_turn(state.id, turn, [], new, state.revision)
    store.close()
    texts = _rows(tmp_path, "SELECT state FROM sessions") + _rows(
        tmp_path, "SELECT pre_state FROM checkpoints"
    )
    assert len(texts) == 4
    for (text,) in texts:
        ledgers = json.loads(text)["ledgers"]
        assert set(ledgers) == {"C1", "C2"}
        assert all(ledger.get("memory", []) == [] for ledger in ledgers.values())
    pre = _rows(tmp_path, "SELECT pre_memory_at FROM checkpoints ORDER BY turn_number")
    assert [json.loads(p)["C1"] for (p,) in pre] == [[0, 3], [0, 4], [0, 5]]
    assert _rows(tmp_path, "SELECT count(*) FROM memory_lines") == [(6 + 3 + 3,)]


def _realistic_memory(owner: str, turn: int, count: int) -> list[str]:
    """`count` ~100-character digest lines of `owner` written at `turn`."""
    pad = "the lamp gutters while someone by the door says something about the harvest and "
    return [(f"[{owner} t{turn}.{i}] " + pad)[:100] for i in range(count)]


def _file_bytes(data_dir: Path) -> int:
    """Size of the store file after folding the WAL back into it."""
    db = sqlite3.connect(data_dir / "sessions.sqlite3")
    try:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        db.close()
    return (data_dir / "sessions.sqlite3").stat().st_size


def test_file_growth_per_turn_with_realistic_memory(tmp_path: Path) -> None:
    # 3 ledgers of ~30 KB and ~7 KB of other state; 5 new lines each and 4 records per turn,
    # evicted as the runner does. Store format 1 grew 66.5 KiB per turn with this memory
    # (state row 56 KiB, copied to a checkpoint).
    owners, turns = ("C1", "C2", "C3"), 200
    state = crash.initial_state("disk")
    ledgers = {o: PerspectiveLedger(owner=o, memory=_realistic_memory(o, 0, 297)) for o in owners}
    pad = "the lamp gutters while someone by the door says something about the harvest and "
    state = state.model_copy(update={"ledgers": ledgers, "world": pad * 75})
    with SessionStore(tmp_path, synchronous="OFF") as store:
        state = store.create(state)
        before = _file_bytes(tmp_path)
        for turn in range(1, turns + 1):
            memory = {
                o: evict([*x.memory, *_realistic_memory(o, turn, 5)], 32_000)
                for o, x in state.ledgers.items()
            }
            new = crash.turn_state(state, turn).model_copy(
                update={
                    "ledgers": {
                        o: x.model_copy(update={"memory": memory[o]})
                        for o, x in state.ledgers.items()
                    }
                }
            )
            first = store.next_seq("disk")
            records = [speech(first + i, turn, pad * 2) for i in range(4)]
            state = store.commit_turn("disk", turn, records, new, state.revision)
    growth = (_file_bytes(tmp_path) - before) / turns
    state_bytes, checkpoint_bytes = _rows(
        tmp_path,
        "SELECT length(state), (SELECT avg(length(pre_state)) FROM checkpoints) FROM sessions",
    )[0]
    assert growth < 16 * 1024, growth
    assert state_bytes < 8 * 1024, state_bytes
    assert checkpoint_bytes < 8 * 1024, checkpoint_bytes


def test_a_list_changed_in_place_is_stored_as_it_is(tmp_path: Path) -> None:
    store = SessionStore(tmp_path, synchronous="OFF")
    state = store.create(_with_memory())
    memory = state.ledgers["C1"].memory
    del memory[:2]  # against the rules: the state the store handed out is changed in place
    memory.append("new")
    state = store.commit_turn(state.id, 1, [], state, state.revision)
    with SessionStore(tmp_path) as fresh:
        assert fresh.load(state.id).ledgers["C1"].memory == ["C1 line 2", "new"]
    store.close()


def test_missing_lines_are_reported_not_read_short(tmp_path: Path) -> None:
    with SessionStore(tmp_path) as store:
        state = store.create(_with_memory())
    db = sqlite3.connect(tmp_path / "sessions.sqlite3")
    with db:
        db.execute("DELETE FROM memory_lines WHERE owner = 'C2' AND position = 1")
    db.close()
    with SessionStore(tmp_path) as store, pytest.raises(StoreError, match="'C2'"):
        store.load(state.id)


def test_fork_copies_lines_and_delete_removes_only_its_own(tmp_path: Path) -> None:
    store = SessionStore(tmp_path, synchronous="OFF")
    state = store.create(_with_memory())
    for turn in (1, 2):
        new = _evolve(state, {"C1": ("append", [f"t{turn}"]), "C2": ("evict", 2, [])}, "")
        state = store.commit_turn(state.id, turn, [], new, state.revision)
    forked = store.fork(state.id, "mem-fork")
    assert _content(forked) == _content(state.model_copy(update={"id": "mem-fork"}))
    grown = store.commit_turn(
        "mem-fork", 3, [], _evolve(forked, {"C1": ("append", ["fork"])}, ""), forked.revision
    )
    with SessionStore(tmp_path) as fresh:
        assert fresh.load(state.id) == state
        assert fresh.load("mem-fork") == grown
    store.undo(state.id)
    for expected_turn in (2, 1, 0):
        assert store.undo("mem-fork").turn_number == expected_turn
    assert _content(store.load("mem-fork")) == _content(_with_memory("mem-fork"))
    store.delete("mem-fork")
    assert _rows(tmp_path, "SELECT count(*) FROM memory_lines WHERE session_id = 'mem-fork'") == [
        (0,)
    ]
    with SessionStore(tmp_path) as fresh:
        assert fresh.load(state.id).ledgers["C1"].memory == [
            *_with_memory().ledgers["C1"].memory,
            "t1",
        ]
    store.close()


@settings(max_examples=200, deadline=None)
@given(
    old=st.lists(st.sampled_from(["a", "b", "ab", ""]), max_size=6),
    k=st.integers(0, 6),
    appended=st.lists(st.sampled_from(["a", "b", "ab", "c"]), max_size=3),
    rewrite=st.none() | st.lists(st.sampled_from(["a", "b", "c"]), max_size=5),
)
def test_dropped_front_always_describes_the_new_memory(
    old: list[str], k: int, appended: list[str], rewrite: list[str] | None
) -> None:
    new = [*map(_distinct, old[k:]), *appended] if rewrite is None else rewrite
    found = memory_module.dropped_front(old, new)
    assert 0 <= found <= len(old)
    assert new == old[found:] + new[len(old) - found :]
    assert memory_module.dropped_front(old, old) == 0


def _crash_memory(session_id: str, turn: int) -> list[str]:
    """C1's memory after `turn` of a crash-test session: a line per turn, and every 10 turns
    the oldest dropped down to the last few."""
    return [f"{session_id}/{t}" for t in range(max(1, turn - turn % 10 - 5), turn + 1)]


def test_sigkill_during_commits_and_undos_keeps_memory_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = crash.turn_state

    def with_memory(before: SessionState, turn: int) -> SessionState:
        old = before.ledgers.get("C1", PerspectiveLedger(owner="C1")).memory
        shared = {line: line for line in old}  # kept lines are the same objects, as in a run
        memory = [shared.get(line, line) for line in _crash_memory(before.id, turn)]
        ledgers = {"C1": PerspectiveLedger(owner="C1", memory=memory)}
        return plain(before, turn).model_copy(update={"ledgers": ledgers})

    monkeypatch.setattr(crash, "turn_state", with_memory)  # the forked writers inherit it
    report = crash.run_kills(tmp_path, kills=6, seed=11, max_delay=0.2)
    assert report.problems == []
    assert report.acknowledged_ops > 6
    with SessionStore(tmp_path) as store:
        for sid in crash.SESSIONS:
            state = store.load(sid)
            assert state.ledgers.get("C1", PerspectiveLedger(owner="C1")).memory == (
                _crash_memory(sid, state.turn_number)
            )
            _check_rows(tmp_path, sid, state.turn_number)
            for _ in range(min(3, state.turn_number)):  # the checkpoints hold theirs too
                state = store.undo(sid)
                memory = state.ledgers.get("C1", PerspectiveLedger(owner="C1")).memory
                assert memory == _crash_memory(sid, state.turn_number)
