"""The routes behind the browser's play controls: transcript pages, revisions (a stale tab
gets 409), reruns and variants, forks from a turn, renames, usage and error details."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from app_helpers import Api

from tavern.app.usage import Ledger, price_of
from tavern.records import (
    CommitLine,
    LlmCallLine,
    LlmRequestBody,
    PromptCache,
    TurnInput,
    TurnInputLine,
    UndoLine,
    utc_now,
)
from tavern.records.config import AppConfig, ProviderSettings

pytestmark = pytest.mark.anyio


async def _new(api: Api, scenario: str = "the-toll-house") -> dict[str, Any]:
    response = await api.client.post("/sessions", json={"scenario_id": scenario}, headers=api.auth)
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


async def _turn(api: Api, sid: str, text: str, revision: int | None = None) -> Any:
    query = "" if revision is None else f"?revision={revision}"
    return await api.client.post(
        f"/sessions/{sid}/turns{query}", json={"speech": text}, headers=api.auth
    )


async def test_a_stale_tab_gets_409_and_nothing_changes(api: Api) -> None:
    view = await _new(api)
    sid, seen = view["id"], view["revision"]  # both tabs loaded the session here
    first = await _turn(api, sid, "From the first tab.", seen)
    assert first.status_code == 200 and first.json()["revision"] == seen + 1
    for stale in (
        api.client.post(f"/sessions/{sid}/undo?revision={seen}", headers=api.auth),
        _turn(api, sid, "From the second tab.", seen),
        api.client.post(f"/sessions/{sid}/rerun?revision={seen}", json={}, headers=api.auth),
    ):
        response = await stale
        assert response.status_code == 409, response.text
        assert "changed since this view was loaded" in response.json()["detail"]
    assert (await api.client.get(f"/sessions/{sid}")).json()["turn_number"] == 1
    fresh = await api.client.post(
        f"/sessions/{sid}/undo?revision={first.json()['revision']}", headers=api.auth
    )
    assert fresh.status_code == 200 and fresh.json()["turn_number"] == 0


async def test_transcript_pages_reach_the_first_turn(api: Api) -> None:
    sid = (await _new(api))["id"]
    for n in range(5):
        assert (await _turn(api, sid, f"Line {n}.")).status_code == 200
    page = (await api.client.get(f"/sessions/{sid}/transcript?turns=2")).json()
    seen = [m["turn_number"] for m in page["turns"]]
    while page["next_before"] is not None:
        page = (
            await api.client.get(f"/sessions/{sid}/transcript?turns=2&before={page['next_before']}")
        ).json()
        seen = [m["turn_number"] for m in page["turns"]] + seen
    assert seen == [0, 1, 2, 3, 4, 5]
    bad = await api.client.get(f"/sessions/{sid}/transcript?turns=0")
    assert bad.status_code == 422


@pytest.fixture
async def seeded(api_factory: Callable[..., AsyncIterator[Api]]) -> AsyncIterator[Api]:
    config = AppConfig(active_provider="fake", providers={"fake": ProviderSettings(seed=3)})
    async for made in api_factory(config=config):
        yield made


async def test_regenerate_keeps_alternatives_and_flips(seeded: Api) -> None:
    api = seeded
    sid = (await _new(api))["id"]
    first = (await _turn(api, sid, "Is the ferry running?")).json()
    again = await api.client.post(
        f"/sessions/{sid}/rerun?revision={first['revision']}", json={}, headers=api.auth
    )
    assert again.status_code == 200, again.text
    assert (again.json()["variant"], again.json()["variants"]) == (1, 2)
    listed = (await api.client.get(f"/sessions/{sid}/variants")).json()
    assert [(v["variant"], v["committed"]) for v in listed["data"]] == [(0, False), (1, True)]
    assert listed["data"][0]["input"]["speech"] == "Is the ferry running?"
    flipped = await api.client.post(
        f"/sessions/{sid}/variants/0?revision={again.json()['revision']}", headers=api.auth
    )
    assert flipped.status_code == 200 and flipped.json()["records"] == first["records"]
    edited = await api.client.post(
        f"/sessions/{sid}/rerun",
        json={"input": {"speech": "Who rang the bell?"}},
        headers=api.auth,
    )
    assert edited.json()["records"][0]["text"] == "Who rang the bell?"
    missing = await api.client.post(f"/sessions/{sid}/variants/9", headers=api.auth)
    assert missing.status_code == 404


async def test_fork_from_a_turn_and_rename(api: Api) -> None:
    sid = (await _new(api))["id"]
    for n in range(3):
        await _turn(api, sid, f"Line {n}.")
    fork = await api.client.post(f"/sessions/{sid}/fork?turn=1", headers=api.auth)
    assert fork.status_code == 201 and fork.json()["turn_number"] == 1
    listed = {s["id"]: s for s in (await api.client.get("/sessions")).json()["data"]}
    made = listed[fork.json()["id"]]
    assert (made["forked_from"], made["forked_at_turn"]) == (sid, 1)
    assert made["controlled_name"]
    too_far = await api.client.post(f"/sessions/{sid}/fork?turn=7", headers=api.auth)
    assert too_far.status_code == 422
    renamed = await api.client.patch(
        f"/sessions/{sid}", json={"name": " Rainy night "}, headers=api.auth
    )
    assert renamed.status_code == 200 and renamed.json()["name"] == "Rainy night"
    assert (await api.client.get(f"/sessions/{sid}")).json()["title"] != "Rainy night"
    cleared = await api.client.patch(f"/sessions/{sid}", json={"name": ""}, headers=api.auth)
    assert cleared.json()["name"] is None
    gone = await api.client.patch("/sessions/not-here", json={"name": "x"}, headers=api.auth)
    assert gone.status_code == 404


async def test_usage_per_turn_and_in_total(api: Api) -> None:
    sid = (await _new(api))["id"]
    await _turn(api, sid, "One.")
    await api.client.post(f"/sessions/{sid}/suggestions", headers=api.auth)
    await _turn(api, sid, "Two.")
    usage = (await api.client.get(f"/sessions/{sid}/usage")).json()
    assert [t["turn_number"] for t in usage["turns"]] == [1, 2]
    per_turn = sum(t["calls"] for t in usage["turns"])
    assert usage["total"]["calls"] == per_turn + 1  # the suggestion counts in the total only
    assert all(t["estimated"] and t["latency_ms"] > 0 for t in usage["turns"])
    assert usage["total"]["cost_usd"] is None  # the fake has no price
    await api.client.post(f"/sessions/{sid}/undo", headers=api.auth)
    again = (await api.client.get(f"/sessions/{sid}/usage")).json()
    assert [t["turn_number"] for t in again["turns"]] == [1]
    assert again["total"]["calls"] == usage["total"]["calls"]  # spent is spent


def _call(turn: int, agent: str, *, hit: int | None, miss: int | None, out: int) -> LlmCallLine:
    return LlmCallLine(
        ts=utc_now(),
        session_id="s1",
        turn_number=turn,
        agent=agent,
        provider="deepseek",
        model="deepseek-chat",
        request=LlmRequestBody(messages=[]),
        response="{}",
        usage={"prompt_tokens": (hit or 0) + (miss or 0), "completion_tokens": out},
        prompt_cache=PromptCache(hit_tokens=hit, miss_tokens=miss),
        duration_ms=100.0,
        attempt_number=1,
        prompt_chars=0,
        prompt_estimated_tokens=0,
    )


def test_cost_and_cache_share_from_priced_calls() -> None:
    price = price_of("deepseek", "deepseek-chat")
    assert price is not None
    ledger = Ledger("s1")
    ts = utc_now()
    ledger.fold(TurnInputLine(ts=ts, session_id="s1", turn_number=1, input=TurnInput(skip=True)))
    ledger.fold(_call(1, "director", hit=900, miss=100, out=50))
    ledger.fold(_call(1, "suggest", hit=0, miss=10, out=5))  # beside the turn: total only
    ledger.fold(
        CommitLine(
            ts=ts,
            session_id="s1",
            turn_number=1,
            revision=1,
            record_count=0,
            tick=1,
            control_returned=True,
        )
    )
    public = ledger.public(1)
    turn = public.turns[0]
    assert turn.calls == 1 and turn.cache_hit_share == pytest.approx(0.9)
    expected = (900 * price.cache_hit + 100 * price.cache_miss + 50 * price.output) / 1e6
    assert turn.cost_usd == pytest.approx(expected, abs=1e-6)
    assert public.total.calls == 2 and public.total.cost_usd is not None
    assert public.total.cost_usd > turn.cost_usd
    ledger.fold(
        UndoLine(
            ts=ts, session_id="s1", turn_number=1, revision=2, removed_turn=1, removed_records=0
        )
    )
    assert ledger.public(0).turns == []


def test_negative_control_a_copied_line_of_another_session_is_not_counted() -> None:
    fork = Ledger("s2", forked_at_turn=1)
    fork.fold(_call(1, "director", hit=0, miss=10, out=1))  # s1's turn 1, inherited
    fork.fold(_call(2, "director", hit=0, miss=10, out=1))  # s1's turn 2: not the fork's
    assert fork.total.calls == 1
    unforked = Ledger("s2")
    unforked.fold(_call(1, "director", hit=0, miss=10, out=1))
    assert unforked.total.calls == 0


async def test_validation_errors_name_their_type_and_limit_not_internals(api: Api) -> None:
    sid = (await _new(api))["id"]
    long = await api.client.post(
        f"/sessions/{sid}/turns", json={"speech": "x" * 4001}, headers=api.auth
    )
    error = long.json()["errors"][0]
    assert (error["type"], error["limit"]) == ("string_too_long", 4000)
    bad_id = await api.client.put("/characters/Bad Id", json={}, headers=api.auth)
    assert bad_id.status_code in (404, 422)
    pattern = await api.client.post("/sessions", json={"scenario_id": "Nope!"}, headers=api.auth)
    item = pattern.json()["errors"][0]
    assert item["type"] == "string_pattern_mismatch" and item["limit"] is None
