"""Streaming an OpenAI-style chat completion, to stop it early (`early_stop`).

The body goes with `stream: true`; the server answers with server-sent events and
`data: [DONE]`. Leaving the stream closes the connection, and llama.cpp cancels the
generation then (the embedded server's slot stopped within 6 tokens). llama.cpp adds running
`timings` to every chunk when asked, so an answer stopped early still reports its tokens
(`usage_from_timings`). A server that answers with one JSON body is read whole.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import httpx

from tavern.llm._http import (
    connect_target,
    ensure_live_allowed,
    first_choice_content,
    json_object,
    status_error,
)
from tavern.llm.early_stop import EarlyStop, StopEarly
from tavern.llm.errors import LlmCallError
from tavern.llm.url_policy import Endpoint


@dataclass(frozen=True)
class StreamedAnswer:
    """The answer text (closed JSON when stopped early) and the last usage, timings, model."""

    content: str
    data: dict[str, Any]
    stopped_early: bool


def _no_scrub(text: str) -> str:
    return text


async def stream_chat(
    client: httpx.AsyncClient,
    url: str,
    body: dict[str, Any],
    stop: StopEarly,
    *,
    headers: dict[str, str] | None = None,
    timeout_s: float,
    endpoint: Endpoint | None = None,
) -> StreamedAnswer:
    """POST `body` streaming, feed the content to `stop`, and stop reading when it says so.

    Raises:
        LlmCallError: `refused`, `timeout`, `transport`, `http_4xx`, `http_5xx`, `provider`
            (an error event in the stream) or `parse` (a chunk that is not a JSON object, or
            no content at all).
    """
    ensure_live_allowed(client)
    target = await connect_target(client, url, headers, endpoint)
    answer = EarlyStop(stop)
    last: dict[str, Any] = {}
    sent = body | {"stream": True, "timings_per_token": True}
    sent["stream_options"] = {"include_usage": True}
    try:
        async with client.stream(
            "POST",
            target.url,
            json=sent,
            headers=target.headers,
            timeout=timeout_s,
            extensions=target.extensions,
        ) as response:
            if response.status_code >= 400:
                await response.aread()
                raise status_error(response, _no_scrub)
            if response.headers.get("content-type", "").startswith("application/json"):
                return await _whole(response)  # a server that does not stream answered whole
            async for line in response.aiter_lines():
                chunk = _chunk(line)
                if chunk is None:
                    continue
                if chunk is _DONE:
                    break
                last.update({k: chunk[k] for k in ("usage", "timings", "model") if chunk.get(k)})
                piece = _delta(chunk)
                if piece and answer.feed(piece):
                    break  # leaving the block closes the connection: the server cancels
    except httpx.TimeoutException as exc:
        raise LlmCallError(
            "timeout", f"no answer within {timeout_s}s ({type(exc).__name__})"
        ) from None
    except httpx.TransportError as exc:
        raise LlmCallError("transport", f"{type(exc).__name__}: {exc}") from None
    if not answer.content.strip():
        raise LlmCallError("parse", "answer content is empty")
    if answer.stopped or "usage" not in last:
        last["usage"] = usage_from_timings(last.get("timings"))
    return StreamedAnswer(answer.content, last, answer.stopped)


_DONE: dict[str, Any] = {}


async def _whole(response: httpx.Response) -> StreamedAnswer:
    await response.aread()
    data = json_object(response)
    return StreamedAnswer(first_choice_content(data), data, stopped_early=False)


def _chunk(line: str) -> dict[str, Any] | None:
    """The event's JSON object, `_DONE` at the end, None for anything else (comments, blanks)."""
    if not line.startswith("data:"):
        return None
    payload = line[5:].strip()
    if payload == "[DONE]":
        return _DONE
    try:
        chunk = json.loads(payload)
    except ValueError:
        raise LlmCallError("parse", "a stream event is not JSON") from None
    if not isinstance(chunk, dict):
        raise LlmCallError("parse", "a stream event is not a JSON object")
    error = chunk.get("error")
    if error is not None:
        message = error.get("message") if isinstance(error, dict) else error
        raise LlmCallError("provider", f"error event in the stream: {str(message)[:500]}")
    return chunk


def _delta(chunk: dict[str, Any]) -> str:
    try:
        piece = chunk["choices"][0]["delta"].get("content")
    except (KeyError, IndexError, TypeError, AttributeError):
        return ""
    return piece if isinstance(piece, str) else ""


def usage_from_timings(timings: Any) -> dict[str, Any] | None:
    """An OpenAI-style usage object from llama.cpp's running timings, or None without them.

    >>> usage_from_timings({"cache_n": 30, "prompt_n": 5, "predicted_n": 12})
    {'completion_tokens': 12, 'prompt_tokens': 35, 'total_tokens': 47, 'prompt_tokens_details': {'cached_tokens': 30}}
    """  # noqa: E501
    if not isinstance(timings, dict):
        return None
    counts = [timings.get(k) for k in ("cache_n", "prompt_n", "predicted_n")]
    numbers = [n for n in counts if isinstance(n, int) and not isinstance(n, bool)]
    if len(numbers) != len(counts):
        return None
    cached, fresh, written = numbers
    return {
        "completion_tokens": written,
        "prompt_tokens": cached + fresh,
        "total_tokens": cached + fresh + written,
        "prompt_tokens_details": {"cached_tokens": cached},
    }
