"""SSE framing, and a turn that keeps going when its client leaves."""

from __future__ import annotations

import asyncio
import contextlib
import gc

import pytest

from tavern.app.schemas import HealthPublic
from tavern.app.sse import format_event, stream_work
from tavern.runner.interface import ConflictError, Progress

pytestmark = pytest.mark.anyio


def test_frames_are_sse() -> None:
    assert format_event("progress", {"a": "é"}) == 'event: progress\ndata: {"a": "é"}\n\n'


async def test_work_finishes_after_the_client_disconnects() -> None:
    done = asyncio.Event()

    async def work(progress: Progress) -> HealthPublic:
        await progress("director", None)
        await asyncio.sleep(0.2)
        gc.collect()  # a task only weakly referenced would be collected here
        done.set()
        return HealthPublic(status="ok", provider="fake")

    response = stream_work(work)

    async def consume() -> None:
        async for _ in response.body_iterator:
            pass

    consumer = asyncio.create_task(consume())
    await asyncio.sleep(0.05)
    consumer.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await consumer
    await asyncio.wait_for(done.wait(), 3)


async def test_errors_become_an_error_event() -> None:
    async def work(progress: Progress) -> HealthPublic:
        raise ConflictError("nothing to undo")

    frames = [f async for f in stream_work(work).body_iterator]
    assert frames == [format_event("error", {"status": 409, "detail": "nothing to undo"})]
