"""`prose._spoken_union` finds the remembered window it continues by the records' token sets
(the memo's list), not by record identity: a turn's window, whose last beat's records came
back from the store as new objects, extends the last turn's union. The union as it was stays
here as the reference; a property test compares old and new on windows that grow, move and
come back as copies, and a realistic turn sequence; the results never depend on the
remembered unions; the negative control (a union remembered for a window it does not
continue) is caught."""

from __future__ import annotations

from collections.abc import Callable
from operator import is_
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.agents import prose
from tavern.physics import continued
from tavern.records import Audience, HistoryRecord, SpeechRecord, ThoughtRecord

_WORDS = ["lantern", "cellar", "ledger", "candle", "harvest", "notary", "quillbrook"]
_OLD_UNIONS: list[tuple[list[HistoryRecord], frozenset[str]]] = []


def union_as_it_was(records: list[HistoryRecord]) -> frozenset[str]:
    """The reference: `_spoken_union` before it compared token sets (identity of records)."""
    union: frozenset[str] = frozenset()
    tail = records
    for old, old_union in reversed(_OLD_UNIONS):
        if len(old) <= len(records) and all(map(is_, old, records)):
            union, tail = old_union, records[len(old) :]
            break
    if tail:
        union = union.union(*(prose._spoken_tokens(r) for r in tail))
    _OLD_UNIONS.append((list(records), union))
    del _OLD_UNIONS[:-4]
    return union


def _record(seq: int, words: int) -> HistoryRecord:
    text = f"{_WORDS[words % 7]} {_WORDS[(words * 3 + 1) % 7]} {seq}"
    audience = Audience(origin="public", perceivers=["C1", "C2"])
    kind: Any = ThoughtRecord if seq % 3 == 0 else SpeechRecord
    return kind(seq=seq, turn_number=1, speaker="C1", author="character",
                audience=audience, text=text)  # fmt: skip


def _agree(windows: list[list[HistoryRecord]], union: Callable[[Any], frozenset[str]]) -> None:
    prose._UNIONS.clear()
    _OLD_UNIONS.clear()
    for window in windows:
        assert union(window) == union_as_it_was(window)


windows_spec = st.lists(
    st.tuples(st.integers(0, 20), st.integers(0, 20), st.integers(0, 21), st.booleans()),
    max_size=10,
)


def _windows(spec: list[tuple[int, int, int, bool]]) -> list[list[HistoryRecord]]:
    """Windows of a pool that grow, move or shrink; from some item on, copies of the records
    (new objects: as a committed beat comes back) with the same or with other words."""
    pool = [_record(i, i * 5) for i in range(21)]
    windows = []
    for start, length, fresh_from, same_words in spec:
        window = pool[start : start + length]
        extra = "" if same_words else " saltmarrow"
        windows.append(
            window[:fresh_from]
            + [r.model_copy(update={"text": r.text + extra}) for r in window[fresh_from:]]
        )
    return windows


@settings(max_examples=200, deadline=None)
@given(windows_spec)
def test_spoken_union_equals_the_union_as_it_was(spec: list[tuple[int, int, int, bool]]) -> None:
    _agree(_windows(spec), prose._spoken_union)


@settings(max_examples=100, deadline=None)
@given(windows_spec)
def test_spoken_union_never_depends_on_the_remembered_unions(
    spec: list[tuple[int, int, int, bool]],
) -> None:
    for window in _windows(spec):
        remembered = prose._spoken_union(window)
        prose._UNIONS.clear()
        assert prose._spoken_union(window) == remembered


def test_spoken_union_over_turns_of_committed_beats() -> None:
    """Realistic: each turn's window is the last one's, its beat's records committed as new
    objects, and a new beat appended as the turn goes; now and then the start moves."""
    history = [_record(i, i) for i in range(200)]
    windows = []
    for turn in range(12):
        beat = [_record(1000 + turn * 10 + k, turn + k) for k in range(4)]
        windows += [history + beat[:2], history + beat]
        history = history[8 if turn % 5 == 4 else 0 :] + [
            r.model_copy() for r in beat
        ]  # committed: same words, new objects
    _agree(windows, prose._spoken_union)


def test_negative_control_a_union_kept_for_a_window_it_does_not_continue_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Planted: the remembered window is matched on its first token set only."""

    def first_set_only(items: Any, old: list[Any]) -> bool:
        return len(old) <= len(items) and items[:1] == old[:1]

    pool = [_record(i, i) for i in range(6)]
    changed = [*pool[:2], pool[2].model_copy(update={"text": "saltmarrow"}), *pool[3:]]
    monkeypatch.setattr(continued, "continues", first_set_only)
    with pytest.raises(AssertionError):
        _agree([pool[:4], changed], prose._spoken_union)
    monkeypatch.undo()
    _agree([pool[:4], changed], prose._spoken_union)
