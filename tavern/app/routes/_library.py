"""Checks shared by the scenario and character routes."""

from __future__ import annotations

from fastapi import HTTPException, Response


def require_matching_id(path_id: str, body_id: str) -> None:
    """Refuse a body whose id differs from the path (422, nothing written)."""
    if path_id != body_id:
        raise HTTPException(422, f"id in body ({body_id!r}) differs from the path ({path_id!r})")


def attachment(response: Response, filename: str) -> None:
    """Answer as a file download named `filename` (a slug id, so no quoting is needed)."""
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
