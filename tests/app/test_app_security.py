"""Auth, origin and host policy; path traversal through ids."""

from __future__ import annotations

import pytest
from app_helpers import Api

from tavern.app.security import is_loopback_host, origin_allowed

pytestmark = pytest.mark.anyio

MUTATIONS = [
    ("POST", "/sessions", {"scenario_id": "the-toll-house"}),
    ("PUT", "/config", {"language": "pt-BR"}),
    ("DELETE", "/scenarios/whatever", None),
    ("POST", "/sessions/abc/turns", {"speech": "hi"}),
]


@pytest.mark.parametrize(("method", "path", "body"), MUTATIONS)
async def test_mutations_without_token_are_refused(
    api: Api, method: str, path: str, body: object
) -> None:
    response = await api.client.request(method, path, json=body)
    assert response.status_code == 401
    assert "X-Tavern-Token" in response.json()["detail"]
    wrong = await api.client.request(method, path, json=body, headers={"X-Tavern-Token": "nope"})
    assert wrong.status_code == 401
    assert api.client is not None and (await api.client.get("/sessions")).json()["count"] == 0


async def test_the_right_token_passes(api: Api) -> None:
    created = await api.client.post(
        "/sessions", json={"scenario_id": "the-toll-house"}, headers=api.auth
    )
    assert created.status_code == 201


async def test_token_differs_per_app(api_factory) -> None:  # type: ignore[no-untyped-def]
    tokens = set()
    for _ in range(2):
        async for made in api_factory():
            tokens.add(made.token)
    assert len(tokens) == 2


@pytest.mark.parametrize(
    "origin", ["null", "http://evil.example", "https://127.0.0.1.evil.example", "file://", "x"]
)
async def test_foreign_and_null_origins_cannot_read_the_token(api: Api, origin: str) -> None:
    response = await api.client.get("/bootstrap", headers={"Origin": origin})
    assert response.status_code == 403
    assert api.token not in response.text
    mutation = await api.client.put(
        "/config", json={"language": "pt-BR"}, headers={"Origin": origin, **api.auth}
    )
    assert mutation.status_code == 403


@pytest.mark.parametrize(
    "origin", ["http://127.0.0.1:8765", "http://localhost:3000", "http://[::1]:1"]
)
async def test_loopback_origins_are_served(api: Api, origin: str) -> None:
    response = await api.client.get("/bootstrap", headers={"Origin": origin})
    assert response.status_code == 200
    assert response.json()["access_token"] == api.token
    assert response.headers["cache-control"] == "no-store"


async def test_dns_rebinding_host_is_refused(api: Api) -> None:
    # A foreign name resolving to 127.0.0.1 is same-origin with itself; its Host gives it away.
    headers = {"Host": "evil.example:8765", "Origin": "http://evil.example:8765"}
    response = await api.client.get("/bootstrap", headers=headers)
    assert response.status_code == 403


def test_origin_policy_unit() -> None:
    assert origin_allowed(None, "127.0.0.1:1")
    assert origin_allowed("http://box.lan:8765", "box.lan:8765")  # same-origin with Host
    assert not origin_allowed("http://box.lan:8766", "box.lan:8765")
    assert not origin_allowed("null", "127.0.0.1")
    assert is_loopback_host("[::1]:80") and is_loopback_host("127.0.0.2")
    assert not is_loopback_host("localhost.evil.example")


TRAVERSALS = [
    "..%2F..%2Fetc%2Fpasswd",
    "%2e%2e",
    "a%2F..%2Fb",
    "UPPER",
    "x%00y",
    "-lead",
    "a" * 65,
]


@pytest.mark.parametrize("bad", TRAVERSALS)
async def test_path_traversal_ids_are_refused(api: Api, bad: str) -> None:
    for path in (
        f"/scenarios/{bad}",
        f"/characters/{bad}",
        f"/sessions/{bad}",
        f"/sessions/{bad}/journal",
        f"/sessions/{bad}/history",
    ):
        response = await api.client.get(path)
        assert response.status_code in (404, 422), (path, response.status_code)
    put = await api.client.put(f"/characters/{bad}", json={}, headers=api.auth)
    assert put.status_code in (404, 405, 422)
    assert not any(p.name == "passwd" for p in api.services.data_dir.rglob("*"))


async def test_security_headers_on_responses(api: Api) -> None:
    response = await api.client.get("/health")
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    assert response.headers["x-content-type-options"] == "nosniff"


async def test_ui_and_docs_are_served(api: Api) -> None:
    index = await api.client.get("/")
    assert (
        index.status_code == 200 and "script-src 'self'" in index.headers["content-security-policy"]
    )
    module = await api.client.get("/web/app.js")
    assert module.status_code == 200 and "javascript" in module.headers["content-type"]
    docs = await api.client.get("/docs")
    assert docs.status_code == 200 and "content-security-policy" not in docs.headers
    assert (await api.client.get("/openapi.json")).json()["info"]["title"] == "Tavern"
