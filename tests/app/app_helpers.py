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


class SlowRunner:
    """Wraps a real runner so each turn also waits `delay` seconds, as a model call would.

    The fake provider answers in CPU time, so without this a parallelism test could not tell
    an app that serializes every session from one that does not.
    """

    def __init__(self, inner: TurnRunner, delay: float) -> None:
        self.inner = inner
        self.delay = delay

    async def play_turn(
        self, session_id: str, turn: TurnInput, progress: Progress | None = None
    ) -> TurnResult:
        await asyncio.sleep(self.delay)
        return await self.inner.play_turn(session_id, turn, progress)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)
