"""Atomic file replacement: a reader sees the old file or the new one, never a mix."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomic(path: Path, data: bytes) -> None:
    """Write `data` to `path` via a temp file in the same directory, fsync and `os.replace`.

    The directory is fsynced afterwards so the rename itself survives a power loss.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    fsync_path(path.parent)


def fsync_path(path: Path | str, flags: int = os.O_RDONLY) -> None:
    """fsync the file or directory at `path` through a descriptor of its own: the kernel
    flushes the file's pages whichever descriptor wrote them.

    Raises:
        FileNotFoundError: nothing is at `path`.
    """
    fd = os.open(path, flags)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
