"""The llama-server build recipe: pinned sources, offline options, one target."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tavern.llm.local.paths import SDIST_VERSION, LocalPaths, cache_dir, local_paths
from tavern.llm.local.runtime_build import (
    CMAKE_OPTIONS,
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
