"""llama_cpp adapter: request shaping by capability and extraction from recorded bodies."""

from __future__ import annotations

import json

import httpx
import pytest

from tavern.llm import LlmCallError, LlmClient, RetryPolicy
from tavern.llm.llama_cpp import LlamaCppProvider
from tavern.llm.provider import ProviderRequest

from .helpers import REPLY_SCHEMA, Journal, load_body, messages, mock_http

pytestmark = pytest.mark.anyio


def _request(schema: dict[str, object] | None = REPLY_SCHEMA) -> ProviderRequest:
    return ProviderRequest(
        agent="character:C2", messages=messages(), schema=schema, max_tokens=64, turn_number=3
    )


def _capture(body_name: str, sent: list[httpx.Request], status: int = 200) -> httpx.AsyncClient:
    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(status, json=load_body(body_name))

    return mock_http(handler)


async def test_json_schema_capability_shapes_request_and_reads_both_cache_sources() -> None:
    sent: list[httpx.Request] = []
    provider = LlamaCppProvider(
        http_client=_capture("llama_server_cached.json", sent),
        api_base="http://127.0.0.1:8080/v1",
        model="qwen",
        structured_output="json_schema",
    )
    response = await provider.complete(_request())
    request = sent[0]
    body = json.loads(request.content)
    assert str(request.url) == "http://127.0.0.1:8080/v1/chat/completions"
    assert "authorization" not in request.headers
    assert body["cache_prompt"] is True
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "answer", "schema": REPLY_SCHEMA},
    }
    assert body["max_tokens"] == 64 and body["model"] == "qwen"
    assert request.headers["x-tavern-agent"] == "character:C2"
    assert response.prompt_cache.hit_tokens == 537
    assert response.prompt_cache.miss_tokens == 1
    assert response.usage is not None and response.usage["timings"]["cache_n"] == 537
    assert json.loads(response.content)["speech"] == "Ale, then."


async def test_json_object_schema_capability_for_llama_cpp_python_reports_null_cache() -> None:
    sent: list[httpx.Request] = []
    provider = LlamaCppProvider(
        http_client=_capture("llama_cpp_python.json", sent),
        structured_output="json_object_schema",
    )
    response = await provider.complete(_request())
    body = json.loads(sent[0].content)
    assert body["response_format"] == {"type": "json_object", "schema": REPLY_SCHEMA}
    # The server reported no cached-token count: None, not 0.
    assert response.prompt_cache.hit_tokens is None
    assert response.prompt_cache.miss_tokens is None
    assert response.usage == load_body("llama_cpp_python.json")["usage"]


async def test_timings_only_cache_evidence() -> None:
    provider = LlamaCppProvider(http_client=_capture("llama_server_timings_only.json", []))
    response = await provider.complete(_request())
    assert (response.prompt_cache.hit_tokens, response.prompt_cache.miss_tokens) == (0, 412)


async def test_free_text_call_sends_no_response_format() -> None:
    sent: list[httpx.Request] = []
    provider = LlamaCppProvider(http_client=_capture("llama_cpp_python.json", sent))
    await provider.complete(_request(schema=None))
    assert "response_format" not in json.loads(sent[0].content)


@pytest.mark.parametrize("status", [500, 400])
async def test_auto_capability_falls_back_through_the_client_retry(
    journal: Journal, status: int
) -> None:
    formats: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        kind = json.loads(request.content)["response_format"]["type"]
        formats.append(kind)
        if kind == "json_schema":  # llama-cpp-python 0.3.36 behaviour
            body = load_body("llama_cpp_python_json_schema_500.json")
            return httpx.Response(status, json=body)
        return httpx.Response(200, json=load_body("llama_cpp_python.json"))

    provider = LlamaCppProvider(http_client=mock_http(handler), structured_output="auto")
    client = LlmClient(provider, sink=journal, retry=RetryPolicy(3, 0.0))
    out = await client.call_json(
        agent="character:C2",
        messages=messages(),
        schema=REPLY_SCHEMA,
        session_id="s1",
        turn_number=1,
    )
    assert out["thought"] == "The cellar door is ajar."
    assert formats == ["json_schema", "json_object"]
    assert [line.error_type for line in journal] == ["capability", None]
    assert journal[0].request.provider_options["structured_output"] == "json_schema"
    assert journal[1].request.provider_options["structured_output"] == "json_object_schema"
    assert "Unknown response_format" in (journal[0].error or "")
    # Learned once: the next call goes straight to the working style.
    await client.call_json(
        agent="director", messages=messages(), schema=REPLY_SCHEMA, session_id="s1", turn_number=2
    )
    assert formats[-1] == "json_object"


async def test_empty_content_is_a_parse_error() -> None:
    body = load_body("llama_cpp_python.json")
    body["choices"][0]["message"]["content"] = "   "
    provider = LlamaCppProvider(http_client=mock_http(lambda r: httpx.Response(200, json=body)))
    with pytest.raises(LlmCallError) as caught:
        await provider.complete(_request())
    assert caught.value.error_type == "parse"


async def test_fixed_capability_does_not_fall_back(journal: Journal) -> None:
    # Negative control: with `json_schema` configured, a 500 is an ordinary 5xx, retried as is.
    formats: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        formats.append(json.loads(request.content)["response_format"]["type"])
        return httpx.Response(500, json=load_body("llama_cpp_python_json_schema_500.json"))

    provider = LlamaCppProvider(http_client=mock_http(handler), structured_output="json_schema")
    client = LlmClient(provider, sink=journal, retry=RetryPolicy(2, 0.0))
    with pytest.raises(LlmCallError) as caught:
        await client.call_json(
            agent="a", messages=messages(), schema=REPLY_SCHEMA, session_id="s", turn_number=0
        )
    assert caught.value.error_type == "http_5xx" and formats == ["json_schema", "json_schema"]


async def test_describe_matches_what_is_sent() -> None:
    sent: list[httpx.Request] = []
    provider = LlamaCppProvider(http_client=_capture("llama_server_cached.json", sent))
    request = _request()
    await provider.complete(request)
    body = json.loads(sent[0].content)
    described = provider.describe(request)
    assert [m.model_dump() for m in described.messages] == body["messages"]
    assert described.response_format == body["response_format"]
    assert described.max_tokens == body["max_tokens"]
    assert described.provider_options["api_host"] == "127.0.0.1:8080"


async def test_count_tokens_asks_the_servers_tokenizer_and_the_client_says_so() -> None:
    sent: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        words = json.loads(request.content)["content"].split()
        return httpx.Response(200, json={"tokens": list(range(len(words)))})

    provider = LlamaCppProvider(http_client=mock_http(handler), api_base="http://127.0.0.1:8080/v1")
    assert await provider.count_tokens("one two three") == 3
    assert str(sent[0].url) == "http://127.0.0.1:8080/tokenize"
    client = LlmClient(provider, sink=Journal().append)
    tokens, how = await client.count_tokens(messages())
    assert how == "tokenizer" and tokens > 0


async def test_count_tokens_falls_back_to_the_estimate_when_the_server_has_no_tokenizer() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(404, json={"error": "no such endpoint"})

    provider = LlamaCppProvider(http_client=mock_http(handler))
    client = LlmClient(provider, sink=Journal().append)
    tokens, how = await client.count_tokens(messages())
    assert how == "estimate" and tokens > 0
