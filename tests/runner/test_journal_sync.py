"""A played turn's journal lines reach the disk before the turn is committed.

Each line starts syncing in the background as it is written; the store waits for the last
one right before SQLite's COMMIT. Events are recorded in order: a journal fsync when it
*returns* (made slow on purpose, so a commit that does not wait overtakes it), with the
journal's size when it *started* (the bytes it covers), and each COMMIT of a write
transaction with the journal's size then (every line of the turn). Negative controls: a
`synced_once` that never syncs, and a commit that does not wait for the sync.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from tavern.store import JournalWriter, PendingSync, SessionStore, journal_path
from tavern.store import journal as journal_module

from .kit import Kit, KitFactory

Event = tuple[str, int]
"""("fsync", bytes it covers), ("commit", the journal's bytes at COMMIT) or ("returned", the
journal's bytes when `play_turn` returned)."""


def _events_of_turns(
    kit: Kit, monkeypatch: pytest.MonkeyPatch, turns: int, fsync_delay: float
) -> list[Event]:
    sid = kit.create(controlled="C1")
    kit.journal.durable = True
    journal = journal_path(kit.data_dir, sid)
    events: list[Event] = []
    real_fsync = os.fsync
    main = threading.get_ident()

    def fsync(fd: int) -> None:
        if os.readlink(f"/proc/self/fd/{fd}").endswith(".jsonl"):  # not its directories
            covered = os.fstat(fd).st_size
            if threading.get_ident() != main:  # the turn's lines, synced in the background
                time.sleep(fsync_delay)
            real_fsync(fd)
            events.append(("fsync", covered))
        else:
            real_fsync(fd)

    writing = [False]

    def trace(statement: str) -> None:
        if statement.startswith("BEGIN IMMEDIATE"):
            writing[0] = True
        elif statement == "COMMIT" and writing[0]:
            writing[0] = False
            events.append(("commit", journal.stat().st_size))

    monkeypatch.setattr(journal_module.os, "fsync", fsync)
    kit.store._conn().set_trace_callback(trace)
    for _ in range(turns):
        kit.play(sid, speech="Who keeps the cellar key tonight?")
        events.append(("returned", journal.stat().st_size))
    return events


def _count(events: list[Event], kind: str) -> int:
    return sum(k == kind for k, _ in events)


def _synced_before_each_commit(events: list[Event]) -> bool:
    """Every COMMIT comes after an fsync that covered all the journal held at the commit."""
    covered = 0
    for kind, size in events:
        if kind == "fsync":
            covered = max(covered, size)
        elif kind == "commit" and covered < size:
            return False
    return True


def test_turn_lines_are_synced_before_the_commit(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    events = _events_of_turns(make_kit(), monkeypatch, 3, fsync_delay=0.05)
    assert _count(events, "commit") == 3
    assert _synced_before_each_commit(events)
    # A turn writes five or more lines; syncing as they come coalesces them into a few
    # fsyncs (one runs, the lines written meanwhile wait for the next), not one a line.
    assert 3 <= _count(events, "fsync") <= 9


def test_the_commit_line_is_synced_after_the_turn_returns(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The commit line only marks what the store holds: the turn returns before its fsync
    ends, and the journal is whole on disk soon after."""
    events = _events_of_turns(make_kit(), monkeypatch, 1, fsync_delay=0.2)
    (returned,) = [size for kind, size in events if kind == "returned"]
    (committed,) = [size for kind, size in events if kind == "commit"]
    assert returned > committed  # the commit line was written before the turn returned
    deadline = time.monotonic() + 10
    while max(size for kind, size in events if kind == "fsync") < returned:
        assert time.monotonic() < deadline, "the commit line was never synced"
        time.sleep(0.01)
    assert events.index(("returned", returned)) < len(events) - 1  # synced after the return


def test_negative_control_a_block_that_never_syncs_is_caught(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    @contextmanager
    def never(
        self: JournalWriter, session_id: str, pending: PendingSync | None = None
    ) -> Iterator[None]:
        holder = self._lock_for(session_id)
        holder.deferred += 1
        yield  # planted: the deferred fsync is forgotten

    monkeypatch.setattr(JournalWriter, "synced_once", never)
    events = _events_of_turns(make_kit(), monkeypatch, 2, fsync_delay=0.05)
    assert not _synced_before_each_commit(events)


def test_negative_control_a_commit_that_does_not_wait_is_caught(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_commit = SessionStore.commit_turn

    def impatient(self: SessionStore, *args: Any, before_commit: Any = None, **kwargs: Any) -> Any:
        return real_commit(self, *args, **kwargs)  # planted: the pending fsync is not waited for

    monkeypatch.setattr(SessionStore, "commit_turn", impatient)
    events = _events_of_turns(make_kit(), monkeypatch, 2, fsync_delay=0.5)
    assert _count(events, "commit") == 2
    assert not _synced_before_each_commit(events)
