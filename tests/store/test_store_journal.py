"""Journal: append, torn last line, version refusal, concurrent writers; per-session locks."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tavern.records import JOURNAL_SCHEMA_VERSION, CommitLine, UndoLine, utc_now
from tavern.store import JournalError, JournalWriter, SessionLocks, journal_path, read_journal

SID = "jour-one"
TS = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def _line(turn: int, session_id: str = SID) -> CommitLine:
    return CommitLine(
        ts=TS, session_id=session_id, turn_number=turn, revision=turn, record_count=1,
        tick=turn, control_returned=True,
    )  # fmt: skip


def test_append_then_read(tavern_data_dir: Path) -> None:
    writer = JournalWriter(tavern_data_dir)
    lines = [_line(1), _line(2)]
    for line in lines:
        writer.append(SID, line)
    path = journal_path(tavern_data_dir, SID)
    assert path == tavern_data_dir / "sessions" / SID / "journal.jsonl"
    assert read_journal(path) == lines
    assert read_journal(tavern_data_dir / "missing.jsonl") == []


def test_torn_last_line_is_skipped_with_a_warning(
    tavern_data_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    writer = JournalWriter(tavern_data_dir, durable=False)
    writer.append(SID, _line(1))
    path = journal_path(tavern_data_dir, SID)
    whole = _line(2).model_dump_json().encode()
    with path.open("ab") as handle:
        handle.write(whole[: len(whole) // 2])  # a writer killed mid-line
    with caplog.at_level(logging.WARNING, logger="tavern.store.journal"):
        assert read_journal(path) == [_line(1)]
    assert "torn last line" in caplog.text
    # The next append cuts the fragment so it never becomes a corrupt middle line.
    writer.append(SID, _line(3))
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="tavern.store.journal"):
        assert [line.turn_number for line in read_journal(path)] == [1, 3]
    assert caplog.text == ""


def test_torn_only_line_reads_as_empty(tavern_data_dir: Path) -> None:
    path = journal_path(tavern_data_dir, SID)
    path.parent.mkdir(parents=True)
    path.write_bytes(b'{"kind": "comm')
    assert read_journal(path) == []
    JournalWriter(tavern_data_dir).append(SID, _line(1))
    assert read_journal(path) == [_line(1)]


def test_line_of_another_schema_version_is_refused(tavern_data_dir: Path) -> None:
    writer = JournalWriter(tavern_data_dir)
    writer.append(SID, _line(1))
    path = journal_path(tavern_data_dir, SID)
    future = json.loads(_line(2).model_dump_json())
    future["schema_version"] = JOURNAL_SCHEMA_VERSION + 1
    with path.open("a") as handle:
        handle.write(json.dumps(future) + "\n")
    with pytest.raises(JournalError) as caught:
        read_journal(path)
    assert f"schema_version {JOURNAL_SCHEMA_VERSION + 1}" in str(caught.value)
    assert f"schema_version {JOURNAL_SCHEMA_VERSION}" in str(caught.value)
    assert ":2:" in str(caught.value)


def test_corrupt_complete_line_is_an_error_not_a_skip(tavern_data_dir: Path) -> None:
    path = journal_path(tavern_data_dir, SID)
    path.parent.mkdir(parents=True)
    path.write_text("not json\n" + _line(1).model_dump_json() + "\n")
    with pytest.raises(JournalError, match=":1: not JSON"):
        read_journal(path)


def test_writer_refuses_a_line_of_another_session(tavern_data_dir: Path) -> None:
    with pytest.raises(JournalError):
        JournalWriter(tavern_data_dir).append(SID, _line(1, session_id="someone-else"))


def test_concurrent_threads_never_interleave(tavern_data_dir: Path) -> None:
    writer = JournalWriter(tavern_data_dir, durable=False)
    padding = "x" * 5000  # long lines make interleaving likely if the lock were missing

    def work(worker: int) -> None:
        for i in range(40):
            writer.append(
                SID,
                UndoLine(
                    ts=utc_now(), session_id=SID, turn_number=worker, revision=i,
                    removed_turn=i, removed_records=len(padding),
                ),
            )  # fmt: skip

    threads = [threading.Thread(target=work, args=(w,)) for w in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = read_journal(journal_path(tavern_data_dir, SID))
    assert len(lines) == 240
    for worker in range(6):
        assert [ln.revision for ln in lines if ln.turn_number == worker] == list(range(40))


def test_append_from_asyncio_tasks(tavern_data_dir: Path) -> None:
    writer = JournalWriter(tavern_data_dir, durable=False)

    async def main() -> None:
        async def task(turn: int) -> None:
            await asyncio.sleep(0)
            writer.append(SID, _line(turn))

        await asyncio.gather(*(task(t) for t in range(20)))

    asyncio.run(main())
    turns = sorted(ln.turn_number for ln in read_journal(journal_path(tavern_data_dir, SID)))
    assert turns == list(range(20))


def test_writer_locks_are_weakly_held(tavern_data_dir: Path) -> None:
    writer = JournalWriter(tavern_data_dir, durable=False)
    for i in range(5):
        writer.append(f"sess-{i}", _line(1, session_id=f"sess-{i}"))
    gc.collect()
    assert len(writer._registry) == 0


def test_session_locks_share_while_held_and_vanish_after() -> None:
    locks = SessionLocks()
    first = locks.get("abc")
    assert locks.get("abc") is first
    assert locks.get("def") is not first
    gc.collect()
    assert len(locks) == 1  # "def" had no holder; "abc" is still held
    del first
    gc.collect()
    assert len(locks) == 0


def test_session_lock_serializes_tasks() -> None:
    locks = SessionLocks()
    inside = 0
    peak = 0

    async def turn() -> None:
        nonlocal inside, peak
        async with locks.get("abc"):
            inside += 1
            peak = max(peak, inside)
            await asyncio.sleep(0.001)
            inside -= 1

    async def main() -> None:
        await asyncio.gather(*(turn() for _ in range(10)))

    asyncio.run(main())
    assert peak == 1


def test_readable_while_written(tavern_data_dir: Path) -> None:
    writer = JournalWriter(tavern_data_dir, durable=False)
    path = journal_path(tavern_data_dir, SID)
    done = threading.Event()

    def write() -> None:
        for turn in range(300):
            writer.append(SID, _line(turn))
        done.set()

    thread = threading.Thread(target=write)
    thread.start()
    reads = 0
    while not done.is_set() or reads == 0:
        turns = [ln.turn_number for ln in read_journal(path)]
        assert turns == list(range(len(turns)))  # always a clean prefix
        reads += 1
    thread.join()
    assert [ln.turn_number for ln in read_journal(path)] == list(range(300))
