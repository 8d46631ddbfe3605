"""The runner's public surface, consumed by the HTTP app, the terminal loop and the harness.

`tavern.runner` implements it; callers depend on this Protocol only.
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from typing import Protocol

from tavern.records import (
    ChatMessage,
    CompactionSettings,
    HistoryRecord,
    SessionState,
    TurnInput,
)
from tavern.records.config import FilterProfile
from tavern.records.views import (
    CompactResult,
    InterviewResult,
    SessionView,
    Suggestion,
    TranscriptPage,
    TurnResult,
)
from tavern.store import TurnVariant


@dataclass(frozen=True)
class WorkDone:
    """Work done so far by an operation that can count it (a compaction): the fraction a
    progress event carries is `done / total`, so a client can draw it as a percentage.

    Example: `WorkDone(done=12, total=31, calls=1, calls_total=3, written=0)` after the
    first of three summarizer calls folded 12 of 30 public evicted records (the commit is the
    31st step).
    """

    done: int
    """Steps done: public evicted records folded into the summary, then the commit."""
    total: int
    """Steps in all: every public evicted record the summarizer reads, plus the commit."""
    calls: int
    """Summarizer calls done."""
    calls_total: int
    """Summarizer calls in all (one per run of records, `summarizer.chunks`)."""
    written: int = 0
    """Evicted records written to the checkpoint (every one, private ones too): 0 until the
    commit."""


class Progress(Protocol):
    """Progress callback: (stage name, fraction done or None, and the counted work when the
    operation counts it). Used for SSE. A Character call reports `character:<slot>` before
    it starts (per-actor progress: "Teodor is answering...")."""

    def __call__(
        self, stage: str, fraction: float | None, /, work: WorkDone | None = None
    ) -> Awaitable[None]: ...


class Lines(Protocol):
    """Lines callback: records of the turn in flight as the human's screen shows them
    (`screen.perceived_by`), each batch once it is final: after the clamps (the Director's
    events), after the filter layer (a narration, a reply), so no filter cuts it later; the
    turn's result still replaces it (a failed turn commits nothing). With `partial`,
    the one record is a narration still being written: its complete sentences so far, as the
    filter layer leaves them (`runner.partial`); the next partial or the final narration
    replaces it. Used for SSE."""

    def __call__(
        self, records: Sequence[HistoryRecord], partial: bool = False
    ) -> Awaitable[None]: ...


class RunnerError(Exception):
    """Base of every error the runner raises to callers; `status` hints the HTTP code."""

    status = 400


class SessionNotFoundError(RunnerError):
    """No session (or scenario, or character) with that id."""

    status = 404


class ConflictError(RunnerError):
    """Wrong schema version, stale revision, or nothing to undo."""

    status = 409


class InvalidTurnError(RunnerError):
    """Input that cannot apply to this session (unknown whisper target, absent speaker)."""

    status = 422


class ModelFailureError(RunnerError):
    """A model call failed after its retries; nothing of the turn was committed."""

    status = 502


class TurnRunner(Protocol):
    """Everything a caller can ask of a play session."""

    async def create_session(
        self,
        scenario_id: str,
        controlled_character_id: str | None = None,
        filter_profile: FilterProfile | None = None,
        compaction: CompactionSettings | None = None,
    ) -> SessionView:
        """Materialize a session from a scenario; warnings carry contract violations.
        `filter_profile`: the session's own filter profile, over the runner's;
        `compaction`: its compaction settings (automatic compaction is opt-in)."""
        ...

    async def view(self, session_id: str) -> SessionView:
        """The human's view of a session."""
        ...

    async def transcript(
        self, session_id: str, before: int | None = None, turns: int = 12
    ) -> TranscriptPage:
        """The human's view of the `turns` turns before `before` (the latest when None)."""
        ...

    async def play_turn(
        self,
        session_id: str,
        turn: TurnInput,
        progress: Progress | None = None,
        expected_revision: int | None = None,
        lines: Lines | None = None,
    ) -> TurnResult:
        """Run one turn transaction under the session lock and commit it atomically; a
        stale `expected_revision` is a `ConflictError` and nothing is written. `lines`
        receives the turn's visible records while it runs."""
        ...

    async def undo(self, session_id: str, expected_revision: int | None = None) -> SessionState:
        """Remove the highest turn and restore the pre-turn state."""
        ...

    async def set_compaction(
        self,
        session_id: str,
        settings: CompactionSettings,
        expected_revision: int | None = None,
    ) -> SessionView:
        """Replace the session's compaction settings (automatic compaction, retention); a
        preference that undo, reruns and restores keep. Returns the new view."""
        ...

    async def compact(
        self,
        session_id: str,
        expected_revision: int | None = None,
        progress: Progress | None = None,
        retention_turns: int | None = None,
    ) -> CompactResult:
        """Fold the history older than the retention window into the story summary, in
        one transaction; reversible by `restore`."""
        ...

    async def restore(
        self,
        session_id: str,
        expected_revision: int | None = None,
        checkpoint_id: str | None = None,
    ) -> CompactResult:
        """Undo the last compaction from its checkpoint (last in, first out)."""
        ...

    def variants(self, session_id: str) -> list[TurnVariant]:
        """Every variant of the last turn, the committed one marked."""
        ...

    async def rerun(
        self,
        session_id: str,
        turn: TurnInput | None = None,
        progress: Progress | None = None,
        expected_revision: int | None = None,
        lines: Lines | None = None,
    ) -> TurnResult:
        """Play the last turn again (its own input, or `turn`), keeping the old variant."""
        ...

    async def flip(
        self, session_id: str, variant: int, expected_revision: int | None = None
    ) -> TurnResult:
        """Commit a set-aside variant of the last turn in place of the committed one."""
        ...

    async def suggestions(self, session_id: str) -> list[Suggestion]:
        """Three candidate moves for the controlled character; nothing is persisted."""
        ...

    async def openings(self, session_id: str) -> list[str]:
        """Three scenario-grounded opening sparks for an empty session."""
        ...

    async def prompt_preview(self, session_id: str) -> list[ChatMessage]:
        """The next Director prompt, built without calling a model."""
        ...

    async def interview(self, session_id: str, character_id: str, question: str) -> InterviewResult:
        """Ask one character a question out of band; journaled, never committed."""
        ...
