"""The llama-server build recipe: pinned sources, offline options, one target."""

from __future__ import annotations

import io
import json
import os
import sys
import tarfile
from pathlib import Path

import pytest

from tavern.llm.local.paths import SDIST_VERSION, LocalPaths, cache_dir, local_paths
from tavern.llm.local.runtime_build import (
    CMAKE_OPTIONS,
    RuntimeBuildError,
    _extract,
    build_runtime,
    cmake_build_command,
    cmake_configure_command,
    runtime_info,
    sdist_download_command,
)


def test_sdist_is_fetched_as_source_only_and_pinned(tmp_path: Path) -> None:
    command = sdist_download_command(tmp_path)
    assert command[:4] == [sys.executable, "-m", "pip", "download"]
    assert "--no-deps" in command
    assert command[command.index("--no-binary") + 1] == ":all:"
    assert f"llama-cpp-python=={SDIST_VERSION}" in command


def test_configure_is_portable_and_never_downloads(tmp_path: Path) -> None:
    command = cmake_configure_command(tmp_path / "src", tmp_path / "build")
    assert command[:5] == ["cmake", "-S", str(tmp_path / "src"), "-B", str(tmp_path / "build")]
    for option in (
        "-DGGML_NATIVE=OFF",
        "-DLLAMA_USE_PREBUILT_UI=OFF",  # the only network fetch left in this version's build
        "-DLLAMA_OPENSSL=OFF",
        "-DLLAMA_BUILD_TESTS=OFF",
        "-DLLAMA_BUILD_EXAMPLES=OFF",
    ):
        assert option in command
    assert len(set(CMAKE_OPTIONS)) == len(CMAKE_OPTIONS)


def test_build_targets_only_the_server_with_two_jobs(tmp_path: Path) -> None:
    assert cmake_build_command(tmp_path) == [
        "cmake",
        "--build",
        str(tmp_path),
        "--target",
        "llama-server",
        "-j",
        "2",
    ]


def test_cache_dir_follows_the_environment(cache_root: Path, monkeypatch: object) -> None:
    assert cache_dir() == cache_root
    paths = local_paths()
    assert paths.runtime_dir == cache_root / f"llama-server-{SDIST_VERSION}"
    assert paths.server_binary.name == "llama-server"


def test_an_existing_stamped_build_is_reused(tmp_path: Path) -> None:
    paths = LocalPaths(tmp_path)
    assert runtime_info(paths) is None
    paths.server_binary.parent.mkdir(parents=True)
    paths.server_binary.write_text("binary")
    assert runtime_info(paths) is None  # a binary without a stamp is an unfinished build
    paths.runtime_stamp.write_text(json.dumps({"sdist": "llama-cpp-python==0.3.36"}))
    assert runtime_info(paths) == {"sdist": "llama-cpp-python==0.3.36"}
    messages: list[str] = []
    assert build_runtime(paths, progress=messages.append) == paths.server_binary
    assert messages == [f"llama-server already built: {paths.server_binary}"]


FAKE_CMAKE = """#!{python}
import json, os, sys
from pathlib import Path
log = Path(os.environ["FAKE_CMAKE_LOG"])
with log.open("a") as out:
    out.write(json.dumps(sys.argv[1:]) + "\\n")
if os.environ.get("FAKE_CMAKE_FAIL") and "--build" in sys.argv:
    sys.exit(2)
if "--build" in sys.argv:
    binary = Path(sys.argv[sys.argv.index("--build") + 1]) / "bin" / "llama-server"
    binary.parent.mkdir(parents=True, exist_ok=True)
    binary.write_text("#!/bin/sh\\necho 'version: 1 (fake)'\\n")
    binary.chmod(0o755)
"""


def _fake_toolchain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    bin_dir = tmp_path / "fakebin"
    bin_dir.mkdir()
    cmake = bin_dir / "cmake"
    cmake.write_text(FAKE_CMAKE.format(python=sys.executable))
    cmake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    log = tmp_path / "cmake.log"
    monkeypatch.setenv("FAKE_CMAKE_LOG", str(log))
    return log


def _fake_sdist(paths: LocalPaths) -> None:
    """An sdist-shaped archive already in place, so pip is never called."""
    top = f"llama_cpp_python-{SDIST_VERSION}"
    staging = paths.root / "staging" / top / "vendor" / "llama.cpp"
    staging.mkdir(parents=True)
    (staging / "CMakeLists.txt").write_text("project(fake)\n")
    paths.runtime_dir.mkdir(parents=True)
    with tarfile.open(paths.runtime_dir / f"{top}.tar.gz", "w:gz") as tar:
        tar.add(paths.root / "staging" / top, arcname=top)


def test_build_extracts_configures_builds_and_stamps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = _fake_toolchain(tmp_path, monkeypatch)
    paths = LocalPaths(tmp_path / "cache")
    _fake_sdist(paths)
    assert build_runtime(paths) == paths.server_binary
    configure, build = (json.loads(line) for line in log.read_text().splitlines())
    source = paths.runtime_dir / "src" / "vendor" / "llama.cpp"
    assert configure[:2] == ["-S", str(source)] and "-DGGML_NATIVE=OFF" in configure
    assert build[build.index("--target") + 1] == "llama-server"
    info = runtime_info(paths)
    assert info is not None and info["version"] == "version: 1 (fake)"
    assert info["sdist"] == f"llama-cpp-python=={SDIST_VERSION}"


def test_a_failed_build_leaves_no_stamp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_toolchain(tmp_path, monkeypatch)
    monkeypatch.setenv("FAKE_CMAKE_FAIL", "1")
    paths = LocalPaths(tmp_path / "cache")
    _fake_sdist(paths)
    with pytest.raises(RuntimeBuildError, match="exit code 2"):
        build_runtime(paths)
    assert runtime_info(paths) is None and not paths.runtime_stamp.exists()


def test_without_extraction_filters_the_build_extracts_plain_members(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Python 3.11.0-3.11.3 (Debian 12's python3) have no `tarfile.data_filter`."""
    _fake_toolchain(tmp_path, monkeypatch)
    monkeypatch.delattr(tarfile, "data_filter", raising=False)
    paths = LocalPaths(tmp_path / "cache")
    _fake_sdist(paths)
    assert build_runtime(paths) == paths.server_binary
    assert (paths.runtime_dir / "src" / "vendor" / "llama.cpp" / "CMakeLists.txt").is_file()


def _archive_with(tmp_path: Path, member: tarfile.TarInfo) -> Path:
    archive = tmp_path / "bad.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        folder = tarfile.TarInfo("pkg")
        folder.type = tarfile.DIRTYPE
        tar.addfile(folder)
        tar.addfile(member, io.BytesIO(b"x" * member.size))
    return archive


@pytest.mark.parametrize(
    ("name", "kind", "refusal"),
    [
        ("pkg/../../escaped", tarfile.REGTYPE, "outside its folder"),
        ("/tmp/absolute", tarfile.REGTYPE, "outside its folder"),
        ("pkg/link", tarfile.SYMTYPE, "link or device"),
        ("pkg/device", tarfile.CHRTYPE, "link or device"),
    ],
)
def test_without_extraction_filters_an_unsafe_member_refuses_the_whole_archive(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, kind: bytes, refusal: str
) -> None:
    """Negative controls for `plain_members`: each planted member is caught, nothing lands."""
    monkeypatch.delattr(tarfile, "data_filter", raising=False)
    member = tarfile.TarInfo(name)
    member.type = kind
    member.size = 1 if kind == tarfile.REGTYPE else 0
    member.linkname = "/etc/passwd" if kind == tarfile.SYMTYPE else ""
    dest = tmp_path / "out" / "src"
    dest.parent.mkdir()
    with pytest.raises(RuntimeBuildError, match=refusal):
        _extract(_archive_with(tmp_path, member), dest)
    assert not (tmp_path / "escaped").exists() and not dest.exists()
    assert list(dest.parent.iterdir()) == []
