"""The beat's perceived window: the records of the last `perception_turns` turns, rounded
down to a `window_step` boundary."""

from __future__ import annotations

from itertools import accumulate
from typing import cast

from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.records import Audience, HistoryRecord, SessionState, SystemRecord, TurnInput
from tavern.runner.calls import AgentCaller
from tavern.runner.input_filter import EffectiveTurn
from tavern.runner.limits import KernelLimits
from tavern.runner.turn import TurnTransaction

from .kit import KitFactory


def _history(steps: list[int]) -> list[HistoryRecord]:
    """One record per step, its turn number the running sum of the steps (never falling)."""
    return [
        SystemRecord(seq=i + 1, turn_number=t, speaker="World", author="kernel",
                     audience=Audience(origin="public"), marker="m", text=str(i))
        for i, t in enumerate(accumulate(steps))
    ]  # fmt: skip


def _window(state: SessionState, history: list[HistoryRecord], limits: KernelLimits) -> list[int]:
    effective = EffectiveTurn(TurnInput(skip=True), None, [])
    beat = TurnTransaction(
        state, history, effective, len(history) + 1, cast(AgentCaller, None), limits
    )
    return [r.seq for r in beat._perceived_history()]


def test_the_window_is_every_record_after_the_floor(make_kit: KitFactory) -> None:
    kit = make_kit("parrot")
    opened = kit.state(kit.create())

    @settings(max_examples=80, deadline=None)
    @given(
        st.lists(st.integers(0, 2), max_size=40),
        st.integers(1, 6),
        st.integers(1, 4),
        st.integers(0, 4),
    )
    def check(steps: list[int], turns: int, step: int, ahead: int) -> None:
        history = _history(steps)
        last = history[-1].turn_number if history else 0
        state = opened.model_copy(update={"turn_number": last + ahead})
        limits = KernelLimits(perception_turns=turns, window_step=step)
        floor = (state.turn_number + 1 - turns) // step * step
        expected = [r.seq for r in history if r.turn_number > floor]
        assert _window(state, history, limits) == expected

    check()


def test_the_floors_turn_is_left_out(make_kit: KitFactory) -> None:
    kit = make_kit("parrot")
    history = _history([1, 0, 1, 1, 1])  # turns 1, 1, 2, 3, 4
    state = kit.state(kit.create()).model_copy(update={"turn_number": 4})
    limits = KernelLimits(perception_turns=3, window_step=1)  # floor 2: turns 3 and 4
    assert _window(state, history, limits) == [4, 5]
