"""POST /sessions/{id}/interview: an out-of-band question, answered and journaled, not kept."""

from __future__ import annotations

import pytest
from app_helpers import Api

pytestmark = pytest.mark.anyio


async def test_interview_answers_and_leaves_the_session_alone(api: Api) -> None:
    created = await api.client.post(
        "/sessions", json={"scenario_id": "the-toll-house"}, headers=api.auth
    )
    sid = created.json()["id"]
    before = (await api.client.get(f"/sessions/{sid}")).json()
    asked = await api.client.post(
        f"/sessions/{sid}/interview",
        json={"character": "C2", "question": "What is in the toll box?"},
        headers=api.auth,
    )
    assert asked.status_code == 200, asked.text
    body = asked.json()
    assert body["character"] == "C2" and body["turn_number"] == 0 and body["reply"]
    assert (await api.client.get(f"/sessions/{sid}")).json() == before
    journal = (await api.client.get(f"/sessions/{sid}/journal")).json()["data"]
    assert [line["agent"] for line in journal] == ["interview:C2"]


async def test_interview_refusals(api: Api) -> None:
    created = await api.client.post(
        "/sessions", json={"scenario_id": "the-toll-house"}, headers=api.auth
    )
    sid = created.json()["id"]
    path = f"/sessions/{sid}/interview"
    unknown = await api.client.post(
        path, json={"character": "C9", "question": "Who?"}, headers=api.auth
    )
    assert unknown.status_code == 422 and "C9" in unknown.json()["detail"]
    empty = await api.client.post(path, json={"character": "C2", "question": ""}, headers=api.auth)
    assert empty.status_code == 422
    missing = await api.client.post(
        "/sessions/nope-x/interview", json={"character": "C2", "question": "Who?"}, headers=api.auth
    )
    assert missing.status_code == 404
    no_token = await api.client.post(path, json={"character": "C2", "question": "Who?"})
    assert no_token.status_code == 401
