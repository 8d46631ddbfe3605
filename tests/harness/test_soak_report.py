"""`harness.soak_report`: the story's recurring defects, counted from history and journal."""

from __future__ import annotations

from typing import Any

from harness.soak_report import clamp_counts, story_counts
from tavern.records import (
    ActionRecord,
    Audience,
    ClampChange,
    CommitLine,
    EventRecord,
    HistoryRecord,
    LlmCallLine,
    LlmRequestBody,
    SpeechRecord,
    utc_now,
)

HALL = Audience(origin="zone", perceivers=["C1", "C2"])


def _said(seq: int, turn: int, slot: str, text: str, **kw: Any) -> SpeechRecord:
    author = "human" if slot == "C1" else "character"
    return SpeechRecord(
        seq=seq, turn_number=turn, speaker=slot, author=author, text=text,
        audience=kw.get("audience", HALL),
    )  # fmt: skip


def _tried(seq: int, turn: int) -> ActionRecord:
    return ActionRecord(
        seq=seq, turn_number=turn, speaker="C1", author="human", text="pulls the bolt",
        audience=HALL,
    )  # fmt: skip


def _outcome(seq: int, turn: int) -> EventRecord:
    return EventRecord(
        seq=seq, turn_number=turn, speaker="C1", author="director",
        event_kind="action_outcome", text="The bolt holds.", actor_id="C1", audience=HALL,
    )  # fmt: skip


def _call(turn: int, agent: str, error: str | None = None) -> LlmCallLine:
    return LlmCallLine(
        ts=utc_now(), session_id="s1", turn_number=turn, agent=agent, provider="fake",
        model="m", source="fake", request=LlmRequestBody(messages=[]), response="{}",
        error=error, error_type="parse" if error else None, duration_ms=1.0,
        attempt_number=1, prompt_chars=0, prompt_estimated_tokens=0,
    )  # fmt: skip


def test_each_defect_is_counted_and_each_success_too() -> None:
    whisper = Audience(origin="whisper", perceivers=["C1", "C2"])
    history: list[HistoryRecord] = [
        _tried(1, 1), _outcome(2, 1),  # an attempt told
        _tried(3, 2),  # an attempt left without outcome
        _said(4, 3, "C1", "Who are you?"), _said(5, 3, "C2", "Maren."),  # answered
        _said(6, 4, "C1", "Where is it?"),  # unanswered, but for a line out of hearing
        _said(8, 4, "C3", "Cobwebs.", audience=Audience(origin="zone", perceivers=["C3"])),
        _said(7, 5, "C1", "Psst?", audience=whisper),  # a whisper: not counted
    ]  # fmt: skip
    calls = [_call(3, "character:C2"), _call(4, "character:C2"), _call(4, "director")]
    counts = story_counts(history, calls, "C1")
    assert (counts.attempts_with_outcome, counts.attempts) == (1, 2)
    assert (counts.questions_answered, counts.questions) == (1, 2)
    assert (counts.character_calls_heard, counts.character_calls) == (1, 2)


def test_a_failed_call_is_no_reply_and_clamps_are_counted_by_rule() -> None:
    counts = story_counts([], [_call(1, "character:C2", error="bad json")], "C1")
    assert counts.character_calls == 0
    change = ClampChange(rule="agency", path="events[0]", before="x", after=None)
    commit = CommitLine(
        ts=utc_now(), session_id="s1", turn_number=1, revision=1, record_count=1, tick=1,
        control_returned=False, clamp_changes=[change, change],
    )  # fmt: skip
    assert clamp_counts([commit]) == {"agency": 2}
