"""Stopping a streamed answer early (`llm.early_stop`, `llm._stream`, the llama_cpp adapter)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.agents import prose
from tavern.filters import FilterContext
from tavern.filters.loop import RULE as LOOP_RULE
from tavern.llm import LlmCallError, LlmClient
from tavern.llm.early_stop import EarlyStop, close_json
from tavern.llm.llama_cpp import LlamaCppProvider, stop_early_option
from tavern.llm.provider import ProviderRequest
from tavern.llm.replay import ReplayCursor
from tavern.llm.replay_server import create_replay_app
from tavern.records.config import ProviderSettings

from .helpers import Journal, messages

pytestmark = pytest.mark.anyio

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=8,
)


@settings(deadline=None)  # every prefix of the text: up to ~400 closings an example
@given(st.dictionaries(st.text(max_size=6), JSON_VALUES, max_size=4), st.booleans())
def test_every_closed_prefix_is_json(answer: dict[str, Any], pretty: bool) -> None:
    text = json.dumps(answer, indent=2 if pretty else None, ensure_ascii=not pretty)
    for cut in range(len(text) + 1):
        closed = close_json(text[:cut])
        if closed is not None:
            assert closed.startswith(text[:cut].rstrip()[: max(0, cut - 12)])  # less a cut escape
            json.loads(closed)


@given(st.text(max_size=60), st.integers(min_value=0, max_value=200))
def test_a_prefix_cut_inside_the_value_closes_to_a_prefix_of_it(said: str, cut: int) -> None:
    text = json.dumps({"narration": said + "."})
    opening = len('{"narration": "')
    prefix = text[: min(len(text) - 2, opening + cut)]
    closed = close_json(prefix)
    assert closed is not None
    assert (said + ".").startswith(json.loads(closed)["narration"])


def test_a_prefix_inside_a_key_or_a_number_is_not_closed() -> None:
    assert close_json('{"narration": "x", "spee') is None
    assert close_json('{"narration": "x", "n": 12') is None
    assert close_json('{"narration": "x", ') is None
    assert close_json('{"narration": "x"}') is None  # already whole


LOOP = "Rain falls on the roof. The lamp gutters low. Rain falls on the roof. The lamp"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"narration": {"type": "string"}},
    "required": ["narration"],
}


def _answer_pieces(text: str) -> list[str]:
    content = json.dumps({"narration": text})
    return [content[i : i + 7] for i in range(0, len(content), 7)]


async def _sse(pieces: list[str], read: list[int], usage: bool = True) -> AsyncIterator[bytes]:
    for n, piece in enumerate(pieces, start=1):
        read.append(n)
        chunk = {
            "choices": [{"index": 0, "delta": {"content": piece}}],
            "timings": {"cache_n": 40, "prompt_n": 9, "predicted_n": n},
        }
        yield f"data: {json.dumps(chunk)}\n\n".encode()
    if usage:
        final = {"choices": [], "usage": {"completion_tokens": len(pieces), "prompt_tokens": 49}}
        yield f"data: {json.dumps(final)}\n\n".encode()
    yield b"data: [DONE]\n\n"


def _streaming_server(
    pieces: list[str], read: list[int], bodies: list[dict[str, Any]]
) -> httpx.AsyncClient:
    def handler(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        if not bodies[-1].get("stream"):
            content = "".join(pieces)
            return httpx.Response(200, json={"choices": [{"message": {"content": content}}]})
        return httpx.Response(200, content=_sse(pieces, read))

    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


def _provider(http: httpx.AsyncClient, stop_early: bool = True) -> LlamaCppProvider:
    return LlamaCppProvider(
        http_client=http,
        api_base="http://127.0.0.1:8080/v1",
        structured_output="json_schema",
        stop_early=stop_early,
    )


async def test_the_adapter_stops_reading_at_the_first_repeat_and_journals_it() -> None:
    read: list[int] = []
    bodies: list[dict[str, Any]] = []
    pieces = _answer_pieces(LOOP)
    journal = Journal()
    client = LlmClient(_provider(_streaming_server(pieces, read, bodies)), sink=journal)
    answer = await client.call_json(
        agent="prose",
        messages=messages(),
        schema=SCHEMA,
        session_id="s1",
        turn_number=2,
        stop_early=prose.runaway,
    )
    assert answer["narration"].startswith("Rain falls on the roof. The lamp gutters low. Rain f")
    assert loop_repair(prose.parse(answer)) == "Rain falls on the roof. The lamp gutters low."
    assert len(read) < len(pieces)  # the rest of the stream was never read
    assert bodies[0]["stream"] is True and bodies[0]["timings_per_token"] is True
    [line] = journal
    assert line.stopped_early and line.request.provider_options["stream"] is True
    assert line.response == json.dumps(answer, ensure_ascii=False).replace(", ", ", ")
    assert line.usage is not None and line.usage["completion_tokens"] == len(read)
    assert line.prompt_cache.hit_tokens == 40 and line.prompt_cache.miss_tokens == 9


async def test_negative_control_an_answer_without_a_repeat_is_read_whole() -> None:
    read: list[int] = []
    pieces = _answer_pieces("Rain falls on the roof. The lamp gutters low.")
    provider = _provider(_streaming_server(pieces, read, []))
    request = ProviderRequest(agent="prose", messages=messages(), stop_early=prose.runaway)
    response = await provider.complete(request)
    assert not response.stopped_early and len(read) == len(pieces)
    assert response.content == "".join(pieces)
    assert response.usage is not None and response.usage["prompt_tokens"] == 49


async def test_the_option_off_sends_the_request_whole() -> None:
    bodies: list[dict[str, Any]] = []
    provider = _provider(_streaming_server(_answer_pieces(LOOP), [], bodies), stop_early=False)
    request = ProviderRequest(agent="prose", messages=messages(), stop_early=prose.runaway)
    response = await provider.complete(request)
    assert bodies[0]["stream"] is False and not response.stopped_early
    assert json.loads(response.content)["narration"] == LOOP
    assert "stream" not in provider.describe(request).provider_options


def test_the_stop_early_option_is_checked() -> None:
    assert stop_early_option(ProviderSettings()) is True
    assert stop_early_option(ProviderSettings(options={"stop_early": False})) is False
    with pytest.raises(ValueError, match="stop_early"):
        stop_early_option(ProviderSettings(options={"stop_early": "no"}))


@pytest.mark.parametrize(
    ("response", "error_type"),
    [
        (httpx.Response(500, json={"error": {"message": "slot crashed"}}), "http_5xx"),
        (httpx.Response(200, content=b'data: {"error": {"message": "ctx full"}}\n\n'), "provider"),
        (httpx.Response(200, content=b"data: [oops\n\n"), "parse"),
        (httpx.Response(200, content=b"data: [DONE]\n\n"), "parse"),
    ],
)
async def test_a_failed_stream_is_a_typed_error(response: httpx.Response, error_type: str) -> None:
    provider = _provider(httpx.AsyncClient(transport=httpx.MockTransport(lambda r: response)))
    request = ProviderRequest(agent="prose", messages=messages(), stop_early=prose.runaway)
    with pytest.raises(LlmCallError) as caught:
        await provider.complete(request)
    assert caught.value.error_type == error_type


async def test_a_stopped_answer_replays_the_same_through_the_replay_server(
    tmp_path: Path,
) -> None:
    journal = Journal()
    pieces = _answer_pieces(LOOP)
    recorder = LlmClient(_provider(_streaming_server(pieces, [], [])), sink=journal)
    call = {
        "agent": "prose",
        "messages": messages(),
        "schema": SCHEMA,
        "session_id": "s1",
        "turn_number": 2,
        "stop_early": prose.runaway,
    }
    recorded = await recorder.call_json(**call)  # type: ignore[arg-type]
    path = tmp_path / "journal.jsonl"
    path.write_text("".join(t + "\n" for t in journal.texts), encoding="utf-8")
    app = create_replay_app(ReplayCursor.from_journal(path))
    http = httpx.AsyncClient(transport=httpx.ASGITransport(app=app))
    replayed_journal = Journal()
    replayer = LlmClient(
        LlamaCppProvider(http_client=http, api_base="http://replay.local/v1"),
        sink=replayed_journal,
    )
    assert await replayer.call_json(**call) == recorded  # type: ignore[arg-type]
    # Streamed again word by word, the recorded answer is read whole: it ends where the
    # recording stopped (the shortest stopping prefix), before its closing quote.
    assert replayed_journal[0].response == journal[0].response


def test_the_stop_point_does_not_depend_on_how_the_stream_was_cut() -> None:
    content = json.dumps({"narration": LOOP})
    stops = set()
    for size in (1, 2, 3, 7, 16):
        answer = EarlyStop(prose.runaway)
        for i in range(0, len(content), size):
            if answer.feed(content[i : i + size]):
                break
        stops.add(answer.content)
    assert stops == {
        '{"narration": "Rain falls on the roof. The lamp gutters low. Rain falls on the roof."}'
    }


async def test_a_server_that_does_not_stream_is_read_whole() -> None:
    body = {
        "choices": [{"message": {"content": json.dumps({"narration": LOOP})}}],
        "usage": {"completion_tokens": 30, "prompt_tokens": 49},
    }
    provider = _provider(httpx.AsyncClient(transport=httpx.MockTransport(
        lambda r: httpx.Response(200, json=body)
    )))  # fmt: skip
    request = ProviderRequest(agent="prose", messages=messages(), stop_early=prose.runaway)
    response = await provider.complete(request)
    assert json.loads(response.content)["narration"] == LOOP and not response.stopped_early
    assert response.usage is not None and response.usage["completion_tokens"] == 30


def loop_repair(text: str) -> str:
    """`text` as the filter rule `loop` leaves a narration."""
    return LOOP_RULE.repair(text, "narration", FilterContext())
