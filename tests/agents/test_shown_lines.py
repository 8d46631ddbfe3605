"""`director.history_window` extends the shown lines, seqs and running sums of a recent
window whose rendered lines the new one continues, instead of reading every record again.
The window as it was built stays here as the reference; Hypothesis compares old and new over
windows that grow, move, shrink and come back as copies (a committed beat: new objects, the
same lines; an undone turn played again: the same seqs, other lines), with narration among
them and budgets of every size; a realistic case plays turns of committed beats. The negative
control plants a remembered window matched on its first line only, and the property catches
it."""

from __future__ import annotations

from itertools import compress
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tavern.agents import director
from tavern.agents.blocks import snapped_start
from tavern.agents.director import window_stride
from tavern.physics import continued
from tavern.records import (
    ActionRecord,
    Audience,
    HistoryRecord,
    NarrationRecord,
    SessionState,
    SpeechRecord,
)
from tavern.store import Library, materialize_session

HALL = Audience(origin="zone", perceivers=["C1", "C2", "C4", "C5"])


def window_as_it_was(state: SessionState, history: list[HistoryRecord], budget: int) -> str:
    """The reference: `history_window` before it extended remembered windows."""
    every = [director.render_record(state, r) for r in history]
    lines = list(filter(None, every))
    keys = list(compress((r.seq for r in history), every))
    truncated = bool(history) and history[0].seq > 0
    start = snapped_start(keys, list(map(len, lines)), budget * 4, window_stride(budget),
                          truncated=truncated, each=1)  # fmt: skip
    return "\n".join(lines[start:])


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> SessionState:
    library = Library(tmp_path_factory.mktemp("library"))
    return materialize_session(library.get_scenario("the-vintners-wake"), library, "s-shown")


def _record(seq: int) -> HistoryRecord:
    common: dict[str, Any] = {"seq": seq, "turn_number": 1 + seq // 4, "audience": HALL,
                              "speaker": ("C1", "C2", "C4")[seq % 3]}  # fmt: skip
    if seq % 5 == 0:
        return NarrationRecord(**{**common, "speaker": "Narrator"}, author="renderer",
                               text=f"Rain {seq}.")  # fmt: skip
    if seq % 2:
        return SpeechRecord(**common, author="character", text=f"Line {seq} said, at length.")
    return ActionRecord(**common, author="human", text=f"reaches for door {seq}")


def _agree(state: SessionState, windows: list[tuple[list[HistoryRecord], int]]) -> None:
    director._SHOWN.clear()
    for history, budget in windows:
        assert director.history_window(state, history, budget) == window_as_it_was(
            state, history, budget
        )


Spec = list[tuple[int, int, int, bool, int]]
windows_spec = st.lists(
    st.tuples(
        st.integers(0, 40),
        st.integers(0, 60),
        st.integers(0, 60),
        st.booleans(),
        st.sampled_from([8, 30, 80, 400]),
    ),  # fmt: skip
    min_size=1,
    max_size=10,
)


def _windows(spec: Spec) -> list[tuple[list[HistoryRecord], int]]:
    """Windows of a pool (seq 0 first: some start at the opening, most are tails); from some
    item on, copies of the records: new objects with the same texts (a committed beat coming
    back) or other texts under the same seqs (a turn undone and played again)."""
    pool = [_record(seq) for seq in range(100)]
    out = []
    for start, length, fresh_from, retold, budget in spec:
        window = pool[start : start + length]
        copies = [_retold(r) if retold else r.model_copy() for r in window[fresh_from:]]
        out.append((window[:fresh_from] + copies, budget))
    return out


def _retold(record: HistoryRecord) -> HistoryRecord:
    return record.model_copy(update={"text": record.text + " Again."})


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(windows_spec)
def test_history_window_equals_the_window_as_it_was(state: SessionState, spec: Spec) -> None:
    _agree(state, _windows(spec))


def _turns() -> list[tuple[list[HistoryRecord], int]]:
    history = [_record(seq) for seq in range(1, 120)]
    windows = []
    for turn in range(15):
        beat = [_record(200 + turn * 6 + k) for k in range(6)]
        windows += [(history + beat[:2], 300), (history + beat, 300), (history + beat, 90)]
        if turn % 5 == 2:  # undone, and played again: the same seqs say other things
            beat = [_retold(r) for r in beat]
            windows += [(history + beat, 300)]
        history = history[10 if turn % 4 == 3 else 0 :] + [r.model_copy() for r in beat]
    return windows


def test_history_window_over_turns_of_committed_beats(state: SessionState) -> None:
    _agree(state, _turns())


def test_negative_control_a_window_matched_on_its_first_line_is_caught(
    state: SessionState, monkeypatch: pytest.MonkeyPatch
) -> None:
    def first_line_only(items: Any, old: list[Any]) -> bool:
        return len(old) <= len(items) and items[:1] == old[:1]

    monkeypatch.setattr(continued, "continues", first_line_only)
    with pytest.raises(AssertionError):
        _agree(state, _turns())
    monkeypatch.undo()
    _agree(state, _turns())
