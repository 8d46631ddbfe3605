"""The public surface of `tavern.llm` is exactly its `__all__`."""

from __future__ import annotations

import tavern.llm


def test_all_names_exist_and_are_public() -> None:
    for name in tavern.llm.__all__:
        assert hasattr(tavern.llm, name), name
    public = {
        name
        for name, value in vars(tavern.llm).items()
        if not name.startswith("_") and not getattr(value, "__file__", None)  # skip submodules
    }
    public.discard("annotations")
    assert public == set(tavern.llm.__all__)
