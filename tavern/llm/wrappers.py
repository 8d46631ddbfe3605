"""Wrappers that take a provider and return a provider: validation, recording, retry.

`LlmClient` stacks them as `Retrying(Recording(Validating(adapter)))`, so each attempt is
validated, then journaled (failed or not), and only then retried. Adapters stay free of all
three concerns.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

import jsonschema
from jsonschema.protocols import Validator

from tavern.llm.errors import LlmCallError
from tavern.llm.provider import Provider, ProviderRequest, ProviderResponse, Source
from tavern.records.journal import LlmCallLine, LlmRequestBody, PromptCache, estimate_tokens

JournalSink = Callable[[LlmCallLine], None]
"""Receives one line per attempt; the runner passes the store's journal writer."""


@lru_cache(maxsize=256)
def _validator(schema_json: str) -> Validator:
    schema = json.loads(schema_json)
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    cls.check_schema(schema)
    validator: Validator = cls(schema)
    return validator


def schema_validator(schema: dict[str, Any]) -> Validator:
    """A cached validator for `schema`; raises `jsonschema.SchemaError` for a broken schema."""
    return _validator(json.dumps(schema, sort_keys=True))


def parse_json_answer(content: str, schema: dict[str, Any]) -> Any:
    """Parse `content` and validate it against `schema`.

    Raises:
        LlmCallError: `parse` for invalid JSON, `schema` for a schema violation.
    """
    try:
        value = json.loads(content)
    except ValueError as exc:
        raise LlmCallError("parse", f"answer is not valid JSON: {exc}") from None
    error = jsonschema.exceptions.best_match(schema_validator(schema).iter_errors(value))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(root)"
        raise LlmCallError("schema", f"answer breaks the schema at {where}: {error.message}")
    return value


class ValidatingProvider:
    """Raise `parse`/`schema` errors for answers to schema requests that do not conform."""

    def __init__(self, inner: Provider) -> None:
        self.inner = inner
        self.name, self.model, self.source = inner.name, inner.model, inner.source

    def describe(self, request: ProviderRequest) -> LlmRequestBody:
        """Delegate."""
        return self.inner.describe(request)

    async def complete(self, request: ProviderRequest) -> ProviderResponse:
        """Complete, then validate the content against `request.schema`."""
        response = await self.inner.complete(request)
        if request.schema is not None:
            try:
                parse_json_answer(response.content, request.schema)
            except LlmCallError as exc:
                exc.response = response
                raise
        return response


class RecordingProvider:
    """Emit one `LlmCallLine` per attempt to `sink`, failed or not, with timing.

    `secrets` are scrubbed from the serialized line as a last line of defence: adapters never
    put credentials in what they describe, and this proves it on every line.
    """

    def __init__(
        self,
        inner: Provider,
        sink: JournalSink,
        *,
        secrets: Sequence[str] = (),
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.inner = inner
        self.name, self.model, self.source = inner.name, inner.model, inner.source
        self._sink = sink
        self._secrets = tuple(s for s in secrets if s)
        self._clock = clock

    def describe(self, request: ProviderRequest) -> LlmRequestBody:
        """Delegate."""
        return self.inner.describe(request)

    async def complete(self, request: ProviderRequest) -> ProviderResponse:
        """Run one attempt and journal it."""
        sent = self.inner.describe(request)
        started = self._clock()
        try:
            response = await self.inner.complete(request)
        except LlmCallError as exc:
            self._emit(request, sent, started, exc.response, exc)
            raise
        except Exception as exc:  # an adapter bug still gets its journal line
            wrapped = LlmCallError("provider", f"{type(exc).__name__}: {exc}")
            self._emit(request, sent, started, None, wrapped)
            raise wrapped from exc
        self._emit(request, sent, started, response, None)
        return response

    def _emit(
        self,
        request: ProviderRequest,
        sent: LlmRequestBody,
        started: float,
        response: ProviderResponse | None,
        error: LlmCallError | None,
    ) -> None:
        prompt_chars = sum(len(m.content) for m in sent.messages)
        source: Source = self.source
        line = LlmCallLine(
            ts=datetime.now(UTC),
            session_id=request.session_id,
            turn_number=request.turn_number,
            agent=request.agent,
            provider=self.name,
            model=self.model,
            source=source,
            request=sent,
            response=response.content if response else None,
            usage=response.usage if response else None,
            prompt_cache=response.prompt_cache if response else PromptCache(),
            error=error.message if error else None,
            error_type=error.error_type if error else None,
            duration_ms=max(0.0, (self._clock() - started) * 1000.0),
            attempt_number=request.attempt_number,
            prompt_chars=prompt_chars,
            prompt_estimated_tokens=estimate_tokens(prompt_chars),
        )
        self._sink(self._scrub(line))

    def _scrub(self, line: LlmCallLine) -> LlmCallLine:
        if not self._secrets:
            return line  # nothing to scrub: skip serializing a whole prompt twice
        text = line.model_dump_json()
        if not any(secret in text for secret in self._secrets):
            return line
        for secret in self._secrets:
            text = text.replace(secret, "[redacted]")
        return LlmCallLine.model_validate_json(text)


@dataclasses.dataclass(frozen=True)
class RetryPolicy:
    """Bounded retry: `max_attempts` in total, exponential backoff from `backoff_s`."""

    max_attempts: int = 3
    backoff_s: float = 0.5
    max_backoff_s: float = 8.0

    def delay(self, attempt: int) -> float:
        """Seconds to wait after failed attempt number `attempt`."""
        return float(min(self.max_backoff_s, self.backoff_s * 2 ** (attempt - 1)))


class RetryingProvider:
    """Retry retryable failures (timeouts, 5xx, parse, schema) up to the policy's bound.

    A definitive failure (4xx, refused, replay mismatch) is raised at once. The final error
    carries `attempts`.
    """

    def __init__(
        self,
        inner: Provider,
        policy: RetryPolicy,
        *,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.inner = inner
        self.name, self.model, self.source = inner.name, inner.model, inner.source
        self.policy = policy
        self._sleep = sleep

    def describe(self, request: ProviderRequest) -> LlmRequestBody:
        """Delegate."""
        return self.inner.describe(request)

    async def complete(self, request: ProviderRequest) -> ProviderResponse:
        """Attempt until success, a definitive failure, or the bound."""
        attempt = 1
        while True:
            try:
                return await self.inner.complete(
                    dataclasses.replace(request, attempt_number=attempt)
                )
            except LlmCallError as exc:
                exc.attempts = attempt
                if not exc.retryable or attempt >= self.policy.max_attempts:
                    raise
            await self._sleep(self.policy.delay(attempt))
            attempt += 1
