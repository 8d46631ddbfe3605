"""Settings: read from the environment, built lazily, cached, cache clearable."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tavern.settings import TavernSettings, get_settings


@pytest.fixture(autouse=True)
def fresh_settings() -> Iterator[None]:
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def test_data_dir_comes_from_the_environment(tavern_data_dir: Path) -> None:
    assert get_settings().data_dir == tavern_data_dir


def test_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("TAVERN_DATA_DIR", "TAVERN_PORT", "TAVERN_HOST", "TAVERN_PROVIDER"):
        monkeypatch.delenv(name, raising=False)
    settings = TavernSettings()
    assert settings.data_dir == Path("./.tavern-data")
    assert settings.port == 8765
    assert settings.provider == "local"
    assert settings.host == "127.0.0.1"


def test_cached_until_cleared(monkeypatch: pytest.MonkeyPatch) -> None:
    first = get_settings()
    monkeypatch.setenv("TAVERN_PORT", "9001")
    assert get_settings() is first
    get_settings.cache_clear()
    assert get_settings().port == 9001


def test_not_built_at_import() -> None:
    code = "import tavern.settings as s; print(s.get_settings.cache_info().currsize)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "0"


def test_bad_port_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAVERN_PORT", "70000")
    with pytest.raises(ValueError):
        get_settings()
