"""Journal writer I/O: exact bytes, whole lines, fresh files, other processes, no fd leaks.

Each guard is shown failing against a deliberately broken writer (its negative control), so
a test that passes proves the guard, not just a lucky run.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tavern.records import (
    ChatMessage,
    CommitLine,
    JournalLine,
    LlmCallLine,
    LlmRequestBody,
    TurnInput,
    TurnInputLine,
)
from tavern.store import JournalError, JournalWriter, journal_path, read_journal
from tavern.store import journal as journal_module

SID = "jour-io"
TS = datetime(2026, 5, 1, 12, 0, 0, 123456, tzinfo=UTC)
# Escapes, non-ASCII, separators JSON may treat specially: the serializer must not differ.
TRICKY = 'é · “quoted” \u2028\u2029 \x00\x1f\x7f " \\ \n\t 😀 '


def _commit(turn: int, session_id: str = SID) -> CommitLine:
    return CommitLine(
        ts=TS, session_id=session_id, turn_number=turn, revision=turn, record_count=1,
        tick=turn, control_returned=True,
    )  # fmt: skip


def _llm(turn: int, size: int = 20_000) -> LlmCallLine:
    prompt = (TRICKY * (size // len(TRICKY) + 1))[:size]
    request = LlmRequestBody(
        messages=[
            ChatMessage(role="system", content=prompt),
            ChatMessage(role="user", content=TRICKY),
        ],
        max_tokens=512, response_format={"type": "json_object", "n": [1, None, 2.5]},
        temperature=0.7, seed=3, provider_options={"host": "example", "ratio": 1e300},
    )  # fmt: skip
    return LlmCallLine(
        ts=TS, session_id=SID, turn_number=turn, agent="character:C2", provider="fake",
        model="fake-1", source="fake", request=request, response=TRICKY, usage={"t": 1},
        duration_ms=12.5, attempt_number=1, prompt_chars=size, prompt_estimated_tokens=size // 4,
    )  # fmt: skip


def _lines() -> list[JournalLine]:
    return [
        _llm(1),
        _commit(1),
        TurnInputLine(ts=TS, session_id=SID, turn_number=2, input=TurnInput(speech=TRICKY)),
        _llm(2, size=10),
    ]


def _old_bytes(lines: list[JournalLine]) -> bytes:
    """What the writer wrote before it called the serializer directly."""
    return b"".join(line.model_dump_json().encode("utf-8") + b"\n" for line in lines)


def _write(data_dir: Path, lines: list[JournalLine]) -> bytes:
    writer = JournalWriter(data_dir, durable=False)
    for line in lines:
        writer.append(SID, line)
    return journal_path(data_dir, SID).read_bytes()


def test_bytes_match_the_old_writer(tavern_data_dir: Path) -> None:
    lines = _lines()
    assert _write(tavern_data_dir, lines) == _old_bytes(lines)
    assert read_journal(journal_path(tavern_data_dir, SID)) == lines


def test_bytes_check_catches_another_encoding(
    tavern_data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Negative control: an encoder that escapes non-ASCII (still valid JSON) is caught."""
    monkeypatch.setattr(
        journal_module,
        "_encode_line",
        lambda line: line.model_dump_json(ensure_ascii=True).encode() + b"\n",
    )
    lines = _lines()
    assert _write(tavern_data_dir, lines) != _old_bytes(lines)


def _short_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every os.write write at most 1,000 bytes, as a write near a full disk may."""
    real_write = os.write

    def short(fd: int, data: bytes | memoryview) -> int:
        return real_write(fd, bytes(data[:1000]))

    monkeypatch.setattr(os, "write", short)


def test_short_writes_still_append_whole_lines(
    tavern_data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = JournalWriter(tavern_data_dir, durable=False)
    lines = [_llm(1, size=5000), _commit(1)]
    with monkeypatch.context() as patch:
        _short_writes(patch)
        for line in lines:
            writer.append(SID, line)
    assert read_journal(journal_path(tavern_data_dir, SID)) == lines


def test_short_write_check_catches_a_single_write(
    tavern_data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Negative control: a writer that trusts one os.write loses the line it acknowledged."""
    monkeypatch.setattr(journal_module, "_write_all", lambda fd, data: os.write(fd, data))
    writer = JournalWriter(tavern_data_dir, durable=False)
    with monkeypatch.context() as patch:
        _short_writes(patch)
        writer.append(SID, _llm(1, size=5000))
    assert read_journal(journal_path(tavern_data_dir, SID)) == []


class _FdCachingWriter(JournalWriter):
    """A deliberately broken writer: keeps its fd and never looks at the path again."""

    def __init__(self, data_dir: Path) -> None:
        super().__init__(data_dir, durable=False)
        self.fds: dict[str, int] = {}

    def append(self, session_id: str, line: JournalLine) -> None:
        if session_id not in self.fds:
            path = journal_path(self.data_dir, session_id)
            path.parent.mkdir(parents=True, exist_ok=True)
            self.fds[session_id] = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        os.write(self.fds[session_id], journal_module._encode_line(line))

    def close(self) -> None:
        for fd in self.fds.values():
            os.close(fd)


def _delete_then_append(data_dir: Path, writer: JournalWriter) -> list[JournalLine]:
    writer.append(SID, _commit(1))
    shutil.rmtree(journal_path(data_dir, SID).parent)  # what SessionStore.delete does
    writer.append(SID, _commit(2))
    return read_journal(journal_path(data_dir, SID))


def _replace_then_append(data_dir: Path, writer: JournalWriter) -> list[JournalLine]:
    writer.append(SID, _commit(1))
    path = journal_path(data_dir, SID)
    replacement = path.with_name("replacement.jsonl")
    replacement.write_bytes(_old_bytes([_commit(7)]))
    os.replace(replacement, path)
    writer.append(SID, _commit(2))
    return read_journal(path)


@pytest.mark.parametrize("scenario", [_delete_then_append, _replace_then_append])
def test_a_deleted_or_replaced_journal_gets_the_next_line(
    tavern_data_dir: Path,
    scenario: Callable[[Path, JournalWriter], list[JournalLine]],
) -> None:
    turns = [line.turn_number for line in scenario(tavern_data_dir, JournalWriter(tavern_data_dir))]
    assert turns == ([2] if scenario is _delete_then_append else [7, 2])


@pytest.mark.parametrize("scenario", [_delete_then_append, _replace_then_append])
def test_fresh_file_check_catches_a_cached_fd(
    tavern_data_dir: Path,
    scenario: Callable[[Path, JournalWriter], list[JournalLine]],
) -> None:
    """Negative control: a cached fd writes the second line into the orphaned file."""
    writer = _FdCachingWriter(tavern_data_dir)
    try:
        turns = [line.turn_number for line in scenario(tavern_data_dir, writer)]
    finally:
        writer.close()
    assert 2 not in turns


def _other_process(data_dir: str, torn: bytes) -> None:
    """Another process: two whole lines through its own writer, then a crash mid-line."""
    writer = JournalWriter(data_dir, durable=False)
    writer.append(SID, _commit(2))
    writer.append(SID, _llm(3))
    fd = os.open(journal_path(data_dir, SID), os.O_WRONLY | os.O_APPEND)
    try:
        os.write(fd, torn)  # its own fd, no lock: a writer killed before its newline
    finally:
        os.close(fd)


def _with_other_process(data_dir: Path) -> list[JournalLine]:
    writer = JournalWriter(data_dir, durable=False)
    writer.append(SID, _commit(1))
    whole = _llm(9).model_dump_json().encode()
    child = multiprocessing.get_context("spawn").Process(
        target=_other_process, args=(str(data_dir), whole[: len(whole) // 2])
    )
    child.start()
    child.join(timeout=120)
    assert child.exitcode == 0
    writer.append(SID, _commit(4))
    return read_journal(journal_path(data_dir, SID))


def test_another_process_and_its_torn_tail_between_our_lines(tavern_data_dir: Path) -> None:
    lines = _with_other_process(tavern_data_dir)
    assert [line.turn_number for line in lines] == [1, 2, 3, 4]
    assert lines[2] == _llm(3)


def test_torn_tail_check_is_what_keeps_the_journal_readable(
    tavern_data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Negative control: without the tail cut, the fragment becomes a corrupt middle line."""
    monkeypatch.setattr(journal_module, "_drop_torn_tail", lambda fd: None)
    with pytest.raises(JournalError, match="not JSON"):
        _with_other_process(tavern_data_dir)


def _open_fds(under: Path) -> int:
    """Descriptors of this process open on files under `under`.

    Only those: the whole process's count also moves when another thread of the test worker
    opens or closes a descriptor meanwhile (a clean clone once saw 18 where 40 were open before).
    """
    count = 0
    for name in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{name}")
        except OSError:
            continue  # closed between the listing and the read, or not a link
        if Path(target).is_relative_to(under.resolve()):
            count += 1
    return count


def _append_to_many_sessions(data_dir: Path, per_session: int) -> None:
    writer = JournalWriter(data_dir, durable=False)
    for i in range(40):
        session_id = f"many-{i}"
        for turn in range(per_session):
            writer.append(session_id, _commit(turn, session_id=session_id))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
def test_no_fd_is_left_open(tavern_data_dir: Path) -> None:
    assert _open_fds(tavern_data_dir) == 0
    _append_to_many_sessions(tavern_data_dir, per_session=3)
    assert _open_fds(tavern_data_dir) == 0


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
def test_fd_count_catches_a_leak(tavern_data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Negative control: a writer that never closes its fds shows up in the count."""
    kept: list[int] = []
    real_close = os.close
    before = _open_fds(tavern_data_dir)
    with monkeypatch.context() as patch:
        patch.setattr(os, "close", kept.append)
        # One line per session: a leaked fd still holds its flock, a second line would wait.
        _append_to_many_sessions(tavern_data_dir, per_session=1)
    leaked = _open_fds(tavern_data_dir) - before
    for fd in kept:
        real_close(fd)
    assert leaked == 40
