"""deepseek adapter: shaping, forced settings, cache counters, and the key never journaled."""

from __future__ import annotations

import json

import httpx
import pytest
from pydantic import SecretStr

from tavern.llm import LlmCallError, LlmClient, RetryPolicy, UrlPolicyError, build_provider
from tavern.llm.deepseek import SCHEMA_INSTRUCTION, DeepSeekProvider
from tavern.llm.provider import ProviderRequest
from tavern.records.config import AppConfig, ProviderSettings

from .helpers import CANARY_KEY, REPLY_SCHEMA, Journal, load_body, messages, mock_http

pytestmark = pytest.mark.anyio


def _provider(handler: object) -> DeepSeekProvider:
    return DeepSeekProvider(http_client=mock_http(handler), api_key=CANARY_KEY)  # type: ignore[arg-type]


async def test_request_shaping_and_cache_extraction() -> None:
    sent: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, json=load_body("deepseek_chat.json"))

    provider = _provider(handler)
    request = ProviderRequest(agent="director", messages=messages(), schema=REPLY_SCHEMA)
    response = await provider.complete(request)
    wire = sent[0]
    body = json.loads(wire.content)
    assert str(wire.url) == "https://api.deepseek.com/chat/completions"
    assert wire.headers["authorization"] == f"Bearer {CANARY_KEY}"
    assert body["response_format"] == {"type": "json_object"}
    assert body["thinking"] == {"type": "disabled"}
    system = body["messages"][0]["content"]
    assert system.startswith("You are Brom") and SCHEMA_INSTRUCTION in system
    assert json.loads(system.split(SCHEMA_INSTRUCTION + "\n", 1)[1]) == REPLY_SCHEMA
    assert "x-tavern-agent" not in wire.headers  # call identity stays home
    assert (response.prompt_cache.hit_tokens, response.prompt_cache.miss_tokens) == (960, 64)
    # describe() is exactly what went out, minus the header.
    described = provider.describe(request)
    assert [m.model_dump() for m in described.messages] == body["messages"]
    assert CANARY_KEY not in described.model_dump_json()


async def test_cache_counters_null_when_absent() -> None:
    body = load_body("deepseek_chat.json")
    del body["usage"]["prompt_cache_hit_tokens"], body["usage"]["prompt_cache_miss_tokens"]
    provider = _provider(lambda r: httpx.Response(200, json=body))
    response = await provider.complete(ProviderRequest(agent="a", messages=messages()))
    assert response.prompt_cache.hit_tokens is None and response.prompt_cache.miss_tokens is None


async def test_system_message_added_when_missing() -> None:
    sent: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, json=load_body("deepseek_chat.json"))

    only_user = messages()[1:]
    await _provider(handler).complete(
        ProviderRequest(agent="a", messages=only_user, schema=REPLY_SCHEMA)
    )
    roles = [m["role"] for m in json.loads(sent[0].content)["messages"]]
    assert roles == ["system", "user"]


async def test_canary_key_never_reaches_the_journal_even_when_echoed(journal: Journal) -> None:
    # A hostile or sloppy server echoes the whole key in its error and in its answer.
    def handler(request: httpx.Request) -> httpx.Response:
        echoed = request.headers["authorization"]
        body = load_body("deepseek_401.json")
        body["error"]["message"] = body["error"]["message"].replace("{KEY_TAIL}", echoed)
        return httpx.Response(401, json=body)

    config = AppConfig(
        active_provider="deepseek",
        providers={"deepseek": ProviderSettings(api_key=SecretStr(CANARY_KEY))},
    )
    client = LlmClient.from_config(config, mock_http(handler), sink=journal)
    with pytest.raises(LlmCallError) as caught:
        await client.call_json(
            agent="director",
            messages=messages(),
            schema=REPLY_SCHEMA,
            session_id="s",
            turn_number=1,
        )
    assert caught.value.error_type == "http_4xx" and caught.value.attempts == 1
    assert CANARY_KEY not in str(caught.value)
    assert len(journal) == 1
    assert "Authentication Fails" in (journal[0].error or "")
    for text in journal.texts:
        assert CANARY_KEY not in text
        assert "authorization" not in text.lower()


async def test_recording_wrapper_scrubs_a_secret_that_slipped_into_content(
    journal: Journal,
) -> None:
    # Negative control for the last line of defence: the answer itself carries the key.
    body = load_body("deepseek_chat.json")
    body["choices"][0]["message"]["content"] = json.dumps({"speech": f"key is {CANARY_KEY}"})
    client = LlmClient(
        _provider(lambda r: httpx.Response(200, json=body)), sink=journal, secrets=[CANARY_KEY]
    )
    await client.call_json(
        agent="a", messages=messages(), schema=REPLY_SCHEMA, session_id="s", turn_number=0
    )
    assert CANARY_KEY not in journal.texts[0]
    assert "[redacted]" in journal.texts[0]


async def test_definitive_4xx_fails_fast_with_the_providers_message(journal: Journal) -> None:
    calls = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        return httpx.Response(400, json=load_body("deepseek_400_context.json"))

    client = LlmClient(_provider(handler), sink=journal, retry=RetryPolicy(5, 0.0))
    with pytest.raises(LlmCallError) as caught:
        await client.call_json(
            agent="a", messages=messages(), schema=REPLY_SCHEMA, session_id="s", turn_number=0
        )
    assert len(calls) == 1 and len(journal) == 1
    assert caught.value.status_code == 400
    assert "maximum context length is 65536" in caught.value.message


def test_deepseek_cannot_be_pointed_elsewhere_or_built_without_key() -> None:
    http = mock_http(lambda r: httpx.Response(200))
    for url in (
        "https://evil.example.com/v1",
        "http://api.deepseek.com",
        "https://api.deepseek.com.evil.io",
        "https://api.deepseek.com:8443",
        "http://127.0.0.1:8080/v1",
    ):
        config = AppConfig(
            active_provider="deepseek",
            providers={"deepseek": ProviderSettings(api_base=url, api_key=SecretStr(CANARY_KEY))},
        )
        with pytest.raises(UrlPolicyError):
            build_provider(config, http)
    with pytest.raises(ValueError, match="needs an api_key"):
        build_provider(AppConfig(active_provider="deepseek"), http)
    ok = AppConfig(
        active_provider="deepseek",
        providers={"deepseek": ProviderSettings(api_key=SecretStr(CANARY_KEY))},
    )
    assert build_provider(ok, http).name == "deepseek"
