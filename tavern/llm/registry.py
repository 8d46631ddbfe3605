"""The provider registry: name -> spec (factory, defaults, secret fields, URL policy).

The registry is the config catalogue. Each module of `PROVIDER_MODULES` exposes
`register_providers(register)` and is imported lazily on first use; a module that does not
exist is skipped. To add a provider, list its module and register a `ProviderSpec` there.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from tavern.llm.provider import Provider
from tavern.llm.url_policy import UrlPolicy, check_api_base
from tavern.records.config import AppConfig, ProviderSettings, StructuredOutput

ProviderFactory = Callable[[ProviderSettings, httpx.AsyncClient], Provider]
"""Build a provider from *resolved* settings (defaults filled, URL checked) and the shared
HTTP client. Factories must not do I/O; start servers lazily on the first call."""

PROVIDER_MODULES: tuple[str, ...] = (
    "tavern.llm.llama_cpp",
    "tavern.llm.deepseek",
    "tavern.llm.fake",
    "tavern.llm.replay",
    "tavern.llm.local",
)


@dataclass(frozen=True)
class ProviderSpec:
    """Everything the app and the client need to know about a provider, by name."""

    name: str
    factory: ProviderFactory
    description: str = ""
    url_policy: UrlPolicy = "none"
    official_hosts: tuple[str, ...] = ()
    default_api_base: str | None = None
    default_model: str = "default"
    requires_key: bool = False
    secret_fields: tuple[str, ...] = ()
    forced: dict[str, Any] = field(default_factory=dict)
    """Request settings the adapter always sends, whatever the config says (for the UI)."""
    default_timeout_s: float = 120.0
    default_max_attempts: int = 3
    default_backoff_s: float = 0.5
    default_structured_output: StructuredOutput | None = None


Register = Callable[[ProviderSpec], None]

_SPECS: dict[str, ProviderSpec] = {}
_loaded = False


def register_provider(spec: ProviderSpec) -> None:
    """Add or replace a provider spec (last registration wins, so tests can override)."""
    _SPECS[spec.name] = spec


def _load_modules() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True  # set first: a provider module may itself import the registry
    try:
        _import_provider_modules()
    except BaseException:
        _loaded = False  # a broken module must not leave a silently partial registry
        raise


def _import_provider_modules() -> None:
    for module_name in PROVIDER_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                continue  # optional provider module not present in this build
            raise
        hook = getattr(module, "register_providers", None)
        if hook is not None:
            hook(register_provider)


def get_spec(name: str) -> ProviderSpec:
    """Return the spec registered under `name`.

    Raises:
        KeyError: no such provider, with the known names in the message.
    """
    _load_modules()
    try:
        return _SPECS[name]
    except KeyError:
        raise KeyError(f"unknown provider {name!r}; known: {sorted(_SPECS)}") from None


def provider_names() -> list[str]:
    """Names of every registered provider, sorted."""
    _load_modules()
    return sorted(_SPECS)


def provider_catalogue() -> list[dict[str, Any]]:
    """A JSON-ready description of every provider, for the settings UI (no secrets)."""
    _load_modules()
    return [
        {
            "name": spec.name,
            "description": spec.description,
            "url_policy": spec.url_policy,
            "official_hosts": list(spec.official_hosts),
            "default_api_base": spec.default_api_base,
            "default_model": spec.default_model,
            "requires_key": spec.requires_key,
            "secret_fields": list(spec.secret_fields),
            "forced": spec.forced,
        }
        for spec in sorted(_SPECS.values(), key=lambda s: s.name)
    ]


def resolve_settings(name: str, settings: ProviderSettings | None = None) -> ProviderSettings:
    """Fill `settings` with the registry defaults of `name` and check its api_base.

    Raises:
        KeyError: unknown provider.
        UrlPolicyError: the api_base breaks the provider's URL policy.
        ValueError: a key-bearing provider without a key.
    """
    spec = get_spec(name)
    settings = settings or ProviderSettings()
    api_base = settings.api_base or spec.default_api_base
    if api_base is not None and spec.url_policy != "none":
        api_base = check_api_base(
            name, api_base, policy=spec.url_policy, official_hosts=spec.official_hosts
        )
    if spec.requires_key and not (settings.api_key and settings.api_key.get_secret_value()):
        raise ValueError(f"provider {name!r} needs an api_key")
    return settings.model_copy(
        update={
            "api_base": api_base,
            "model": settings.model or spec.default_model,
            "timeout_s": settings.timeout_s or spec.default_timeout_s,
            "max_attempts": settings.max_attempts or spec.default_max_attempts,
            "backoff_s": (
                spec.default_backoff_s if settings.backoff_s is None else settings.backoff_s
            ),
            "structured_output": settings.structured_output or spec.default_structured_output,
        }
    )


def build_provider(
    config: AppConfig, http_client: httpx.AsyncClient, name: str | None = None
) -> Provider:
    """Build the provider `name` (default: the config's active one) over the shared client."""
    name = name or config.active_provider
    spec = get_spec(name)
    return spec.factory(resolve_settings(name, config.settings_for(name)), http_client)


def secret_values(config: AppConfig) -> list[str]:
    """Every credential in `config`, so journal writers can prove none slipped through."""
    values = []
    for settings in config.providers.values():
        if settings.api_key is not None and settings.api_key.get_secret_value():
            values.append(settings.api_key.get_secret_value())
    return values
