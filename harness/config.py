"""Config overrides resolved into what the kernel runs on: an `AppConfig` and `KernelLimits`.

The resolved config has a public form (no secrets: provider settings with registry defaults
filled in, the language, the limits) and a hash of it, which runs and campaign arms carry:
two runs with the same hash asked the same models the same way.

Example::

    resolved = resolve_config(ConfigOverrides(provider="fake", seed=3), "en")
    resolved.config.active_provider, resolved.sha256[:12]
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from typing import Any

from harness.records.script import ConfigOverrides
from tavern.llm.registry import get_spec, resolve_settings
from tavern.records.config import SECRET_FIELDS, AppConfig, ProviderSettings
from tavern.records.scenario import Language
from tavern.runner import KernelLimits
from tavern.runner.factory import default_limits

DEFAULT_PROVIDER = "fake"
"""The provider when neither the script, the arm nor the command names one."""
_LIMIT_FIELDS = ("director_history_tokens", "prose_transcript_tokens", "character_memory_tokens")


@dataclass(frozen=True)
class ResolvedConfig:
    """The config and limits a run uses, with their public form and its hash."""

    config: AppConfig
    limits: KernelLimits
    public: dict[str, Any]
    sha256: str

    @property
    def provider(self) -> str:
        """Provider name."""
        return self.config.active_provider

    @property
    def model(self) -> str:
        """Model name, registry default filled in."""
        return str(self.public["settings"]["model"])


def canonical_sha256(data: Any) -> str:
    """SHA-256 of `data` as canonical JSON (sorted keys, no spaces).

    >>> canonical_sha256({"b": 1, "a": [1, 2]})[:12]
    '94a786c3662b'
    """
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def provider_settings(overrides: ConfigOverrides, base: ProviderSettings) -> ProviderSettings:
    """`base` (a stored config's settings, for its key) with the overrides' settings on top."""
    data = overrides.model_dump(
        include={
            "model",
            "api_base",
            "temperature",
            "seed",
            "max_tokens",
            "max_attempts",
            "timeout_s",
            "options",
        },
        exclude_none=True,
    )
    data = {k: v for k, v in data.items() if v != {}}
    return base.model_copy(update=data)


def resolve_config(
    overrides: ConfigOverrides,
    language: Language,
    *,
    base: AppConfig | None = None,
    with_seed: bool = True,
) -> ResolvedConfig:
    """Resolve overrides for `language` into a config, limits and a hashed public form.

    Args:
        overrides: Script, arm and command overrides, already merged.
        language: The script's language (every model answers in it).
        base: A stored config whose provider settings (a key, an endpoint) the overrides
            start from; the defaults when None.
        with_seed: Whether the seed belongs in the public form (a campaign arm hashes its
            config without the per-repeat seed).

    Raises:
        KeyError: unknown provider.
        ValueError: settings the provider refuses (a key-bearing provider without a key,
            an endpoint its URL policy refuses).
    """
    name = overrides.provider or DEFAULT_PROVIDER
    get_spec(name)
    stored = (base or AppConfig()).settings_for(name)
    settings = provider_settings(overrides, stored)
    config = AppConfig(active_provider=name, language=language, providers={name: settings})
    resolved = resolve_settings(name, settings)
    limits = default_limits(config)
    if overrides.context_tokens is not None:
        limits = KernelLimits.for_context(overrides.context_tokens, resolved.max_tokens)
    budgets = {
        field: getattr(overrides, field)
        for field in _LIMIT_FIELDS
        if getattr(overrides, field) is not None
    }
    limits = dataclasses.replace(limits, **budgets)
    public_settings = resolved.model_dump(mode="json", exclude=set(SECRET_FIELDS))
    if not with_seed:
        public_settings.pop("seed", None)
    public = {
        "provider": name,
        "language": language,
        "settings": public_settings,
        "limits": {k: _plain(v) for k, v in dataclasses.asdict(limits).items()},
    }
    return ResolvedConfig(config, limits, public, canonical_sha256(public))


def _plain(value: Any) -> Any:
    return dict(value) if isinstance(value, dict) else value
