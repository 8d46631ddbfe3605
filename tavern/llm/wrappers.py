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
from typing import Any

import jsonschema
from jsonschema.protocols import Validator

from tavern.llm.errors import LlmCallError
from tavern.llm.provider import Provider, ProviderRequest, ProviderResponse, Source
from tavern.records.journal import LlmCallLine, LlmRequestBody, PromptCache, estimate_tokens

JournalSink = Callable[[LlmCallLine], None]
"""Receives one line per attempt; the runner passes the store's journal writer."""


class SchemaValidators:
    """A compiled `jsonschema` validator per schema, built once and kept by its owner (the
    client's `ValidatingProvider`): compiling a schema costs far more than validating with it.

    Schemas are told apart by their whole content (serialized with sorted keys), so a schema
    changed in place is compiled afresh; the validator checks a copy taken at compile time.

    >>> validators = SchemaValidators()
    >>> validators.get({"type": "string"}).is_valid("x")
    True
    >>> validators.get({"type": "string"}) is validators.get({"type": "string"})
    True
    """

    LIMIT = 256
    """Schemas kept; all are forgotten at once past it (agents send a handful)."""

    def __init__(self) -> None:
        self._by_content: dict[str, Validator] = {}

    def get(self, schema: dict[str, Any]) -> Validator:
        """The validator for `schema`.

        Raises:
            jsonschema.SchemaError: `schema` is not a valid JSON Schema.
        """
        content = json.dumps(schema, sort_keys=True)
        found = self._by_content.get(content)
        if found is None:
            copy = json.loads(content)
            cls = jsonschema.validators.validator_for(copy, default=jsonschema.Draft202012Validator)
            cls.check_schema(copy)
            if len(self._by_content) >= self.LIMIT:
                self._by_content.clear()
            found = self._by_content[content] = cls(copy)
        return found


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON (RFC 8259 has no NaN or infinities)")


_ANSWER_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)


def loads_answer(content: str) -> Any:
    """`json.loads`, except that NaN, Infinity and -Infinity are refused: Python's parser
    accepts them, JSON has no such values, and a NaN passes every numeric bound.

    Example:
        >>> loads_answer('{"score": 0.5}')
        {'score': 0.5}
        >>> loads_answer('{"score": NaN}')
        Traceback (most recent call last):
        ...
        ValueError: NaN is not JSON (RFC 8259 has no NaN or infinities)
    """
    return _ANSWER_DECODER.decode(content)


def parse_json_answer(content: str, validator: Validator) -> Any:
    """Parse `content` and validate it with `validator` (`SchemaValidators.get(schema)`).

    Raises:
        LlmCallError: `parse` for invalid JSON, `schema` for a schema violation, with
            jsonschema's best error as the message.
    """
    try:
        value = loads_answer(content)
    except ValueError as exc:
        raise LlmCallError("parse", f"answer is not valid JSON: {exc}") from None
    error = jsonschema.exceptions.best_match(validator.iter_errors(value))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(root)"
        raise LlmCallError("schema", f"answer breaks the schema at {where}: {error.message}")
    return value


class ValidatingProvider:
    """Raise `parse`/`schema` errors for answers to schema requests that do not conform."""

    def __init__(self, inner: Provider) -> None:
        self.inner = inner
        self.name, self.model, self.source = inner.name, inner.model, inner.source
        self.validators = SchemaValidators()

    def describe(self, request: ProviderRequest) -> LlmRequestBody:
        """Delegate."""
        return self.inner.describe(request)

    async def complete(self, request: ProviderRequest) -> ProviderResponse:
        """Complete, then validate the content against `request.schema`."""
        response = await self.inner.complete(request)
        if request.schema is not None:
            try:
                parse_json_answer(response.content, self.validators.get(request.schema))
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
            stopped_early=response.stopped_early if response else False,
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
