"""`snapped_start` finds its window by binary search; the linear walk it replaced stays here as
the reference, and a property test compares the two on generated windows (and on windows of
real record lengths); the negative control plants an off-by-one the property catches."""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tavern.agents import blocks


def walked_start(
    keys: list[int],
    sizes: list[int],
    budget: int,
    stride: int,
    *,
    truncated: bool = False,
    each: int = 0,
) -> int:
    """The reference: `snapped_start` as it was, walking the items one by one."""
    total = sum(sizes) + each * len(sizes)
    start = 0
    while total > budget and start < len(sizes):
        total -= sizes[start] + each
        start += 1
    if (start == 0 and not truncated) or start >= len(keys):
        return start
    floor_key = -(-keys[start] // stride) * stride
    snapped = start
    while snapped < len(keys) and keys[snapped] < floor_key:
        snapped += 1
    if start == 0 and snapped >= len(keys):
        return 0
    return snapped


@st.composite
def windows(draw: st.DrawFn) -> tuple[list[int], list[int], int, int, bool, int]:
    sizes = draw(st.lists(st.integers(0, 120), max_size=80))
    first = draw(st.integers(0, 3000))
    steps = draw(st.lists(st.integers(1, 9), min_size=len(sizes), max_size=len(sizes)))
    keys = [first + sum(steps[:i]) for i in range(len(sizes))]
    budget = draw(st.integers(-5, sum(sizes) + 200))
    stride, truncated, each = (
        draw(st.integers(1, 80)),
        draw(st.booleans()),
        draw(st.sampled_from([0, 1])),
    )
    return keys, sizes, budget, stride, truncated, each


def _agree(case: tuple[list[int], list[int], int, int, bool, int]) -> None:
    keys, sizes, budget, stride, truncated, each = case
    got = blocks.snapped_start(keys, sizes, budget, stride, truncated=truncated, each=each)
    assert got == walked_start(keys, sizes, budget, stride, truncated=truncated, each=each)


@settings(max_examples=300, deadline=None)
@given(case=windows())
@example(case=([0, 1, 2, 3], [10, 10, 10, 10], 20, 1, False, 0))  # a tail that fits exactly
def test_binary_search_equals_the_walk(
    case: tuple[list[int], list[int], int, int, bool, int],
) -> None:
    _agree(case)


def test_binary_search_equals_the_walk_on_window_sized_lines() -> None:
    """Realistic: a Director window of ~230 history lines (40-160 characters, seqs from 9,000),
    the budgets the prompt builders use, their strides, a whole and a truncated tail."""
    lines = [40 + (i * 37) % 121 for i in range(230)]
    keys = list(range(9000, 9230))
    for budget_tokens in (0, 50, 400, 1638, 2500, 6000):
        for stride in (max(8, budget_tokens // 80), max(4, budget_tokens // 75), 1):
            for truncated in (False, True):
                _agree((keys, lines, budget_tokens * 4, stride, truncated, 1))


def test_negative_control_a_start_one_item_late_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted: the search for the start passes over a tail that fits exactly."""

    def late(keys: list[int], sizes: list[int], budget: int, stride: int, **kw: Any) -> int:
        each = kw.get("each", 0)
        fed = list(accumulate(sizes, initial=0))
        total = fed[-1] + each * len(sizes)
        start = bisect_right(range(len(sizes)), total - budget, key=lambda i: fed[i] + each * i)
        shown = walked_start(keys[start:], sizes[start:], budget, stride, **kw)
        return start + shown

    monkeypatch.setattr(blocks, "snapped_start", late)
    with pytest.raises(AssertionError):
        test_binary_search_equals_the_walk()
