"""Shared helpers of the HTTP API tests."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import httpx
from fastapi import FastAPI

from tavern.app.state import AppServices
from tavern.records import TurnInput
from tavern.records.views import TurnResult
from tavern.runner.interface import Progress, TurnRunner


@dataclass
class Api:
    """A client plus what tests need to reach around it."""

    app: FastAPI
    client: httpx.AsyncClient
    token: str
    services: AppServices
    built: list[TurnRunner]

    @property
    def auth(self) -> dict[str, str]:
        return {"X-Tavern-Token": self.token}


@dataclass
class Hold:
    """Holds each turn of a `SlowRunner` until `release` is set; `entered` is set once a turn
    waits there: a test can act while a turn is surely in flight, whatever the machine's load."""

    entered: asyncio.Event
    release: asyncio.Event

    @classmethod
    def new(cls) -> Hold:
        return cls(asyncio.Event(), asyncio.Event())


class SlowRunner:
    """Wraps a real runner so each turn also waits `delay` seconds, as a model call would.

    The fake provider answers in CPU time, so without this a parallelism test could not tell
    an app that serializes every session from one that does not.
    """

    def __init__(self, inner: TurnRunner, delay: float, hold: Hold | None = None) -> None:
        self.inner = inner
        self.delay = delay
        self.hold = hold

    async def play_turn(
        self, session_id: str, turn: TurnInput, progress: Progress | None = None
    ) -> TurnResult:
        if self.hold is not None:
            self.hold.entered.set()
            await self.hold.release.wait()
        await asyncio.sleep(self.delay)
        return await self.inner.play_turn(session_id, turn, progress)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)
