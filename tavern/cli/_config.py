"""Config resolution shared by the commands that run a provider (`serve`, `play`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tavern.records.config import AppConfig
    from tavern.settings import TavernSettings


def resolve_config(
    command: str, settings: TavernSettings, provider: str | None
) -> AppConfig | None:
    """Load the stored config with an optional provider override.

    Prints a clear message and returns None when the config is unreadable or the provider is
    unknown, so the caller exits 2 with nothing started.
    """
    from tavern.app.config_store import ConfigError, load_config
    from tavern.llm.registry import provider_names

    try:
        config = load_config(settings.data_dir, default_provider=settings.provider)
    except ConfigError as exc:
        print(f"tavern {command}: {exc}")
        return None
    if provider:
        config = config.model_copy(update={"active_provider": provider})
    if config.active_provider not in provider_names():
        known = provider_names()
        print(f"tavern {command}: unknown provider {config.active_provider!r}; known: {known}")
        return None
    return config
