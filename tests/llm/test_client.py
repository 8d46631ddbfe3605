"""LlmClient: call-time policy, bounded retry, fail-fast, one journal line per attempt."""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import jsonschema
import pytest

import tavern.llm
import tavern.llm.wrappers
from tavern.llm import FakeProvider, LlmCallError, LlmClient, RetryPolicy
from tavern.llm.call_policy import policy_text
from tavern.llm.llama_cpp import LlamaCppProvider
from tavern.llm.provider import ProviderRequest
from tavern.llm.wrappers import SchemaValidators, parse_json_answer

from .helpers import REPLY_SCHEMA, Journal, load_body, messages, mock_http

pytestmark = pytest.mark.anyio
GOOD = load_body("llama_server_cached.json")


def _body_with(content: str) -> dict[str, object]:
    body = json.loads(json.dumps(GOOD))
    body["choices"][0]["message"]["content"] = content
    return body


def _scripted(*replies: httpx.Response | Exception) -> Callable[[httpx.Request], httpx.Response]:
    queue = list(replies)

    def handler(request: httpx.Request) -> httpx.Response:
        reply = queue.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return reply

    return handler


def _client(
    handler: Callable[[httpx.Request], httpx.Response], journal: Journal, attempts: int = 3
) -> LlmClient:
    provider = LlamaCppProvider(http_client=mock_http(handler), model="qwen")
    return LlmClient(provider, sink=journal, retry=RetryPolicy(attempts, 0.0))


async def _call(client: LlmClient) -> dict[str, object]:
    return await client.call_json(
        agent="character:C2",
        messages=messages(),
        schema=REPLY_SCHEMA,
        session_id="s1",
        turn_number=4,
    )


@pytest.mark.parametrize(
    ("first", "error_type"),
    [
        (httpx.Response(503, json={"error": {"message": "loading model"}}), "http_5xx"),
        (httpx.Response(200, json=_body_with("{not json")), "parse"),
        (httpx.Response(200, json=_body_with('{"speech": 7}')), "schema"),
        (httpx.ReadTimeout("slow"), "timeout"),
        (httpx.Response(429, json={"error": {"message": "busy"}}), "rate_limit"),
    ],
)
async def test_retryable_failure_then_success(
    journal: Journal, first: httpx.Response | Exception, error_type: str
) -> None:
    client = _client(_scripted(first, httpx.Response(200, json=GOOD)), journal)
    assert (await _call(client))["speech"] == "Ale, then."
    assert [line.attempt_number for line in journal] == [1, 2]
    assert [line.error_type for line in journal] == [error_type, None]
    assert journal[0].error and journal[1].error is None
    for line in journal:
        assert (line.session_id, line.turn_number, line.agent) == ("s1", 4, "character:C2")
        assert line.provider == "llama_cpp" and line.model == "qwen" and line.source == "live"
        assert line.duration_ms >= 0
        assert line.prompt_chars == sum(len(m.content) for m in line.request.messages)
        assert line.prompt_estimated_tokens == -(-line.prompt_chars // 4)
    if error_type in ("parse", "schema"):
        assert journal[0].response is not None  # the unusable answer is kept for analysis
    assert journal[1].prompt_cache.hit_tokens == 537


async def test_exhaustion_raises_typed_error_after_bounded_attempts(journal: Journal) -> None:
    bad = [httpx.Response(200, json=_body_with('{"speech": 1}')) for _ in range(3)]
    client = _client(_scripted(*bad), journal, attempts=3)
    with pytest.raises(LlmCallError) as caught:
        await _call(client)
    assert caught.value.error_type == "schema" and caught.value.attempts == 3
    assert [line.attempt_number for line in journal] == [1, 2, 3]
    assert all(line.error_type == "schema" for line in journal)


async def test_backoff_grows_exponentially() -> None:
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    handler = _scripted(*[httpx.Response(500) for _ in range(4)])
    client = LlmClient(
        LlamaCppProvider(http_client=mock_http(handler)),
        sink=Journal(),
        retry=RetryPolicy(4, 0.5),
        sleep=sleep,
    )
    with pytest.raises(LlmCallError):
        await _call(client)
    assert slept == [0.5, 1.0, 2.0]


async def test_4xx_fails_fast(journal: Journal) -> None:
    handler = _scripted(httpx.Response(400, json={"error": {"message": "bad grammar"}}))
    with pytest.raises(LlmCallError) as caught:
        await _call(_client(handler, journal, attempts=5))
    assert caught.value.error_type == "http_4xx" and "bad grammar" in caught.value.message
    assert len(journal) == 1


async def test_policy_appended_once_at_call_time_in_the_chosen_language(journal: Journal) -> None:
    fake = FakeProvider("function", fn=lambda request: {"speech": "oi"})
    client = LlmClient(fake, sink=journal, language="pt-BR")
    await _call(client)
    system = fake.requests[0].messages[0].content
    assert system.startswith("You are Brom") and system.endswith(policy_text("pt-BR"))
    assert system.count(policy_text("pt-BR")) == 1
    assert journal[0].request.messages[0].content == system
    assert "\u2014" not in policy_text("en") + policy_text("pt-BR")  # no dash to imitate
    assert "\u2013" not in policy_text("en") + policy_text("pt-BR")


async def test_max_tokens_resolution_by_agent_role_and_default() -> None:
    fake = FakeProvider("function", fn=lambda request: {"speech": "x"})
    client = LlmClient(
        fake, sink=Journal(), max_tokens={"character": 200, "director:pro": 900, "default": 300}
    )
    assert client.resolve_max_tokens("character:C2") == 200
    assert client.resolve_max_tokens("director:pro") == 900
    assert client.resolve_max_tokens("prose") == 300
    assert client.resolve_max_tokens("prose", 50) == 50
    await _call(client)
    assert fake.requests[0].max_tokens == 200


async def test_broken_schema_is_a_caller_bug_raised_before_any_call(journal: Journal) -> None:
    fake = FakeProvider("parrot")
    with pytest.raises(jsonschema.SchemaError):
        await LlmClient(fake, sink=journal).call_json(
            agent="a",
            messages=messages(),
            schema={"type": "nonsense"},
            session_id="s",
            turn_number=0,
        )
    assert fake.requests == [] and journal == []


async def test_an_adapter_bug_is_journaled(journal: Journal) -> None:
    async def boom(request: ProviderRequest) -> str:
        raise RuntimeError("adapter bug")

    client = LlmClient(FakeProvider("function", fn=boom), sink=journal, retry=RetryPolicy(3, 0))
    with pytest.raises(LlmCallError) as caught:
        await client.call_json(
            agent="prose", messages=messages(), schema=REPLY_SCHEMA, session_id="s", turn_number=1
        )
    assert caught.value.error_type == "provider" and len(journal) == 1


class _RealishTransport(httpx.AsyncBaseTransport):
    """Stands in for a socket: anything not in-process counts as a live call."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return httpx.Response(200, json=GOOD)


async def test_live_calls_refused_in_tests_unless_allowed(
    journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert tavern.llm.ALLOW_LIVE_CALLS is False  # the root conftest's autouse fixture
    transport = _RealishTransport()
    provider = LlamaCppProvider(http_client=httpx.AsyncClient(transport=transport))
    client = LlmClient(provider, sink=journal, retry=RetryPolicy(3, 0))
    with pytest.raises(LlmCallError) as caught:
        await _call(client)
    assert caught.value.error_type == "refused" and transport.requests == []
    assert len(journal) == 1  # refused, not retried
    # Negative control: with the switch on, the same client does reach its transport.
    monkeypatch.setattr(tavern.llm, "ALLOW_LIVE_CALLS", True)
    await _call(client)
    assert len(transport.requests) == 1


NON_JSON_NUMBERS = ['{"speech": NaN}', '{"speech": Infinity}', '{"speech": [-Infinity]}']


@pytest.mark.parametrize("content", NON_JSON_NUMBERS)
async def test_nan_and_infinities_are_parse_errors(content: str, journal: Journal) -> None:
    # Python's json module reads these; the test would pass vacuously if it did not.
    assert json.loads(content)
    schema = {"type": "object", "properties": {"speech": {}}, "required": ["speech"]}
    with pytest.raises(LlmCallError) as caught:
        parse_json_answer(content, SchemaValidators().get(schema))
    assert caught.value.error_type == "parse"
    assert "is not JSON" in caught.value.message
    # Through a real adapter: the answer is retried like any unparseable one, then refused.
    handler = _scripted(*[httpx.Response(200, json=_body_with(content))] * 2)
    with pytest.raises(LlmCallError) as failed:
        await _client(handler, journal, attempts=2).call_json(
            agent="character:C2",
            messages=messages(),
            schema=schema,
            session_id="s1",
            turn_number=4,
        )
    assert failed.value.error_type == "parse"
    assert [line.error_type for line in journal] == ["parse", "parse"]


def test_negative_control_a_plain_parser_lets_nan_through_a_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    schema = {"type": "object", "properties": {"x": {"type": "number", "maximum": 1}}}
    monkeypatch.setattr(tavern.llm.wrappers, "loads_answer", json.loads)
    value = parse_json_answer(
        '{"x": NaN}', SchemaValidators().get(schema)
    )  # the hole the strict parser closes
    assert value["x"] != value["x"]


@pytest.mark.parametrize(("seed", "offset", "sent"), [(50, 1, 51), (50, 0, 50), (None, 1, None)])
async def test_a_seed_offset_moves_the_seed_sent_to_the_server(
    journal: Journal, seed: int | None, offset: int, sent: int | None
) -> None:
    bodies: list[dict[str, object]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        return httpx.Response(200, json=GOOD)

    client = _client(handler, journal)
    client.seed = seed
    await client.call_json(
        agent="character:C2", messages=messages(), schema=REPLY_SCHEMA, session_id="s1",
        turn_number=4, seed_offset=offset,
    )  # fmt: skip
    assert bodies[0].get("seed") == sent
