"""Adapter for the DeepSeek API: HTTPS to its official host only, Bearer key held server-side.

DeepSeek has no schema-constrained decoding: it takes `response_format: {type: json_object}`
and the schema travels as text appended to the system message. Thinking is forced off (it
costs tokens and breaks the JSON-only answer). Cache counters come from
`usage.prompt_cache_hit_tokens` / `usage.prompt_cache_miss_tokens`.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from tavern.llm._http import first_choice_content, post_json
from tavern.llm.provider import ProviderRequest, ProviderResponse, Source
from tavern.llm.registry import ProviderSpec, Register
from tavern.llm.url_policy import Endpoint, Resolver, system_resolver
from tavern.records.config import ProviderSettings
from tavern.records.journal import ChatMessage, LlmRequestBody, PromptCache

OFFICIAL_HOST = "api.deepseek.com"
DEFAULT_API_BASE = f"https://{OFFICIAL_HOST}"
FORCED: dict[str, Any] = {"thinking": {"type": "disabled"}}
SCHEMA_INSTRUCTION = "Answer with one JSON object only, valid against this JSON Schema:"


def messages_with_schema(
    messages: list[ChatMessage], schema: dict[str, Any] | None
) -> list[ChatMessage]:
    """Append the serialized schema to the (first) system message, adding one if needed."""
    if schema is None:
        return list(messages)
    note = f"{SCHEMA_INSTRUCTION}\n{json.dumps(schema, sort_keys=True, ensure_ascii=False)}"
    out = list(messages)
    for index, message in enumerate(out):
        if message.role == "system":
            out[index] = ChatMessage(role="system", content=f"{message.content}\n\n{note}")
            return out
    return [ChatMessage(role="system", content=note), *out]


def extract_prompt_cache(data: dict[str, Any]) -> PromptCache:
    """Normalize DeepSeek's cache counters; None where absent."""
    usage = data.get("usage")
    if not isinstance(usage, dict):
        return PromptCache()
    hit, miss = usage.get("prompt_cache_hit_tokens"), usage.get("prompt_cache_miss_tokens")
    return PromptCache(
        hit_tokens=hit if isinstance(hit, int) else None,
        miss_tokens=miss if isinstance(miss, int) else None,
    )


class DeepSeekProvider:
    """Talks to `https://api.deepseek.com/chat/completions`."""

    name = "deepseek"
    source: Source = "live"

    def __init__(
        self,
        *,
        http_client: httpx.AsyncClient,
        api_key: str,
        api_base: str = DEFAULT_API_BASE,
        model: str = "deepseek-chat",
        timeout_s: float = 120.0,
        resolver: Resolver = system_resolver,
    ) -> None:
        self.model = model
        self.endpoint = Endpoint(self.name, "official", (OFFICIAL_HOST,), resolver)
        self._http = http_client
        self._api_base = api_base.rstrip("/")
        self._api_key = api_key
        self._timeout_s = timeout_s

    def body(self, request: ProviderRequest) -> dict[str, Any]:
        """The JSON body sent for `request` (the key travels only in a header)."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [
                m.model_dump() for m in messages_with_schema(request.messages, request.schema)
            ],
            "stream": False,
            **FORCED,
        }
        if request.schema is not None:
            body["response_format"] = {"type": "json_object"}
        if request.max_tokens is not None:
            body["max_tokens"] = request.max_tokens
        if request.temperature is not None:
            body["temperature"] = request.temperature
        return body

    def describe(self, request: ProviderRequest) -> LlmRequestBody:
        """The request as sent, minus the Authorization header, for the journal."""
        return LlmRequestBody(
            messages=messages_with_schema(request.messages, request.schema),
            max_tokens=request.max_tokens,
            response_format={"type": "json_object"} if request.schema is not None else None,
            temperature=request.temperature,
            provider_options={"api_host": OFFICIAL_HOST, **FORCED},
        )

    async def complete(self, request: ProviderRequest) -> ProviderResponse:
        """Send one attempt to DeepSeek."""
        data = await post_json(
            self._http,
            f"{self._api_base}/chat/completions",
            self.body(request),
            headers={"Authorization": f"Bearer {self._api_key}"},
            timeout_s=self._timeout_s,
            secrets=(self._api_key,),
            endpoint=self.endpoint,
        )
        usage = data.get("usage")
        return ProviderResponse(
            content=first_choice_content(data),
            usage=dict(usage) if isinstance(usage, dict) else None,
            prompt_cache=extract_prompt_cache(data),
            model=data.get("model") if isinstance(data.get("model"), str) else None,
        )


def _build(settings: ProviderSettings, http_client: httpx.AsyncClient) -> DeepSeekProvider:
    assert settings.api_key is not None  # resolve_settings refuses a key-bearing spec without one
    return DeepSeekProvider(
        http_client=http_client,
        api_key=settings.api_key.get_secret_value(),
        api_base=settings.api_base or DEFAULT_API_BASE,
        model=settings.model or "deepseek-chat",
        timeout_s=settings.timeout_s or 120.0,
    )


SPEC = ProviderSpec(
    name="deepseek",
    factory=_build,
    description="DeepSeek API (json_object + schema in the system message, thinking off).",
    url_policy="official",
    official_hosts=(OFFICIAL_HOST,),
    default_api_base=DEFAULT_API_BASE,
    default_model="deepseek-chat",
    requires_key=True,
    secret_fields=("api_key",),
    forced=FORCED,
)


def register_providers(register: Register) -> None:
    """Registry hook."""
    register(SPEC)
