"""Where a script runs: the kernel in this process, or a `tavern serve` over HTTP.

A `Target` is the runner's public surface (`tavern.runner.TurnRunner`) plus what a probe
reads back: the history with its audiences, the journal, the scenario, a digest of the
stored session. Both targets answer every question from the kernel's own records, so the
same script gives the same probe results on either.
"""

from __future__ import annotations

from typing import Protocol

from harness.records.results import TargetKind
from tavern.records import (
    Character,
    HistoryRecord,
    JournalLine,
    Scenario,
    SessionState,
    TurnInput,
)
from tavern.records.views import (
    CompactResult,
    InterviewResult,
    SessionView,
    Suggestion,
    TurnResult,
)


class TargetError(Exception):
    """A refusal or failure of the target, with the HTTP status the kernel gives it.

    502: a model call failed (nothing committed); 422: the kernel refused the input or a
    prompt (the contract gate); 404: no such session or scenario; 409: a conflict;
    0: the target could not be reached.
    """

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message

    @property
    def turn_failure(self) -> bool:
        """Whether a turn that raised this left the session as it was, and the run goes on."""
        return self.status in (422, 502)


class Catalog(Protocol):
    """Where scenarios and character sheets are looked up before anything runs."""

    async def scenario(self, scenario_id: str) -> Scenario:
        """A scenario (`TargetError` 404 when unknown)."""
        ...

    async def character(self, character_id: str) -> Character:
        """A character sheet (`TargetError` 404 when unknown)."""
        ...


class Target(Catalog, Protocol):
    """A kernel to play scripts against."""

    kind: TargetKind
    """`in_process` or `http`."""

    async def create_session(self, scenario_id: str, controlled: str | None) -> SessionView:
        """A new session of `scenario_id`, the human playing `controlled` (a slot)."""
        ...

    async def view(self, session_id: str) -> SessionView:
        """The human's view of the session."""
        ...

    async def play_turn(self, session_id: str, turn: TurnInput) -> TurnResult:
        """One turn; `TargetError` when it fails or is refused."""
        ...

    async def undo(self, session_id: str) -> SessionView:
        """Undo the last turn; the view after it."""
        ...

    async def compact(self, session_id: str, retention_turns: int | None) -> CompactResult:
        """Compact the session's old history into its story summary."""
        ...

    async def restore(self, session_id: str) -> CompactResult:
        """Undo the session's last compaction."""
        ...

    async def suggestions(self, session_id: str) -> list[Suggestion]:
        """Candidate moves for the controlled character."""
        ...

    async def openings(self, session_id: str) -> list[str]:
        """Opening sparks."""
        ...

    async def interview(self, session_id: str, character: str, question: str) -> InterviewResult:
        """A question asked out of band."""
        ...

    async def history_since(self, session_id: str, after_seq: int) -> list[HistoryRecord]:
        """History records with `seq > after_seq`, in order, audiences included."""
        ...

    async def journal_since(self, session_id: str, count: int) -> list[JournalLine]:
        """Journal lines after the first `count`, in file order."""
        ...

    async def state(self, session_id: str) -> SessionState | None:
        """The stored session state, where the target can read it (None over HTTP)."""
        ...

    async def compacted(self, session_id: str) -> list[HistoryRecord] | None:
        """The records the session's live compactions hold in their checkpoints, oldest
        first, where the target can read them (None over HTTP)."""
        ...

    async def session_digest(self, session_id: str) -> str:
        """A hash of everything the target stores of the session (state and history)."""
        ...

    async def aclose(self) -> None:
        """Release what the target holds."""
        ...
