"""A played turn's journal lines reach the disk before the turn is committed, at one fsync.

The fsync runs in the background while the store prepares the commit; the store waits for
it right before SQLite's COMMIT. Events are recorded in order: a journal fsync when it
*returns* (made slow on purpose, so a commit that does not wait overtakes it), and each
COMMIT of a write transaction, as SQLite's trace callback sees the statement. Negative
controls: a `synced_once` that never syncs, and a commit that does not wait for the sync.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from tavern.store import JournalWriter, PendingSync, SessionStore
from tavern.store import journal as journal_module

from .kit import Kit, KitFactory


def _events_of_turns(
    kit: Kit, monkeypatch: pytest.MonkeyPatch, turns: int, fsync_delay: float
) -> list[str]:
    sid = kit.create(controlled="C1")
    kit.journal.durable = True
    events: list[str] = []
    real_fsync = os.fsync
    main = threading.get_ident()

    def fsync(fd: int) -> None:
        if os.readlink(f"/proc/self/fd/{fd}").endswith(".jsonl"):  # not its directories
            if threading.get_ident() != main:  # the turn's lines, synced in the background
                time.sleep(fsync_delay)
            real_fsync(fd)
            events.append("fsync")
        else:
            real_fsync(fd)

    writing = [False]

    def trace(statement: str) -> None:
        if statement.startswith("BEGIN IMMEDIATE"):
            writing[0] = True
        elif statement == "COMMIT" and writing[0]:
            writing[0] = False
            events.append("commit")

    monkeypatch.setattr(journal_module.os, "fsync", fsync)
    kit.store._conn().set_trace_callback(trace)
    for _ in range(turns):
        kit.play(sid, speech="Who keeps the cellar key tonight?")
    return events


def _synced_before_each_commit(events: list[str]) -> bool:
    return all(i > 0 and events[i - 1] == "fsync" for i, e in enumerate(events) if e == "commit")


def test_turn_lines_are_synced_once_before_the_commit(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    events = _events_of_turns(make_kit(), monkeypatch, 3, fsync_delay=0.05)
    assert events.count("commit") == 3
    assert _synced_before_each_commit(events)
    # One fsync for the turn's lines, one for the commit line written after the commit.
    assert events == ["fsync", "commit", "fsync"] * 3


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

    def impatient(self: SessionStore, *args: Any, before_commit: Any = None) -> Any:
        return real_commit(self, *args)  # planted: the pending fsync is not waited for

    monkeypatch.setattr(SessionStore, "commit_turn", impatient)
    events = _events_of_turns(make_kit(), monkeypatch, 2, fsync_delay=0.5)
    assert events.count("commit") == 2
    assert not _synced_before_each_commit(events)
