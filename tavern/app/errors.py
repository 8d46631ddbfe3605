"""One table from exceptions to HTTP statuses, and the handlers that apply it.

Nothing a client sends should produce a 500: bad bodies and ids are 422, unknown ids 404,
version and concurrency conflicts 409. The catch-all handler exists for our own bugs: it
logs the traceback and answers with a generic message that carries no internals.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import ValidationError

from tavern.runner.interface import RunnerError
from tavern.store import (
    InvalidIdError,
    InvalidTurn,
    NotInLibrary,
    SessionNotFound,
    StoreError,
)

log = logging.getLogger("tavern.app")

_STORE_STATUS: tuple[tuple[type[StoreError], int], ...] = (
    (NotInLibrary, 404),
    (SessionNotFound, 404),
    (InvalidIdError, 422),
    (InvalidTurn, 422),
    # Built-in writes, stale revisions, foreign schema versions, taken ids, nothing to undo,
    # unreadable journals: the request is fine, the state it meets is not.
    (StoreError, 409),
)


def validation_message(errors: Sequence[Any]) -> str:
    """A one-line summary of pydantic/FastAPI validation errors."""
    parts = []
    for err in list(errors)[:8]:
        loc = ".".join(str(p) for p in err.get("loc", ()) if p != "body") or "body"
        parts.append(f"{loc}: {err.get('msg', 'invalid')}")
    return "; ".join(parts) or "invalid input"


def describe_exception(exc: BaseException) -> tuple[int, str]:
    """Map an exception to `(status, client-safe message)`; unknown ones are logged as 500."""
    if isinstance(exc, RunnerError):
        return exc.status, str(exc) or type(exc).__name__
    if isinstance(exc, HTTPException):
        return exc.status_code, str(exc.detail)
    if isinstance(exc, RequestValidationError | ValidationError):
        return 422, validation_message(exc.errors())
    if isinstance(exc, StoreError):
        for kind, status in _STORE_STATUS:
            if isinstance(exc, kind):
                return status, str(exc)
    log.error("unhandled error", exc_info=exc)
    return 500, "internal error (logged on the server)"


def _limit(ctx: Any) -> int | float | None:
    """The bound a length or size error names (`max_length`, `ge`, ...), for the UI's
    plain-words message; nothing else of the context leaves (a pattern is not a message)."""
    if not isinstance(ctx, dict):
        return None
    for key in ("max_length", "min_length", "le", "ge", "lt", "gt"):
        value = ctx.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return value
    return None


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers on `app`."""

    async def on_validation(request: Request, exc: Exception) -> JSONResponse:
        errors = exc.errors() if isinstance(exc, RequestValidationError | ValidationError) else []
        safe = [
            {
                "loc": [str(p) for p in e.get("loc", ())],
                "msg": str(e.get("msg")),
                "type": str(e.get("type", "")),
                "limit": _limit(e.get("ctx")),
            }
            for e in errors
        ]
        return JSONResponse({"detail": validation_message(errors), "errors": safe}, status_code=422)

    async def on_known(request: Request, exc: Exception) -> JSONResponse:
        status, detail = describe_exception(exc)
        return JSONResponse({"detail": detail, "error": type(exc).__name__}, status_code=status)

    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(ValidationError, on_validation)
    app.add_exception_handler(RunnerError, on_known)
    app.add_exception_handler(StoreError, on_known)
    app.add_exception_handler(Exception, on_known)
