"""`LocalServer`: command line, port choice and lifecycle, against a tiny fake server."""

from __future__ import annotations

import asyncio
import json
import os
import socket
from pathlib import Path

import httpx
import pytest

from tavern.llm.local.paths import LocalPaths
from tavern.llm.local.server import (
    LocalServer,
    LocalServerError,
    ServerOptions,
    free_port,
    server_command,
)

FAST = ServerOptions(startup_timeout_s=15.0)


def _alive(pid: int) -> bool:
    # stop() reaps its child, so a stopped server's pid no longer exists at all
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_command_line_binds_loopback_with_one_slot_per_role(tmp_path: Path) -> None:
    options = ServerOptions(slots=3, ctx_per_slot=2048, threads=2)
    command = server_command(Path("/bin/llama-server"), Path("/m.gguf"), 4567, options)
    pairs = dict(zip(command[1::2], command[2::2], strict=False))
    assert command[0] == "/bin/llama-server"
    assert "--jinja" in command and "--no-webui" in command
    as_text = " ".join(command)
    assert "--host 127.0.0.1" in as_text and "--port 4567" in as_text
    assert "--parallel 3" in as_text and "--ctx-size 6144" in as_text
    assert "--threads 2" in as_text and "--model /m.gguf" in as_text
    assert "0.0.0.0" not in as_text
    assert pairs  # sanity: flags come in pairs after the binary
    assert "--threads" not in server_command(Path("b"), Path("m"), 1, ServerOptions())


def test_free_port_is_bindable_on_loopback() -> None:
    port = free_port()
    assert 1024 <= port <= 65535
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", port))


def test_lifecycle_waits_for_health_then_stops(
    fake_install: LocalPaths, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args_file = tmp_path / "args.json"
    monkeypatch.setenv("FAKE_UNHEALTHY", "3")
    monkeypatch.setenv("FAKE_ARGS_FILE", str(args_file))
    server = LocalServer(fake_install.server_binary, fake_install.model_file, FAST)
    with server:
        assert server.ready and server.pid is not None
        pid = server.pid
        assert server.api_base == f"http://127.0.0.1:{server.port}/v1"
        # start() only returned after /health said ok: it must say ok now
        assert httpx.get(f"{server.base_url}/health").status_code == 200
        argv = json.loads(args_file.read_text())
        assert argv[argv.index("--port") + 1] == str(server.port)
        assert server.start() is server  # idempotent, same process
        assert server.pid == pid
    assert not server.running and not server.ready
    assert not _alive(pid)
    server.stop()  # idempotent


def test_a_server_that_dies_at_start_is_reported_with_its_log(
    fake_install: LocalPaths, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_MODE", "exit")
    log = tmp_path / "server.log"
    server = LocalServer(fake_install.server_binary, fake_install.model_file, FAST, log_path=log)
    with pytest.raises(LocalServerError, match="exited with code 3") as info:
        server.start()
    assert "cannot load model" in str(info.value)
    assert not server.running


def test_a_server_that_never_gets_healthy_times_out_and_is_killed(
    fake_install: LocalPaths, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_MODE", "never")
    options = ServerOptions(startup_timeout_s=1.0)
    server = LocalServer(fake_install.server_binary, fake_install.model_file, options)
    with pytest.raises(LocalServerError, match="not healthy"):
        server.start()
    assert not server.running


def test_missing_files_are_a_clear_error(fake_install: LocalPaths) -> None:
    fake_install.model_file.unlink()
    server = LocalServer(fake_install.server_binary, fake_install.model_file, FAST)
    with pytest.raises(LocalServerError, match="tavern model install"):
        server.start()
    missing = LocalServer(fake_install.root / "nope", fake_install.model_file, FAST)
    with pytest.raises(LocalServerError, match="llama-server not found"):
        missing.start()


def test_async_start_from_concurrent_callers_shares_one_process(
    fake_install: LocalPaths, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_UNHEALTHY", "5")
    server = LocalServer(fake_install.server_binary, fake_install.model_file, FAST)

    async def both() -> list[int | None]:
        started = await asyncio.gather(server.start_async(), server.start_async())
        return [s.pid for s in started]

    try:
        pids = asyncio.run(both())
        assert pids[0] == pids[1] and server.ready
    finally:
        server.stop()


def test_stop_is_registered_for_process_exit(
    fake_install: LocalPaths, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Started means an atexit hook exists that stops it; stopped means the hook is gone."""
    from tavern.llm.local import server as server_module

    hooks: list[object] = []
    monkeypatch.setattr(server_module.atexit, "register", hooks.append)
    monkeypatch.setattr(server_module.atexit, "unregister", hooks.remove)
    server = LocalServer(fake_install.server_binary, fake_install.model_file, FAST)
    server.start()
    pid = server.pid
    assert pid is not None and hooks == [server.stop]
    hooks[0]()  # what the interpreter does at exit
    assert not server.running and hooks == []
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_openmp_threads_sleep_at_barriers_unless_told_otherwise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tavern.llm.local.server import server_environment

    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    assert server_environment(ServerOptions())["OMP_WAIT_POLICY"] == "PASSIVE"
    assert "OMP_WAIT_POLICY" not in server_environment(ServerOptions(omp_wait_policy=None))
    monkeypatch.setenv("OMP_WAIT_POLICY", "ACTIVE")
    assert server_environment(ServerOptions())["OMP_WAIT_POLICY"] == "ACTIVE"
