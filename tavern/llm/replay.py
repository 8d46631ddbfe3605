"""The replay provider: a recorded journal's successful answers, served in strict order.

A request must match the next recorded call on `(agent, turn_number)`; anything else is a
`replay_mismatch` error and the cursor does not move. Reset and seek take the same asyncio
lock as serving, so a concurrent request never sees a half-moved cursor. The same
`ReplayCursor` backs the in-process provider and the loopback server (`replay_server`).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx

from tavern.llm.errors import LlmCallError
from tavern.llm.journal_reader import read_journal_lines, successful_calls
from tavern.llm.provider import ProviderRequest, ProviderResponse, Source
from tavern.llm.registry import ProviderSpec, Register
from tavern.records.config import ProviderSettings
from tavern.records.journal import LlmCallLine, LlmRequestBody


class ReplayCursor:
    """Position in a list of recorded calls, guarded by one lock."""

    def __init__(self, calls: list[LlmCallLine]) -> None:
        self.calls = list(calls)
        self.position = 0
        self.lock = asyncio.Lock()

    @classmethod
    def from_journal(cls, path: Path, session_id: str | None = None) -> ReplayCursor:
        """A cursor over the successful calls of the journal at `path`."""
        return cls(successful_calls(read_journal_lines(path), session_id))

    def status(self) -> dict[str, Any]:
        """Position, total and the identity of the next expected call."""
        upcoming = self.calls[self.position] if self.position < len(self.calls) else None
        return {
            "position": self.position,
            "total": len(self.calls),
            "next": (
                None
                if upcoming is None
                else {"agent": upcoming.agent, "turn_number": upcoming.turn_number}
            ),
        }

    async def take(self, agent: str, turn_number: int) -> LlmCallLine:
        """Return the next recorded call if it matches, and advance.

        Raises:
            LlmCallError: `replay_mismatch` (cursor unchanged) or `replay_exhausted`.
        """
        async with self.lock:
            if self.position >= len(self.calls):
                raise LlmCallError(
                    "replay_exhausted",
                    f"no recorded call left (all {len(self.calls)} served); "
                    f"got ({agent}, turn {turn_number})",
                )
            expected = self.calls[self.position]
            if (expected.agent, expected.turn_number) != (agent, turn_number):
                raise LlmCallError(
                    "replay_mismatch",
                    f"call #{self.position} expected ({expected.agent}, turn "
                    f"{expected.turn_number}), got ({agent}, turn {turn_number})",
                )
            self.position += 1
            return expected

    async def reset(self) -> None:
        """Back to the first call."""
        await self.seek(0)

    async def seek(self, position: int) -> None:
        """Move to `position` (0 ... total).

        Raises:
            ValueError: out of range.
        """
        async with self.lock:
            if not 0 <= position <= len(self.calls):
                raise ValueError(f"seek {position} outside 0..{len(self.calls)}")
            self.position = position


class ReplayProvider:
    """In-process replay over a `ReplayCursor`."""

    name = "replay"
    source: Source = "replay"

    def __init__(self, cursor: ReplayCursor, *, model: str | None = None) -> None:
        self.cursor = cursor
        self.model = model or (cursor.calls[0].model if cursor.calls else "replay")

    def describe(self, request: ProviderRequest) -> LlmRequestBody:
        """The request as replay received it."""
        return LlmRequestBody(
            messages=list(request.messages),
            max_tokens=request.max_tokens,
            temperature=request.temperature,
            seed=request.seed,
            provider_options={"replay_position": self.cursor.position},
        )

    async def complete(self, request: ProviderRequest) -> ProviderResponse:
        """The next recorded answer, if the request is the next recorded call."""
        line = await self.cursor.take(request.agent, request.turn_number)
        assert line.response is not None  # successful_calls keeps answered lines only
        return ProviderResponse(
            content=line.response,
            usage=line.usage,
            prompt_cache=line.prompt_cache,
            model=line.model,
            stopped_early=line.stopped_early,
        )


def _build(settings: ProviderSettings, http_client: httpx.AsyncClient) -> ReplayProvider:
    journal = settings.options.get("journal")
    if not isinstance(journal, str):
        raise ValueError("the replay provider needs options.journal (a journal path)")
    session = settings.options.get("session_id")
    cursor = ReplayCursor.from_journal(Path(journal), session if isinstance(session, str) else None)
    return ReplayProvider(cursor, model=settings.model if settings.model != "replay" else None)


SPEC = ProviderSpec(
    name="replay",
    factory=_build,
    description="Serves a recorded journal's answers in strict order (options.journal).",
    default_model="replay",
    default_max_attempts=1,
    default_backoff_s=0.0,
)


def register_providers(register: Register) -> None:
    """Registry hook."""
    register(SPEC)
