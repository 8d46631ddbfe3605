"""Shared helpers of the HTTP API tests."""

from __future__ import annotations

from dataclasses import dataclass

import httpx
from fastapi import FastAPI

from tavern.app.state import AppServices
from tavern.runner.interface import TurnRunner


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
