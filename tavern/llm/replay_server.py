"""A loopback OpenAI-compatible server that answers from a recorded journal.

Point the `llama_cpp` adapter at it (`api_base = http://127.0.0.1:<port>/v1`): the adapter
sends the call identity in `X-Tavern-Agent` / `X-Tavern-Turn` headers (or a client may send
`metadata: {agent, turn_number}` in the body). A request that is not the next recorded call
gets HTTP 409 and the cursor does not move.

Endpoints: `POST /v1/chat/completions` (also `/chat/completions`; with `stream: true` the
answer comes as server-sent events, word by word), `GET /status`,
`POST /reset`, `POST /seek {"position": n}`, `GET /health`.

Run: `python -m tavern.llm.replay_server --journal PATH [--port N] [--session-id ID]`
(binds 127.0.0.1 only).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from tavern.llm.early_stop import word_pieces
from tavern.llm.errors import LlmCallError
from tavern.llm.replay import ReplayCursor


def _error(status: int, kind: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"type": kind, "message": message}}, status_code=status)


def _identity(request: Request, body: dict[str, Any]) -> tuple[str, int] | None:
    metadata = body.get("metadata") if isinstance(body.get("metadata"), dict) else {}
    assert isinstance(metadata, dict)
    agent = request.headers.get("x-tavern-agent") or metadata.get("agent")
    turn = request.headers.get("x-tavern-turn") or metadata.get("turn_number")
    try:
        return (str(agent), int(turn)) if agent is not None and turn is not None else None
    except (TypeError, ValueError):
        return None


def _completion_body(position: int, line: Any) -> dict[str, Any]:
    usage = dict(line.usage or {})
    timings = usage.pop("timings", None)
    body: dict[str, Any] = {
        "id": f"replay-{position}",
        "object": "chat.completion",
        "model": line.model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": line.response},
                "finish_reason": "stop",
            }
        ],
        "usage": usage or None,
    }
    if timings is not None:
        body["timings"] = timings
    return body


def _events(completion: dict[str, Any]) -> Iterator[str]:
    """The completion as a stream of server-sent events: its content word by word, then its
    usage and timings, then `[DONE]` (the shape a llama.cpp server streams)."""
    base = {"id": completion["id"], "object": "chat.completion.chunk", "model": completion["model"]}
    content = completion["choices"][0]["message"]["content"] or ""
    for piece in word_pieces(content):
        delta = {"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
        yield f"data: {json.dumps(base | delta)}\n\n"
    last = {"choices": [], "usage": completion["usage"]}
    if "timings" in completion:
        last["timings"] = completion["timings"]
    yield f"data: {json.dumps(base | last)}\n\ndata: [DONE]\n\n"


def create_replay_app(cursor: ReplayCursor) -> Starlette:
    """The Starlette app serving `cursor`."""

    async def completions(request: Request) -> Response:
        try:
            body = await request.json()
        except ValueError:
            return _error(400, "invalid_request", "body is not JSON")
        if not isinstance(body, dict):
            return _error(400, "invalid_request", "body is not a JSON object")
        identity = _identity(request, body)
        if identity is None:
            return _error(
                400, "invalid_request", "send X-Tavern-Agent and X-Tavern-Turn (or metadata)"
            )
        position = cursor.position
        try:
            line = await cursor.take(*identity)
        except LlmCallError as exc:
            return _error(409, exc.error_type, exc.message)
        completion = _completion_body(position, line)
        if body.get("stream") is True:
            return StreamingResponse(_events(completion), media_type="text/event-stream")
        return JSONResponse(completion)

    async def status(request: Request) -> JSONResponse:
        return JSONResponse(cursor.status())

    async def reset(request: Request) -> JSONResponse:
        await cursor.reset()
        return JSONResponse(cursor.status())

    async def seek(request: Request) -> JSONResponse:
        try:
            body = await request.json()
            await cursor.seek(int(body["position"]))
        except (ValueError, KeyError, TypeError) as exc:
            return _error(422, "invalid_request", f"seek needs a valid position: {exc}")
        return JSONResponse(cursor.status())

    async def health(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok"})

    return Starlette(
        routes=[
            Route("/v1/chat/completions", completions, methods=["POST"]),
            Route("/chat/completions", completions, methods=["POST"]),
            Route("/status", status, methods=["GET"]),
            Route("/reset", reset, methods=["POST"]),
            Route("/seek", seek, methods=["POST"]),
            Route("/health", health, methods=["GET"]),
        ]
    )


def main(argv: list[str] | None = None) -> None:
    """Serve a journal on 127.0.0.1 with uvicorn."""
    import uvicorn

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--journal", type=Path, required=True)
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--session-id", default=None)
    args = parser.parse_args(argv)
    cursor = ReplayCursor.from_journal(args.journal, args.session_id)
    uvicorn.run(create_replay_app(cursor), host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
