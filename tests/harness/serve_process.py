"""A real `tavern serve` in a child process, on a free loopback port, for the HTTP tests."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def tavern_serve(data_dir: Path, provider: str = "fake") -> Iterator[str]:
    """Start `tavern serve --provider PROVIDER` over `data_dir`; yield its URL; stop it."""
    port = free_port()
    env = {**os.environ, "TAVERN_DATA_DIR": str(data_dir)}
    command = [str(Path(sys.executable).parent / "tavern"), "serve", "--provider", provider]
    process = subprocess.Popen(
        [*command, "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{url}/health", timeout=2).raise_for_status()
                break
            except httpx.HTTPError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"tavern serve did not start on {url}") from None
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
