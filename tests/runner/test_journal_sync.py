"""A played turn's journal lines reach the disk before the turn is committed, at one fsync.

Events are recorded in order: each journal fsync with the journal's size (the bytes it
covers) and each COMMIT of a write transaction with the journal's size then (every line of
the turn). The commit line is written after the COMMIT and synced with the next turn's
lines; a process that ends first leaves a turn the next opening marks as recovered
(`test_journal_reconcile.py`). Negative controls: a runner that never syncs, and one that
syncs after the commit.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from tavern.store import JournalWriter, SessionStore, journal_path
from tavern.store import atomic as atomic_module

from .kit import Kit, KitFactory

Event = tuple[str, int]
"""("fsync", bytes it covers), ("commit", the journal's bytes at COMMIT)."""


def _events_of_turns(kit: Kit, monkeypatch: pytest.MonkeyPatch, turns: int) -> list[Event]:
    sid = kit.create(controlled="C1")
    kit.journal.durable = True
    journal = journal_path(kit.data_dir, sid)
    events: list[Event] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        real_fsync(fd)
        if os.readlink(f"/proc/self/fd/{fd}").endswith(".jsonl"):  # not its directories
            events.append(("fsync", os.fstat(fd).st_size))

    writing = [False]

    def trace(statement: str) -> None:
        if statement.startswith("BEGIN IMMEDIATE"):
            writing[0] = True
        elif statement == "COMMIT" and writing[0]:
            writing[0] = False
            events.append(("commit", journal.stat().st_size))

    monkeypatch.setattr(atomic_module.os, "fsync", fsync)
    kit.store._conn().set_trace_callback(trace)
    for _ in range(turns):
        kit.play(sid, speech="Who keeps the cellar key tonight?")
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


def test_a_turn_costs_one_journal_fsync_before_its_commit(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    events = _events_of_turns(make_kit(), monkeypatch, 3)
    assert _count(events, "commit") == 3
    assert _count(events, "fsync") == 3  # one a turn, whatever its lines
    assert _synced_before_each_commit(events)


def test_negative_control_a_runner_that_never_syncs_is_caught(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(JournalWriter, "sync", lambda self, session_id: None)
    events = _events_of_turns(make_kit(), monkeypatch, 2)
    assert _count(events, "fsync") == 0 and not _synced_before_each_commit(events)


def test_negative_control_a_sync_after_the_commit_is_caught(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_sync, real_commit = JournalWriter.sync, SessionStore.commit_turn
    kit = make_kit()
    monkeypatch.setattr(JournalWriter, "sync", lambda self, session_id: None)

    def commit_then_sync(self: SessionStore, session_id: str, *args: Any, **kw: Any) -> Any:
        stored = real_commit(self, session_id, *args, **kw)
        real_sync(kit.journal, session_id)  # planted: the turn's lines synced too late
        return stored

    monkeypatch.setattr(SessionStore, "commit_turn", commit_then_sync)
    events = _events_of_turns(kit, monkeypatch, 2)
    assert _count(events, "commit") == 2 and not _synced_before_each_commit(events)
