"""`JournalWriter.synced_once`: one fsync for a block of durable appends, at its end.

Counted by wrapping `os.fsync` as the journal module calls it. The negative control is a
plain durable writer outside any block: one fsync per line, which the count tells apart.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tavern.records.journal import UndoLine
from tavern.store import JournalWriter, PendingSync, journal_path, read_journal
from tavern.store import journal as journal_module


def _line(session_id: str, n: int) -> UndoLine:
    return UndoLine(
        ts=datetime(2026, 1, 1, tzinfo=UTC), session_id=session_id, turn_number=n,
        revision=n, removed_turn=n, removed_records=0,
    )  # fmt: skip


def _count_fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Paths fsynced through the journal module, in order (files and directories)."""
    seen: list[str] = []
    real = os.fsync

    def counting(fd: int) -> None:
        seen.append(os.readlink(f"/proc/self/fd/{fd}"))
        real(fd)

    monkeypatch.setattr(journal_module.os, "fsync", counting)
    return seen


@pytest.fixture
def fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Paths fsynced through the journal module, in order (files and directories)."""
    return _count_fsyncs(monkeypatch)


def _files(seen: list[str]) -> list[str]:
    """The journal files among fsynced paths (directory syncs are tested apart)."""
    return [p for p in seen if p.endswith(".jsonl")]


def test_a_block_syncs_once_at_its_end(tmp_path: Path, fsyncs: list[str]) -> None:
    writer = JournalWriter(tmp_path)
    with writer.synced_once("s01"):
        for n in range(5):
            writer.append("s01", _line("s01", n))
        assert _files(fsyncs) == []
        assert len(read_journal(journal_path(tmp_path, "s01"))) == 5  # written, unsynced
    assert _files(fsyncs) == [str(journal_path(tmp_path, "s01"))]


def test_negative_control_outside_a_block_every_line_syncs(
    tmp_path: Path, fsyncs: list[str]
) -> None:
    writer = JournalWriter(tmp_path)
    for n in range(5):
        writer.append("s01", _line("s01", n))
    assert len(_files(fsyncs)) == 5


def test_blocks_nest_and_an_exception_still_syncs(tmp_path: Path, fsyncs: list[str]) -> None:
    writer = JournalWriter(tmp_path)
    with pytest.raises(RuntimeError), writer.synced_once("s01"):
        with writer.synced_once("s01"):
            writer.append("s01", _line("s01", 1))
        assert _files(fsyncs) == []  # the inner block leaves the sync to the outer one
        raise RuntimeError("the turn failed")
    assert len(_files(fsyncs)) == 1


def test_a_block_without_lines_or_without_durability_never_syncs(
    tmp_path: Path, fsyncs: list[str]
) -> None:
    with JournalWriter(tmp_path).synced_once("s01"):
        pass
    fast = JournalWriter(tmp_path, durable=False)
    with fast.synced_once("s01"):
        fast.append("s01", _line("s01", 1))
    assert _files(fsyncs) == []


def test_a_session_deleted_inside_the_block_is_no_error(tmp_path: Path, fsyncs: list[str]) -> None:
    writer = JournalWriter(tmp_path)
    with writer.synced_once("s01"):
        writer.append("s01", _line("s01", 1))
        journal_path(tmp_path, "s01").unlink()
    assert _files(fsyncs) == []


def test_other_sessions_keep_syncing_every_line(tmp_path: Path, fsyncs: list[str]) -> None:
    writer = JournalWriter(tmp_path)
    with writer.synced_once("s01"):
        writer.append("s02", _line("s02", 1))
        assert _files(fsyncs) == [str(journal_path(tmp_path, "s02"))]


def test_a_new_journal_syncs_its_directories_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A power loss must not take away a journal whose lines were synced: the entries naming
    the file, its session directory and the sessions directory are synced with its first
    line, and never again."""
    seen = _count_fsyncs(monkeypatch)
    writer = JournalWriter(tmp_path)
    writer.append("s01", _line("s01", 1))
    writer.append("s01", _line("s01", 2))
    journal = journal_path(tmp_path, "s01")
    directories = [str(journal.parent), str(journal.parent.parent), str(tmp_path)]
    assert seen == [str(journal), *directories, str(journal)]


def test_negative_control_a_writer_without_directory_syncs_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(journal_module, "_fsync_directories", lambda path, levels: None)
    seen = _count_fsyncs(monkeypatch)
    JournalWriter(tmp_path).append("s01", _line("s01", 1))
    assert str(journal_path(tmp_path, "s01").parent) not in seen


# A block given a PendingSync hands its fsync to a background thread.


def test_a_pending_block_returns_before_its_sync_and_wait_joins_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started, release, done = threading.Event(), threading.Event(), threading.Event()
    real = os.fsync

    def held(fd: int) -> None:
        started.set()
        assert release.wait(10)
        real(fd)
        done.set()

    writer = JournalWriter(tmp_path)
    writer.append("s01", _line("s01", 0))  # a new journal: its own and its directories' syncs
    monkeypatch.setattr(journal_module.os, "fsync", held)
    pending = PendingSync()
    with writer.synced_once("s01", pending):
        writer.append("s01", _line("s01", 1))
    assert started.wait(10)  # the sync is under way and held, yet the block has returned
    assert not done.is_set()
    release.set()
    pending.wait()
    assert done.is_set()
    pending.wait()  # a second wait returns at once


def test_a_pending_sync_error_is_raised_by_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = JournalWriter(tmp_path)
    writer.append("s01", _line("s01", 0))

    def broken(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(journal_module.os, "fsync", broken)
    pending = PendingSync()
    with writer.synced_once("s01", pending):
        writer.append("s01", _line("s01", 1))
    with pytest.raises(OSError, match="Input/output error"):
        pending.wait()


def test_a_failing_pending_block_syncs_at_once(tmp_path: Path, fsyncs: list[str]) -> None:
    writer = JournalWriter(tmp_path)
    writer.append("s01", _line("s01", 0))
    fsyncs.clear()
    pending = PendingSync()
    with pytest.raises(RuntimeError), writer.synced_once("s01", pending):
        writer.append("s01", _line("s01", 1))
        raise RuntimeError("the turn failed")
    assert _files(fsyncs) == [str(journal_path(tmp_path, "s01"))]  # synced before re-raising
    pending.wait()  # nothing left pending


def test_a_pending_block_without_lines_starts_no_sync(tmp_path: Path, fsyncs: list[str]) -> None:
    pending = PendingSync()
    with JournalWriter(tmp_path).synced_once("s01", pending):
        pass
    pending.wait()
    assert _files(fsyncs) == []


def _sync_in_forked_child(writer: JournalWriter, keep_parent_pool: bool) -> int:
    """Exit code of a forked child that syncs a block in the background: 0 when the sync
    ran, 2 when it had not run after 3 seconds."""
    parent_pool = list(journal_module._SYNC_THREADS)
    pid = os.fork()
    if pid == 0:  # the child: never return into pytest
        code = 1
        try:
            if keep_parent_pool:  # planted: the at-fork reset did not happen
                journal_module._SYNC_THREADS[:] = parent_pool
            pending = PendingSync()
            with writer.synced_once("s01", pending):
                writer.append("s01", _line("s01", 9))
            pending.wait(timeout=3)
            code = 0
        except TimeoutError:
            code = 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def test_a_forked_child_starts_its_own_sync_threads(tmp_path: Path) -> None:
    writer = JournalWriter(tmp_path)
    writer.append("s01", _line("s01", 0))
    pending = PendingSync()
    with writer.synced_once("s01", pending):
        writer.append("s01", _line("s01", 1))
    pending.wait()  # the pool now has an idle thread, which a child does not inherit
    assert _sync_in_forked_child(writer, keep_parent_pool=False) == 0
    # Negative control: with the parent's pool kept, the child's sync never runs.
    assert _sync_in_forked_child(writer, keep_parent_pool=True) == 2


# A pending block syncs once, as it ends; markers sync in the background.


def _held_fsync(monkeypatch: pytest.MonkeyPatch) -> tuple[list[int], threading.Event]:
    """A journal fsync that waits for the returned event before syncing; the list gets the
    journal's size as each fsync starts (the bytes it covers)."""
    started: list[int] = []
    release = threading.Event()
    real = os.fsync

    def held(fd: int) -> None:
        started.append(os.fstat(fd).st_size)
        assert release.wait(10)
        real(fd)

    monkeypatch.setattr(journal_module.os, "fsync", held)
    return started, release


def _wait_until(condition: Callable[[], object], failure: str) -> None:
    """Poll `condition` until it holds; fail with `failure` after 10 s."""
    deadline = time.monotonic() + 10
    while not condition():
        assert time.monotonic() < deadline, failure
        time.sleep(0.001)


def test_a_pending_block_syncs_once_at_its_end_for_all_its_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = JournalWriter(tmp_path)
    writer.append("s01", _line("s01", 0))
    journal = journal_path(tmp_path, "s01")
    started, release = _held_fsync(monkeypatch)
    pending = PendingSync()
    try:
        with writer.synced_once("s01", pending):
            for n in range(1, 6):
                writer.append("s01", _line("s01", n))
            time.sleep(0.05)  # a sync started by a line would be seen by now
            during = list(started)
        # started by the block's end, in the background
        _wait_until(lambda: started, "no sync started at the block's end")
    finally:
        release.set()
    pending.wait()
    assert during == []
    assert started == [journal.stat().st_size]  # one sync for the five lines


def test_a_plain_block_syncs_only_at_its_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = JournalWriter(tmp_path)
    writer.append("s01", _line("s01", 0))
    started, release = _held_fsync(monkeypatch)
    release.set()  # nothing held: a sync started inside the block would be seen at once
    with writer.synced_once("s01"):
        writer.append("s01", _line("s01", 1))
        time.sleep(0.05)
        assert started == []
    assert len(started) == 1


def test_a_marker_returns_before_its_sync(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    writer = JournalWriter(tmp_path)
    writer.append("s01", _line("s01", 0))
    started, release = _held_fsync(monkeypatch)
    try:
        writer.append("s01", _line("s01", 1), wait_for_disk=False)  # returns, the sync held
    finally:
        release.set()
    pending = PendingSync()
    with writer.synced_once("s01", pending):
        writer.append("s01", _line("s01", 2))
    pending.wait()
    assert started and started[-1] == journal_path(tmp_path, "s01").stat().st_size


def test_a_markers_sync_error_fails_the_next_wait_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = JournalWriter(tmp_path)
    writer.append("s01", _line("s01", 0))
    real = os.fsync
    broken = [True]

    def failing(fd: int) -> None:
        if broken[0]:
            raise OSError(5, "Input/output error")
        real(fd)

    monkeypatch.setattr(journal_module.os, "fsync", failing)
    writer.append("s01", _line("s01", 1), wait_for_disk=False)
    # the background sync has failed and stopped
    _wait_until(lambda: not writer._lock_for("s01").syncing, "the failed sync never stopped")
    broken[0] = False
    pending = PendingSync()
    with writer.synced_once("s01", pending):
        writer.append("s01", _line("s01", 2))
    with pytest.raises(OSError, match="Input/output error"):
        pending.wait()  # the turn that waits next learns its journal may have lost a line
    pending = PendingSync()
    with writer.synced_once("s01", pending):
        writer.append("s01", _line("s01", 3))
    pending.wait()  # raised once; the next turn syncs anew


def test_a_markers_sync_leaves_the_lines_of_an_open_block_to_its_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A commit marker's background sync used to chase every line written while it ran,
    # including the next turn's, whose block syncs them at its end anyway: 2-3 more fsyncs
    # a durable turn, in the middle of its work.
    writer = JournalWriter(tmp_path)
    writer.append("s01", _line("s01", 0))
    journal = journal_path(tmp_path, "s01")
    holder = writer._lock_for("s01")
    started, release = _held_fsync(monkeypatch)
    try:
        writer.append("s01", _line("s01", 1), wait_for_disk=False)  # its sync starts, held
        marker_size = journal.stat().st_size
        _wait_until(lambda: started, "the marker's sync never started")  # before the block
        pending = PendingSync()
        with writer.synced_once("s01", pending):
            for n in range(2, 5):
                writer.append("s01", _line("s01", n))
            release.set()
            # the marker's sync ends without syncing the block's lines
            _wait_until(lambda: not holder.syncing, "the marker's sync never stopped")
            during = list(started)
    finally:
        release.set()
    pending.wait()
    assert during == [marker_size]
    assert started == [marker_size, journal.stat().st_size]  # the block's end: one more
