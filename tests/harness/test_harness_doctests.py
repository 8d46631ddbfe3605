"""The examples in the harness's docstrings (runs, probes, campaigns, replay) run and hold."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "harness"
ANALYSIS_SIDE = {"harness.analysis", "harness.stats", "harness.metrics", "harness.judge"}
MODULES = [
    m.name for m in pkgutil.walk_packages([str(ROOT)], "harness.") if m.name not in ANALYSIS_SIDE
]


@pytest.mark.parametrize("name", MODULES)
def test_module_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_the_examples_are_found() -> None:
    found = doctest.testmod(importlib.import_module("harness.config")).attempted
    assert found >= 1 and "harness.probes.invariants" in MODULES
