"""A turn over SSE draws its lines while it runs, and never a sentence the filters cut.

The app is driven as raw ASGI (httpx's ASGI transport hands back a body only once it is
complete), so the test sees each frame when the app sends it: the fake Character's call
waits until the narration's `line` frame has reached the client, and a turn whose lines
only came with the result could not end at all (it fails after `WAIT_S`).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tavern.app.main import create_app
from tavern.app.state import AppServices
from tavern.app.wiring import close_runner, runner_factory
from tavern.llm.client import LlmClient
from tavern.llm.fake import FakeFunction, FakeProvider
from tavern.llm.provider import ProviderRequest
from tavern.llm.wrappers import RetryPolicy
from tavern.records import CommitLine
from tavern.records.config import AppConfig, FilterProfile, ProviderSettings
from tavern.runner.interface import TurnRunner
from tavern.store import Library, SessionStore, journal_path, read_journal

pytestmark = pytest.mark.anyio

HOST = "127.0.0.1:8765"
WAIT_S = 10.0
RAIN = "Rain drums on the shutters."
ASSISTANT = "What can I assist you with today?"
"""Cut from a narration by the filter `out_of_world` (its case table's first row)."""
REFUSAL = "I'm sorry, but I can't assist with that."
"""Cut whole from a reply's speech by the same rule."""
EVENT = {
    "kind": "action_outcome", "text": "C1 opens the door; it creaks.", "actor_id": "C1",
    "witness_ids": ["C1", "C2", "C4"], "utterance_ref": None,
}  # fmt: skip


class Client:
    """Raw ASGI requests to the app; `frames` of the last stream, each as it was sent."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.token = token
        self.frames: list[tuple[str, Any]] = []
        self.on_frame: Callable[[str, Any], None] = lambda event, data: None

    async def send(self, method: str, path: str, body: Any, stream: bool = False) -> Any:
        payload = json.dumps(body).encode()
        headers = [
            (b"host", HOST.encode()),
            (b"content-type", b"application/json"),
            (b"x-tavern-token", self.token.encode()),
            (b"accept", b"text/event-stream" if stream else b"application/json"),
        ]
        path, _, query = path.partition("?")
        scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
            "method": method, "scheme": "http", "path": path, "raw_path": path.encode(),
            "query_string": query.encode(), "headers": headers, "server": ("127.0.0.1", 8765),
            "client": ("127.0.0.1", 50000), "root_path": "",
        }  # fmt: skip
        sent = False
        chunks: list[bytes] = []
        buffer = ""

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": payload, "more_body": False}
            await asyncio.sleep(3600)
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            nonlocal buffer
            if message["type"] != "http.response.body" or not stream:
                chunks.append(message.get("body", b""))
                return
            buffer += message.get("body", b"").decode()
            while "\n\n" in buffer:
                frame, buffer = buffer.split("\n\n", 1)
                event = frame.split("\n")[0].removeprefix("event: ")
                data = json.loads(frame.split("\n")[1].removeprefix("data: "))
                self.frames.append((event, data))
                self.on_frame(event, data)

        self.frames = []
        await asyncio.wait_for(self.app(scope, receive, send), WAIT_S * 3)
        return None if stream else json.loads(b"".join(chunks) or b"null")


async def client_with(
    tmp: Path, fn: FakeFunction, profile: FilterProfile | None = None
) -> tuple[Client, AppServices]:
    library, store = Library(tmp), SessionStore(tmp)
    real = runner_factory(library, store)

    def factory(config: AppConfig) -> TurnRunner:
        runner: Any = real(config)
        journal = runner.journal
        runner.client = LlmClient(
            FakeProvider("function", fn=fn),
            sink=lambda line: journal.append(line.session_id, line),
            retry=RetryPolicy(max_attempts=2, backoff_s=0),
        )
        built: TurnRunner = runner
        return built

    services = AppServices(
        data_dir=tmp, library=library, sessions=store, runner_factory=factory,
        close_runner=close_runner,
    )  # fmt: skip
    fake = ProviderSettings(filter_profile=profile)
    app = create_app(services, AppConfig(active_provider="fake", providers={"fake": fake}))
    import httpx

    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url=f"http://{HOST}"
    ) as probe:
        token = (await probe.get("/bootstrap")).json()["access_token"]
    return Client(app, token), services


def scripted(narrated: asyncio.Event | None) -> FakeFunction:
    """C2 refuses (a speech the filters cut whole); C4 answers only once the narration's
    line has reached the client (when `narrated` is given)."""

    async def answer(request: ProviderRequest) -> Any:
        if request.agent == "director":
            return {
                "events": [EVENT], "next_speakers": ["C2", "C4"], "time_skip_ticks": 0,
                "nothing_happens": False,
            }  # fmt: skip
        if request.agent == "prose":
            return {"narration": f"{RAIN} {ASSISTANT}"}
        if request.agent == "character:C2":
            return {"speech": REFUSAL, "thought": "The stranger lies.", "action_intent": None}
        if narrated is not None:
            await asyncio.wait_for(narrated.wait(), WAIT_S)
        return {"speech": "Evening, friend.", "thought": None, "action_intent": None}

    return answer


def streamed_texts(frames: list[tuple[str, Any]]) -> list[str]:
    return [r["text"] for event, data in frames if event == "line" for r in data["records"]]


def leaked(frames: list[tuple[str, Any]], cut: list[str]) -> list[str]:
    """The cut sentences any frame carried to the client (the check the tests assert empty)."""
    return [c for c in cut if any(c in json.dumps(data) for _, data in frames)]


async def play(client: Client, filter_profile: str | None = None) -> str:
    created = await client.send(
        "POST", "/sessions", {"scenario_id": "the-vintners-wake", "controlled_character_id": "C1"}
    )
    sid: str = created["id"]
    await client.send("POST", f"/sessions/{sid}/turns", {"action": "opens the door"}, stream=True)
    return sid


async def test_lines_arrive_before_the_turn_ends_and_cut_sentences_never(tmp_path: Path) -> None:
    narrated = asyncio.Event()
    client, services = await client_with(tmp_path, scripted(narrated))

    def watch(event: str, data: Any) -> None:
        if event == "line" and any(r["kind"] == "narration" for r in data["records"]):
            narrated.set()

    client.on_frame = watch
    sid = await play(client)
    events = [event for event, _ in client.frames]
    assert events[-1] == "result", client.frames[-1]
    assert narrated.is_set()  # C4 answered only after the narration reached the client
    result = client.frames[-1][1]
    texts = streamed_texts(client.frames)
    assert RAIN in texts and "Evening, friend." in texts
    assert texts == [r["text"] for r in result["records"]]  # the lines are what committed
    first_line = events.index("line")
    assert first_line < events.index("result") - 1  # several lines before the result
    assert leaked(client.frames, [ASSISTANT, REFUSAL]) == []  # nor in a `partial` frame
    # The narration's first sentence went out while the renderer still wrote the next.
    partials = [d["records"][0]["text"] for e, d in client.frames if e == "partial"]
    assert partials == [RAIN]
    narration_line = next(
        i for i, (e, d) in enumerate(client.frames)
        if e == "line" and d["records"][0]["kind"] == "narration"
    )  # fmt: skip
    assert [e for e, _ in client.frames].index("partial") < narration_line
    # The filter did fire: the cut sentences were in the model's answers.
    commits = [
        line for line in read_journal(journal_path(tmp_path, sid)) if isinstance(line, CommitLine)
    ]
    assert {c.rule for c in commits[-1].filter_cuts} == {"out_of_world"}
    stages = [d["stage"] for e, d in client.frames if e == "progress"]
    assert stages.index("character:C2") < stages.index("character:C4")
    services.sessions.close()


async def test_negative_control_unfiltered_text_is_caught(tmp_path: Path) -> None:
    """With the filter profile `off` the same answers reach the stream whole: the check
    above sees them (so it can fail)."""
    client, services = await client_with(tmp_path, scripted(None), profile="off")
    await play(client)
    assert client.frames[-1][0] == "result"
    assert leaked(client.frames, [ASSISTANT, REFUSAL]) == [ASSISTANT, REFUSAL]
    services.sessions.close()


async def test_a_failed_turn_ends_in_an_error_after_its_lines(tmp_path: Path) -> None:
    """Lines already sent belong to a turn that then fails: the stream ends in `error` and
    nothing is committed (the page drops the lines)."""

    async def failing(request: ProviderRequest) -> Any:
        if request.agent == "character:C4":
            return "not json"
        return await scripted(None)(request)  # type: ignore[misc]

    client, services = await client_with(tmp_path, failing)
    sid = await play(client)
    events = [event for event, _ in client.frames]
    assert "line" in events and events[-1] == "error"
    assert services.sessions.load(sid).turn_number == 0
    services.sessions.close()
