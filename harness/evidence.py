"""What the probes read: the session's journal and history as the kernel wrote them, and each
event the script played, with the journal lines it produced.

Every probe reads these records and nothing the harness computed on its own: a journaled
`llm_call` line is exactly what a model was sent and what it answered, and a history record
carries the audience the kernel gave it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

from harness.targets import Target
from tavern.physics.identity import _name_forms
from tavern.records import (
    Character,
    CommitLine,
    HistoryRecord,
    JournalLine,
    LlmCallLine,
    Scenario,
    TurnInput,
)
from tavern.records.views import SessionView

PlayKind = Literal["turn", "undo", "compact", "restore", "suggest", "openings", "interview"]


@dataclass
class Play:
    """One call the script made to the kernel, and what it left in the journal."""

    kind: PlayKind
    event_index: int
    """Position of the script event that made it."""
    turn_number: int
    """The turn played (a turn), removed (an undo), or last committed (anything else)."""
    before: SessionView
    """The human's view before the call (its scene is the stage the input met)."""
    after: SessionView
    """The view after it."""
    input: TurnInput | None = None
    """The submitted input of a turn."""
    failure: str | None = None
    """Why a turn failed (`model_failure: ...`, `refused: ...`); None when it committed."""
    lines: list[JournalLine] = field(default_factory=list)
    """The journal lines written during the call."""
    live: list[HistoryRecord] | None = None
    """A compaction or a restore: the target's live history after it (compacted records
    are out of it; `Evidence.history` keeps every record the run saw)."""

    @property
    def committed(self) -> bool:
        """Whether a turn committed (always False for other plays)."""
        return self.kind == "turn" and self.failure is None


@dataclass
class Evidence:
    """A session's journal and history, read on as the script plays."""

    session_id: str
    scenario: Scenario
    cast: dict[str, Character]
    """Slot -> the character's sheet."""
    controlled: str
    lines: list[JournalLine] = field(default_factory=list)
    history: list[HistoryRecord] = field(default_factory=list)
    plays: list[Play] = field(default_factory=list)

    async def refresh(self, target: Target, view: SessionView) -> list[JournalLine]:
        """Read what the kernel wrote since the last refresh; returns the new journal lines.

        Records of turns above the view's turn (removed by an undo) are dropped first.
        """
        if self.history and self.history[-1].turn_number > view.turn_number:
            self.history = [r for r in self.history if r.turn_number <= view.turn_number]
        after = self.history[-1].seq if self.history else -1
        self.history.extend(await target.history_since(self.session_id, after))
        new = await target.journal_since(self.session_id, len(self.lines))
        self.lines.extend(new)
        return new

    def last_turn(self) -> Play | None:
        """The last turn the script played (committed or not)."""
        for play in reversed(self.plays):
            if play.kind == "turn":
                return play
        return None

    @cached_property
    def cast_names(self) -> list[str]:
        """Display names of the cast, as the contract compares them."""
        return [c.body.display_name for c in self.cast.values()]

    @cached_property
    def name_forms(self) -> dict[str, list[str]]:
        """Slot -> the true-name forms of its character (`physics.identity`)."""
        return {slot: _name_forms(character) for slot, character in self.cast.items()}


def calls(lines: Iterable[JournalLine]) -> list[LlmCallLine]:
    """The `llm_call` lines among `lines`."""
    return [line for line in lines if isinstance(line, LlmCallLine)]


def sent(lines: Iterable[JournalLine]) -> list[LlmCallLine]:
    """Calls whose prompt reached a provider (contract refusals are journaled, never sent)."""
    return [line for line in calls(lines) if line.error_type != "contract"]


def commits(lines: Iterable[JournalLine]) -> list[CommitLine]:
    """The `commit` lines among `lines`."""
    return [line for line in lines if isinstance(line, CommitLine)]


def prompt_text(call: LlmCallLine, *, drop_last: bool = False) -> str:
    """Every message of a call's prompt, joined (without the last one when `drop_last`)."""
    messages = call.request.messages[:-1] if drop_last else call.request.messages
    return "\n".join(m.content for m in messages)


def reply_text(call: LlmCallLine) -> str:
    """The string values of a call's JSON answer, joined; the raw answer if it is not JSON.

    >>> from tavern.records import LlmRequestBody
    >>> import datetime as dt
    >>> line = LlmCallLine(ts=dt.datetime.now(dt.UTC), session_id="s", turn_number=1,
    ...     agent="character:C2", provider="fake", model="fake", duration_ms=0,
    ...     attempt_number=1, prompt_chars=0, prompt_estimated_tokens=0,
    ...     request=LlmRequestBody(messages=[]),
    ...     response='{"speech": "Só isso.", "thought": null, "action_intent": "sits"}')
    >>> reply_text(line)
    'Só isso.\\nsits'
    """
    if call.response is None:
        return ""
    try:
        value = json.loads(call.response)
    except ValueError:
        return call.response
    return "\n".join(_strings(value))


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def excerpt(text: str, start: int, end: int, width: int = 60) -> str:
    """`text[start:end]` with up to `width` characters either side, on one line.

    >>> excerpt("a b c secret d e f", 6, 12, width=2)
    '…c secret d…'
    """
    left = max(0, start - width)
    right = min(len(text), end + width)
    body = " ".join(text[left:right].split())
    return ("…" if left else "") + body + ("…" if right < len(text) else "")


def agent_slot(agent: str, cast: Sequence[str]) -> str | None:
    """The slot a per-character agent speaks for (`character:C2`, `interview:C2`), else None.

    >>> agent_slot("interview:C2", ["C1", "C2"]), agent_slot("prose", ["C1"])
    ('C2', None)
    """
    _, _, suffix = agent.partition(":")
    return suffix if suffix in cast else None
