"""Scenario and character CRUD: built-ins read-only, validation, revisions."""

from __future__ import annotations

import pytest
from app_helpers import Api

pytestmark = pytest.mark.anyio


def _character(cid: str = "nell-quill", name: str = "Nell Quill") -> dict[str, object]:
    return {
        "id": cid,
        "mind": {"personality": "dry", "secrets": ["owes the ferryman"], "goals": ["leave"]},
        "body": {
            "display_name": name,
            "appearance": "ink on her cuffs",
            "description_ref": "the clerk",
        },
    }


async def _scenario(api: Api, sid: str = "my-cellar") -> dict[str, object]:
    base = (await api.client.get("/scenarios/the-toll-house")).json()["scenario"]
    base["id"] = sid
    base["title"] = "My cellar"
    base["revision"] = 0
    return base


async def test_list_and_get_builtins(api: Api) -> None:
    scenarios = (await api.client.get("/scenarios")).json()
    assert scenarios["count"] >= 2 and all(e["builtin"] for e in scenarios["data"])
    characters = (await api.client.get("/characters")).json()
    assert characters["count"] >= 3
    one = await api.client.get("/characters/" + characters["data"][0]["character"]["id"])
    assert one.status_code == 200 and one.json()["builtin"] is True
    assert (await api.client.get("/scenarios/no-such")).status_code == 404
    assert (await api.client.get("/characters/no-such")).status_code == 404


async def test_builtins_are_read_only(api: Api) -> None:
    base = (await api.client.get("/scenarios/the-toll-house")).json()["scenario"]
    put = await api.client.put("/scenarios/the-toll-house", json=base, headers=api.auth)
    assert put.status_code == 409 and "built in" in put.json()["detail"]
    delete = await api.client.delete("/scenarios/the-toll-house", headers=api.auth)
    assert delete.status_code == 409
    cid = (await api.client.get("/characters")).json()["data"][0]["character"]["id"]
    assert (await api.client.delete(f"/characters/{cid}", headers=api.auth)).status_code == 409


async def test_character_crud_and_revision_conflict(api: Api) -> None:
    created = await api.client.put("/characters/nell-quill", json=_character(), headers=api.auth)
    assert created.status_code == 200, created.text
    expected = {"character": {**_character(), "revision": 0}, "builtin": False, "avatar": False}
    assert created.json() == expected
    stale = await api.client.put(
        "/characters/nell-quill", json={**_character(), "revision": 5}, headers=api.auth
    )
    assert stale.status_code == 409
    updated = await api.client.put(
        "/characters/nell-quill",
        json={**_character(name="Nell Q."), "revision": 0},
        headers=api.auth,
    )
    assert updated.json()["character"]["revision"] == 1
    deleted = await api.client.delete("/characters/nell-quill", headers=api.auth)
    assert deleted.status_code == 200
    assert (await api.client.get("/characters/nell-quill")).status_code == 404
    assert (await api.client.delete("/characters/nell-quill", headers=api.auth)).status_code == 404


async def test_bad_bodies_are_422_and_write_nothing(api: Api) -> None:
    library_dir = api.services.data_dir / "library"
    cases = [
        ("/characters/nell-quill", {**_character(), "extra": 1}),
        ("/characters/nell-quill", {**_character(), "body": {"display_name": ""}}),
        ("/characters/nell-quill", _character(cid="other-id")),
        ("/characters/nell-quill", "not an object"),
    ]
    for path, body in cases:
        response = await api.client.put(path, json=body, headers=api.auth)
        assert response.status_code == 422, (body, response.text)
        assert isinstance(response.json()["detail"], str) and response.json()["detail"]
    assert not library_dir.exists() or not any(library_dir.rglob("*.json"))


async def test_scenario_crud_with_playability_checks(api: Api) -> None:
    scenario = await _scenario(api)
    broken = {**scenario, "cast": {**scenario["cast"], "C9": "nobody-here"}}  # type: ignore[dict-item]
    refused = await api.client.put("/scenarios/my-cellar", json=broken, headers=api.auth)
    assert refused.status_code == 422 and "nobody-here" in refused.json()["detail"]
    assert (await api.client.get("/scenarios/my-cellar")).status_code == 404
    created = await api.client.put("/scenarios/my-cellar", json=scenario, headers=api.auth)
    assert created.status_code == 200 and created.json()["builtin"] is False
    listed = (await api.client.get("/scenarios")).json()
    assert "my-cellar" in [e["scenario"]["id"] for e in listed["data"]]
    session = await api.client.post(
        "/sessions", json={"scenario_id": "my-cellar"}, headers=api.auth
    )
    assert session.status_code == 201 and session.json()["title"] == "My cellar"
    assert (await api.client.delete("/scenarios/my-cellar", headers=api.auth)).status_code == 200
    assert (await api.client.get("/scenarios/my-cellar")).status_code == 404
