"""Removing configured credentials from anything on its way to a client."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from tavern.records.config import AppConfig

REDACTED = "[redacted]"


def secret_values(config: AppConfig) -> list[str]:
    """Every non-blank credential in `config`."""
    values = []
    for settings in config.providers.values():
        if settings.api_key is not None and settings.api_key.get_secret_value():
            values.append(settings.api_key.get_secret_value())
    return values


def _scrub(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, REDACTED)
        return value
    if isinstance(value, dict):
        return {k: _scrub(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v, secrets) for v in value]
    return value


def scrub_secrets(model: BaseModel, config: AppConfig) -> dict[str, Any]:
    """The JSON form of `model` with every configured credential replaced by `[redacted]`."""
    data: dict[str, Any] = model.model_dump(mode="json")
    secrets = secret_values(config)
    return _scrub(data, secrets) if secrets else data
