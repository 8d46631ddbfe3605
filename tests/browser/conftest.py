"""A real server on a free loopback port (uvicorn in a thread) and headless Debian chromium.

One browser per test module (a session-wide one kept Playwright's event loop running under
every later test of the worker, and `asyncio.run` refused to start); each test gets a fresh
context (no shared cookies, cache or clipboard) at desktop size, and `browser_kit.shoot`
also takes the mobile-width screenshot.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest
from browser_kit import ARTIFACTS, DESKTOP

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
SLOW_TURN_S = 2.0
"""How long `slow_page`'s turns wait before they run, as a model call would: long enough to
switch sessions in the middle of one."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class _Delayed:
    """A runner whose turns and reruns first wait `delay` seconds."""

    def __init__(self, inner: Any, delay: float) -> None:
        self.inner = inner
        self.delay = delay

    async def play_turn(self, *args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(self.delay)
        return await self.inner.play_turn(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@contextmanager
def _serve(
    data_dir: Path, delay: float = 0.0, fn: Any = None, provider: Any = None
) -> Iterator[str]:
    """A server over `data_dir`; `fn`, when given, answers every model call (the fake
    provider's function mode) in place of the seeded fake; `provider`, when given, is the
    provider (a fake of the test's own) over `fn`."""
    import uvicorn

    from tavern.app.main import create_app
    from tavern.app.state import AppServices
    from tavern.app.wiring import close_runner, runner_factory
    from tavern.records.config import AppConfig, ProviderSettings
    from tavern.store import Library, SessionStore

    library, store = Library(data_dir), SessionStore(data_dir)
    real = runner_factory(library, store)

    def factory(config: AppConfig) -> Any:
        runner = real(config)
        if fn is not None:
            from tavern.llm.client import LlmClient
            from tavern.llm.fake import FakeProvider

            journal = runner.journal
            runner.client = LlmClient(
                provider or FakeProvider("function", fn=fn),
                sink=lambda line: journal.append(line.session_id, line),
            )
        return _Delayed(runner, delay) if delay else runner

    async def close(runner: Any) -> None:
        await close_runner(getattr(runner, "inner", runner))

    services = AppServices(
        data_dir=data_dir,
        library=library,
        sessions=store,
        runner_factory=factory,
        close_runner=close,
    )
    # A seeded fake: a regenerated turn samples under other seeds, so its versions differ.
    config = AppConfig(active_provider="fake", providers={"fake": ProviderSettings(seed=1)})
    app = create_app(services, config)
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
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        store.close()


@pytest.fixture
def live_server(tavern_data_dir: Path) -> Iterator[str]:
    with _serve(tavern_data_dir) as url:
        yield url


@pytest.fixture
def slow_server(tavern_data_dir: Path) -> Iterator[str]:
    with _serve(tavern_data_dir, SLOW_TURN_S) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
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
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


def _open(browser: Any, url: str, **context: Any) -> Iterator[Any]:
    made = browser.new_context(
        viewport=DESKTOP, permissions=["clipboard-read", "clipboard-write"], **context
    )
    page = made.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url + "/")
    page.wait_for_selector("body[data-ready=true]", timeout=15000)
    yield page
    made.close()
    assert not errors, f"uncaught errors in the page: {errors}"


@pytest.fixture
def scripted_page(browser: Any, tavern_data_dir: Path) -> Iterator[Callable[[Any], Any]]:
    """`scripted_page(fn)`: a page on a server whose model calls `fn` answers
    (`scripted_page(fn, provider)`: through that fake provider)."""
    with ExitStack() as stack:

        def make(fn: Any, provider: Any = None) -> Any:
            url = stack.enter_context(_serve(tavern_data_dir, fn=fn, provider=provider))
            return stack.enter_context(contextmanager(_open)(browser, url))

        yield make


@pytest.fixture
def page(browser: Any, live_server: str) -> Iterator[Any]:
    yield from _open(browser, live_server)


@pytest.fixture
def slow_page(browser: Any, slow_server: str) -> Iterator[Any]:
    yield from _open(browser, slow_server)
