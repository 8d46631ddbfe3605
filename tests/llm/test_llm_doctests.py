"""Every docstring example in tavern.llm (and the config record) runs and holds."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import tavern.llm

MODULES = [
    m.name
    for m in pkgutil.iter_modules(tavern.llm.__path__, "tavern.llm.")
    if m.name != "tavern.llm.local"  # owned and tested separately
] + ["tavern.records.config"]


@pytest.mark.parametrize("name", MODULES)
def test_module_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
