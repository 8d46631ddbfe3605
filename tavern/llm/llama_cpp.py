"""Adapter for llama.cpp-compatible OpenAI endpoints (C++ llama-server, llama-cpp-python).

Servers differ in how they take a schema. The C++ llama-server accepts
`response_format: {type: json_schema, json_schema: {schema}}`; llama-cpp-python 0.3.36 answers
that with HTTP 500 but accepts `{type: json_object, schema}`. `structured_output` picks one;
`auto` starts with `json_schema` and, after an HTTP error on a schema call, switches to
`json_object_schema` for every later attempt (raised as a retryable `capability` error, so
the client's retry makes that next attempt; the adapter only learns).

Cache evidence: `usage.prompt_tokens_details.cached_tokens` or `timings.cache_n` (C++ server);
llama-cpp-python reports neither, and then both counters are None, never 0.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import httpx

from tavern.llm._http import first_choice_content, post_json
from tavern.llm._stream import stream_chat
from tavern.llm.errors import LlmCallError
from tavern.llm.provider import ProviderRequest, ProviderResponse, Source
from tavern.llm.registry import ProviderSpec, Register
from tavern.llm.url_policy import Endpoint, Resolver, system_resolver
from tavern.records.config import ProviderSettings, StructuredOutput
from tavern.records.journal import LlmRequestBody, PromptCache

DEFAULT_API_BASE = "http://127.0.0.1:8080/v1"


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def extract_prompt_cache(data: dict[str, Any]) -> PromptCache:
    """Normalize llama.cpp cache counters; None where the server reported nothing."""
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    timings = data.get("timings") if isinstance(data.get("timings"), dict) else {}
    assert isinstance(usage, dict) and isinstance(timings, dict)
    details = usage.get("prompt_tokens_details")
    cached = _int_or_none(details.get("cached_tokens")) if isinstance(details, dict) else None
    prompt_tokens = _int_or_none(usage.get("prompt_tokens"))
    if cached is not None:
        miss = prompt_tokens - cached if prompt_tokens is not None else None
        return PromptCache(hit_tokens=cached, miss_tokens=miss)
    cache_n = _int_or_none(timings.get("cache_n"))
    if cache_n is not None:
        return PromptCache(hit_tokens=cache_n, miss_tokens=_int_or_none(timings.get("prompt_n")))
    return PromptCache()


def extract_usage(data: dict[str, Any]) -> dict[str, Any] | None:
    """The raw usage object, with llama.cpp `timings` folded in when present (prefill speed)."""
    usage = data.get("usage")
    out: dict[str, Any] = dict(usage) if isinstance(usage, dict) else {}
    if isinstance(data.get("timings"), dict):
        out["timings"] = data["timings"]
    return out or None


class LlamaCppProvider:
    """Talks to `<api_base>/chat/completions` without auth, with `cache_prompt: true`.

    `stop_early` (default on) streams a request that carries a `stop_early` predicate, and
    stops reading when it holds (`tavern.llm.early_stop`).
    """

    source: Source = "live"

    def __init__(
        self,
        *,
        http_client: httpx.AsyncClient,
        api_base: str = DEFAULT_API_BASE,
        model: str = "default",
        timeout_s: float = 120.0,
        structured_output: StructuredOutput = "json_schema",
        name: str = "llama_cpp",
        stop_early: bool = True,
        resolver: Resolver = system_resolver,
    ) -> None:
        self.name = name
        self.endpoint = Endpoint(name, "private", resolver=resolver)
        self.stop_early = stop_early
        self.model = model
        self._http = http_client
        self._api_base = api_base.rstrip("/")
        self._timeout_s = timeout_s
        self._auto = structured_output == "auto"
        self.style: StructuredOutput = "json_schema" if self._auto else structured_output

    def _response_format(self, schema: dict[str, Any] | None) -> dict[str, Any] | None:
        if schema is None:
            return None
        if self.style == "json_object_schema":
            return {"type": "json_object", "schema": schema}
        return {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema}}

    def body(self, request: ProviderRequest) -> dict[str, Any]:
        """The JSON body sent for `request` (no secrets exist for this adapter)."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [m.model_dump() for m in request.messages],
            "stream": False,
            "cache_prompt": True,
        }
        if request.max_tokens is not None:
            body["max_tokens"] = request.max_tokens
        if request.temperature is not None:
            body["temperature"] = request.temperature
        if request.seed is not None:
            body["seed"] = request.seed
        response_format = self._response_format(request.schema)
        if response_format is not None:
            body["response_format"] = response_format
        return body

    def _streams(self, request: ProviderRequest) -> bool:
        return request.stop_early is not None and self.stop_early

    def describe(self, request: ProviderRequest) -> LlmRequestBody:
        """The request as sent, for the journal."""
        return LlmRequestBody(
            messages=list(request.messages),
            max_tokens=request.max_tokens,
            response_format=self._response_format(request.schema),
            temperature=request.temperature,
            seed=request.seed,
            provider_options={
                "api_host": urlsplit(self._api_base).netloc,
                "cache_prompt": True,
                "structured_output": self.style,
                **({"stream": True} if self._streams(request) else {}),
            },
        )

    async def complete(self, request: ProviderRequest) -> ProviderResponse:
        """Send one attempt to the server."""
        # Call identity travels in headers so a replay server can check the order; a real
        # llama.cpp server ignores them. Never sent to third-party hosts (this adapter only
        # talks to private addresses).
        headers = {"X-Tavern-Agent": request.agent, "X-Tavern-Turn": str(request.turn_number)}
        url = f"{self._api_base}/chat/completions"
        stopped = False
        try:
            if request.stop_early is None or not self.stop_early:
                data = await post_json(
                    self._http,
                    url,
                    self.body(request),
                    headers=headers,
                    timeout_s=self._timeout_s,
                    endpoint=self.endpoint,
                )
                content = first_choice_content(data)
            else:
                streamed = await stream_chat(
                    self._http,
                    url,
                    self.body(request),
                    request.stop_early,
                    headers=headers,
                    timeout_s=self._timeout_s,
                    endpoint=self.endpoint,
                )
                data, content, stopped = streamed.data, streamed.content, streamed.stopped_early
        except LlmCallError as exc:
            refused_style = exc.error_type in ("http_4xx", "http_5xx") and exc.status_code != 408
            if self._auto and self.style == "json_schema" and request.schema and refused_style:
                # Learn once; `capability` is retryable, so the client's next attempt uses
                # the style this server accepts.
                self.style = "json_object_schema"
                raise LlmCallError(
                    "capability",
                    f"{exc.message}; switching to json_object_schema",
                    status_code=exc.status_code,
                ) from None
            raise
        return ProviderResponse(
            content=content,
            usage=extract_usage(data),
            prompt_cache=extract_prompt_cache(data),
            model=data.get("model") if isinstance(data.get("model"), str) else None,
            stopped_early=stopped,
        )

    async def count_tokens(self, text: str) -> int:
        """Tokens of `text` by the server's own tokenizer (`POST /tokenize`, at the server's
        root: `api_base` without its `/v1`).

        Raises:
            LlmCallError: the server failed or answered without a `tokens` list.
        """
        base = self._api_base.removesuffix("/v1")
        data = await post_json(
            self._http,
            f"{base}/tokenize",
            {"content": text},
            timeout_s=self._timeout_s,
            endpoint=self.endpoint,
        )
        tokens = data.get("tokens")
        if not isinstance(tokens, list):
            raise LlmCallError("parse", "/tokenize answered without a tokens list")
        return len(tokens)


def _build(settings: ProviderSettings, http_client: httpx.AsyncClient) -> LlamaCppProvider:
    return LlamaCppProvider(
        http_client=http_client,
        api_base=settings.api_base or DEFAULT_API_BASE,
        model=settings.model or "default",
        timeout_s=settings.timeout_s or 120.0,
        structured_output=settings.structured_output or "auto",
        stop_early=stop_early_option(settings),
    )


def stop_early_option(settings: ProviderSettings) -> bool:
    """The `stop_early` option (default true): stream the answers a caller may stop early
    (`tavern.llm.early_stop`). False sends every request whole, e.g. to study loops.

    Raises:
        ValueError: The option is not a boolean.
    """
    return _bool_option(settings, "stop_early", True)


def _bool_option(settings: ProviderSettings, key: str, default: bool) -> bool:
    value = settings.options.get(key, default)
    if not isinstance(value, bool):
        raise ValueError(f"option {key!r} must be true or false, got {value!r}")
    return value


SPEC = ProviderSpec(
    name="llama_cpp",
    factory=_build,
    description="Any llama.cpp-compatible OpenAI endpoint on this machine or LAN.",
    url_policy="private",
    default_api_base=DEFAULT_API_BASE,
    default_model="default",
    forced={"cache_prompt": True},
    default_structured_output="auto",
)


def register_providers(register: Register) -> None:
    """Registry hook."""
    register(SPEC)
