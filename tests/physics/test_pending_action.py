"""`has_unresolved_action` scans only from the last beat's first record; it equals the plain
definition on windows that slide, shrink, repeat records or hold turns in any order. The
negative control plants a scan that reads only that first record.
"""

from __future__ import annotations

from itertools import compress
from operator import attrgetter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.physics import pending_action
from tavern.physics.pending_action import has_unresolved_action
from tavern.records import ActionRecord, Audience, HistoryRecord, SpeechRecord


def _reference_unresolved(history: list[HistoryRecord]) -> bool:
    """`has_unresolved_action` as it was before the scan from the last beat's first record."""
    if not history:
        return False
    turns = list(map(attrgetter("turn_number"), history))
    last = max(turns)
    return any(
        isinstance(r, ActionRecord) and not r.resolved
        for r in compress(history, map(last.__eq__, turns))
    )


def _record(seq: int, turn: int, is_action: bool, resolved: bool) -> HistoryRecord:
    common: dict[str, Any] = {
        "seq": seq, "turn_number": turn, "speaker": "C1", "author": "character", "text": "x",
        "audience": Audience(origin="public", perceivers=["C1"]),
    }  # fmt: skip
    if is_action:
        return ActionRecord(**common, resolved=resolved)
    return SpeechRecord(**common)


_SPECS = st.tuples(st.integers(0, 5), st.booleans(), st.booleans())
_POOL = [_record(i, i // 3, i % 2 == 0, i % 4 == 0) for i in range(24)]
"""Shared records: windows cut from it repeat records by identity, as the store's do."""


@st.composite
def _windows(draw: st.DrawFn) -> list[list[HistoryRecord]]:
    """Calls in a row: slices of the pool, some with fresh records (any turn order) or
    equal copies of pool records (what a committed beat comes back as)."""
    calls = []
    for _ in range(draw(st.integers(1, 6))):
        start = draw(st.integers(0, len(_POOL)))
        window: list[HistoryRecord] = list(_POOL[start : draw(st.integers(start, len(_POOL)))])
        for spec in draw(st.lists(_SPECS, max_size=4)):
            window.append(_record(100 + len(window), *spec))
        if window and draw(st.booleans()):
            window[-1] = window[-1].model_copy()
        calls.append(window)
    return calls


@settings(max_examples=300, deadline=None)
@given(_windows())
def test_unresolved_action_equals_its_reference_over_calls(calls: list[list[Any]]) -> None:
    for window in calls:
        assert has_unresolved_action(window) == _reference_unresolved(window)


def test_negative_control_a_scan_from_the_first_record_of_the_max_turn_only_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Planted: only the first record of the highest turn is read (as if a beat held one
    record), so an open action after it is missed."""

    def first_only(history: list[HistoryRecord]) -> bool:
        turns = [r.turn_number for r in history]
        r = history[turns.index(max(turns))]
        return isinstance(r, ActionRecord) and not r.resolved

    monkeypatch.setattr(pending_action, "has_unresolved_action", first_only)
    window = [_record(0, 3, False, False), _record(1, 3, True, False)]
    assert pending_action.has_unresolved_action(window) != _reference_unresolved(window)
