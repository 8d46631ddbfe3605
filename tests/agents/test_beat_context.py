"""A beat's Director call and its follow-ups share their prompt's blocks through one
`director.BeatContext`, built once per budget. The prompts never depend on that reuse:
Hypothesis compares every prompt built with a kept context against the one built without
(the code as it was: `context_blocks` per call), over generated windows, budgets in any order
and attempts; the negative control plants a context that keeps one budget's blocks for all."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tavern.agents import director, outcome
from tavern.records import ActionRecord, Audience, HistoryRecord, SessionState, SpeechRecord
from tavern.store import Library, materialize_session

HALL = Audience(origin="zone", perceivers=["C1", "C2", "C4", "C5"])


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> SessionState:
    library = Library(tmp_path_factory.mktemp("library"))
    return materialize_session(library.get_scenario("the-vintners-wake"), library, "s-beat")


def window(size: int) -> list[HistoryRecord]:
    """A story window: speech and an attempt each turn (seqs from 1)."""
    records: list[HistoryRecord] = []
    for seq in range(1, size + 1):
        common: dict[str, Any] = {"seq": seq, "turn_number": 1 + seq // 2, "audience": HALL,
                                  "speaker": ("C1", "C2", "C4")[seq % 3]}  # fmt: skip
        if seq % 2:
            records.append(SpeechRecord(**common, author="character", text=f"Line {seq} said."))
        else:
            records.append(ActionRecord(**common, author="human", text=f"reaches for door {seq}"))
    return records


def _agree(state: SessionState, history: list[HistoryRecord], budgets: list[int]) -> None:
    context = director.BeatContext(state, history)
    beat = director.DirectorBeat(direction="Rain.", max_time_skip=3)
    attempts = [r for r in history if isinstance(r, ActionRecord)]
    for budget in budgets:
        shared = director.build_messages(state, history, beat, budget_tokens=budget,
                                         context=context)  # fmt: skip
        assert shared == director.build_messages(state, history, beat, budget_tokens=budget)
        for attempt in attempts[-2:]:
            for again in (False, True):
                kept = outcome.build_messages(state, history, attempt, [], budget_tokens=budget,
                                              again=again, context=context)  # fmt: skip
                plain = outcome.build_messages(state, history, attempt, [],
                                               budget_tokens=budget, again=again)  # fmt: skip
                assert kept == plain


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(size=st.integers(0, 120), budgets=st.lists(st.integers(0, 700), min_size=1, max_size=4))
def test_prompts_with_a_kept_context_equal_those_built_afresh(
    state: SessionState, size: int, budgets: list[int]
) -> None:
    _agree(state, window(size), budgets)


def test_prompts_with_a_kept_context_equal_those_built_afresh_on_a_beat(
    state: SessionState,
) -> None:
    """Realistic: a 230-record window, the default budget, then the shrunk ones `fitted`
    asks for on a small context."""
    _agree(state, window(230), [director.HISTORY_BUDGET_TOKENS, 0, 1638, 1638])


def test_negative_control_a_context_keeping_one_budget_is_caught(
    state: SessionState, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = director.BeatContext.__call__

    def first_budget_only(self: director.BeatContext, budget_tokens: int) -> Any:
        return real(self, next(iter(self._built), budget_tokens))

    monkeypatch.setattr(director.BeatContext, "__call__", first_budget_only)
    with pytest.raises(AssertionError):
        _agree(state, window(230), [director.HISTORY_BUDGET_TOKENS, 40])
