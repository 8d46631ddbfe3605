"""`LocalServer`: run the built `llama-server` on a free loopback port, and always stop it.

The server is a child process bound to 127.0.0.1 only. It is stopped by `stop()`, by the
context manager, by `atexit` on a normal exit or Ctrl-C, and, on Linux, by the kernel
(`PR_SET_PDEATHSIG`) if Tavern itself is killed, so a crashed run never leaves a model
holding memory in the background.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO

import httpx

from tavern.llm.local.paths import MODEL_NAME

LOOPBACK = "127.0.0.1"
DEFAULT_ROLES: tuple[str, ...] = ("director", "prose", "character", "utility")
"""One slot per agent role, so each role's long, stable prefix stays warm in its own slot."""


class LocalServerError(RuntimeError):
    """The server could not be started or did not become healthy."""


@dataclass(frozen=True)
class ServerOptions:
    """How the server is run. Context is per slot; the server gets `slots * ctx_per_slot`."""

    slots: int = len(DEFAULT_ROLES)
    ctx_per_slot: int = 4096
    threads: int | None = None
    """CPU threads; None lets llama.cpp choose (all cores)."""
    cache_ram_mib: int = 1024
    """Host-RAM prompt cache for idle slots; bounded so a small CI machine is not surprised."""
    startup_timeout_s: float = 120.0
    alias: str = MODEL_NAME
    omp_wait_policy: str | None = "PASSIVE"
    """`OMP_WAIT_POLICY` for the server, unless the environment sets one. Passive threads
    sleep instead of spinning at barriers: measured about even when the server is alone
    (generation 18-21 vs 21.5 tokens/s) and 2-10x faster generation when another server
    shares the cores (12 vs 1.2-5 tokens/s)."""


def free_port(host: str = LOOPBACK) -> int:
    """Return a TCP port on `host` that was free a moment ago (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


def server_command(binary: Path, model: Path, port: int, options: ServerOptions) -> list[str]:
    """Return the `llama-server` command line for `model` on loopback `port`."""
    command = [
        str(binary),
        "--model",
        str(model),
        "--host",
        LOOPBACK,
        "--port",
        str(port),
        "--parallel",
        str(options.slots),
        "--ctx-size",
        str(options.slots * options.ctx_per_slot),
        "--no-kv-unified",  # a fixed share per slot: one role cannot evict another's prefix
        "--jinja",  # the GGUF's own chat template, which also drives json_schema output
        "--no-webui",
        "--alias",
        options.alias,
        "--cache-ram",
        str(options.cache_ram_mib),
    ]
    if options.threads is not None:
        command += ["--threads", str(options.threads)]
    return command


def server_environment(options: ServerOptions) -> dict[str, str]:
    """The environment the server runs with: ours, plus the OpenMP wait policy default."""
    env = dict(os.environ)
    if options.omp_wait_policy is not None:
        env.setdefault("OMP_WAIT_POLICY", options.omp_wait_policy)
    return env


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    libc = ctypes.CDLL(None, use_errno=True)
    pr_set_pdeathsig = 1
    libc.prctl(pr_set_pdeathsig, signal.SIGTERM)


def _preexec() -> Callable[[], object] | None:
    # PDEATHSIG fires when the *thread* that forked dies, so only arm it from the main
    # thread, which lives as long as the process; elsewhere atexit has to do.
    if sys.platform.startswith("linux") and threading.current_thread() is threading.main_thread():
        return _die_with_parent
    return None


class LocalServer:
    """A `llama-server` child process serving one model on a free loopback port.

    Example::

        with LocalServer(binary, model) as server:
            print(server.api_base)   # http://127.0.0.1:<port>/v1
    """

    def __init__(
        self,
        binary: Path,
        model: Path,
        options: ServerOptions | None = None,
        *,
        log_path: Path | None = None,
        extra_args: Sequence[str] = (),
    ) -> None:
        self.binary = binary
        self.model = model
        self.options = options or ServerOptions()
        self.log_path = log_path
        self.extra_args = list(extra_args)
        self.port: int | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None
        self._lock = threading.Lock()
        self._ready = False

    @property
    def base_url(self) -> str:
        """`http://127.0.0.1:<port>` of the running server."""
        if self.port is None:
            raise LocalServerError("the server is not started")
        return f"http://{LOOPBACK}:{self.port}"

    @property
    def api_base(self) -> str:
        """The OpenAI-compatible base URL (`.../v1`) for the `llama_cpp` adapter."""
        return f"{self.base_url}/v1"

    @property
    def running(self) -> bool:
        """Whether the child process is alive."""
        return self._process is not None and self._process.poll() is None

    @property
    def pid(self) -> int | None:
        """Process id of the child, if started."""
        return self._process.pid if self._process is not None else None

    def _spawn(self) -> None:
        if not self.binary.is_file():
            raise LocalServerError(
                f"llama-server not found at {self.binary}: run `tavern model install`"
            )
        if not self.model.is_file():
            raise LocalServerError(f"model not found at {self.model}: run `tavern model install`")
        self.port = free_port()
        command = server_command(self.binary, self.model, self.port, self.options)
        command += self.extra_args
        if self.log_path is not None:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            log = self.log_path.open("ab")
        else:
            log = open(os.devnull, "wb")
        self._log = log
        self._process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=server_environment(self.options),
            preexec_fn=_preexec(),
        )
        atexit.register(self.stop)

    def _exited_error(self, code: int | None) -> LocalServerError:
        tail = ""
        if self.log_path is not None and self.log_path.is_file():
            tail = "\n" + "\n".join(self.log_path.read_text(errors="replace").splitlines()[-15:])
        return LocalServerError(f"llama-server exited with code {code} while starting{tail}")

    def _healthy_once(self, client: httpx.Client) -> bool:
        try:
            response = client.get(f"{self.base_url}/health", timeout=2.0)
        except httpx.TransportError:
            return False
        return response.status_code == 200  # 503 while the model loads

    def _wait_healthy(self) -> None:
        deadline = time.monotonic() + self.options.startup_timeout_s
        with httpx.Client() as client:
            while time.monotonic() < deadline:
                process = self._process
                if process is None:
                    raise LocalServerError("llama-server was stopped while starting")
                if process.poll() is not None:
                    error = self._exited_error(process.returncode)
                    self.stop()
                    raise error
                if self._healthy_once(client):
                    return
                time.sleep(0.1)
        self.stop()
        raise LocalServerError(
            f"llama-server not healthy after {self.options.startup_timeout_s:.0f} s"
        )

    @property
    def ready(self) -> bool:
        """Whether the server is running and has answered `/health` with ok."""
        return self._ready and self.running

    def start(self) -> LocalServer:
        """Start the server (if not running) and block until `/health` says ok.

        Raises:
            LocalServerError: missing files, the process died, or the timeout passed.
        """
        with self._lock:
            if self.ready:
                return self
            if not self.running:
                self._spawn()
            self._wait_healthy()
            self._ready = True
        return self

    async def start_async(self) -> LocalServer:
        """`start()` without blocking the event loop while the model loads.

        The process is spawned on the calling thread (the parent-death signal is tied to the
        thread that forks) and only the health wait runs in a worker thread. Concurrent
        callers all wait for the same process to become healthy.
        """
        if self.ready:
            return self
        with self._lock:
            if not self.running:
                self._spawn()
        await asyncio.to_thread(self._wait_healthy)
        self._ready = True
        return self

    def stop(self, timeout_s: float = 10.0) -> None:
        """Terminate the server (SIGTERM, then SIGKILL after `timeout_s`); idempotent."""
        process, self._process = self._process, None
        self._ready = False
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        log, self._log = self._log, None
        if log is not None:
            with contextlib.suppress(OSError):
                log.close()
        with contextlib.suppress(Exception):
            atexit.unregister(self.stop)

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
