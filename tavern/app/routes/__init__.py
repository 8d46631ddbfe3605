"""One router module per resource; `ROUTERS` is the order they are mounted in."""

from __future__ import annotations

from fastapi import APIRouter

from tavern.app.routes import characters, config, debug, meta, scenarios, sessions, turns

ROUTERS: list[APIRouter] = [
    meta.router,
    scenarios.router,
    characters.router,
    sessions.router,
    turns.router,
    debug.router,
    config.router,
]
