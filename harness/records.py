"""Harness-owned records. They join `data_schemas/` through the `tavern.schemas` entry point."""

from __future__ import annotations

from typing import Any

SCHEMAS: dict[str, Any] = {}
"""Schema name -> pydantic model or TypeAdapter, exported by `tavern schemas export`."""
