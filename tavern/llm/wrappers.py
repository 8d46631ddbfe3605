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

from tavern.llm._schema_check import SchemaCheck, compile_schema
from tavern.llm.errors import LlmCallError
from tavern.llm.provider import Provider, ProviderRequest, ProviderResponse, Source
from tavern.records.journal import LlmCallLine, LlmRequestBody, PromptCache, estimate_tokens

JournalSink = Callable[[LlmCallLine], None]
"""Receives one line per attempt; the runner passes the store's journal writer."""


@dataclasses.dataclass(frozen=True)
class _CompiledSchema:
    validator: Validator
    quick_check: SchemaCheck | None
    """Yes/no answer without building errors; None when the schema is beyond its subset."""


@lru_cache(maxsize=256)
def _compiled(schema_json: str) -> _CompiledSchema:
    schema = json.loads(schema_json)
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    cls.check_schema(schema)
    # The quick check mirrors Draft 2020-12 only; a schema naming another draft skips it.
    quick = compile_schema(schema) if cls is jsonschema.Draft202012Validator else None
    return _CompiledSchema(validator=cls(schema), quick_check=quick)


class _ExactScalar:
    """A number or bool in a schema snapshot that equals only the same value of the same type.

    Plain `==` says `1 == True == 1.0`, yet `{"const": 1}` and `{"const": True}` are different
    schemas, and `1` and `1.0` give different messages.
    """

    __slots__ = ("value",)

    def __init__(self, value: bool | int | float) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self.value) and other == self.value

    __hash__ = None  # type: ignore[assignment]  # compared, never hashed


def _exact_snapshot(value: Any) -> Any:
    """A deep copy that `==` the original only while it is unchanged, type for type.

    Raises TypeError for anything but plain JSON data with string keys (subclasses included:
    their `==` and serialization are their own), so such a schema is not memoized by identity.
    """
    kind = type(value)
    if kind is dict:
        if not all(type(key) is str for key in value):
            raise TypeError("non-string key")
        return {key: _exact_snapshot(item) for key, item in value.items()}
    if kind is list:
        return [_exact_snapshot(item) for item in value]
    if kind in (bool, int, float):
        return _ExactScalar(value)
    if kind in (str, type(None)):
        return value  # immutable, and `==` on them is already exact
    raise TypeError(f"not plain JSON data: {kind.__name__}")


_IDENTITY_MEMO_SIZE = 64
_by_identity: dict[int, tuple[dict[str, Any], Any, _CompiledSchema]] = {}
"""id(schema) -> (the schema, kept alive so its id stays unique; its exact snapshot; compiled).

The agents pass the same module-level dict on every call, and comparing it with a snapshot
costs a few microseconds where serializing it for the `_compiled` key costs tens. A schema
mutated in place no longer equals its snapshot and is compiled afresh."""


def _compiled_for(schema: dict[str, Any]) -> _CompiledSchema:
    entry = _by_identity.get(id(schema))
    if entry is not None and entry[0] is schema and entry[1] == schema:
        return entry[2]
    try:
        snapshot = _exact_snapshot(schema)
    except TypeError:
        snapshot = None
    compiled = _compiled(json.dumps(schema, sort_keys=True))
    if snapshot is not None:
        if len(_by_identity) >= _IDENTITY_MEMO_SIZE:
            _by_identity.clear()  # schemas built per call must not pile up
        _by_identity[id(schema)] = (schema, snapshot, compiled)
    return compiled


def schema_validator(schema: dict[str, Any]) -> Validator:
    """A cached validator for `schema`; raises `jsonschema.SchemaError` for a broken schema."""
    return _compiled_for(schema).validator


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


def parse_json_answer(content: str, schema: dict[str, Any]) -> Any:
    """Parse `content` and validate it against `schema`.

    A valid answer is confirmed by the compiled quick check when the schema allows one; any
    other answer goes through jsonschema, whose best error makes the message.

    Raises:
        LlmCallError: `parse` for invalid JSON, `schema` for a schema violation.
    """
    try:
        value = loads_answer(content)
    except ValueError as exc:
        raise LlmCallError("parse", f"answer is not valid JSON: {exc}") from None
    compiled = _compiled_for(schema)
    if compiled.quick_check is not None and compiled.quick_check(value):
        return value
    error = jsonschema.exceptions.best_match(compiled.validator.iter_errors(value))
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


def _numbered(request: ProviderRequest, attempt: int) -> ProviderRequest:
    """`request` as attempt number `attempt`: itself when it already is (frozen, so sharing
    it is as good as the copy `dataclasses.replace` made, at a fifth of its cost)."""
    number = request.attempt_number
    if type(number) is int and number == attempt and type(request) is ProviderRequest:
        return request
    return dataclasses.replace(request, attempt_number=attempt)


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
                return await self.inner.complete(_numbered(request, attempt))
            except LlmCallError as exc:
                exc.attempts = attempt
                if not exc.retryable or attempt >= self.policy.max_attempts:
                    raise
            await self._sleep(self.policy.delay(attempt))
            attempt += 1
