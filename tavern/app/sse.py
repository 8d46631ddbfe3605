"""Server-sent events for long operations, when the client asks for `text/event-stream`.

The stream carries `progress` events (`{"stage", "fraction"}`, plus the counted work
`{"done", "total", "calls", "calls_total", "written"}` of `runner.interface.WorkDone` when
the operation counts it, a compaction: `fraction` is then `done / total`) while the work
runs, then one `result` event with the same body the JSON response would have had, or one
`error` event with `{"status", "detail"}`. Errors travel inside the stream because the 200
status line has already been sent by then.

A turn (`stream_turn`) also carries `line` events (`{"records": [...]}`): the records of the
turn in flight as the human's screen shows them, each batch once the runner holds it final
(`runner.interface.Lines`), and `partial` events (one narration record: its complete,
filtered sentences so far, each replacing the last, until the narration's `line`). The
`result` event's records are what was committed; a client draws the lines as they come and
replaces them with the result (or drops them on `error`).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import asdict

from fastapi import Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel

from tavern.app.errors import describe_exception
from tavern.records import HISTORY_RECORD_ADAPTER, HistoryRecord
from tavern.runner.interface import Lines, Progress, WorkDone

log = logging.getLogger(__name__)

EVENT_STREAM = "text/event-stream"

# asyncio keeps only weak references to tasks; a turn whose client went away must still
# finish and commit, so its task is held here until it is done.
_running: set[asyncio.Task[None]] = set()


def wants_event_stream(request: Request) -> bool:
    """True when the Accept header asks for SSE."""
    return EVENT_STREAM in request.headers.get("accept", "")


def format_event(event: str, data: object) -> str:
    """One SSE frame."""
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


def stream_work(work: Callable[[Progress], Awaitable[BaseModel]]) -> StreamingResponse:
    """Run `work` with a progress callback and stream its progress and outcome.

    Args:
        work: The operation; it receives a callback to report `(stage, fraction)`.

    Returns:
        A streaming response that ends after the `result` or `error` event.
    """
    return stream_turn(lambda progress, _lines: work(progress))


def stream_turn(work: Callable[[Progress, Lines], Awaitable[BaseModel]]) -> StreamingResponse:
    """`stream_work` for a turn: `work` also gets a `Lines` callback, whose batches go out
    as `line` events while it runs.

    Example: `stream_turn(lambda p, lines: runner.play_turn(sid, body, p, None, lines))`.
    """
    queue: asyncio.Queue[str | None] = asyncio.Queue()

    async def progress(stage: str, fraction: float | None, work: WorkDone | None = None) -> None:
        data: dict[str, object] = {"stage": stage, "fraction": fraction}
        if work is not None:
            data.update(asdict(work))
        await queue.put(format_event("progress", data))

    async def lines(records: Sequence[HistoryRecord], partial: bool = False) -> None:
        data = [HISTORY_RECORD_ADAPTER.dump_python(r, mode="json") for r in records]
        await queue.put(format_event("partial" if partial else "line", {"records": data}))

    async def run() -> None:
        try:
            result = await work(progress, lines)
            await queue.put(format_event("result", result.model_dump(mode="json")))
        except Exception as exc:  # every failure becomes an event; the stream must end
            status, detail = describe_exception(exc)
            await queue.put(format_event("error", {"status": status, "detail": detail}))
        finally:
            await queue.put(None)

    async def frames() -> AsyncIterator[str]:
        task = asyncio.create_task(run())
        _running.add(task)
        task.add_done_callback(_running.discard)
        try:
            while (frame := await queue.get()) is not None:
                yield frame
        finally:
            # A client that disconnects does not cancel a turn mid-commit; it finishes.
            await asyncio.shield(task)

    return StreamingResponse(
        frames(),
        media_type=EVENT_STREAM,
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )
