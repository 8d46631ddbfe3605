"""The examples in the docstrings of the analysis modules run and hold."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "harness.analysis",
    "harness.analysis_records",
    "harness.blind",
    "harness.columns",
    "harness.compare",
    "harness.export",
    "harness.judge",
    "harness.latency",
    "harness.loader",
    "harness.metrics",
    "harness.prices",
    "harness.prompt_blocks",
    "harness.ranking",
    "harness.stats",
    "harness.sweeps",
    "harness.tokens",
    "harness.views",
]


@pytest.mark.parametrize("name", MODULES)
def test_module_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
