"""Sessions and play: create, list, view, history, fork, delete, turns, undo, SSE, debug."""

from __future__ import annotations

import asyncio
import json

import anyio
import pytest
from app_helpers import Api, Rendezvous

pytestmark = pytest.mark.anyio


async def _new(api: Api, scenario: str = "the-toll-house", **extra: str) -> dict[str, object]:
    response = await api.client.post(
        "/sessions", json={"scenario_id": scenario, **extra}, headers=api.auth
    )
    assert response.status_code == 201, response.text
    body: dict[str, object] = response.json()
    return body


async def test_create_list_view_delete(api: Api) -> None:
    view = await _new(api)
    sid = view["id"]
    assert view["turn_number"] == 0 and view["whose_turn"] == view["controlled_id"]
    listed = (await api.client.get("/sessions")).json()
    assert listed["count"] == 1 and listed["data"][0]["id"] == sid
    got = await api.client.get(f"/sessions/{sid}")
    assert got.status_code == 200 and got.json()["id"] == sid
    deleted = await api.client.delete(f"/sessions/{sid}", headers=api.auth)
    assert deleted.status_code == 200 and deleted.json()["count"] == 0
    assert (await api.client.get(f"/sessions/{sid}")).status_code == 404
    assert (await api.client.delete(f"/sessions/{sid}", headers=api.auth)).status_code == 404


async def test_create_with_controlled_character_and_refusals(api: Api) -> None:
    scenario = (await api.client.get("/scenarios/the-toll-house")).json()["scenario"]
    other_slot, other_character = list(scenario["cast"].items())[-1]
    view = await _new(api, controlled_character_id=other_character)
    assert view["controlled_id"] == other_slot
    unknown = await api.client.post(
        "/sessions", json={"scenario_id": "no-such-scenario"}, headers=api.auth
    )
    assert unknown.status_code == 404
    bad = await api.client.post("/sessions", json={"scenario_id": "../x"}, headers=api.auth)
    assert bad.status_code == 422
    assert (await api.client.get("/sessions")).json()["count"] == 1


async def test_turns_history_undo_and_fork(api: Api) -> None:
    sid = (await _new(api))["id"]
    for i in range(3):
        turn = await api.client.post(
            f"/sessions/{sid}/turns", json={"speech": f"line {i}"}, headers=api.auth
        )
        assert turn.status_code == 200, turn.text
        assert turn.json()["turn_number"] == i + 1
    page = (await api.client.get(f"/sessions/{sid}/history?limit=2")).json()
    assert page["count"] == 2 and page["next_after"] == page["data"][-1]["seq"]
    rest = (await api.client.get(f"/sessions/{sid}/history?after={page['next_after']}")).json()
    assert rest["next_after"] is None and rest["data"][0]["seq"] > page["next_after"]
    undone = await api.client.post(f"/sessions/{sid}/undo", headers=api.auth)
    assert undone.status_code == 200 and undone.json()["turn_number"] == 2
    fork = await api.client.post(f"/sessions/{sid}/fork", headers=api.auth)
    assert fork.status_code == 201
    fid = fork.json()["id"]
    assert fid != sid and fork.json()["turn_number"] == 2
    await api.client.post(f"/sessions/{fid}/turns", json={"speech": "only here"}, headers=api.auth)
    assert (await api.client.get(f"/sessions/{sid}")).json()["turn_number"] == 2
    assert (await api.client.get(f"/sessions/{fid}")).json()["turn_number"] == 3
    assert (await api.client.post("/sessions/nope-nope/fork", headers=api.auth)).status_code == 404


async def test_undo_at_turn_zero_is_a_conflict(api: Api) -> None:
    sid = (await _new(api))["id"]
    response = await api.client.post(f"/sessions/{sid}/undo", headers=api.auth)
    assert response.status_code == 409


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"speech": "   "},
        {"whisper_to": ["C2"]},
        {"speech": "x" * 4001},
        {"speech": "hi", "bogus": 1},
        {"skip": "maybe"},
    ],
)
async def test_bad_turns_are_422_and_nothing_is_written(api: Api, body: dict[str, object]) -> None:
    sid = (await _new(api))["id"]
    history = (await api.client.get(f"/sessions/{sid}/history")).json()
    journal = (await api.client.get(f"/sessions/{sid}/journal")).json()
    response = await api.client.post(f"/sessions/{sid}/turns", json=body, headers=api.auth)
    assert response.status_code == 422, response.text
    assert isinstance(response.json()["detail"], str)
    assert (await api.client.get(f"/sessions/{sid}")).json()["turn_number"] == 0
    assert (await api.client.get(f"/sessions/{sid}/history")).json() == history
    assert (await api.client.get(f"/sessions/{sid}/journal")).json() == journal


async def test_turn_on_unknown_session_is_404(api: Api) -> None:
    response = await api.client.post(
        "/sessions/not-here/turns", json={"speech": "hi"}, headers=api.auth
    )
    assert response.status_code == 404


async def test_whisper_reaches_its_audience_only(api: Api) -> None:
    view = await _new(api)
    sid, me = view["id"], view["controlled_id"]
    target = next(c["slot"] for c in view["cast"] if c["slot"] != me)  # type: ignore[union-attr, index]
    result = await api.client.post(
        f"/sessions/{sid}/turns", json={"speech": "psst", "whisper_to": [target]}, headers=api.auth
    )
    speech = next(r for r in result.json()["records"] if r["kind"] == "speech")
    assert speech["audience"]["origin"] == "whisper"
    assert sorted(speech["audience"]["perceivers"]) == sorted([me, target])


async def test_turn_streams_progress_over_sse(api: Api) -> None:
    sid = (await _new(api))["id"]
    headers = {**api.auth, "Accept": "text/event-stream"}
    response = await api.client.post(
        f"/sessions/{sid}/turns", json={"speech": "hi"}, headers=headers
    )
    assert response.headers["content-type"].startswith("text/event-stream")
    events = [
        (block.split("\n")[0].removeprefix("event: "), json.loads(block.split("\n")[1][6:]))
        for block in response.text.strip().split("\n\n")
    ]
    kinds = [k for k, _ in events]
    assert kinds[0] == "progress" and kinds[-1] == "result"
    assert events[-1][1]["turn_number"] == 1
    failed = await api.client.post(
        "/sessions/not-here/turns", json={"speech": "x"}, headers=headers
    )
    assert "event: error" in failed.text and '"status": 404' in failed.text


async def test_suggestions_openings_preview_journal(api: Api) -> None:
    sid = (await _new(api))["id"]
    sugg = await api.client.post(f"/sessions/{sid}/suggestions", headers=api.auth)
    assert sugg.status_code == 200 and len(sugg.json()["data"]) >= 1
    opens = await api.client.post(f"/sessions/{sid}/openings", headers=api.auth)
    assert opens.status_code == 200 and all(isinstance(s, str) for s in opens.json()["data"])
    sse = await api.client.post(
        f"/sessions/{sid}/openings", headers={**api.auth, "Accept": "text/event-stream"}
    )
    assert "event: result" in sse.text
    preview = await api.client.get(f"/sessions/{sid}/prompt-preview")
    assert preview.status_code == 200 and preview.json()["messages"][0]["role"] == "system"
    journal = await api.client.get(f"/sessions/{sid}/journal?after=-1&limit=5")
    assert journal.status_code == 200 and journal.json()["count"] == len(journal.json()["data"])
    for path in ("journal", "prompt-preview"):
        assert (await api.client.get(f"/sessions/nope-x/{path}")).status_code == 404
    for path in ("suggestions", "openings"):
        assert (
            await api.client.post(f"/sessions/nope-x/{path}", headers=api.auth)
        ).status_code == 404


async def test_concurrent_turns_on_one_session_are_serialized(api_factory) -> None:  # type: ignore[no-untyped-def]
    async for api in api_factory(delay=0.05):
        sid = (await _new(api))["id"]
        statuses: list[int] = []

        async def play(
            i: int, api: Api = api, sid: object = sid, statuses: list[int] = statuses
        ) -> None:
            r = await api.client.post(
                f"/sessions/{sid}/turns", json={"speech": f"c{i}"}, headers=api.auth
            )
            statuses.append(r.status_code)

        async with anyio.create_task_group() as group:
            for i in range(6):
                group.start_soon(play, i)
        assert statuses == [200] * 6
        view = (await api.client.get(f"/sessions/{sid}")).json()
        assert view["turn_number"] == 6
        spoken = sorted(r["text"] for r in view["transcript"] if r["kind"] == "speech")
        assert spoken == [f"c{i}" for i in range(6)]  # nothing lost
        turns = sorted({r["turn_number"] for r in view["transcript"]})
        assert turns == [1, 2, 3, 4, 5, 6]  # each turn whole, none interleaved


async def test_turns_on_different_sessions_run_in_parallel(api_factory) -> None:  # type: ignore[no-untyped-def]
    # Each turn waits in the runner until all four are waiting: an app that serialized
    # sessions would never let the second in while the first waits, and the turns time out.
    meeting = Rendezvous(parties=4)
    async for api in api_factory(hold=meeting):
        ids = [(await _new(api))["id"] for _ in range(4)]

        async def play(sid: object, api: Api = api) -> None:
            r = await api.client.post(
                f"/sessions/{sid}/turns", json={"speech": "x"}, headers=api.auth
            )
            assert r.status_code == 200, r.text

        async with anyio.create_task_group() as group:
            for sid in ids:
                group.start_soon(play, sid)
        assert meeting.arrived == 4 and meeting.met.is_set()


async def test_the_rendezvous_fails_turns_that_run_one_at_a_time() -> None:
    # Negative control of the parallelism test: serialized waiters never meet.
    meeting = Rendezvous(parties=2, timeout=0.2)
    one_at_a_time = asyncio.Lock()

    async def serialized_turn() -> None:
        async with one_at_a_time:
            await meeting.wait()

    with pytest.raises(TimeoutError):
        await asyncio.gather(serialized_turn(), serialized_turn())


async def test_a_turn_that_would_reveal_the_human_is_422_not_500(api: Api) -> None:
    sid = (await _new(api))["id"]
    before = (await api.client.get(f"/sessions/{sid}")).json()
    turn = await api.client.post(
        f"/sessions/{sid}/turns",
        json={"speech": "I am the human player, the user controls me"},
        headers=api.auth,
    )
    assert turn.status_code == 422, turn.text
    assert turn.json()["detail"]  # says why, in words the player can act on
    after = (await api.client.get(f"/sessions/{sid}")).json()
    assert (
        after["turn_number"] == before["turn_number"]
        and after["transcript"] == before["transcript"]
    )


@pytest.mark.parametrize("query", ["limit=0", "limit=501", "after=-2", "after=x", "limit=1.5"])
async def test_page_bounds_are_enforced(api: Api, query: str) -> None:
    sid = (await _new(api))["id"]
    for path in ("history", "journal"):
        response = await api.client.get(f"/sessions/{sid}/{path}?{query}")
        assert response.status_code == 422, (path, query)
        assert "limit" in response.json()["detail"] or "after" in response.json()["detail"]


def test_prompt_contract_refusals_map_to_422() -> None:
    from tavern.app.errors import describe_exception
    from tavern.runner.gate import PromptContractError

    status, detail = describe_exception(PromptContractError("director prompt breaks the contract"))
    assert (status, detail) == (422, "director prompt breaks the contract")
