"""Build the pinned C++ `llama-server` from source, once, into the cache dir.

The sources are the llama.cpp tree (MIT) vendored inside the llama-cpp-python sdist, fetched
with pip from the package index; no binary is ever downloaded. The options switch off
everything that would reach the network at build time (the prebuilt web UI, HTTPS model
downloads) and everything the server does not need (tests, examples, the unified app), and
`GGML_NATIVE=OFF` keeps the binary portable across the CI's CPUs.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tavern.llm.local.paths import SDIST_PACKAGE, SDIST_VERSION, LocalPaths

Progress = Callable[[str], None]

CMAKE_OPTIONS: tuple[str, ...] = (
    "-DCMAKE_BUILD_TYPE=Release",
    "-DGGML_NATIVE=OFF",
    "-DBUILD_SHARED_LIBS=OFF",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_BUILD_TOOLS=ON",
    "-DLLAMA_BUILD_SERVER=ON",
    "-DLLAMA_BUILD_APP=OFF",
    "-DLLAMA_BUILD_UI=OFF",
    "-DLLAMA_USE_PREBUILT_UI=OFF",
    "-DLLAMA_OPENSSL=OFF",
)
"""cmake options accepted by the llama.cpp vendored in llama-cpp-python 0.3.36. (This version
no longer has `LLAMA_CURL`; `LLAMA_OPENSSL=OFF` is its equivalent: no HTTPS downloads.)"""


class RuntimeBuildError(RuntimeError):
    """Fetching the sources or building the server failed."""


def _quiet(message: str) -> None:
    """Default progress sink: say nothing."""


def sdist_download_command(dest: Path) -> list[str]:
    """Return the pip command that fetches the pinned sdist (source only) into `dest`."""
    return [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--no-binary",
        ":all:",
        f"{SDIST_PACKAGE}=={SDIST_VERSION}",
        "-d",
        str(dest),
    ]


def cmake_configure_command(source: Path, build: Path) -> list[str]:
    """Return the cmake configure command for the llama.cpp tree at `source`."""
    return ["cmake", "-S", str(source), "-B", str(build), *CMAKE_OPTIONS]


def cmake_build_command(build: Path, jobs: int = 2) -> list[str]:
    """Return the cmake command that builds only the `llama-server` target."""
    return ["cmake", "--build", str(build), "--target", "llama-server", "-j", str(jobs)]


def _run(command: list[str], what: str, progress: Progress) -> None:
    progress(f"{what}: {' '.join(command)}")
    result = subprocess.run(command, check=False)
    if result.returncode != 0:
        raise RuntimeBuildError(f"{what} failed with exit code {result.returncode}")


def _sdist_archive(paths: LocalPaths, progress: Progress) -> Path:
    name = f"{SDIST_PACKAGE.replace('-', '_')}-{SDIST_VERSION}.tar.gz"
    archive = paths.runtime_dir / name
    if not archive.is_file():
        _run(sdist_download_command(paths.runtime_dir), "fetching the sdist", progress)
    if not archive.is_file():
        raise RuntimeBuildError(f"pip download did not produce {archive}")
    return archive


def _extract(archive: Path, dest: Path) -> None:
    tmp = dest.with_name(dest.name + ".partial")
    with tarfile.open(archive) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(tmp, filter="data")
        else:  # Python 3.11.0-3.11.3 (Debian 12's 3.11.2): no extraction filters yet
            tar.extractall(tmp, members=plain_members(tar))
    (top,) = list(tmp.iterdir())  # the sdist has one top-level folder
    top.rename(dest)
    tmp.rmdir()


def plain_members(tar: tarfile.TarFile) -> list[tarfile.TarInfo]:
    """The archive's members, refused whole unless each is a regular file or directory
    with a relative path that stays inside the destination (an sdist holds nothing else):
    what the "data" filter of newer Pythons guarantees, for those without it.

    Raises:
        RuntimeBuildError: a member is a link or device, or its path is absolute or climbs
            out with "..".
    """
    members = tar.getmembers()
    for member in members:
        parts = Path(member.name).parts
        if not (member.isfile() or member.isdir()):
            raise RuntimeBuildError(f"the sdist holds a link or device: {member.name!r}")
        if member.name.startswith(("/", "\\")) or ".." in parts:
            raise RuntimeBuildError(f"the sdist holds a path outside its folder: {member.name!r}")
    return members


def runtime_info(paths: LocalPaths) -> dict[str, Any] | None:
    """Return the build stamp of the installed server, or None if it is not built."""
    if not paths.server_binary.is_file():
        return None
    try:
        info: dict[str, Any] = json.loads(paths.runtime_stamp.read_text())
    except (OSError, ValueError):
        return None
    return info


def server_version(binary: Path) -> str:
    """Return what `llama-server --version` prints (its build number and commit)."""
    result = subprocess.run(
        [str(binary), "--version"], capture_output=True, text=True, timeout=30, check=False
    )
    lines = [line for line in (result.stdout + result.stderr).splitlines() if "version" in line]
    return lines[0].strip() if lines else "unknown"


def build_runtime(paths: LocalPaths, *, jobs: int = 2, progress: Progress = _quiet) -> Path:
    """Build `llama-server` into the cache dir unless the pinned build is already there.

    Re-running on a half-finished tree resumes it: extraction happens only once and cmake
    builds incrementally.

    Raises:
        RuntimeBuildError: pip, cmake or the compiler failed.
    """
    if runtime_info(paths) is not None:
        progress(f"llama-server already built: {paths.server_binary}")
        return paths.server_binary
    paths.runtime_dir.mkdir(parents=True, exist_ok=True)
    source_root = paths.runtime_dir / "src"
    if not source_root.is_dir():
        _extract(_sdist_archive(paths, progress), source_root)
    started = time.monotonic()
    build_dir = paths.runtime_dir / "build"
    _run(
        cmake_configure_command(source_root / "vendor" / "llama.cpp", build_dir), "cmake", progress
    )
    _run(cmake_build_command(build_dir, jobs), "building llama-server", progress)
    if not paths.server_binary.is_file():
        raise RuntimeBuildError(f"the build finished but {paths.server_binary} is missing")
    stamp = {
        "sdist": f"{SDIST_PACKAGE}=={SDIST_VERSION}",
        "cmake_options": list(CMAKE_OPTIONS),
        "jobs": jobs,
        "build_seconds": round(time.monotonic() - started, 1),
        "version": server_version(paths.server_binary),
    }
    paths.runtime_stamp.write_text(json.dumps(stamp, indent=2))
    progress(f"llama-server built in {stamp['build_seconds']} s: {paths.server_binary}")
    return paths.server_binary
