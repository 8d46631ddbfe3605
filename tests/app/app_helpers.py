"""Shared helpers of the HTTP API tests."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Protocol

import httpx
from fastapi import FastAPI

from tavern.app.state import AppServices
from tavern.records import TurnInput
from tavern.records.views import TurnResult
from tavern.runner.interface import Lines, Progress, TurnRunner


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

    async def wait(self) -> None:
        self.entered.set()
        await self.release.wait()


@dataclass
class Rendezvous:
    """Holds each turn until `parties` turns wait here at once: only an app that runs them
    side by side gets past it; one that serializes them fails after `timeout` seconds.

    Parallelism shown by meeting, not by timing a sleep, holds whatever the machine's load.
    """

    parties: int
    timeout: float = 10.0
    arrived: int = 0
    met: asyncio.Event = field(default_factory=asyncio.Event)

    async def wait(self) -> None:
        self.arrived += 1
        if self.arrived >= self.parties:
            self.met.set()
        await asyncio.wait_for(self.met.wait(), self.timeout)


class TurnGate(Protocol):
    """Where a `SlowRunner` turn waits before it runs."""

    async def wait(self) -> None: ...


class SlowRunner:
    """Wraps a real runner so each turn also waits `delay` seconds, as a model call would.

    The fake provider answers in CPU time, so without this a parallelism test could not tell
    an app that serializes every session from one that does not.
    """

    def __init__(self, inner: TurnRunner, delay: float, hold: TurnGate | None = None) -> None:
        self.inner = inner
        self.delay = delay
        self.hold = hold

    async def play_turn(
        self,
        session_id: str,
        turn: TurnInput,
        progress: Progress | None = None,
        expected_revision: int | None = None,
        lines: Lines | None = None,
    ) -> TurnResult:
        if self.hold is not None:
            await self.hold.wait()
        await asyncio.sleep(self.delay)
        return await self.inner.play_turn(session_id, turn, progress, expected_revision, lines)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)
