"""Every public example in tavern.physics runs and holds."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import tavern.physics

MODULES = [m.name for m in pkgutil.iter_modules(tavern.physics.__path__, "tavern.physics.")]


@pytest.mark.parametrize("name", MODULES)
def test_module_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_every_public_function_has_an_example() -> None:
    missing = []
    for name in tavern.physics.__all__:
        obj = getattr(tavern.physics, name)
        if callable(obj) and not isinstance(obj, type) and ">>>" not in (obj.__doc__ or ""):
            missing.append(name)
    assert missing == []
