"""The fake provider: in-process, deterministic, seeded, schema-driven.

Modes:
- `parrot`: every free-text field carries the salient tokens of the prompt it was given.
- `adversary`: hostile but schema-valid answers (see `fake_choosers`).
- `function`: answers from a Python callable `(request) -> dict | str` (sync or async).

The same request with the same seed gives the same answer in any process (the RNG is seeded
from a SHA-256 of the seed and the request, never from `hash()`).
"""

from __future__ import annotations

import hashlib
import inspect
import json
import random
from collections.abc import Awaitable, Callable
from typing import Any, Literal

import httpx

from tavern.llm.early_stop import EarlyStop, StopEarly, word_pieces
from tavern.llm.errors import LlmCallError
from tavern.llm.fake_choosers import AdversaryChooser, ParrotChooser, prompt_text
from tavern.llm.provider import ProviderRequest, ProviderResponse, Source
from tavern.llm.registry import ProviderSpec, Register
from tavern.llm.schema_gen import SchemaGenerator
from tavern.records.config import ProviderSettings
from tavern.records.journal import LlmRequestBody

FakeMode = Literal["parrot", "adversary", "function"]
FakeAnswer = dict[str, Any] | str
FakeFunction = Callable[[ProviderRequest], FakeAnswer | Awaitable[FakeAnswer]]


def request_rng(seed: int, request: ProviderRequest) -> random.Random:
    """An RNG seeded by `seed` and the request's content, stable across processes."""
    digest = hashlib.sha256()
    digest.update(str(seed).encode())
    digest.update(request.agent.encode())
    for message in request.messages:
        digest.update(message.role.encode() + b"\0" + message.content.encode() + b"\0")
    digest.update(json.dumps(request.schema, sort_keys=True).encode())
    return random.Random(int.from_bytes(digest.digest()[:8], "big"))


def generate_answer(
    schema: dict[str, Any], request: ProviderRequest, mode: str, seed: int = 0
) -> Any:
    """A schema-valid value for `request` in `mode` (`parrot` or `adversary`)."""
    rng = request_rng(seed, request)
    prompt = prompt_text(request.messages)
    chooser = AdversaryChooser(rng, prompt) if mode == "adversary" else ParrotChooser(rng, prompt)
    return SchemaGenerator(schema, chooser).generate()


class FakeProvider:
    """Deterministic in-process provider; `requests` keeps every request it saw (for tests)."""

    name = "fake"
    source: Source = "fake"

    def __init__(
        self, mode: FakeMode = "parrot", *, seed: int = 0, fn: FakeFunction | None = None
    ) -> None:
        if mode == "function" and fn is None:
            raise ValueError("fake provider in `function` mode needs `fn`")
        if mode not in ("parrot", "adversary", "function"):
            raise ValueError(f"unknown fake mode {mode!r}")
        self.mode = mode
        self.seed = seed
        self.model = f"fake-{mode}"
        self._fn = fn
        self.requests: list[ProviderRequest] = []

    def describe(self, request: ProviderRequest) -> LlmRequestBody:
        """The request as the fake saw it."""
        return LlmRequestBody(
            messages=list(request.messages),
            max_tokens=request.max_tokens,
            response_format=(
                None
                if request.schema is None
                else {"type": "json_schema", "json_schema": {"schema": request.schema}}
            ),
            temperature=request.temperature,
            seed=self._seed_for(request),
            provider_options={"mode": self.mode},
        )

    def _seed_for(self, request: ProviderRequest) -> int:
        """The request's seed when the caller set one (as a real provider samples with it),
        else the fake's own."""
        return self.seed if request.seed is None else request.seed

    async def complete(self, request: ProviderRequest) -> ProviderResponse:
        """Answer in the configured mode."""
        self.requests.append(request)
        if self._fn is not None:
            answer = self._fn(request)
            if inspect.isawaitable(answer):
                answer = await answer
            content = answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)
        elif request.schema is None:
            content = " ".join(prompt_text(request.messages).split()[-40:]) or "..."
        else:
            try:
                value = generate_answer(request.schema, request, self.mode, self._seed_for(request))
            except (ValueError, KeyError, TypeError) as exc:
                raise LlmCallError("provider", f"fake generator: {exc}") from None
            content = json.dumps(value, ensure_ascii=False)
        if request.stop_early is not None:
            return _streamed(content, request.stop_early)
        return ProviderResponse(content=content)


def _streamed(content: str, stop: StopEarly) -> ProviderResponse:
    """`content` as a streaming server would end it: word by word, until `stop` holds."""
    answer = EarlyStop(stop)
    for piece in word_pieces(content):
        if answer.feed(piece):
            return ProviderResponse(content=answer.content, stopped_early=True)
    return ProviderResponse(content=content)


def _build(settings: ProviderSettings, http_client: httpx.AsyncClient) -> FakeProvider:
    mode = str(settings.options.get("mode", "parrot"))
    if mode not in ("parrot", "adversary"):
        raise ValueError("the configured fake provider supports modes parrot and adversary")
    return FakeProvider("adversary" if mode == "adversary" else "parrot", seed=settings.seed or 0)


SPEC = ProviderSpec(
    name="fake",
    factory=_build,
    description="Deterministic in-process fake (options.mode: parrot | adversary).",
    default_model="fake",
    default_max_attempts=1,
    default_backoff_s=0.0,
)


def register_providers(register: Register) -> None:
    """Registry hook."""
    register(SPEC)
