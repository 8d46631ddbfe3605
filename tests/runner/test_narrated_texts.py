"""`turn.narrated_texts` picks the narration of a window with C-level passes; the list
comprehension it replaced stays here as the reference. A property test compares the two on
generated windows of every record kind, a realistic one on a story's window; the negative
control plants a variant that also takes events' texts."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.records import (
    ActionRecord,
    Audience,
    EventRecord,
    HistoryRecord,
    NarrationRecord,
    SpeechRecord,
    SystemRecord,
    ThoughtRecord,
)
from tavern.runner import turn

HALL = Audience(origin="public", perceivers=["C1", "C2"])


def listed_narration(history: list[HistoryRecord]) -> list[str]:
    """The reference, as `TurnTransaction._narrate` wrote it."""
    return [r.text for r in history if isinstance(r, NarrationRecord)]


def record(seq: int, kind: int) -> HistoryRecord:
    common: dict[str, Any] = {"seq": seq, "turn_number": 1, "audience": HALL, "text": f"t{seq}"}
    match kind:
        case 0:
            return SpeechRecord(**common, speaker="C1", author="character")
        case 1:
            return ThoughtRecord(**common, speaker="C1", author="character")
        case 2:
            return ActionRecord(**common, speaker="C1", author="human")
        case 3:
            return EventRecord(**common, speaker="C1", author="director", event_kind="arrival")
        case 4:
            return SystemRecord(**common, speaker="World", author="kernel", marker="m")
        case _:
            return NarrationRecord(**common, speaker="Narrator", author="renderer")


def _agree(kinds: list[int]) -> None:
    history = [record(i, k) for i, k in enumerate(kinds)]
    assert turn.narrated_texts(history) == listed_narration(history)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 5), max_size=60))
def test_narrated_texts_equal_the_list_comprehension(kinds: list[int]) -> None:
    _agree(kinds)


def test_narrated_texts_equal_the_list_comprehension_on_a_story_window() -> None:
    _agree([4] + [0, 2, 3, 5, 0, 1] * 38)


def test_negative_control_events_taken_for_narration_are_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def with_events(history: list[HistoryRecord]) -> list[str]:
        return [r.text for r in history if isinstance(r, NarrationRecord | EventRecord)]

    monkeypatch.setattr(turn, "narrated_texts", with_events)
    with pytest.raises(AssertionError):
        test_narrated_texts_equal_the_list_comprehension()
