"""GET/PUT /config: provider and language settings; secrets never returned."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException
from pydantic import SecretStr

from tavern.app.deps import ServicesDep, SlotDep
from tavern.app.schemas import ConfigPublic, ConfigUpdate
from tavern.llm.errors import UrlPolicyError
from tavern.llm.registry import get_spec, provider_catalogue, resolve_settings
from tavern.llm.url_policy import check_api_base
from tavern.records.config import AppConfig, ProviderSettings, redact_config

router = APIRouter(prefix="/config", tags=["config"])


def to_public(config: AppConfig) -> ConfigPublic:
    """The redacted view of a config."""
    redacted = redact_config(config)
    active = config.settings_for()
    return ConfigPublic(
        active_provider=config.active_provider,
        language=config.language,
        api_key_configured=bool(active.api_key and active.api_key.get_secret_value()),
        providers=redacted["providers"],
        catalogue=provider_catalogue(),
    )


def _updated_settings(
    current: ProviderSettings, name: str, update: ConfigUpdate
) -> ProviderSettings:
    changes: dict[str, object] = {}
    if update.api_base is not None:
        api_base = update.api_base.strip() or None
        if api_base is not None:
            spec = get_spec(name)
            if spec.url_policy != "none":
                api_base = check_api_base(
                    name, api_base, policy=spec.url_policy, official_hosts=spec.official_hosts
                )
        changes["api_base"] = api_base
    if update.model is not None:
        changes["model"] = update.model.strip() or None
    if update.clear_api_key:
        changes["api_key"] = None
    elif update.api_key is not None and update.api_key.strip():
        changes["api_key"] = SecretStr(update.api_key.strip())
    return current.model_copy(update=changes)


def merge_update(current: AppConfig, update: ConfigUpdate) -> AppConfig:
    """Apply an update, validating the result fully before anything is written.

    Raises:
        HTTPException: 422 for an unknown provider, a URL the provider's policy refuses, or an
            active provider that cannot run with its settings (a key-bearing one without key).
    """
    active = update.active_provider or current.active_provider
    target = update.provider or active
    try:
        for name in {active, target}:
            get_spec(name)
        providers = dict(current.providers)
        providers[target] = _updated_settings(current.settings_for(target), target, update)
        merged = current.model_copy(
            update={
                "active_provider": active,
                "language": update.language or current.language,
                "providers": providers,
            }
        )
        resolve_settings(active, merged.settings_for(active))
    except (KeyError, UrlPolicyError, ValueError) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
        raise HTTPException(422, str(message)) from exc
    return merged


@router.get("")
def get_config(slot: SlotDep) -> ConfigPublic:
    """The active config with every secret removed."""
    return to_public(slot.config)


@router.put("")
async def put_config(update: ConfigUpdate, slot: SlotDep, services: ServicesDep) -> ConfigPublic:
    """Validate, persist atomically, and swap the runner when anything changed."""
    config = await slot.update(services, lambda current: merge_update(current, update))
    return to_public(config)
