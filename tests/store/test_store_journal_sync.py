"""`JournalWriter.synced_once`: one fsync for a block of durable appends, at its end.

Counted by wrapping `os.fsync` as the journal module calls it. The negative control is a
plain durable writer outside any block: one fsync per line, which the count tells apart.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tavern.records.journal import UndoLine
from tavern.store import JournalWriter, journal_path, read_journal
from tavern.store import journal as journal_module


def _line(session_id: str, n: int) -> UndoLine:
    return UndoLine(
        ts=datetime(2026, 1, 1, tzinfo=UTC), session_id=session_id, turn_number=n,
        revision=n, removed_turn=n, removed_records=0,
    )  # fmt: skip


@pytest.fixture
def fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Paths fsynced through the journal module, in order."""
    seen: list[str] = []
    real = os.fsync

    def counting(fd: int) -> None:
        seen.append(os.readlink(f"/proc/self/fd/{fd}"))
        real(fd)

    monkeypatch.setattr(journal_module.os, "fsync", counting)
    return seen


def test_a_block_syncs_once_at_its_end(tmp_path: Path, fsyncs: list[str]) -> None:
    writer = JournalWriter(tmp_path)
    with writer.synced_once("s01"):
        for n in range(5):
            writer.append("s01", _line("s01", n))
        assert fsyncs == []
        assert len(read_journal(journal_path(tmp_path, "s01"))) == 5  # written, unsynced
    assert fsyncs == [str(journal_path(tmp_path, "s01"))]


def test_negative_control_outside_a_block_every_line_syncs(
    tmp_path: Path, fsyncs: list[str]
) -> None:
    writer = JournalWriter(tmp_path)
    for n in range(5):
        writer.append("s01", _line("s01", n))
    assert len(fsyncs) == 5


def test_blocks_nest_and_an_exception_still_syncs(tmp_path: Path, fsyncs: list[str]) -> None:
    writer = JournalWriter(tmp_path)
    with pytest.raises(RuntimeError), writer.synced_once("s01"):
        with writer.synced_once("s01"):
            writer.append("s01", _line("s01", 1))
        assert fsyncs == []  # the inner block leaves the sync to the outer one
        raise RuntimeError("the turn failed")
    assert len(fsyncs) == 1


def test_a_block_without_lines_or_without_durability_never_syncs(
    tmp_path: Path, fsyncs: list[str]
) -> None:
    with JournalWriter(tmp_path).synced_once("s01"):
        pass
    fast = JournalWriter(tmp_path, durable=False)
    with fast.synced_once("s01"):
        fast.append("s01", _line("s01", 1))
    assert fsyncs == []


def test_a_session_deleted_inside_the_block_is_no_error(tmp_path: Path, fsyncs: list[str]) -> None:
    writer = JournalWriter(tmp_path)
    with writer.synced_once("s01"):
        writer.append("s01", _line("s01", 1))
        journal_path(tmp_path, "s01").unlink()
    assert fsyncs == []


def test_other_sessions_keep_syncing_every_line(tmp_path: Path, fsyncs: list[str]) -> None:
    writer = JournalWriter(tmp_path)
    with writer.synced_once("s01"):
        writer.append("s02", _line("s02", 1))
        assert fsyncs == [str(journal_path(tmp_path, "s02"))]
