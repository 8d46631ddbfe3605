"""What a run's committed story did for the human: the defects that recur, counted.

`tavern-harness run --report` prints it after each run (`make soak` runs the bundled `soak`
script on the embedded model with it). Each soak so far was read by eye for the same few
failures of the embedded model: an attempt of the human's character that got no outcome, a
question the human asked that no one answered, a Character call whose whole reply the
kernel's rules refused. `story_counts` counts them from the session's history and journal,
so soaks of two commits (or seeds) can be compared by number, `clamp_counts` says which
clamps the live Director kept busy, and `report_calls` lists every call by role and outcome
and every failed attempt.
"""

from __future__ import annotations

import collections
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TextIO

from tavern.records import (
    ActionRecord,
    CommitLine,
    EventRecord,
    HistoryRecord,
    JournalLine,
    LlmCallLine,
    SpeechRecord,
)


@dataclass(frozen=True)
class StoryCounts:
    """Per soak: how many of each the human got (`answered` of `asked`)."""

    attempts: int
    """The human's attempts."""
    attempts_with_outcome: int
    """... that an action_outcome of the human's character told in the same beat."""
    questions: int
    """The human's lines ending in a question mark, whispers aside."""
    questions_answered: int
    """... after which a Character spoke in the same beat, within the human's hearing (live,
    vintners-wake #39, seed 55, turn 1: Lio Mendez, alone in the cellar, spoke to no one)."""
    character_calls: int
    """(beat, character) pairs with a Character call that answered (asked again: once)."""
    character_calls_heard: int
    """... whose character committed a record in that beat."""

    def lines(self) -> list[str]:
        """The counts as the soak prints them."""
        return [
            f"    human attempts with an outcome   {self.attempts_with_outcome} of {self.attempts}",
            f"    human questions answered         {self.questions_answered} of {self.questions}",
            f"    Character replies with a record  {self.character_calls_heard}"
            f" of {self.character_calls}",
        ]


def story_counts(
    history: Sequence[HistoryRecord], lines: Sequence[JournalLine], controlled: str
) -> StoryCounts:
    """Count the story's recurring defects (see the module) for the human playing
    `controlled`.

    Example:
        >>> story_counts([], [], "C1").lines()[0].split()[-3:]
        ['0', 'of', '0']
    """
    by_turn: dict[int, list[HistoryRecord]] = collections.defaultdict(list)
    for record in history:
        by_turn[record.turn_number].append(record)
    attempts = told = questions = answered = 0
    for records in by_turn.values():
        human = [r for r in records if r.author == "human"]
        if any(isinstance(r, ActionRecord) for r in human):
            attempts += 1
            told += any(
                isinstance(r, EventRecord)
                and r.event_kind == "action_outcome"
                and r.actor_id == controlled
                for r in records
            )
        asked = [
            r
            for r in human
            if isinstance(r, SpeechRecord)
            and r.audience.origin != "whisper"
            and r.text.rstrip().endswith("?")
        ]
        if asked:
            questions += 1
            answered += any(
                isinstance(r, SpeechRecord)
                and r.author == "character"
                and controlled in r.audience.perceivers
                for r in records
            )
    calls = {
        (line.turn_number, line.agent.split(":", 1)[1])
        for line in lines
        if isinstance(line, LlmCallLine) and line.agent.startswith("character:") and not line.error
    }
    heard = sum(
        any(r.speaker == slot and r.author == "character" for r in by_turn.get(turn, ()))
        for turn, slot in calls
    )
    return StoryCounts(attempts, told, questions, answered, len(calls), heard)


def clamp_counts(lines: Sequence[JournalLine]) -> collections.Counter[str]:
    """How often each clamp rule changed a committed beat's decision."""
    return collections.Counter(
        change.rule
        for line in lines
        if isinstance(line, CommitLine)
        for change in line.clamp_changes
    )


def report_calls(calls: Sequence[LlmCallLine], out: TextIO) -> None:
    """Calls by role and outcome, then every failed attempt."""
    outcomes = collections.Counter((c.agent.split(":")[0], c.error_type or "ok") for c in calls)
    print("calls by role and outcome:", file=out)
    for (role, outcome), count in sorted(outcomes.items()):
        print(f"    {role:10s} {outcome:16s} {count}", file=out)
    for call in calls:
        if call.error:
            error = " ".join(call.error.split())[:300]
            print(
                f"  failed: turn {call.turn_number} {call.agent} attempt {call.attempt_number}"
                f" ({call.error_type}): {error}",
                file=out,
            )


def report_story(
    history: Sequence[HistoryRecord], lines: Sequence[JournalLine], controlled: str, out: TextIO
) -> None:
    """What the story did for the human (`story_counts`), and the clamps the Director kept
    busy."""
    print("story:", file=out)
    for line in story_counts(history, lines, controlled).lines():
        print(line, file=out)
    clamps = ", ".join(f"{rule} {n}" for rule, n in sorted(clamp_counts(lines).items()))
    print(f"    clamp changes: {clamps or 'none'}", file=out)
