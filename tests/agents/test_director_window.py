"""`director.history_window` is a plain function of its arguments: the tail of the rendered
lines the budget allows (start snapped to a seq stride), widened to every record of the turn
being played, whatever the budget (issue 41: a crowded prompt once left the Director none of
its own turn's input). Hypothesis compares it with the budget-only window it widens, over
windows that grow, move and come back as copies; the negative control plants the budget-only
window and the property catches it."""

from __future__ import annotations

from itertools import compress
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tavern.agents import director
from tavern.agents.blocks import snapped_start
from tavern.agents.director import render_record, window_stride
from tavern.records import (
    ActionRecord,
    Audience,
    HistoryRecord,
    NarrationRecord,
    SessionState,
    SpeechRecord,
    ThoughtRecord,
)
from tavern.store import Library, materialize_session

HALL = Audience(origin="zone", perceivers=["C1", "C2", "C4", "C5"])


def budget_window(state: SessionState, history: list[HistoryRecord], budget: int) -> str:
    """The reference: the window the budget alone cuts."""
    every = [render_record(state, r) for r in history]
    lines = list(filter(None, every))
    keys = list(compress((r.seq for r in history), every))
    truncated = bool(history) and history[0].seq > 0
    start = snapped_start(keys, list(map(len, lines)), budget * 4, window_stride(budget),
                          truncated=truncated, each=1)  # fmt: skip
    return "\n".join(lines[start:])


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> SessionState:
    library = Library(tmp_path_factory.mktemp("library"))
    return materialize_session(library.get_scenario("the-vintners-wake"), library, "s-window")


def _record(seq: int) -> HistoryRecord:
    common: dict[str, Any] = {"seq": seq, "turn_number": 1 + seq // 4, "audience": HALL,
                              "speaker": ("C1", "C2", "C4")[seq % 3]}  # fmt: skip
    if seq % 5 == 0:
        return NarrationRecord(**{**common, "speaker": "Narrator"}, author="renderer",
                               text=f"Rain {seq}.")  # fmt: skip
    if seq % 7 == 0:
        return ThoughtRecord(**common, author="human", text=f"Brood{seq} quietly")
    if seq % 2:
        return SpeechRecord(**common, author="character", text=f"Line {seq} said, at length.")
    return ActionRecord(**common, author="human", text=f"reaches for door {seq}")


def _check(state: SessionState, history: list[HistoryRecord], budget: int, lag: int) -> None:
    """The window of `history` on a state `lag` turns behind its last record (a lag of one:
    the turn being played is the last record's)."""
    played = history[-1].turn_number if history else 0
    at = state.model_copy(update={"turn_number": max(0, played - lag)})
    got = director.history_window(at, history, budget)
    lines = [line for r in history if (line := render_record(at, r))]
    current = [render_record(at, r) for r in history if r.turn_number == played] if lag else []
    assert got == director.history_window(at, [r.model_copy() for r in history], budget)
    assert "\n".join(lines).endswith(got)  # a tail of the rendered lines
    assert all(line in got.split("\n") for line in current if line)
    cut = budget_window(at, history, budget)
    assert got.endswith(cut)  # never narrower than the budget's window
    if not any(current):
        assert got == cut


windows = st.tuples(
    st.integers(0, 40), st.integers(0, 60), st.sampled_from([0, 8, 30, 80, 400]),
    st.integers(0, 3),
)  # fmt: skip


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(windows)
def test_the_window_holds_the_played_turn_and_the_budgets_tail(
    state: SessionState, spec: tuple[int, int, int, int]
) -> None:
    start, length, budget, lag = spec
    pool = [_record(seq) for seq in range(120)]
    _check(state, pool[start : start + length], budget, lag)


def test_negative_control_the_budget_alone_is_caught(
    state: SessionState, monkeypatch: pytest.MonkeyPatch
) -> None:
    history = [_record(seq) for seq in range(1, 100)]
    _check(state, history, 8, 1)
    monkeypatch.setattr(director, "history_window", budget_window)
    with pytest.raises(AssertionError):
        _check(state, history, 8, 1)
