"""Per-session append-only JSONL journals: `<data_dir>/sessions/<id>/journal.jsonl`.

One line per LLM attempt or state marker. Writers hold a per-session thread lock (kept in a
weak registry) plus an `flock` on the file, so threads, asyncio tasks and other processes
never interleave bytes. A reader may run while a writer appends: a last line without its
newline is a torn (or in-flight) write, skipped with a logged warning.
"""

from __future__ import annotations

import fcntl
import logging
import os
import threading
import weakref
from pathlib import Path
from typing import NamedTuple

from tavern.records.journal import (
    JOURNAL_SCHEMA_VERSION,
    CommitLine,
    CompactLine,
    JournalFormatError,
    JournalLine,
    RestoreLine,
    UndoLine,
    parse_journal_line,
)
from tavern.store.atomic import fsync_path
from tavern.store.errors import JournalError
from tavern.store.ids import check_session_id

JOURNAL_NAME = "journal.jsonl"
logger = logging.getLogger(__name__)


def session_dir(data_dir: Path | str, session_id: str) -> Path:
    """The directory holding one session's files (its journal)."""
    return Path(data_dir) / "sessions" / check_session_id(session_id)


def journal_path(data_dir: Path | str, session_id: str) -> Path:
    """The journal file of one session (it may not exist yet)."""
    return session_dir(data_dir, session_id) / JOURNAL_NAME


class _WriterLock:
    """A weak-referenceable holder of a session's thread lock (bare locks are not)."""

    __slots__ = ("__weakref__", "lock")

    def __init__(self) -> None:
        self.lock = threading.Lock()


def _drop_torn_tail(fd: int) -> int:
    """Cut a torn last line left by a crashed writer, so the next line starts clean; returns
    the file's size before (0: the journal is new or empty)."""
    size = os.lseek(fd, 0, os.SEEK_END)
    if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
        return size
    # Scan backwards in blocks for the last newline; the torn tail is at most one line.
    end = size
    while end > 0:
        start = max(0, end - 65536)
        block = os.pread(fd, end - start, start)
        cut = block.rfind(b"\n")
        if cut >= 0:
            os.ftruncate(fd, start + cut + 1)
            return size
        end = start
    os.ftruncate(fd, 0)
    return size


def _fsync_directories(path: str, levels: int) -> None:
    """fsync the `levels` directories above `path`: a new file (or directory) survives a
    power loss only once the directory entry naming it is on disk too."""
    for _ in range(levels):
        path = os.path.dirname(path)
        fsync_path(path, os.O_RDONLY | os.O_DIRECTORY)


def _encode_line(line: JournalLine) -> bytes:
    """One JSONL line: exactly `model_dump_json().encode() + b"\\n"`, the serializer's bytes.

    `to_json` has `model_dump_json`'s defaults; calling it directly skips the decode to str
    and the encode back, two copies of a ~20 KB prompt line (~40 us of ~140).
    """
    return line.__pydantic_serializer__.to_json(line) + b"\n"


def _write_all(fd: int, data: bytes) -> None:
    """Write all of `data`: a short write would leave a torn line behind a returned append."""
    written = os.write(fd, data)
    if written < len(data):  # rare (a nearly full disk, a size limit): finish under the flock
        view = memoryview(data)
        while written < len(data):
            written += os.write(fd, view[written:])


_APPEND_FLAGS = os.O_RDWR | os.O_CREAT | os.O_APPEND


class JournalWriter:
    """Appends journal lines, one writer lock per session; `sync` puts them on disk.

    `append` is synchronous and short (one write); it is safe from many threads and may be
    called from asyncio code directly. A written line survives the process being killed at
    once (it is in the page cache); `sync` makes every line written so far survive the
    machine too, at one fsync. The runner syncs once a turn, right before the store commits
    it, so every line of a committed turn is on disk before the commit; the commit line that
    follows is synced with the next turn's lines, and a session opened again after a crash
    gets a recovered marker for a commit line lost with the process (`store.reconcile`).

    Each append opens the file by its path, so a deleted or replaced journal never gets a
    line. Cached fds were measured against this (20 KB lines, ~100 us each, most of it
    serializing and writing): checking `st_nlink` saves ~5 us a line but misses a journal
    renamed or hard-linked away; checking the path too costs what the open saved.
    """

    def __init__(self, data_dir: Path | str, *, durable: bool = True) -> None:
        """Write journals under `data_dir`; `durable`: `sync` fsyncs (else it does nothing)."""
        self._data_dir = Path(data_dir)
        # A plain string prefix: building a Path per line cost ~10 us of the append.
        self._sessions_prefix = os.path.join(self._data_dir, "sessions", "")
        self.durable = durable
        self._registry: weakref.WeakValueDictionary[str, _WriterLock] = (
            weakref.WeakValueDictionary()
        )
        self._registry_lock = threading.Lock()

    @property
    def data_dir(self) -> Path:
        """The data directory the journals live under (fixed at construction)."""
        return self._data_dir

    def _lock_for(self, session_id: str) -> _WriterLock:
        with self._registry_lock:
            holder = self._registry.get(session_id)
            if holder is None:
                holder = _WriterLock()
                self._registry[session_id] = holder
            return holder

    def append(self, session_id: str, line: JournalLine) -> None:
        """Append one line to the session's journal, creating it if needed (a durable
        writer's first line of a journal also syncs the directories naming it).

        Raises:
            JournalError: the line names another session or another schema version.
        """
        if line.session_id != session_id:
            raise JournalError(f"line of session {line.session_id!r} appended to {session_id!r}")
        if line.schema_version != JOURNAL_SCHEMA_VERSION:
            raise JournalError(
                f"line has schema_version {line.schema_version}, journal writes "
                f"{JOURNAL_SCHEMA_VERSION}"
            )
        data = _encode_line(line)
        path = self._path(session_id)
        holder = self._lock_for(session_id)
        with holder.lock:
            try:
                fd = os.open(path, _APPEND_FLAGS, 0o644)
            except FileNotFoundError:  # the session's first line: make its directory
                os.makedirs(os.path.dirname(path), exist_ok=True)
                fd = os.open(path, _APPEND_FLAGS, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                new = _drop_torn_tail(fd) == 0
                _write_all(fd, data)
                if new and self.durable:
                    # Once per journal: its entry, its session's, the sessions dir's (its
                    # lines reach the disk with the next `sync`).
                    _fsync_directories(path, 3)
            finally:
                os.close(fd)  # closing releases the flock

    def sync(self, session_id: str) -> None:
        """Put every line of the session's journal written so far on disk (one fsync); a
        writer that is not durable, or a journal not written yet, does nothing."""
        if not self.durable:
            return
        with self._lock_for(session_id).lock:
            try:
                fsync_path(self._path(session_id))
            except FileNotFoundError:  # nothing written, or the session was deleted
                return

    def _path(self, session_id: str) -> str:
        return f"{self._sessions_prefix}{check_session_id(session_id)}{os.sep}{JOURNAL_NAME}"


def read_journal(path: Path | str) -> list[JournalLine]:
    """Read every complete line of a journal.

    A last line without its newline is a torn or in-flight write: it is skipped with a
    logged warning, never fatal. A missing file reads as empty.

    Raises:
        JournalError: a complete line is not JSON, is of another `schema_version` (the
            message names both versions), or does not validate.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    lines = data.split(b"\n")
    tail = lines.pop()  # b"" when the file ends with a newline
    if tail:
        logger.warning("%s: skipped a torn last line (%d bytes without newline)", path, len(tail))
    result: list[JournalLine] = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            result.append(parse_journal_line(raw, f"{path}:{number}"))
        except JournalFormatError as exc:
            raise JournalError(str(exc)) from exc
    return result


_MARKER_KINDS = (b'"kind":"commit"', b'"kind":"undo"', b'"kind":"compact"', b'"kind":"restore"')
_MARKER_HEAD = 512
"""Bytes of a line its `kind` lies within: a line is serialized with the base fields
(version, time, session, turn) first and `kind` right after them."""


class JournalMarkers(NamedTuple):
    """The marker lines of a journal, each kind in order (`read_journal_markers`)."""

    commits: list[CommitLine | UndoLine]
    """Its commit and undo lines."""
    compactions: list[CompactLine | RestoreLine]
    """Its compact and restore lines."""


def read_journal_markers(path: Path | str) -> JournalMarkers:
    """The commit, undo, compact and restore lines of a journal in one read of the file,
    parsing only lines that may be one (a journal's model-call lines, tens of kilobytes
    each, are skipped unread).

    Raises:
        JournalError: a marker line does not validate (see `read_journal`).
    """
    found = JournalMarkers([], [])
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        return found
    start = 0
    while (end := data.find(b"\n", start)) >= 0:
        head = data[start : min(end, start + _MARKER_HEAD)]
        if any(kind in head for kind in _MARKER_KINDS):
            try:
                line = parse_journal_line(data[start:end], f"{path}")
            except JournalFormatError as exc:
                raise JournalError(str(exc)) from exc
            if isinstance(line, CommitLine | UndoLine):
                found.commits.append(line)
            elif isinstance(line, CompactLine | RestoreLine):
                found.compactions.append(line)
        start = end + 1
    return found


def read_markers(path: Path | str) -> list[CommitLine | UndoLine]:
    """The commit and undo lines of a journal, in order (`read_journal_markers`).

    Raises:
        JournalError: a marker line does not validate (see `read_journal`).
    """
    return read_journal_markers(path).commits


def read_compaction_markers(path: Path | str) -> list[CompactLine | RestoreLine]:
    """The compact and restore lines of a journal, in order (`read_journal_markers`).

    Raises:
        JournalError: a marker line does not validate (see `read_journal`).
    """
    return read_journal_markers(path).compactions
