"""Application config: which provider is active, the response language, per-provider settings.

The config is a record like any other, so the app can persist it and the schema can be
exported. Provider *defaults* (api base, model, which fields are secret) live in the provider
registry (`tavern.llm.registry`), which is the source of truth for the catalogue; a field left
`None` here means "use the registry default".

Secrets are `SecretStr`: they never print, and `redact_config` is the one way to turn a config
into something that may leave the server (HTTP responses, logs, the browser).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, SecretStr

from tavern.records._base import Record
from tavern.records.scenario import Language

CONFIG_SCHEMA_VERSION = 1

StructuredOutput = Literal["json_schema", "json_object_schema", "auto"]
"""How a llama.cpp-compatible server is asked for schema-constrained output:
`json_schema` (C++ llama-server), `json_object_schema` (`{type: json_object, schema}`, which
llama-cpp-python also accepts), or `auto` (try `json_schema`, fall back once on a 5xx/4xx)."""

FilterProfile = Literal["small_local", "minimal", "off"]
"""Which filter rules repair a model's narration and replies (`tavern.filters.PROFILES`):
`small_local` every rule (small local models), `minimal` only the rules guarding what no
model may do (large models), `off` none (the model's text as written)."""
DEFAULT_FILTER_PROFILES: dict[str, FilterProfile] = {"deepseek": "minimal"}
"""The profile of a provider whose settings name none; any other provider gets
`small_local` (the embedded model, llama.cpp servers, and the fake and replay providers,
which stand in for them in tests and replays)."""

SECRET_FIELDS: tuple[str, ...] = ("api_key",)
"""Fields of `ProviderSettings` that hold credentials."""


class ProviderSettings(Record):
    """Settings of one provider; `None` means the registry default for that provider."""

    api_base: str | None = None
    """Base URL, e.g. `http://127.0.0.1:8080/v1`; checked against the provider's URL policy."""
    model: str | None = None
    """Model name sent to the provider and written to the journal."""
    api_key: SecretStr | None = None
    """Credential for key-bearing providers; never journaled, never returned by the API."""
    timeout_s: float | None = Field(default=None, gt=0)
    """Per-attempt timeout in seconds."""
    max_tokens: dict[str, int] = Field(default_factory=dict)
    """Output token limit per agent role (`director`, `prose`, `character`, ...; `default`)."""
    max_attempts: int | None = Field(default=None, ge=1, le=10)
    """Attempts per call, the first included (bounded retry)."""
    backoff_s: float | None = Field(default=None, ge=0)
    """Base of the exponential backoff between attempts, in seconds."""
    temperature: float | None = Field(default=None, ge=0, le=2)
    """Sampling temperature, or None for the provider's default."""
    seed: int | None = None
    """Sampling seed where the provider supports one (fake: the generator seed)."""
    structured_output: StructuredOutput | None = None
    """Schema-constrained output style for llama.cpp-compatible servers."""
    options: dict[str, str | int | float | bool] = Field(default_factory=dict)
    """Provider-specific, non-secret extras (fake: `mode`; replay: `journal`)."""
    filter_profile: FilterProfile | None = None
    """Filter profile for this provider's answers, or None for `DEFAULT_FILTER_PROFILES`."""


class AppConfig(Record):
    """The whole application config."""

    schema_version: int = CONFIG_SCHEMA_VERSION
    """Config format version."""
    active_provider: str = "local"
    """Registry name of the provider every agent call goes to."""
    language: Language = "en"
    """Language every model is asked to answer in."""
    providers: dict[str, ProviderSettings] = Field(default_factory=dict)
    """Provider name -> its settings; missing providers use registry defaults."""

    def settings_for(self, provider: str | None = None) -> ProviderSettings:
        """Return the settings of `provider` (default: the active one), empty if unset."""
        return self.providers.get(provider or self.active_provider, ProviderSettings())

    def filter_profile_for(self, provider: str | None = None) -> FilterProfile:
        """The filter profile of `provider` (default: the active one): its settings' own,
        else its default.

        >>> AppConfig(active_provider="deepseek").filter_profile_for()
        'minimal'
        >>> config = AppConfig(providers={"local": ProviderSettings(filter_profile="off")})
        >>> config.filter_profile_for()
        'off'
        """
        name = provider or self.active_provider
        own = self.settings_for(name).filter_profile
        return own or DEFAULT_FILTER_PROFILES.get(name, "small_local")


def redact_config(config: AppConfig) -> dict[str, Any]:
    """Return a JSON-ready dict of `config` with every secret removed.

    Each provider entry gains `api_key_configured: bool` instead of its key, so a UI can say
    "a key is set" without ever holding it.

    >>> cfg = AppConfig(providers={"deepseek": ProviderSettings(api_key=SecretStr("sk-x"))})
    >>> redact_config(cfg)["providers"]["deepseek"]["api_key_configured"]
    True
    """
    data = config.model_dump(mode="json", exclude={"providers"})
    providers: dict[str, Any] = {}
    for name, settings in config.providers.items():
        entry = settings.model_dump(mode="json", exclude=set(SECRET_FIELDS))
        entry["api_key_configured"] = bool(
            settings.api_key is not None and settings.api_key.get_secret_value()
        )
        providers[name] = entry
    data["providers"] = providers
    return data
