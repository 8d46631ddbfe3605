"""`tune_collector`: start-up objects frozen, young collections rarer; run by the real server
at start-up and by `tavern play`, never by an app a test builds.

Negative control: an app over the default services leaves the process alone, so the tuning
seen is the hook's, not a side effect of starting any app.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI

from tavern.app import wiring
from tavern.app.main import create_app
from tavern.app.state import AppServices
from tavern.records.config import AppConfig
from tavern.runner.collector import YOUNG_THRESHOLD, tune_collector
from tavern.store import Library, SessionStore


def _start_and_stop(app: FastAPI) -> None:
    """Run the app's lifespan: start-up, then shutdown."""

    async def run() -> None:
        async with app.router.lifespan_context(app):
            pass

    asyncio.run(run())


@pytest.fixture
def restored_collector() -> Iterator[None]:
    threshold = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*threshold)


@pytest.mark.usefixtures("restored_collector")
def test_tuning_freezes_start_up_and_raises_the_young_threshold() -> None:
    gc.unfreeze()
    assert gc.get_freeze_count() == 0
    before = gc.get_threshold()
    tune_collector()
    assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == (YOUNG_THRESHOLD, before[1], before[2])


def _services(data_dir: Path, tune: list[int] | None) -> AppServices:
    store = SessionStore(data_dir)
    library = Library(data_dir)
    extra = {} if tune is None else {"tune_process": lambda: tune.append(1)}
    return AppServices(
        data_dir=data_dir,
        library=library,
        sessions=store,
        runner_factory=wiring.runner_factory(library, store),
        **extra,  # type: ignore[arg-type]
    )


@pytest.mark.usefixtures("restored_collector")
def test_the_app_tunes_the_process_once_at_start_up(tmp_path: Path) -> None:
    calls: list[int] = []
    app = create_app(_services(tmp_path, calls), AppConfig(active_provider="fake"))
    assert calls == []  # building the app is not starting it
    _start_and_stop(app)
    assert calls == [1]


@pytest.mark.usefixtures("restored_collector")
def test_negative_control_default_services_leave_the_collector_alone(tmp_path: Path) -> None:
    gc.unfreeze()
    threshold = gc.get_threshold()
    app = create_app(_services(tmp_path, None), AppConfig(active_provider="fake"))
    _start_and_stop(app)
    assert gc.get_threshold() == threshold
    assert gc.get_freeze_count() == 0


def test_the_real_wiring_tunes_the_collector(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TAVERN_DATA_DIR", str(tmp_path))
    from tavern.settings import get_settings

    get_settings.cache_clear()
    try:
        services = wiring.build_services()
    finally:
        get_settings.cache_clear()
    assert services.tune_process is tune_collector
    services.sessions.close()
