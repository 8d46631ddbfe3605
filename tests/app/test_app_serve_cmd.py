"""`tavern serve`: refuses clearly without the local model; builds a loopback server."""

from __future__ import annotations

from pathlib import Path

import pytest

from tavern.cli import main
from tavern.cli.serve_cmd import build_server, local_missing
from tavern.records.config import AppConfig


def test_local_without_model_says_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TAVERN_CACHE_DIR", str(tmp_path / "empty-cache"))
    from tavern.settings import get_settings

    get_settings.cache_clear()
    assert "not installed" in (local_missing() or "")
    assert main(["serve", "--provider", "local"]) == 2
    out = capsys.readouterr().out
    assert "tavern model install" in out and "--provider fake" in out


def test_unknown_provider_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--provider", "nope"]) == 2
    assert "unknown provider" in capsys.readouterr().out


def test_fake_server_binds_loopback() -> None:
    server = build_server(AppConfig(active_provider="fake"), 18765)
    assert server.config.host == "127.0.0.1" and server.config.port == 18765
