"""The examples in the docstrings of the kernel's other packages run and hold (physics and
llm have their own doctest tests)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import tavern.agents
import tavern.contract
import tavern.runner
import tavern.store
import tavern.text

MODULES = ["tavern.text"] + [
    m.name
    for package in (tavern.agents, tavern.contract, tavern.runner, tavern.store, tavern.text)
    for m in pkgutil.iter_modules(package.__path__, package.__name__ + ".")
]


@pytest.mark.parametrize("name", MODULES)
def test_module_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
