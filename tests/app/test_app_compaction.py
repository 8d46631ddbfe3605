"""The compaction routes: `POST /sessions/{id}/compact` (JSON or an SSE stream of progress
measured on work done) and `/restore` (409 when there is nothing to restore or the
checkpoint is not the last), and the session's compaction settings at creation."""

from __future__ import annotations

import json
from typing import Any

import pytest
from app_helpers import Api

pytestmark = pytest.mark.anyio


async def _played(api: Api, turns: int, **create: Any) -> str:
    made = await api.client.post(
        "/sessions", json={"scenario_id": "the-toll-house", **create}, headers=api.auth
    )
    assert made.status_code == 201, made.text
    sid: str = made.json()["id"]
    for i in range(turns):
        response = await api.client.post(
            f"/sessions/{sid}/turns", json={"speech": f"Line {i}."}, headers=api.auth
        )
        assert response.status_code == 200, response.text
    return sid


def _events(text: str) -> list[tuple[str, Any]]:
    out = []
    for frame in text.strip().split("\n\n"):
        head, data = frame.split("\n", 1)
        out.append((head.removeprefix("event: "), json.loads(data.removeprefix("data: "))))
    return out


async def test_compact_then_restore_over_http(api: Api) -> None:
    sid = await _played(api, 4)
    before = (await api.client.get(f"/sessions/{sid}")).json()
    done = await api.client.post(
        f"/sessions/{sid}/compact?revision={before['revision']}",
        json={"retention_turns": 2},
        headers=api.auth,
    )
    assert done.status_code == 200, done.text
    body = done.json()
    assert body["action"] == "compact" and body["cutoff_turn"] == 2 and body["records"] > 0
    assert body["revision"] == before["revision"] + 1 and body["summary_chars"] > 0
    wrong = await api.client.post(
        f"/sessions/{sid}/restore", json={"checkpoint_id": "cp-" + "0" * 16}, headers=api.auth
    )
    assert wrong.status_code == 409 and "last in, first out" in wrong.json()["detail"]
    back = await api.client.post(f"/sessions/{sid}/restore", headers=api.auth)
    assert back.status_code == 200, back.text
    assert back.json()["checkpoint_id"] == body["checkpoint_id"]
    assert back.json()["records"] == body["records"]
    none = await api.client.post(f"/sessions/{sid}/restore", headers=api.auth)
    assert none.status_code == 409 and "no compaction" in none.json()["detail"]


def _rises_to_one(events: list[tuple[str, Any]]) -> bool:
    """The stream's progress is counted work (`fraction == done / total`), never falls, and
    ends at 1.0 with every step done."""
    progress = [data for kind, data in events if kind == "progress"]
    fractions = [data["fraction"] for data in progress]
    return (
        bool(progress)
        and all(data["fraction"] == data["done"] / data["total"] for data in progress)
        and fractions == sorted(fractions)
        and progress[-1]["done"] == progress[-1]["total"]
        and fractions[-1] == 1.0
    )


async def test_compact_streams_progress_measured_on_work_done(api: Api) -> None:
    sid = await _played(api, 4)
    response = await api.client.post(
        f"/sessions/{sid}/compact",
        json={"retention_turns": 1},
        headers={**api.auth, "accept": "text/event-stream"},
    )
    events = _events(response.text)
    assert _rises_to_one(events)
    progress = [data for kind, data in events if kind == "progress"]
    assert progress[0]["fraction"] == 0.0 and 0 < progress[1]["fraction"] < 1
    calls = progress[-1]["calls_total"]
    assert calls >= 1 and [p["calls"] for p in progress] == [*range(calls + 1), calls]
    kind, result = events[-1]
    assert kind == "result" and result["action"] == "compact" and result["cutoff_turn"] == 3
    assert progress[-1]["written"] == result["records"]  # the records the commit wrote


async def test_a_compaction_failing_at_its_commit_never_reports_the_work_done(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Negative control: the check above refuses a stream whose work stopped short."""
    sid = await _played(api, 4)
    before = (await api.client.get(f"/sessions/{sid}")).json()

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("disk full (planted)")

    monkeypatch.setattr(api.services.sessions, "compact", refuse)
    response = await api.client.post(
        f"/sessions/{sid}/compact",
        json={"retention_turns": 1},
        headers={**api.auth, "accept": "text/event-stream"},
    )
    events = _events(response.text)
    assert events[-1][0] == "error" and not _rises_to_one(events)
    assert [kind for kind, _ in events].count("progress") >= 2  # it did report the folding
    after = (await api.client.get(f"/sessions/{sid}")).json()
    assert after["revision"] == before["revision"]


async def test_nothing_to_compact_is_409_and_a_stale_revision_too(api: Api) -> None:
    sid = await _played(api, 1)
    response = await api.client.post(f"/sessions/{sid}/compact", headers=api.auth)
    assert response.status_code == 409 and "nothing older" in response.json()["detail"]
    stale = await api.client.post(f"/sessions/{sid}/compact?revision=0", headers=api.auth)
    assert stale.status_code == 409


async def test_automatic_compaction_is_opt_in_at_creation(api: Api) -> None:
    settings = {"auto": True, "threshold": 0.01, "retention_turns": 2, "auto_min_turns": 1}
    auto = await _played(api, 4, compaction=settings)
    manual = await _played(api, 4)
    assert api.services.sessions.compacted_through(auto) >= 0
    assert api.services.sessions.compacted_through(manual) == -1  # off by default


async def test_the_session_compaction_setting_is_kept_and_used_by_the_compact_button(
    api: Api,
) -> None:
    sid = await _played(api, 5)
    view = (await api.client.get(f"/sessions/{sid}")).json()
    assert view["compaction"]["auto"] is False and view["compaction"]["retention_turns"] > 3
    settings = {**view["compaction"], "auto": True, "retention_turns": 2}
    put = await api.client.put(
        f"/sessions/{sid}/compaction?revision={view['revision']}", json=settings, headers=api.auth
    )
    assert put.status_code == 200, put.text
    assert put.json()["compaction"] == settings and put.json()["revision"] == view["revision"] + 1
    stale = await api.client.put(
        f"/sessions/{sid}/compaction?revision={view['revision']}", json=settings, headers=api.auth
    )
    assert stale.status_code == 409
    bad = await api.client.put(
        f"/sessions/{sid}/compaction", json={"retention_turns": 0}, headers=api.auth
    )
    assert bad.status_code == 422
    undone = await api.client.post(f"/sessions/{sid}/undo", headers=api.auth)
    assert undone.status_code == 200 and undone.json()["compaction"] == settings  # a preference
    # The button posts no retention: the session's (2) decides the cutoff, not the default.
    done = await api.client.post(f"/sessions/{sid}/compact", json={}, headers=api.auth)
    assert done.status_code == 200, done.text
    assert done.json()["cutoff_turn"] == undone.json()["turn_number"] - 2


async def test_compacted_turns_show_as_one_line_with_the_stored_summary(api: Api) -> None:
    sid = await _played(api, 5)
    before = (await api.client.get(f"/sessions/{sid}/transcript")).json()
    assert before["compacted"] is None and before["next_before"] is None
    assert any(r.get("text") == "Line 0." for r in before["data"])
    done = await api.client.post(
        f"/sessions/{sid}/compact", json={"retention_turns": 2}, headers=api.auth
    )
    cutoff = done.json()["cutoff_turn"]
    summary = api.services.sessions.load(sid).story_summary
    page = (await api.client.get(f"/sessions/{sid}/transcript")).json()
    assert page["compacted"] == {"first_turn": 0, "last_turn": cutoff, "summary": summary}
    assert page["first_turn"] == cutoff + 1 and page["next_before"] is None
    assert [m["turn_number"] for m in page["turns"]] == list(range(cutoff + 1, 6))
    assert not any(r.get("text") == "Line 0." for r in page["data"])
    # Paging back one turn at a time ends on the compacted line, never on empty turns.
    newest = (await api.client.get(f"/sessions/{sid}/transcript?turns=1")).json()
    assert newest["compacted"] is None and newest["next_before"] == 5
    oldest = (
        await api.client.get(f"/sessions/{sid}/transcript?turns=1&before={cutoff + 2}")
    ).json()
    assert oldest["compacted"]["last_turn"] == cutoff and oldest["next_before"] is None
    back = await api.client.post(f"/sessions/{sid}/restore", headers=api.auth)
    assert back.status_code == 200
    after = (await api.client.get(f"/sessions/{sid}/transcript")).json()
    assert after["compacted"] is None and after == before  # restored: the line goes


async def test_a_rerun_and_a_flip_keep_the_settings_chosen_after_the_turn(api: Api) -> None:
    sid = await _played(api, 2)
    view = (await api.client.get(f"/sessions/{sid}")).json()
    settings = {**view["compaction"], "retention_turns": 3}
    put = await api.client.put(f"/sessions/{sid}/compaction", json=settings, headers=api.auth)
    assert put.status_code == 200
    rerun = await api.client.post(f"/sessions/{sid}/rerun", json={}, headers=api.auth)
    assert rerun.status_code == 200, rerun.text
    assert (await api.client.get(f"/sessions/{sid}")).json()["compaction"] == settings
    later = {**settings, "auto": not settings["auto"]}  # changed after the set-aside variant
    put = await api.client.put(f"/sessions/{sid}/compaction", json=later, headers=api.auth)
    assert put.status_code == 200
    flip = await api.client.post(f"/sessions/{sid}/variants/0", headers=api.auth)
    assert flip.status_code == 200, flip.text
    assert (await api.client.get(f"/sessions/{sid}")).json()["compaction"] == later
