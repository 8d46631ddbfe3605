"""Fixtures for the LLM layer tests."""

from __future__ import annotations

import pytest

from .helpers import Journal


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def journal() -> Journal:
    return Journal()
