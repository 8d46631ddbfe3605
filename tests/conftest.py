"""Suite-wide fixtures: a temporary data dir for every test, and the `live` gate."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

# No per-example deadline anywhere: the suite runs beside other work (a soak, a second
# worker) on a VM whose speed moves 1.8x, and a property's first example also pays for
# compiling its regexes. A deadline failure says nothing about the property; tests that want
# a size bound still set their own `max_examples`.
settings.register_profile("tavern", deadline=None)
settings.load_profile("tavern")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--runlive", action="store_true", help="run tests marked live")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--runlive"):
        return
    skip_live = pytest.mark.skip(reason="needs the real local model: make test-live")
    for item in items:
        if "live" in item.keywords:
            item.add_marker(skip_live)


@pytest.fixture(autouse=True)
def tavern_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every test gets its own data dir; nothing touches ./.tavern-data."""
    data_dir = tmp_path / "tavern-data"
    monkeypatch.setenv("TAVERN_DATA_DIR", str(data_dir))
    for name in ("DEEPSEEK_API_KEY", "TAVERN_PROVIDER"):
        monkeypatch.delenv(name, raising=False)
    yield data_dir


@pytest.fixture(autouse=True)
def no_live_model_calls(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Real adapters refuse to send unless the test is marked `live` (in-process transports ok)."""
    import tavern.llm

    if request.node.get_closest_marker("live") is None:
        monkeypatch.setattr(tavern.llm, "ALLOW_LIVE_CALLS", False)
