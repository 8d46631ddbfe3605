"""GET/PUT /config: redaction, validation, atomic persistence, runner swap."""

from __future__ import annotations

import json

import anyio
import pytest
from app_helpers import Api, Hold

from tavern.app.config_store import ConfigError, config_path, load_config

pytestmark = pytest.mark.anyio

CANARY = "sk-canary-7f3a9c1e5b"


async def test_get_config_redacts(api: Api) -> None:
    body = (await api.client.get("/config")).json()
    assert body["active_provider"] == "fake" and body["api_key_configured"] is False
    assert {"fake", "deepseek", "llama_cpp"} <= {p["name"] for p in body["catalogue"]}


async def test_key_is_stored_never_returned_and_blank_keeps_it(api: Api) -> None:
    set_key = await api.client.put(
        "/config", json={"active_provider": "deepseek", "api_key": CANARY}, headers=api.auth
    )
    assert set_key.status_code == 200, set_key.text
    assert CANARY not in set_key.text and set_key.json()["api_key_configured"] is True
    got = await api.client.get("/config")
    assert CANARY not in got.text and got.json()["providers"]["deepseek"]["api_key_configured"]
    on_disk = json.loads(config_path(api.services.data_dir).read_text())
    assert on_disk["providers"]["deepseek"]["api_key"] == CANARY
    assert oct(config_path(api.services.data_dir).stat().st_mode)[-3:] == "600"
    blank = await api.client.put("/config", json={"api_key": "  ", "model": "x"}, headers=api.auth)
    assert blank.json()["api_key_configured"] is True
    assert (
        load_config(api.services.data_dir).providers["deepseek"].api_key.get_secret_value()
        == CANARY
    )  # type: ignore[union-attr]
    cleared = await api.client.put(
        "/config",
        json={"active_provider": "fake", "provider": "deepseek", "clear_api_key": True},
        headers=api.auth,
    )
    assert cleared.json()["providers"]["deepseek"]["api_key_configured"] is False


@pytest.mark.parametrize(
    "body",
    [
        {"active_provider": "nope"},
        {"active_provider": "deepseek"},  # needs a key
        {"active_provider": "deepseek", "api_key": CANARY, "api_base": "https://evil.example/v1"},
        {"active_provider": "llama_cpp", "api_base": "http://8.8.8.8:8080/v1"},
        {"active_provider": "llama_cpp", "api_base": "http://169.254.169.254/v1"},
        {"active_provider": "llama_cpp", "api_base": "http://user:pw@127.0.0.1:8080/v1"},
        {"active_provider": "llama_cpp", "api_base": "ftp://127.0.0.1/"},
        # Issue 41: what PUT /config once stored (hex metadata, hex public, a metadata name
        # behind an allowed suffix, the IPv6 metadata address).
        {"active_provider": "llama_cpp", "api_base": "http://0xa9fea9fe/"},
        {"active_provider": "llama_cpp", "api_base": "http://0x08080808/v1"},
        {"active_provider": "llama_cpp", "api_base": "http://metadata.google.internal/"},
        {"active_provider": "llama_cpp", "api_base": "http://[fd00:ec2::254]/"},
        {"language": "fr"},
        {"unknown": 1},
    ],
)
async def test_refused_updates_write_nothing(api: Api, body: dict[str, object]) -> None:
    before = (await api.client.get("/config")).json()
    built = len(api.built)
    response = await api.client.put("/config", json=body, headers=api.auth)
    assert response.status_code == 422, response.text
    assert CANARY not in response.text
    assert not config_path(api.services.data_dir).exists()
    assert (await api.client.get("/config")).json() == before
    assert len(api.built) == built


async def test_private_api_base_is_accepted_for_llama_cpp(api: Api) -> None:
    response = await api.client.put(
        "/config",
        json={"active_provider": "llama_cpp", "api_base": "http://192.168.1.20:8080/v1/"},
        headers=api.auth,
    )
    assert response.status_code == 200
    assert response.json()["providers"]["llama_cpp"]["api_base"] == "http://192.168.1.20:8080/v1"


async def test_switching_provider_swaps_the_runner(api: Api) -> None:
    first = api.built[-1]
    await api.client.put("/config", json={"language": "pt-BR"}, headers=api.auth)
    assert api.built[-1] is not first
    await api.app.state.runner_slot.drain()
    assert first.http_client is None  # type: ignore[attr-defined]  # closed once idle
    same = await api.client.put("/config", json={"language": "pt-BR"}, headers=api.auth)
    assert same.status_code == 200 and len(api.built) == 2  # no change, no rebuild
    health = (await api.client.get("/health")).json()
    assert health == {"status": "ok", "provider": "fake"}


async def test_concurrent_config_updates_lose_nothing(api: Api) -> None:
    async def put(body: dict[str, object]) -> None:
        r = await api.client.put("/config", json=body, headers=api.auth)
        assert r.status_code == 200

    async with anyio.create_task_group() as group:
        group.start_soon(put, {"language": "pt-BR"})
        group.start_soon(put, {"provider": "llama_cpp", "model": "qwen"})
        group.start_soon(put, {"provider": "deepseek", "api_key": CANARY})
    final = (await api.client.get("/config")).json()
    assert final["language"] == "pt-BR"
    assert final["providers"]["llama_cpp"]["model"] == "qwen"
    assert final["providers"]["deepseek"]["api_key_configured"] is True
    assert load_config(api.services.data_dir).language == "pt-BR"


def test_config_file_version_is_checked(tavern_data_dir) -> None:  # type: ignore[no-untyped-def]
    tavern_data_dir.mkdir(parents=True)
    config_path(tavern_data_dir).write_text('{"schema_version": 99}')
    with pytest.raises(ConfigError, match="schema_version 99"):
        load_config(tavern_data_dir)
    config_path(tavern_data_dir).write_text("{not json")
    with pytest.raises(ConfigError, match="unreadable"):
        load_config(tavern_data_dir)


async def test_journal_pages_never_carry_a_configured_key(api: Api) -> None:
    from tavern.records import LlmCallLine, LlmRequestBody, utc_now
    from tavern.records.journal import ChatMessage
    from tavern.store import JournalWriter

    await api.client.put(
        "/config", json={"provider": "deepseek", "api_key": CANARY}, headers=api.auth
    )
    sid = (
        await api.client.post("/sessions", json={"scenario_id": "the-toll-house"}, headers=api.auth)
    ).json()["id"]
    # Planted violation: a journal line that somehow holds the key (negative control).
    leaked = LlmCallLine(
        ts=utc_now(),
        session_id=sid,
        turn_number=0,
        agent="director",
        provider="fake",
        model="m",
        request=LlmRequestBody(messages=[ChatMessage(role="user", content=f"key={CANARY}")]),
        response=CANARY,
        duration_ms=1,
        attempt_number=1,
        prompt_chars=1,
        prompt_estimated_tokens=1,
    )
    JournalWriter(api.services.data_dir).append(sid, leaked)
    page = await api.client.get(f"/sessions/{sid}/journal")
    assert page.status_code == 200 and page.json()["count"] == 1
    assert CANARY not in page.text and "[redacted]" in page.text


async def test_a_replaced_runner_stays_open_until_its_turn_ends(api_factory) -> None:  # type: ignore[no-untyped-def]
    hold = Hold.new()  # the turn waits in the runner until the swap is done: no timing
    async for api in api_factory(hold=hold):
        sid = (
            await api.client.post(
                "/sessions", json={"scenario_id": "the-toll-house"}, headers=api.auth
            )
        ).json()["id"]
        old = api.built[-1].inner
        results: dict[str, int] = {}

        async def turn(api: Api = api, sid: str = sid, results: dict[str, int] = results) -> None:
            headers = {**api.auth, "Accept": "text/event-stream"}
            r = await api.client.post(
                f"/sessions/{sid}/turns", json={"speech": "hi"}, headers=headers
            )
            results["turn"] = r.status_code
            assert "event: result" in r.text, r.text

        async with anyio.create_task_group() as group:
            group.start_soon(turn)
            with anyio.fail_after(10):
                await hold.entered.wait()
            swap = await api.client.put("/config", json={"language": "pt-BR"}, headers=api.auth)
            assert swap.status_code == 200
            assert old.http_client is not None  # the turn still holds it
            hold.release.set()
        await api.app.state.runner_slot.drain()
        assert results == {"turn": 200} and old.http_client is None


async def test_real_turns_never_journal_the_key(api: Api) -> None:
    set_key = await api.client.put(
        "/config", json={"provider": "fake", "api_key": CANARY}, headers=api.auth
    )
    assert set_key.status_code == 200
    sid = (
        await api.client.post("/sessions", json={"scenario_id": "the-toll-house"}, headers=api.auth)
    ).json()["id"]
    turn = await api.client.post(f"/sessions/{sid}/turns", json={"speech": "hi"}, headers=api.auth)
    assert turn.status_code == 200 and CANARY not in turn.text
    page = await api.client.get(f"/sessions/{sid}/journal?limit=500")
    assert any(line["kind"] == "llm_call" for line in page.json()["data"])
    # Neither the key nor the scrubber's mark: the LLM layer itself kept the key out.
    assert CANARY not in page.text and "[redacted]" not in page.text
    raw = list(api.services.data_dir.rglob("*.jsonl"))
    assert raw and all(CANARY not in p.read_text() for p in raw)
