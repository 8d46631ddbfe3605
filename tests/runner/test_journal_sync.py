"""A played turn's journal lines reach the disk before the turn is committed, at one fsync.

Events are recorded in order: journal fsyncs (through the journal module's `os.fsync`) and
store commits. The negative control plants a `synced_once` that defers every fsync and
never performs it; the ordering check then fails.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from tavern.store import JournalWriter
from tavern.store import journal as journal_module

from .kit import Kit, KitFactory


def _events_of_turns(kit: Kit, monkeypatch: pytest.MonkeyPatch, turns: int) -> list[str]:
    sid = kit.create(controlled="C1")
    kit.journal.durable = True
    events: list[str] = []
    real_fsync, real_commit = os.fsync, kit.store.commit_turn

    def fsync(fd: int) -> None:
        if os.readlink(f"/proc/self/fd/{fd}").endswith(".jsonl"):  # not its directories
            events.append("fsync")
        real_fsync(fd)

    def commit(*args: Any, **kwargs: Any) -> Any:
        events.append("commit")
        return real_commit(*args, **kwargs)

    monkeypatch.setattr(journal_module.os, "fsync", fsync)
    monkeypatch.setattr(kit.store, "commit_turn", commit)
    for _ in range(turns):
        kit.play(sid, speech="Who keeps the cellar key tonight?")
    return events


def _synced_before_each_commit(events: list[str]) -> bool:
    return all(i > 0 and events[i - 1] == "fsync" for i, e in enumerate(events) if e == "commit")


def test_turn_lines_are_synced_once_before_the_commit(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    events = _events_of_turns(make_kit(), monkeypatch, 3)
    assert events.count("commit") == 3
    assert _synced_before_each_commit(events)
    # One fsync for the turn's lines, one for the commit line written after the commit.
    assert events == ["fsync", "commit", "fsync"] * 3


def test_negative_control_a_block_that_never_syncs_is_caught(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    @contextmanager
    def never(self: JournalWriter, session_id: str) -> Iterator[None]:
        holder = self._lock_for(session_id)
        holder.deferred += 1
        yield  # planted: the deferred fsync is forgotten

    monkeypatch.setattr(JournalWriter, "synced_once", never)
    events = _events_of_turns(make_kit(), monkeypatch, 2)
    assert not _synced_before_each_commit(events)
