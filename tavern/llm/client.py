"""`LlmClient`: the one object the runner calls. Nothing above it knows a vendor.

Example::

    client = LlmClient.from_config(config, http_client, sink=journal.append)
    decision = await client.call_json(
        agent="director", messages=messages, schema=DIRECTOR_SCHEMA,
        session_id=session.id, turn_number=7,
    )
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Literal

import httpx

from tavern.llm.call_policy import apply_call_policy
from tavern.llm.early_stop import StopEarly
from tavern.llm.errors import LlmCallError
from tavern.llm.provider import Provider, ProviderRequest
from tavern.llm.registry import build_provider, resolve_settings, secret_values
from tavern.llm.wrappers import (
    JournalSink,
    RecordingProvider,
    RetryingProvider,
    RetryPolicy,
    ValidatingProvider,
    loads_answer,
)
from tavern.records.config import AppConfig
from tavern.records.journal import ChatMessage, estimate_tokens
from tavern.records.scenario import Language

TokenCount = Literal["tokenizer", "estimate"]
MESSAGE_OVERHEAD_TOKENS = 4
"""Tokens a chat template adds around one message (role markers), added to a tokenizer
count of the messages' text."""


class LlmClient:
    """Provider-neutral structured calls with call-time policy, validation, retry, journaling.

    `sink` receives one `LlmCallLine` per attempt; `language` is appended to every system
    message; `max_tokens` maps full agent names (`character:C2`), roles (`character`) or
    `default` to output limits; `temperature` and `seed` go with every call; `secrets` are
    scrubbed from anything that reaches the sink; `sleep` is the backoff sleeper (tests pass
    a no-op).
    """

    def __init__(
        self,
        provider: Provider,
        *,
        sink: JournalSink,
        language: Language = "en",
        retry: RetryPolicy | None = None,
        max_tokens: Mapping[str, int] | None = None,
        temperature: float | None = None,
        seed: int | None = None,
        secrets: Sequence[str] = (),
        sleep: Callable[[float], Awaitable[None]] | None = None,
    ) -> None:
        self.provider = provider
        self.language: Language = language
        self.retry = retry or RetryPolicy()
        self.max_tokens = dict(max_tokens or {})
        self.temperature = temperature
        self.seed = seed
        self._validating = ValidatingProvider(provider)
        recorded = RecordingProvider(self._validating, sink, secrets=secrets)
        if sleep is None:
            self._stack = RetryingProvider(recorded, self.retry)
        else:
            self._stack = RetryingProvider(recorded, self.retry, sleep=sleep)

    @classmethod
    def from_config(
        cls,
        config: AppConfig,
        http_client: httpx.AsyncClient,
        *,
        sink: JournalSink,
        provider_name: str | None = None,
    ) -> LlmClient:
        """Build the client for the config's active provider (or `provider_name`)."""
        name = provider_name or config.active_provider
        settings = resolve_settings(name, config.settings_for(name))
        return cls(
            build_provider(config, http_client, name),
            sink=sink,
            language=config.language,
            retry=RetryPolicy(
                max_attempts=settings.max_attempts or 3,
                backoff_s=0.5 if settings.backoff_s is None else settings.backoff_s,
            ),
            max_tokens=settings.max_tokens,
            temperature=settings.temperature,
            seed=settings.seed,
            secrets=secret_values(config),
        )

    def resolve_max_tokens(self, agent: str, explicit: int | None = None) -> int | None:
        """Explicit limit, else the agent's, else its role's (`character:C2` -> `character`)."""
        if explicit is not None:
            return explicit
        role = agent.split(":", 1)[0]
        for key in (agent, role, "default"):
            if key in self.max_tokens:
                return self.max_tokens[key]
        return None

    def _request(
        self,
        agent: str,
        messages: list[ChatMessage],
        schema: dict[str, Any] | None,
        session_id: str,
        turn_number: int,
        max_tokens: int | None,
        stop_early: StopEarly | None = None,
        seed_offset: int = 0,
    ) -> ProviderRequest:
        return ProviderRequest(
            agent=agent,
            messages=apply_call_policy(messages, self.language),
            schema=schema,
            max_tokens=self.resolve_max_tokens(agent, max_tokens),
            temperature=self.temperature,
            seed=None if self.seed is None else self.seed + seed_offset,
            session_id=session_id,
            turn_number=turn_number,
            stop_early=stop_early,
        )

    async def call_json(
        self,
        *,
        agent: str,
        messages: list[ChatMessage],
        schema: dict[str, Any],
        session_id: str,
        turn_number: int,
        max_tokens: int | None = None,
        stop_early: StopEarly | None = None,
        seed_offset: int = 0,
    ) -> dict[str, Any]:
        """Ask for a JSON object valid against `schema` and return it parsed.

        `stop_early` may end the answer while it streams (`tavern.llm.early_stop`); the closed
        prefix must still be valid. `seed_offset` is added to the client's seed for this call, so
        a question asked again after an unusable answer draws another sample.

        Raises:
            LlmCallError: after the bounded retry, or at once for a definitive failure.
            jsonschema.SchemaError: `schema` itself is invalid (raised before any call).
        """
        self._validating.validators.get(
            schema
        )  # a broken schema is a caller bug: fail before any call
        request = self._request(
            agent, messages, schema, session_id, turn_number, max_tokens, stop_early, seed_offset
        )
        response = await self._stack.complete(request)
        value = loads_answer(response.content)  # validated by ValidatingProvider
        if not isinstance(value, dict):
            raise LlmCallError("schema", "answer is not a JSON object")
        return value

    async def count_tokens(self, messages: list[ChatMessage]) -> tuple[int, TokenCount]:
        """Prompt tokens of `messages` as they would be sent (call-time policy applied).

        A provider with a tokenizer endpoint (`count_tokens(text)`, e.g. llama.cpp
        `/tokenize`) counts them, plus `MESSAGE_OVERHEAD_TOKENS` a message for the chat
        template; any other, or a failed count, gives the journal's estimate (characters /
        4). The second value says which: `tokenizer` or `estimate`.
        """
        sent = apply_call_policy(messages, self.language)
        text = "\n".join(m.content for m in sent)
        counter = getattr(self.provider, "count_tokens", None)
        if counter is not None:
            try:
                tokens = await counter(text)
            except LlmCallError:
                tokens = None
            if isinstance(tokens, int):
                return tokens + MESSAGE_OVERHEAD_TOKENS * len(sent), "tokenizer"
        return estimate_tokens(len(text)), "estimate"
