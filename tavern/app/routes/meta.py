"""Bootstrap, health, and the static web UI."""

from __future__ import annotations

from fastapi import APIRouter, Response

from tavern.app.deps import SlotDep, TokenDep
from tavern.app.schemas import BootstrapPublic, HealthPublic

router = APIRouter(tags=["meta"])


@router.get("/bootstrap")
def bootstrap(token: TokenDep, response: Response) -> BootstrapPublic:
    """The access token for mutating calls. Foreign and `null` origins are refused earlier."""
    response.headers["Cache-Control"] = "no-store"
    return BootstrapPublic(access_token=token)


@router.get("/health")
def health(slot: SlotDep) -> HealthPublic:
    """Liveness and the active provider."""
    return HealthPublic(status="ok", provider=slot.config.active_provider)
