"""Replay: record a session with the fake provider, replay it identically, refuse mismatches."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from tavern.agents import character, director
from tavern.llm import FakeProvider, LlmCallError, LlmClient, RetryPolicy, build_provider
from tavern.llm.journal_reader import JournalFormatError, read_journal_lines
from tavern.llm.llama_cpp import LlamaCppProvider
from tavern.llm.replay import ReplayCursor, ReplayProvider
from tavern.llm.replay_server import create_replay_app
from tavern.records import ChatMessage, LlmCallLine
from tavern.records.config import AppConfig, ProviderSettings

from .helpers import Journal

pytestmark = pytest.mark.anyio
SCHEMAS = {
    "director": director.OUTPUT_SCHEMA,
    "character:C2": character.OUTPUT_SCHEMA,
}
# (agent, turn) in session order; one call is made to fail once so the journal holds a retry.
PLAN = [("director", 1), ("character:C2", 1), ("director", 2), ("character:C2", 2)]


def _prompt(agent: str, turn: int) -> list[ChatMessage]:
    return [
        ChatMessage(role="system", content=f"Role {agent}. Cast C1 Brom, C2 Ilsa."),
        ChatMessage(role="user", content=f"Turn {turn}: the door creaks open."),
    ]


async def _run_session(client: LlmClient) -> list[dict[str, object]]:
    return [
        await client.call_json(
            agent=agent,
            messages=_prompt(agent, turn),
            schema=SCHEMAS[agent],
            session_id="sess-1",
            turn_number=turn,
        )
        for agent, turn in PLAN
    ]


@pytest.fixture
async def recorded(tmp_path: Path) -> tuple[Path, list[dict[str, object]]]:
    path = tmp_path / "journal.jsonl"
    journal = Journal()
    parrot = FakeProvider("parrot", seed=11)
    first_try = {"done": False}

    async def flaky(request: object) -> str:
        # The first director call answers garbage once: the journal then holds a failed attempt
        # that replay must skip.
        if not first_try["done"]:
            first_try["done"] = True
            return "{oops"
        response = await parrot.complete(request)  # type: ignore[arg-type]
        return response.content

    client = LlmClient(FakeProvider("function", fn=flaky), sink=journal, retry=RetryPolicy(2, 0))
    answers = await _run_session(client)
    with path.open("w", encoding="utf-8") as handle:
        for text in journal.texts:
            handle.write(text + "\n")
        handle.write(
            json.dumps(
                {
                    "kind": "commit",
                    "ts": "2026-11-29T22:00:00Z",
                    "session_id": "sess-1",
                    "turn_number": 2,
                    "revision": 2,
                    "record_count": 4,
                    "tick": 2,
                    "control_returned": True,
                    "schema_version": 1,
                }
            )
            + "\n"
        )
    assert len(journal) == len(PLAN) + 1 and journal[0].error_type == "parse"
    return path, answers


async def test_round_trip_in_process(recorded: tuple[Path, list[dict[str, object]]]) -> None:
    path, answers = recorded
    journal = Journal()
    provider = ReplayProvider(ReplayCursor.from_journal(path))
    replayed = await _run_session(LlmClient(provider, sink=journal))
    assert replayed == answers
    assert [line.source for line in journal] == ["replay"] * len(PLAN)
    assert provider.cursor.status()["position"] == len(PLAN)


async def test_round_trip_through_registry(recorded: tuple[Path, list[dict[str, object]]]) -> None:
    path, answers = recorded
    config = AppConfig(
        active_provider="replay",
        providers={"replay": ProviderSettings(options={"journal": str(path)})},
    )
    client = LlmClient.from_config(config, httpx.AsyncClient(), sink=Journal())
    assert await _run_session(client) == answers


async def test_mismatch_refused_without_advancing(
    recorded: tuple[Path, list[dict[str, object]]],
) -> None:
    path, answers = recorded
    provider = ReplayProvider(ReplayCursor.from_journal(path))
    journal = Journal()
    client = LlmClient(provider, sink=journal, retry=RetryPolicy(3, 0))
    with pytest.raises(LlmCallError) as caught:
        await client.call_json(
            agent="character:C2",  # the recording expects the director first
            messages=_prompt("character:C2", 1),
            schema=SCHEMAS["character:C2"],
            session_id="sess-1",
            turn_number=1,
        )
    assert caught.value.error_type == "replay_mismatch" and caught.value.attempts == 1
    assert provider.cursor.position == 0 and len(journal) == 1
    assert await _run_session(client) == answers  # nothing was consumed
    with pytest.raises(LlmCallError) as exhausted:
        await provider.complete(provider_request("director", 3))
    assert exhausted.value.error_type == "replay_exhausted"


def provider_request(agent: str, turn: int) -> object:
    from tavern.llm.provider import ProviderRequest

    return ProviderRequest(agent=agent, messages=_prompt(agent, turn), turn_number=turn)


async def test_reset_and_seek(recorded: tuple[Path, list[dict[str, object]]]) -> None:
    path, _ = recorded
    cursor = ReplayCursor.from_journal(path)
    await cursor.seek(2)
    assert cursor.status()["next"] == {"agent": "director", "turn_number": 2}
    await cursor.take("director", 2)
    await cursor.reset()
    assert cursor.position == 0
    with pytest.raises(ValueError):
        await cursor.seek(99)


async def test_server_serves_in_order_and_answers_409_on_mismatch(
    recorded: tuple[Path, list[dict[str, object]]],
) -> None:
    path, answers = recorded
    cursor = ReplayCursor.from_journal(path)
    app = create_replay_app(cursor)
    http = httpx.AsyncClient(transport=httpx.ASGITransport(app=app))
    base = "http://replay.local"

    wrong = await http.post(
        f"{base}/v1/chat/completions",
        json={"messages": [], "metadata": {"agent": "prose", "turn_number": 1}},
    )
    assert wrong.status_code == 409 and wrong.json()["error"]["type"] == "replay_mismatch"
    assert (await http.get(f"{base}/status")).json()["position"] == 0
    assert (
        await http.post(f"{base}/v1/chat/completions", json={"messages": []})
    ).status_code == 400

    # The real llama_cpp adapter, pointed at the replay server, replays the whole session.
    adapter = LlamaCppProvider(
        http_client=http, api_base=f"{base}/v1", structured_output="json_schema"
    )
    assert await _run_session(LlmClient(adapter, sink=Journal())) == answers
    status = (await http.get(f"{base}/status")).json()
    assert status == {"position": len(PLAN), "total": len(PLAN), "next": None}

    assert (await http.post(f"{base}/seek", json={"position": 1})).json()["position"] == 1
    assert (await http.post(f"{base}/seek", json={"position": -1})).status_code == 422
    assert (await http.post(f"{base}/reset")).json()["position"] == 0
    assert (await http.get(f"{base}/health")).json() == {"status": "ok"}


def test_journal_reader_refuses_other_versions_and_garbage(tmp_path: Path) -> None:
    path = tmp_path / "old.jsonl"
    path.write_text(json.dumps({"kind": "undo", "schema_version": 0}) + "\n", encoding="utf-8")
    with pytest.raises(JournalFormatError, match="schema_version 0"):
        read_journal_lines(path)
    path.write_text("{nope\n", encoding="utf-8")
    with pytest.raises(JournalFormatError, match=":1: not JSON"):
        read_journal_lines(path)


def test_replay_provider_needs_a_journal() -> None:
    with pytest.raises(ValueError, match="options.journal"):
        build_provider(AppConfig(active_provider="replay"), httpx.AsyncClient())


async def test_only_successful_lines_are_served(
    recorded: tuple[Path, list[dict[str, object]]],
) -> None:
    path, _ = recorded
    lines = read_journal_lines(path)
    calls = [line for line in lines if isinstance(line, LlmCallLine)]
    cursor = ReplayCursor.from_journal(path)
    assert len(calls) == len(PLAN) + 1 and len(cursor.calls) == len(PLAN)


async def test_concurrent_requests_serve_each_recorded_call_once(
    recorded: tuple[Path, list[dict[str, object]]],
) -> None:
    import asyncio

    path, _ = recorded
    cursor = ReplayCursor.from_journal(path)
    # Two racers ask for the same (first) call: exactly one wins, the other is a mismatch.
    results = await asyncio.gather(
        cursor.take("director", 1), cursor.take("director", 1), return_exceptions=True
    )
    assert sum(isinstance(r, LlmCallLine) for r in results) == 1
    assert sum(isinstance(r, LlmCallError) for r in results) == 1
    assert cursor.position == 1


async def test_replay_server_runs_on_loopback(
    recorded: tuple[Path, list[dict[str, object]]],
) -> None:
    import asyncio

    import uvicorn

    path, _ = recorded
    app = create_replay_app(ReplayCursor.from_journal(path))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="error"))
    serving = asyncio.create_task(server.serve())
    try:
        while not server.started:
            await asyncio.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        base = f"http://127.0.0.1:{port}"
        async with httpx.AsyncClient() as http:  # plain httpx: a real loopback socket
            assert (await http.get(f"{base}/status")).json()["total"] == len(PLAN)
            refused = await http.post(
                f"{base}/v1/chat/completions",
                json={"messages": []},
                headers={"X-Tavern-Agent": "prose", "X-Tavern-Turn": "9"},
            )
            assert refused.status_code == 409
            served = await http.post(
                f"{base}/v1/chat/completions",
                json={"messages": []},
                headers={"X-Tavern-Agent": "director", "X-Tavern-Turn": "1"},
            )
            assert served.status_code == 200
            assert served.json()["choices"][0]["message"]["content"]
    finally:
        server.should_exit = True
        await serving


def test_replay_server_cli_binds_loopback_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import uvicorn

    from tavern.llm import replay_server

    calls: list[dict[str, object]] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: calls.append(kw))
    journal = tmp_path / "j.jsonl"
    journal.write_text("", encoding="utf-8")
    replay_server.main(["--journal", str(journal), "--port", "9911"])
    assert calls == [{"host": "127.0.0.1", "port": 9911, "log_level": "warning"}]
