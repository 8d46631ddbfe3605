"""AppConfig, redact_config and the provider registry."""

from __future__ import annotations

import json

import httpx
import pytest
from pydantic import SecretStr, ValidationError

from tavern.llm import (
    FakeProvider,
    LlmClient,
    ProviderSpec,
    UrlPolicyError,
    build_provider,
    get_spec,
    provider_catalogue,
    provider_names,
    register_provider,
    resolve_settings,
)
from tavern.llm import registry as registry_module
from tavern.records.config import AppConfig, ProviderSettings, redact_config

from .helpers import CANARY_KEY, Journal, messages

pytestmark = pytest.mark.anyio


def test_redact_config_removes_secrets_and_flags_presence() -> None:
    config = AppConfig(
        active_provider="deepseek",
        language="pt-BR",
        providers={
            "deepseek": ProviderSettings(api_key=SecretStr(CANARY_KEY), timeout_s=30),
            "llama_cpp": ProviderSettings(api_base="http://127.0.0.1:8080/v1"),
        },
    )
    redacted = redact_config(config)
    text = json.dumps(redacted)
    assert CANARY_KEY not in text and 'api_key"' not in text
    assert redacted["providers"]["deepseek"]["api_key_configured"] is True
    assert redacted["providers"]["llama_cpp"]["api_key_configured"] is False
    assert redacted["language"] == "pt-BR" and redacted["providers"]["deepseek"]["timeout_s"] == 30
    # Negative control: the plain dump would leak it, which is why redact_config exists.
    assert CANARY_KEY in json.dumps(
        config.model_dump(mode="python"), default=lambda s: s.get_secret_value()
    )
    assert CANARY_KEY not in repr(config) and CANARY_KEY not in config.model_dump_json()


def test_config_is_strict() -> None:
    with pytest.raises(ValidationError):
        AppConfig.model_validate({"language": "fr"})
    with pytest.raises(ValidationError):
        ProviderSettings.model_validate({"api_base": "x", "bogus": 1})
    with pytest.raises(ValidationError):
        ProviderSettings(structured_output="grammar")  # type: ignore[arg-type]


def test_builtins_registered_through_the_same_hook() -> None:
    assert {"llama_cpp", "deepseek", "fake", "replay"} <= set(provider_names())
    catalogue = {entry["name"]: entry for entry in provider_catalogue()}
    assert catalogue["deepseek"]["secret_fields"] == ["api_key"]
    assert catalogue["deepseek"]["requires_key"] is True
    assert catalogue["deepseek"]["forced"] == {"thinking": {"type": "disabled"}}
    assert catalogue["llama_cpp"]["url_policy"] == "private"
    assert catalogue["llama_cpp"]["forced"] == {"cache_prompt": True}
    with pytest.raises(KeyError, match="unknown provider"):
        get_spec("openai")


def test_resolve_settings_fills_defaults_and_checks_urls() -> None:
    resolved = resolve_settings("llama_cpp")
    assert resolved.api_base == "http://127.0.0.1:8080/v1"
    assert resolved.structured_output == "auto" and resolved.max_attempts == 3
    with pytest.raises(UrlPolicyError):
        resolve_settings("llama_cpp", ProviderSettings(api_base="https://api.deepseek.com"))


async def test_an_extension_registers_and_builds_like_a_builtin(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(registry_module, "_SPECS", dict(registry_module._SPECS))
    seen: list[ProviderSettings] = []

    def factory(settings: ProviderSettings, http: httpx.AsyncClient) -> FakeProvider:
        seen.append(settings)
        return FakeProvider("function", fn=lambda r: {"speech": "from extension"})

    register_provider(
        ProviderSpec(
            name="local_test",
            factory=factory,
            url_policy="private",
            default_api_base="http://127.0.0.1:0/v1",
            default_model="qwen-0.5b",
        )
    )
    config = AppConfig(active_provider="local_test")
    provider = build_provider(config, httpx.AsyncClient())
    assert seen[0].model == "qwen-0.5b" and seen[0].api_base == "http://127.0.0.1:0/v1"
    client = LlmClient.from_config(config, httpx.AsyncClient(), sink=Journal())
    out = await client.call_json(
        agent="a", messages=messages(), schema={"type": "object"}, session_id="s", turn_number=0
    )
    assert out == {"speech": "from extension"} and provider.source == "fake"
    with pytest.raises(UrlPolicyError):
        build_provider(
            AppConfig(
                active_provider="local_test",
                providers={"local_test": ProviderSettings(api_base="http://1.1.1.1")},
            ),
            httpx.AsyncClient(),
        )


async def test_from_config_applies_language_limits_and_fake_mode() -> None:
    config = AppConfig(
        active_provider="fake",
        language="pt-BR",
        providers={
            "fake": ProviderSettings(
                options={"mode": "adversary"}, max_tokens={"director": 99}, seed=4
            )
        },
    )
    journal = Journal()
    client = LlmClient.from_config(config, httpx.AsyncClient(), sink=journal)
    assert client.language == "pt-BR" and client.resolve_max_tokens("director") == 99
    await client.call_json(
        agent="director",
        messages=messages(),
        schema={"type": "object"},
        session_id="s",
        turn_number=0,
    )
    assert journal[0].model == "fake-adversary" and journal[0].request.max_tokens == 99
    assert journal[0].request.seed == 4
    with pytest.raises(ValueError, match="parrot and adversary"):
        build_provider(
            AppConfig(
                active_provider="fake",
                providers={"fake": ProviderSettings(options={"mode": "function"})},
            ),
            httpx.AsyncClient(),
        )
