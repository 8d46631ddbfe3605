"""Fixtures for the HTTP API tests: an app over a real store in the temp data dir."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import httpx
import pytest
from app_helpers import Api, SlowRunner, TurnGate

from tavern.app.main import create_app
from tavern.app.state import AppServices
from tavern.app.wiring import close_runner, runner_factory
from tavern.records.config import AppConfig
from tavern.runner.interface import TurnRunner
from tavern.store import Library, SessionStore

BASE_URL = "http://127.0.0.1:8765"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def make_services(
    data_dir: Path, delay: float = 0.0, hold: TurnGate | None = None
) -> tuple[AppServices, list[TurnRunner]]:
    library = Library(data_dir)
    store = SessionStore(data_dir)
    built: list[TurnRunner] = []

    real = runner_factory(library, store)

    def factory(config: AppConfig) -> TurnRunner:
        runner = real(config)
        if delay or hold is not None:
            runner = SlowRunner(runner, delay, hold)
        built.append(runner)
        return runner

    services = AppServices(
        data_dir=data_dir,
        library=library,
        sessions=store,
        runner_factory=factory,
        close_runner=close_runner,
    )
    return services, built


@pytest.fixture
def api_factory(
    tavern_data_dir: Path,
) -> Callable[..., AsyncIterator[Api]]:
    async def make(
        delay: float = 0.0, config: AppConfig | None = None, hold: TurnGate | None = None
    ) -> AsyncIterator[Api]:
        services, built = make_services(tavern_data_dir, delay, hold)
        app = create_app(services, config or AppConfig(active_provider="fake"))
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=BASE_URL) as client:
            token = (await client.get("/bootstrap")).json()["access_token"]
            yield Api(app, client, token, services, built)

    return make


@pytest.fixture
async def api(api_factory: Callable[..., AsyncIterator[Api]]) -> AsyncIterator[Api]:
    async for made in api_factory():
        yield made
