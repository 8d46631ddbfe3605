"""Fixtures for the local-model tests: a cache dir per test and the fake server binary."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest

from tavern.llm.local.paths import LocalPaths

FAKE_SERVER = Path(__file__).with_name("fake_llama_server.py")


@pytest.fixture
def cache_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private TAVERN_CACHE_DIR, so no test touches the real model cache."""
    root = tmp_path / "cache"
    monkeypatch.setenv("TAVERN_CACHE_DIR", str(root))
    return root


@pytest.fixture
def fake_install(cache_root: Path) -> LocalPaths:
    """A cache dir whose `llama-server` is the fake script and whose model is a dummy file."""
    paths = LocalPaths(cache_root)
    paths.server_binary.parent.mkdir(parents=True)
    paths.server_binary.write_text(f"#!{sys.executable}\n" + FAKE_SERVER.read_text())
    paths.server_binary.chmod(paths.server_binary.stat().st_mode | stat.S_IXUSR)
    paths.model_dir.mkdir(parents=True)
    paths.model_file.write_bytes(b"GGUF not really")
    return paths
