"""The provider interface: two methods, nothing vendor-specific above it.

A provider turns a `ProviderRequest` into a `ProviderResponse`. Retries, timing, validation
and journaling are wrappers around it (`tavern.llm.client`), never branches inside it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from tavern.llm.early_stop import StopEarly
from tavern.records.journal import ChatMessage, LlmRequestBody, PromptCache

Source = Literal["live", "replay", "fake"]


@dataclass(frozen=True)
class ProviderRequest:
    """One provider-neutral request.

    `schema` is None for a free-text call. `agent`, `session_id` and `turn_number` identify the
    call (replay matches on them); adapters never send them to a third-party API.
    `attempt_number` is set by the retry wrapper (1, 2, ...). `stop_early`, when given, may
    end the answer while it streams (`tavern.llm.early_stop`); a provider that cannot stream
    ignores it.
    """

    agent: str
    messages: list[ChatMessage]
    schema: dict[str, Any] | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    seed: int | None = None
    session_id: str = ""
    turn_number: int = 0
    attempt_number: int = 1
    stop_early: StopEarly | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class ProviderResponse:
    """What came back: raw content, the raw usage object and normalized cache counters.

    `prompt_cache` fields are None (not 0) when the provider reported nothing.
    `stopped_early`: the request's `stop_early` ended the answer; `content` is the answer so
    far, closed into JSON (`early_stop.close_json`).
    """

    content: str
    usage: dict[str, Any] | None = None
    prompt_cache: PromptCache = field(default_factory=PromptCache)
    model: str | None = None
    stopped_early: bool = False


@runtime_checkable
class Provider(Protocol):
    """Anything that answers chat requests. Register factories in `tavern.llm.registry`."""

    name: str
    """Registry name written to the journal (`llama_cpp`, `deepseek`, `fake`, ...)."""
    model: str
    """Model name written to the journal."""
    source: Source
    """Journal `source` of answers from this provider."""

    def describe(self, request: ProviderRequest) -> LlmRequestBody:
        """Return the request exactly as it will be sent, minus credentials, for the journal."""
        ...

    async def complete(self, request: ProviderRequest) -> ProviderResponse:
        """Send one attempt. Raise `LlmCallError` with an `error_type` on failure."""
        ...
