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


def test_serve_fake_answers_on_loopback(tavern_data_dir: Path) -> None:
    import os
    import socket
    import subprocess
    import sys
    import time

    import httpx

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "TAVERN_DATA_DIR": str(tavern_data_dir)}
    process = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "tavern"),
            "serve",
            "--provider",
            "fake",
            "--port",
            str(port),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert f"http://127.0.0.1:{port}/" in line, line
        deadline = time.monotonic() + 20
        while True:
            try:
                health = httpx.get(f"http://127.0.0.1:{port}/health", timeout=2)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "server did not answer"
                time.sleep(0.1)
        assert health.json() == {"status": "ok", "provider": "fake"}
        page = httpx.get(f"http://127.0.0.1:{port}/")
        assert page.status_code == 200 and '<script type="module" src="/web/app.js">' in page.text
    finally:
        process.terminate()
        process.wait(timeout=10)
    assert not (tavern_data_dir / "config.json").exists()  # --provider is not persisted
