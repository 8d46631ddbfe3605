"""`JournalWriter.sync` and `store.reconcile_journal` (issue 41, hole 5).

An append writes (no fsync); `sync` puts every line written so far on disk at one fsync, and
a non-durable writer never syncs. Counted by wrapping `os.fsync`. Reconciling a session's
journal with its store appends a recovered commit line for every committed turn the journal
lacks and a recovered undo line for every journal commit the store does not hold; a second
reconcile appends nothing. The negative control reads only commit lines (undos ignored), and
the agreement check catches it.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tavern.records import (
    Audience,
    Body,
    Character,
    CommitLine,
    Mind,
    Scene,
    SessionState,
    SpeechRecord,
    UndoLine,
    utc_now,
)
from tavern.store import (
    JournalWriter,
    SessionStore,
    journal_commits,
    journal_path,
    read_journal,
    read_markers,
    reconcile_journal,
)
from tavern.store import reconcile as reconcile_module

SID = "s-sync"
_HALL = Audience(origin="public", perceivers=["C1"])


def _line(session_id: str, n: int) -> UndoLine:
    return UndoLine(
        ts=datetime(2026, 1, 1, tzinfo=UTC), session_id=session_id, turn_number=n,
        revision=n, removed_turn=n, removed_records=0,
    )  # fmt: skip


@pytest.fixture
def fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Paths fsynced, in order (files and directories)."""
    seen: list[str] = []
    real = os.fsync

    def counting(fd: int) -> None:
        seen.append(os.readlink(f"/proc/self/fd/{fd}"))
        real(fd)

    monkeypatch.setattr(os, "fsync", counting)
    return seen


def _files(seen: list[str]) -> list[str]:
    return [p for p in seen if p.endswith(".jsonl")]


def test_appends_write_and_sync_puts_them_on_disk_at_once(
    tmp_path: Path, fsyncs: list[str]
) -> None:
    writer = JournalWriter(tmp_path)
    for n in range(5):
        writer.append("s01", _line("s01", n))
    assert _files(fsyncs) == []  # written, not synced
    assert len([p for p in fsyncs if not p.endswith(".jsonl")]) == 3  # the new file's dirs
    writer.sync("s01")
    assert len(_files(fsyncs)) == 1
    assert [line.turn_number for line in read_journal(journal_path(tmp_path, "s01"))] == [
        0,
        1,
        2,
        3,
        4,
    ]


def test_a_writer_that_is_not_durable_never_syncs(tmp_path: Path, fsyncs: list[str]) -> None:
    writer = JournalWriter(tmp_path, durable=False)
    writer.append("s01", _line("s01", 1))
    writer.sync("s01")
    writer.sync("s02")  # never written: nothing to sync either way
    assert fsyncs == []


def _state(turn: int, revision: int) -> SessionState:
    cast = {"C1": Character(id="c1", mind=Mind(), body=Body(display_name="A", description_ref="a"))}
    return SessionState(
        id=SID, scenario_id="t", title="t", world="w", created_at=utc_now(), cast=cast,
        controlled_id="C1", scene=Scene(location="room", present=["C1"]),
        turn_number=turn, revision=revision,
    )  # fmt: skip


def _play(store: SessionStore, journal: JournalWriter, turns: int, mark: bool = True) -> None:
    """Commit `turns` turns of two records each, marking each in the journal."""
    for _ in range(turns):
        state = store.load(SID)
        turn, seq = state.turn_number + 1, store.next_seq(SID)
        records = [
            SpeechRecord(seq=seq + i, turn_number=turn, speaker="C1", author="character",
                         audience=_HALL, text=f"line {turn}/{i}")
            for i in range(2)
        ]  # fmt: skip
        stored = store.commit_turn(SID, turn, records, state, state.revision)
        if mark:
            line = CommitLine(
                ts=utc_now(), session_id=SID, turn_number=turn, revision=stored.revision,
                record_count=2, tick=0, control_returned=True,
            )  # fmt: skip
            journal.append(SID, line)


def _agree(store: SessionStore, journal: JournalWriter) -> bool:
    marked = journal_commits(read_markers(journal_path(journal.data_dir, SID)))
    return set(marked) == {t.turn_number for t in store.committed_turns(SID)}


@pytest.fixture
def pair(tmp_path: Path) -> tuple[SessionStore, JournalWriter]:
    store = SessionStore(tmp_path, synchronous="OFF")
    store.create(_state(0, 0))
    return store, JournalWriter(tmp_path, durable=False)


def test_a_committed_turn_the_journal_lacks_is_recovered(
    pair: tuple[SessionStore, JournalWriter],
) -> None:
    store, journal = pair
    _play(store, journal, 2)
    _play(store, journal, 1, mark=False)  # killed before its commit line
    assert not _agree(store, journal)
    done = reconcile_journal(store, journal, SID)
    assert done.recovered == [3] and done.voided == [] and _agree(store, journal)
    [line] = [m for m in read_markers(journal_path(journal.data_dir, SID)) if m.recovered]
    assert isinstance(line, CommitLine) and (line.record_count, line.revision) == (2, 3)
    assert not reconcile_journal(store, journal, SID)  # nothing left to do


def test_a_journal_commit_the_store_lacks_is_marked(
    pair: tuple[SessionStore, JournalWriter],
) -> None:
    store, journal = pair
    _play(store, journal, 3)
    store.undo(SID)  # killed before its undo line
    store.undo(SID)
    done = reconcile_journal(store, journal, SID)
    assert done.voided == [3, 2] and done.recovered == [] and _agree(store, journal)
    lines = read_journal(journal_path(journal.data_dir, SID))
    assert [(type(x).__name__, x.turn_number) for x in lines[-2:]] == [
        ("UndoLine", 3),
        ("UndoLine", 2),
    ]
    assert all(isinstance(x, UndoLine) and x.recovered for x in lines[-2:])


def test_markers_skip_the_other_lines_unread(pair: tuple[SessionStore, JournalWriter]) -> None:
    store, journal = pair
    _play(store, journal, 2)
    path = journal_path(journal.data_dir, SID)
    with path.open("a", encoding="utf-8") as f:  # a model-call-sized line that is no marker
        f.write('{"kind": "llm_call", "text": "' + "x" * 50_000 + '"}\n')
    assert [m.turn_number for m in read_markers(path)] == [1, 2]


def test_negative_control_a_reconcile_blind_to_undos_is_caught(
    pair: tuple[SessionStore, JournalWriter], monkeypatch: pytest.MonkeyPatch
) -> None:
    store, journal = pair
    _play(store, journal, 2)
    store.undo(SID)
    journal.append(SID, _line(SID, 2))  # turn 2 undone, and marked so
    _play(store, journal, 1, mark=False)  # turn 2 again, killed before its commit line
    monkeypatch.setattr(
        reconcile_module,
        "journal_commits",
        lambda markers: {m.turn_number: m for m in markers if isinstance(m, CommitLine)},
    )
    reconcile_journal(store, journal, SID)  # planted: the undone turn 2 still counts
    assert not _agree(store, journal)
