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
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

from tavern.records.journal import (
    JOURNAL_SCHEMA_VERSION,
    JournalFormatError,
    JournalLine,
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


class PendingSync:
    """The fsync a `synced_once` block left running in the background when it closed.

    `wait` returns once the block's lines are on disk, or raises the fsync's error; it is a
    no-op when the block left none (nothing written, not durable, an inner block).
    """

    __slots__ = ("_wait",)

    def __init__(self) -> None:
        self._wait: Callable[[float | None], None] | None = None

    def wait(self, timeout: float | None = None) -> None:
        """Block until the lines are on disk (at most once; later calls return at once).

        Raises:
            TimeoutError: `timeout` seconds passed first (the sync stays pending).
            OSError: the fsync failed (this block's, or a background one since the last wait).
        """
        if self._wait is not None:
            self._wait(timeout)
            self._wait = None


_SYNC_THREADS: list[ThreadPoolExecutor] = []
_SYNC_THREADS_LOCK = threading.Lock()
_HOLDERS: weakref.WeakSet[_WriterLock] = weakref.WeakSet()


def _forget_parent_syncs() -> None:
    """In a forked child: none of the parent's threads exist, so the child starts its own
    pool, and no session waits on a sync the parent had in flight."""
    _SYNC_THREADS.clear()
    for holder in list(_HOLDERS):
        holder.syncing = False


os.register_at_fork(after_in_child=_forget_parent_syncs)


def _sync_threads() -> ThreadPoolExecutor:
    """The threads running background fsyncs, started on first use (`os.fsync` releases
    the GIL, so the caller's own work goes on meanwhile)."""
    with _SYNC_THREADS_LOCK:
        if not _SYNC_THREADS:
            _SYNC_THREADS.append(ThreadPoolExecutor(4, thread_name_prefix="tavern-journal-sync"))
        return _SYNC_THREADS[0]


class _WriterLock:
    """A weak-referenceable holder of a session's thread lock (bare locks are not) and of
    its journal's sync state (`JournalWriter.synced_once`, background syncs).

    Durable lines are counted as written; `synced` is the count known to be on disk. One
    background sync at a time runs until `synced` catches up with `requested`, so lines
    requested while it runs cost one more fsync, not one each.
    """

    __slots__ = (
        "__weakref__", "changed", "deferred", "error", "lock", "requested", "session_id",
        "synced", "syncing", "unsynced", "written",
    )  # fmt: skip

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self.lock = threading.Lock()
        self.changed = threading.Condition(self.lock)
        """Notified when `synced`, `syncing` or `error` changes."""
        self.deferred = 0
        """Open `synced_once` blocks of the session."""
        self.unsynced = False
        """A line was written without its fsync since the last sync."""
        self.written = 0
        self.requested = 0
        """The count the background sync works towards: lines written up to its last
        request. Lines of an open `synced_once` block are not in it until the block ends."""
        self.synced = 0
        self.syncing = False
        self.error: OSError | None = None
        """A background fsync's error, raised by the session's next wait for the disk."""
        _HOLDERS.add(self)


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
    """Appends journal lines, one writer lock per session.

    `append` is synchronous and short (one write, plus an fsync when `durable`, or one per
    `synced_once` block); it is safe from many threads and may be called from asyncio code
    directly.

    Each append opens the file by its path, so a deleted or replaced journal never gets a
    line. Cached fds were measured against this (20 KB lines, ~100 us each, most of it
    serializing and writing): checking `st_nlink` saves ~5 us a line (~15 us durable) but
    misses a journal renamed or hard-linked away; checking the path too costs what the
    open saved.
    """

    def __init__(self, data_dir: Path | str, *, durable: bool = True) -> None:
        """Write journals under `data_dir`; `durable` fsyncs every line."""
        self._data_dir = Path(data_dir)
        # A plain string prefix: building a Path per line cost ~10 us of the append.
        self._sessions_prefix = os.path.join(self._data_dir, "sessions", "")
        self.durable = durable
        self._registry: weakref.WeakValueDictionary[str, _WriterLock] = (
            weakref.WeakValueDictionary()
        )
        self._registry_lock = threading.Lock()
        self._failed: dict[str, _WriterLock] = {}
        """Holders whose background sync failed, kept until a wait raises the error."""

    @property
    def data_dir(self) -> Path:
        """The data directory the journals live under (fixed at construction)."""
        return self._data_dir

    def _lock_for(self, session_id: str) -> _WriterLock:
        with self._registry_lock:
            holder = self._registry.get(session_id)
            if holder is None:
                holder = _WriterLock(session_id)
                self._registry[session_id] = holder
            return holder

    def append(self, session_id: str, line: JournalLine, *, wait_for_disk: bool = True) -> None:
        """Append one line to the session's journal, creating it if needed.

        Args:
            session_id: The session whose journal gets the line.
            line: The line.
            wait_for_disk: False for a marker whose facts are durable elsewhere (the commit
                line: the store holds the committed turn): a durable writer writes it, starts
                its fsync in the background and returns. The line survives a crash of the
                process at once and a crash of the machine once that sync ends; the sync's
                error is raised by the session's next wait for the disk.

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
                if self.durable:
                    holder.written += 1
                    if holder.deferred:
                        holder.unsynced = True
                    elif not wait_for_disk:
                        self._start_sync(holder)
                    else:
                        os.fsync(fd)
                        holder.synced = holder.written
                    if new:  # once per journal: its entry, its session's, the sessions dir's
                        _fsync_directories(path, 3)
            finally:
                os.close(fd)  # closing releases the flock

    @contextmanager
    def synced_once(self, session_id: str, pending: PendingSync | None = None) -> Iterator[None]:
        """Within the block, durable appends to this session skip their own fsync; the block
        ends once every line written in it is on disk, at one fsync.

        For the lines of one turn: the runner leaves the block before it commits the turn, so
        every line of a committed turn is on disk first. A line is still written (to the page
        cache) before `append` returns, so a crash of the process loses nothing; only a crash
        of the machine can lose lines of a turn that was never committed. Blocks nest; the
        outermost one syncs.

        Args:
            session_id: The session whose appends are deferred.
            pending: When given, a normal exit starts the block's one fsync in the
                background, returns at once and hands the wait to `pending`, so the disk's
                wait overlaps what the caller does next (the store preparing its commit).
                The caller must `pending.wait()` before acting on the lines being durable.
                An exit by an exception waits for the lines before re-raising.

        Lines no longer start syncing as they are written (stops 21 to 24 did): each
        background sync handed the GIL between its thread and the turn's several times,
        and on this 2-core VM the block-end sync measured 0.7-2.9 ms less per durable turn
        (36 against 20 context switches a turn; `benchmarks/README.md`).
        """
        holder = self._lock_for(session_id)  # held strongly here: the registry is weak
        with holder.lock:
            holder.deferred += 1
        failed = True
        try:
            yield
            failed = False
        finally:
            with holder.lock:
                holder.deferred -= 1
                due = not holder.deferred and holder.unsynced
                target = holder.written
                if due:
                    holder.unsynced = False
                    self._start_sync(holder)
            if due and pending is not None and not failed:
                pending._wait = lambda timeout: self._wait_synced(holder, target, timeout)
            elif due:
                self._wait_synced(holder, target, None)

    def _start_sync(self, holder: _WriterLock) -> None:
        """Ask for every line written so far to reach the disk in the background (called
        holding the lock): start the session's sync unless one runs, which then syncs again
        before it stops. A sync never chases lines written after the last request: those of
        an open block are its own end's to sync (chasing them cost 2-3 more fsyncs a turn,
        each in the middle of the turn's work)."""
        holder.requested = holder.written
        if not holder.syncing:
            holder.syncing = True
            _sync_threads().submit(self._sync_until_requested, holder)

    def _sync_until_requested(self, holder: _WriterLock) -> None:
        while True:
            with holder.lock:
                target = holder.requested
                if holder.synced >= target:
                    holder.syncing = False
                    holder.changed.notify_all()
                    return
            try:
                self._fsync(holder.session_id)
            except OSError as exc:
                logger.error("journal of %s: background fsync failed: %s", holder.session_id, exc)
                with self._registry_lock:
                    self._failed[holder.session_id] = holder
                with holder.lock:
                    holder.error = exc
                    holder.syncing = False
                    holder.changed.notify_all()
                return
            with holder.lock:
                holder.synced = max(holder.synced, target)
                holder.changed.notify_all()

    def _wait_synced(self, holder: _WriterLock, target: int, timeout: float | None) -> None:
        """Wait until the first `target` durable lines are on disk; raise a background
        sync's error instead (once: it is cleared, and the next wait syncs anew)."""
        with holder.lock:
            done = holder.changed.wait_for(
                lambda: holder.synced >= target or holder.error is not None or not holder.syncing,
                timeout,
            )
            if not done:
                raise TimeoutError(f"journal sync not done after {timeout} s")
            error, holder.error = holder.error, None
        if error is not None:
            with self._registry_lock:
                self._failed.pop(holder.session_id, None)
            raise error
        with holder.lock:
            if holder.synced >= target:
                return
        # No sync runs and the lines are not known on disk (a forked child, say): sync here.
        self._fsync(holder.session_id)
        with holder.lock:
            holder.synced = max(holder.synced, target)

    def _fsync(self, session_id: str) -> None:
        try:
            fsync_path(self._path(session_id))
        except FileNotFoundError:  # the session was deleted meanwhile: nothing to keep
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
