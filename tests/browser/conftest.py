"""A real server on a free loopback port (uvicorn in a thread) and headless Debian chromium."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
EXPECT_TIMEOUT_MS = 30_000
"""How long an expectation waits. At 15 s, a scenario option once took longer to appear while
xdist's other worker and a callgrind run shared the two cores (stop 20); a passing check
returns as soon as it holds, so the longer wait costs nothing when the machine is free."""
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "browser"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def live_server(tavern_data_dir: Path) -> Iterator[str]:
    import uvicorn

    from tavern.app.main import create_app
    from tavern.app.state import AppServices
    from tavern.app.wiring import close_runner, runner_factory
    from tavern.records.config import AppConfig
    from tavern.store import Library, SessionStore

    library, store = Library(tavern_data_dir), SessionStore(tavern_data_dir)
    services = AppServices(
        data_dir=tavern_data_dir,
        library=library,
        sessions=store,
        runner_factory=runner_factory(library, store),
        close_runner=close_runner,
    )
    app = create_app(services, AppConfig(active_provider="fake"))
    port = _free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)
    store.close()


@pytest.fixture
def page(live_server: str) -> Iterator[object]:
    if not CHROMIUM.exists():
        pytest.skip(
            "Debian's chromium is not installed at /usr/bin/chromium (apt-get install chromium)"
        )
    from playwright.sync_api import expect, sync_playwright

    # Playwright's default of 5 s failed one save on a 2-core machine also running callgrind,
    # a llama-server soak and the rest of the suite; the assertions stay the same.
    expect.set_options(timeout=EXPECT_TIMEOUT_MS)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(live_server + "/")
        page.wait_for_selector("body[data-ready=true]", timeout=15000)
        yield page
        context.close()
        browser.close()
        assert not errors, f"uncaught errors in the page: {errors}"
