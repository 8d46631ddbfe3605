"""`has_unresolved_action` reads turn numbers through a per-window memo and scans only from
the last beat's first record; it equals the plain definition on windows that slide, shrink,
repeat records by identity or come back as equal copies, and whatever the memo holds.
The negative control plants a memo that serves the previous window's numbers by position.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.physics import pending_action
from tavern.physics.pending_action import has_unresolved_action
from tavern.physics.record_memo import RecordMemo
from tavern.records import ActionRecord, Audience, HistoryRecord, SpeechRecord


def _reference_unresolved(history: list[HistoryRecord]) -> bool:
    """`has_unresolved_action` as it was written before the memo."""
    if not history:
        return False
    last = max(r.turn_number for r in history)
    return any(
        isinstance(r, ActionRecord) and not r.resolved and r.turn_number == last for r in history
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


def test_answers_never_depend_on_the_memo(monkeypatch: pytest.MonkeyPatch) -> None:
    window = [*_POOL[:10], _record(50, 9, True, False)]
    warm = has_unresolved_action(window)
    monkeypatch.setattr(pending_action, "_TURNS", RecordMemo())  # an empty memo
    assert has_unresolved_action(window) == warm == _reference_unresolved(window) is True


def test_negative_control_numbers_served_by_position_are_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Planted: a memo that reuses the previous window's numbers by position, without the
    identity check, answers a later window from stale turn numbers."""

    class ByPosition(RecordMemo[int]):
        def all(self, records: Any, key: int, derive: Any) -> list[int]:
            last = self._last.get(key)
            kept = last[0][1][: len(records)] if last else []
            values = kept + [derive(r) for r in records[len(kept) :]]
            self._last[key] = [(list(records), values)]
            return values

    monkeypatch.setattr(pending_action, "_TURNS", ByPosition())
    first = [_record(0, 1, True, False), _record(1, 2, False, False)]
    later = [_record(0, 1, True, False), _record(1, 0, False, False)]  # turn 1 is the last
    has_unresolved_action(first)
    assert has_unresolved_action(later) != _reference_unresolved(later)
