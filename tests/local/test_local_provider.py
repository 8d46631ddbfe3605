"""The `local` provider: registered, the default, lazy, refused in tests, llama_cpp underneath."""

from __future__ import annotations

import asyncio

import httpx
import pytest

import tavern.llm
from tavern.llm.client import LlmClient
from tavern.llm.errors import LlmCallError
from tavern.llm.local.paths import MODEL_NAME, LocalPaths
from tavern.llm.local.provider import (
    LocalProvider,
    server_options,
    shared_server,
)
from tavern.llm.local.server import LocalServer, ServerOptions
from tavern.llm.registry import build_provider, get_spec
from tavern.records.config import AppConfig, ProviderSettings
from tavern.records.journal import ChatMessage, LlmCallLine
from tavern.settings import TavernSettings

SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "string"}},
    "required": ["answer"],
    "additionalProperties": False,
}


def test_local_is_registered_and_the_default() -> None:
    spec = get_spec("local")
    assert spec.default_model == MODEL_NAME
    assert spec.url_policy == "private" and not spec.requires_key
    assert AppConfig().active_provider == "local"
    assert TavernSettings().provider == "local"


def test_building_the_provider_starts_nothing(cache_root: object) -> None:
    async def build() -> LocalProvider:
        async with httpx.AsyncClient() as http:
            provider = build_provider(AppConfig(), http)
            assert isinstance(provider, LocalProvider)
            return provider

    provider = asyncio.run(build())
    assert not provider.server.running


def test_options_come_from_settings_and_are_checked() -> None:
    options = server_options(ProviderSettings(options={"slots": 2, "threads": 1}))
    assert options == ServerOptions(slots=2, threads=1)
    with pytest.raises(ValueError, match="slots"):
        server_options(ProviderSettings(options={"slots": "many"}))


def _client(provider: LocalProvider, lines: list[LlmCallLine]) -> LlmClient:
    return LlmClient(provider, sink=lines.append)


def _ask(client: LlmClient) -> dict[str, object]:
    return asyncio.run(
        client.call_json(
            agent="director",
            messages=[ChatMessage(role="user", content="say ok")],
            schema=SCHEMA,
            session_id="s1",
            turn_number=1,
        )
    )


def test_in_tests_a_call_is_refused_before_any_server_starts(fake_install: LocalPaths) -> None:
    server = LocalServer(fake_install.server_binary, fake_install.model_file)
    lines: list[LlmCallLine] = []

    async def run() -> None:
        async with httpx.AsyncClient() as http:
            provider = LocalProvider(http_client=http, server=lambda: server)
            with pytest.raises(LlmCallError) as info:
                await _client(provider, lines).call_json(
                    agent="director",
                    messages=[ChatMessage(role="user", content="x")],
                    schema=SCHEMA,
                    session_id="s",
                    turn_number=0,
                )
            assert info.value.error_type == "refused"

    asyncio.run(run())
    assert not server.running
    assert [line.error_type for line in lines] == ["refused"]


def test_first_call_starts_the_server_and_goes_through_llama_cpp(
    fake_install: LocalPaths, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tavern.llm, "ALLOW_LIVE_CALLS", True)  # loopback fake, no network
    server = LocalServer(
        fake_install.server_binary, fake_install.model_file, ServerOptions(startup_timeout_s=15)
    )
    lines: list[LlmCallLine] = []

    async def run() -> list[dict[str, object]]:
        async with httpx.AsyncClient() as http:
            provider = LocalProvider(http_client=http, server=lambda: server)
            client = _client(provider, lines)
            ask = {
                "agent": "director",
                "messages": [ChatMessage(role="user", content="say ok " * 20)],
                "schema": SCHEMA,
                "session_id": "s1",
                "turn_number": 1,
            }
            first = await client.call_json(**ask)
            pid = server.pid
            second = await client.call_json(**ask)
            assert server.pid == pid  # one server for both calls
            return [first, second]

    try:
        answers = asyncio.run(run())
    finally:
        server.stop()
    assert answers == [{"answer": "ok"}, {"answer": "ok"}]
    assert [(line.provider, line.model) for line in lines] == [("local", MODEL_NAME)] * 2
    assert lines[0].request.response_format is not None
    assert lines[0].request.response_format["type"] == "json_schema"
    assert lines[0].prompt_cache.hit_tokens is not None and lines[0].error is None


def test_shared_server_is_one_per_configuration(tmp_path: object) -> None:
    from pathlib import Path

    paths = LocalPaths(Path(str(tmp_path)))
    a = shared_server(paths, ServerOptions())
    assert shared_server(paths, ServerOptions()) is a
    assert shared_server(paths, ServerOptions(slots=1)) is not a


def test_a_missing_model_is_a_provider_error_naming_the_fix(
    fake_install: LocalPaths, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tavern.llm, "ALLOW_LIVE_CALLS", True)
    fake_install.model_file.unlink()
    server = LocalServer(fake_install.server_binary, fake_install.model_file)

    async def run() -> None:
        async with httpx.AsyncClient() as http:
            await LocalProvider(http_client=http, server=lambda: server).start()

    with pytest.raises(LlmCallError, match="tavern model install") as info:
        asyncio.run(run())
    assert info.value.error_type == "provider"
