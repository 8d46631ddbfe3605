"""The FastAPI application factory. Nothing is built at import time."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import Depends, FastAPI, Request, Response
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

from tavern.app.config_store import load_config
from tavern.app.deps import guard
from tavern.app.errors import install_error_handlers
from tavern.app.routes import ROUTERS
from tavern.app.security import new_token
from tavern.app.state import AppServices, RunnerSlot
from tavern.app.usage import UsageBooks
from tavern.records.config import AppConfig

DOCS_PATHS = frozenset({"/docs", "/docs/oauth2-redirect", "/redoc"})
WEB_DIR = Path(__file__).resolve().parent.parent / "web"

# The UI loads only its own modules and talks only to its own origin; no inline script.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
)


def create_app(services: AppServices | None = None, config: AppConfig | None = None) -> FastAPI:
    """Build the app.

    Args:
        services: Injected services; the real store and runner when omitted.
        config: Initial config; read from `data_dir/config.json` when omitted.

    Returns:
        A FastAPI app with a fresh per-process access token.
    """
    if services is None:
        from tavern.app.wiring import build_services  # heavy imports only when serving for real

        services = build_services()
    if config is None:
        config = load_config(services.data_dir)
    slot = RunnerSlot(config, services.runner_factory(config))

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        await slot.drain()
        await services.close_runner(slot.runner)

    app = FastAPI(
        title="Tavern",
        summary="Multi-agent roleplay workbench: play sessions, edit scenarios, inspect journals.",
        version="0.1.0",
        lifespan=lifespan,
    )
    app.state.services = services
    app.state.runner_slot = slot
    app.state.access_token = new_token()
    app.state.usage = UsageBooks()
    install_error_handlers(app)
    for router in ROUTERS:
        app.include_router(router, dependencies=[Depends(guard)])
    _mount_web(app)

    @app.middleware("http")
    async def security_headers(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        response = await call_next(request)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        if request.url.path not in DOCS_PATHS:  # Swagger UI loads its assets from a CDN
            response.headers.setdefault("Content-Security-Policy", CSP)
        return response

    return app


def _mount_web(app: FastAPI) -> None:
    if not (WEB_DIR / "index.html").exists():
        return
    app.mount("/web", StaticFiles(directory=WEB_DIR), name="web")

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(WEB_DIR / "index.html", headers={"Cache-Control": "no-store"})
