"""FastAPI dependencies, declared once as `Annotated` aliases."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Header, Path, Query, Request

from tavern.app.avatars import Avatars
from tavern.app.schemas import ID_PATTERN
from tavern.app.security import check_request
from tavern.app.state import AppServices, RunnerSlot
from tavern.app.usage import UsageBooks
from tavern.runner.interface import TurnRunner
from tavern.store import Library, SessionStore


def get_services(request: Request) -> AppServices:
    """The app's injected services."""
    services: AppServices = request.app.state.services
    return services


def get_slot(request: Request) -> RunnerSlot:
    """The swappable (config, runner) slot."""
    slot: RunnerSlot = request.app.state.runner_slot
    return slot


async def get_runner(slot: Annotated[RunnerSlot, Depends(get_slot)]) -> AsyncIterator[TurnRunner]:
    """The runner active when the request arrived, leased until the response is done."""
    async with slot.lease() as runner:
        yield runner


def get_token(request: Request) -> str:
    """This process's access token."""
    token: str = request.app.state.access_token
    return token


def guard(
    request: Request,
    x_tavern_token: Annotated[str | None, Header(description="Token from GET /bootstrap")] = None,
) -> None:
    """Host, origin and token policy for every route (see `tavern.app.security`)."""
    services = get_services(request)
    check_request(request, get_token(request), services.extra_hosts, x_tavern_token)


ServicesDep = Annotated[AppServices, Depends(get_services)]
SlotDep = Annotated[RunnerSlot, Depends(get_slot)]
RunnerDep = Annotated[TurnRunner, Depends(get_runner)]
TokenDep = Annotated[str, Depends(get_token)]


def _library(services: ServicesDep) -> Library:
    return services.library


def _sessions(services: ServicesDep) -> SessionStore:
    return services.sessions


def _usage(request: Request) -> UsageBooks:
    books: UsageBooks = request.app.state.usage
    return books


def _avatars(services: ServicesDep) -> Avatars:
    return Avatars(services.data_dir)


LibraryDep = Annotated[Library, Depends(_library)]
AvatarsDep = Annotated[Avatars, Depends(_avatars)]
UsageDep = Annotated[UsageBooks, Depends(_usage)]
SessionsDep = Annotated[SessionStore, Depends(_sessions)]

IdPath = Annotated[str, Path(pattern=ID_PATTERN, max_length=64, description="A lowercase slug id")]
AfterQuery = Annotated[int, Query(ge=-1, le=2**53, description="Return entries after this one")]
LimitQuery = Annotated[int, Query(ge=1, le=500, description="Page size (at most 500)")]
RevisionQuery = Annotated[
    int | None,
    Query(
        ge=0,
        le=2**53,
        description="The session revision the client's view shows; a stale one is a 409",
    ),
]
