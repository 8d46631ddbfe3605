"""The one settings class, read from the environment and built lazily.

Nothing here runs at import: `get_settings()` builds the settings on first use and caches
them; tests call `get_settings.cache_clear()` after changing the environment.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class TavernSettings(BaseSettings):
    """Process-wide settings; every field can be set as `TAVERN_<FIELD>` in the environment."""

    model_config = SettingsConfigDict(env_prefix="TAVERN_", extra="ignore")

    data_dir: Path = Path("./.tavern-data")
    """Where sessions, journals, library copies and model files live (git-ignored)."""
    host: str = "127.0.0.1"
    """Interface the HTTP server binds; loopback by default."""
    port: int = Field(default=8765, ge=1, le=65535)
    """Port the HTTP server binds."""
    provider: str = "local"
    """Default LLM provider name (`local`, `llama_cpp`, `deepseek`, `fake`, `replay`)."""


@lru_cache(maxsize=1)
def get_settings() -> TavernSettings:
    """Return the process settings, built on first call and cached.

    Returns:
        The settings read from the environment at the time of the first call.
    """
    return TavernSettings()
