"""`record_memo._repeated` finds a list's repeat by C-level identity scans; it equals the
Python scans it replaced, on generated lists whose items repeat by identity, by equality
only (equal but distinct objects, which must not count), or not at all. The negative
control plants a variant that compares by equality and is caught.
"""

from __future__ import annotations

import operator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.physics import record_memo


def _reference_repeated(old: list[Any], old_values: list[Any], records: list[Any]) -> list[Any]:
    """`_repeated` as first written."""
    first = records[0]
    at = 0 if old and old[0] is first else next((i for i, r in enumerate(old) if r is first), -1)
    if at < 0:
        return []
    span = min(len(old) - at, len(records))
    same = list(map(operator.is_, old[at : at + span], records[:span]))
    return old_values[at : at + (same.index(False) if False in same else span)]


class _Item:
    """An object equal to any other of the same label: only identity tells them apart."""

    def __init__(self, label: int) -> None:
        self.label = label

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Item) and other.label == self.label

    def __hash__(self) -> int:
        return hash(self.label)


_POOL = [_Item(i % 4) for i in range(12)]
"""Twelve objects, three of each label: lists mix shared objects and equal twins."""

_LISTS = st.lists(st.sampled_from(range(len(_POOL))), max_size=14).map(
    lambda picks: [_POOL[i] for i in picks]
)


def _window_pairs() -> st.SearchStrategy[tuple[list[Any], list[Any]]]:
    """(old, new) where new continues a stretch of old, then diverges: the usual case."""
    return st.tuples(_LISTS, st.integers(0, 14), st.integers(0, 14), _LISTS).map(
        lambda t: (t[0], t[0][t[1] : t[1] + t[2]] + t[3])
    )


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.tuples(_LISTS, _LISTS), _window_pairs()))
def test_repeated_equals_its_reference(pair: tuple[list[Any], list[Any]]) -> None:
    old, records = pair
    if not records:
        return  # `ItemMemo.all` never asks about an empty list
    values = [f"v{i}" for i in range(len(old))]
    assert record_memo._repeated(old, values, records) == _reference_repeated(old, values, records)


def test_repeated_on_a_realistic_sliding_window() -> None:
    old = list(_POOL[:10])
    moved = [*_POOL[3:9], _Item(8), _POOL[11]]  # start moved, the last beat came back anew
    values = [str(i) for i in range(10)]
    assert record_memo._repeated(old, values, moved) == ["3", "4", "5", "6", "7", "8"]
    assert record_memo._repeated(old, values, moved) == _reference_repeated(old, values, moved)


def test_negative_control_an_equality_scan_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted: find the repeat by `==`, so an equal twin passes for the record itself."""

    def by_equality(old: list[Any], old_values: list[Any], records: list[Any]) -> list[Any]:
        first = records[0]
        at = old.index(first) if first in old else -1
        if at < 0:
            return []
        span = min(len(old) - at, len(records))
        same = [a == b for a, b in zip(old[at : at + span], records[:span], strict=True)]
        return old_values[at : at + (same.index(False) if False in same else span)]

    monkeypatch.setattr(record_memo, "_repeated", by_equality)
    old, twin = [_POOL[0], _POOL[1]], [_POOL[4], _POOL[1]]  # _POOL[4] equals _POOL[0]
    values = ["a", "b"]
    assert record_memo._repeated(old, values, twin) != _reference_repeated(old, values, twin)
