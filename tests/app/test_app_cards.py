"""Character cards in (V1/V2/V3, JSON or PNG), exports out, and character pictures."""

from __future__ import annotations

import base64
import json
import struct
import zlib
from typing import Any

import pytest
from app_helpers import Api

from tavern.app.cards import CardError, import_card, png_text_chunks

pytestmark = pytest.mark.anyio

V2 = {
    "spec": "chara_card_v2",
    "spec_version": "2.0",
    "data": {
        "name": "Mara Voss",
        "description": "{{char}} keeps the ferry ledger and trusts {{user}} too quickly.",
        "personality": "dry, exact",
        "scenario": "A ferry house in the rain.",
        "first_mes": "You're late.",
        "mes_example": "<START>{{char}}: Hm.",
        "alternate_greetings": [],
        "tags": ["ferry"],
        "extensions": {},
    },
}


def chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def png(*texts: tuple[str, bytes, bytes]) -> bytes:
    """A 1x1 PNG with text chunks (kind, keyword, payload)."""
    header = chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
    pixels = chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00"))
    extra = b""
    for kind, key, payload in texts:
        if kind == "tEXt":
            extra += chunk(b"tEXt", key.encode() + b"\0" + payload)
        elif kind == "zTXt":
            extra += chunk(b"zTXt", key.encode() + b"\0\0" + zlib.compress(payload))
        else:
            extra += chunk(b"iTXt", key.encode() + b"\0\1\0\0\0" + zlib.compress(payload))
    return b"\x89PNG\r\n\x1a\n" + header + extra + pixels + chunk(b"IEND", b"")


def b64(card: dict[str, Any]) -> bytes:
    return base64.b64encode(json.dumps(card).encode())


def test_a_v2_card_maps_to_a_draft_and_says_what_was_dropped() -> None:
    draft = import_card(json.dumps(V2).encode(), taken={"mara-voss"})
    c = draft.character
    assert (c.id, c.body.display_name, c.body.description_ref) == (
        "mara-voss-2",
        "Mara Voss",
        "the stranger",
    )
    assert c.mind.personality == (
        "Mara Voss keeps the ferry ledger and trusts someone too quickly.\n\ndry, exact"
    )
    assert draft.source == "Character Card V2 (JSON)" and not draft.picture
    assert draft.carried == ["name", "description", "personality"]
    assert [d.field for d in draft.dropped] == ["scenario", "first_mes", "mes_example", "tags"]
    assert any("{{user}}" in note for note in draft.notes)


@pytest.mark.parametrize("kind", ["tEXt", "zTXt", "iTXt"])
def test_png_cards_prefer_v3_and_read_every_text_chunk(kind: str) -> None:
    v3 = {
        "spec": "chara_card_v3",
        "spec_version": "3.0",
        "data": {"name": "Old", "nickname": "Nell"},
    }
    data = png(("tEXt", "chara", b64(V2)), (kind, "ccv3", b64(v3)))
    assert dict(png_text_chunks(data))["ccv3"]
    draft = import_card(data, taken=set())
    assert draft.character.body.display_name == "Nell" and draft.source == "Character Card V3 (PNG)"
    assert draft.picture
    only_v2 = import_card(png(("tEXt", "chara", b64(V2))), taken=set())
    assert only_v2.character.body.display_name == "Mara Voss"


def test_a_v1_card_and_contract_words_in_it() -> None:
    v1 = {"name": "Teodor", "description": "Teodor is controlled by the human player.", "chat": "x"}
    draft = import_card(json.dumps(v1).encode(), taken=set())
    assert draft.source == "Character Card V1 (JSON)"
    assert [d.field for d in draft.dropped] == ["chat"]
    assert any("would reveal who plays" in note for note in draft.notes)


@pytest.mark.parametrize(
    "data, message",
    [
        (b"\x89PNG\r\n\x1a\n" + chunk(b"IEND", b""), "no character card"),
        (b"\xff\xd8\xff\xe0 a jpeg", "not a JSON or PNG"),
        (b"GIF89a....", "not valid JSON"),
        (b"[1, 2]", "not a JSON object"),
        (json.dumps({"spec": "something_else"}).encode(), "not a character card"),
        (json.dumps({"spec": "chara_card_v2", "data": {"name": " "}}).encode(), "no name"),
        (png(("tEXt", "chara", b"!!!not base64 json")), "not readable|not valid JSON"),
    ],
)
def test_what_is_not_a_card_is_refused_in_words(data: bytes, message: str) -> None:
    with pytest.raises(CardError, match=message):
        import_card(data, taken=set())


async def test_import_route_export_and_reimport(api: Api) -> None:
    response = await api.client.post(
        "/characters/import", content=json.dumps(V2).encode(), headers=api.auth
    )
    assert response.status_code == 200, response.text
    draft = response.json()["character"]
    assert (await api.client.get(f"/characters/{draft['id']}")).status_code == 404  # not saved
    saved = await api.client.put(f"/characters/{draft['id']}", json=draft, headers=api.auth)
    assert saved.status_code == 200
    exported = await api.client.get(f"/characters/{draft['id']}/export")
    assert "attachment" in exported.headers["content-disposition"]
    again = await api.client.post("/characters/import", content=exported.content, headers=api.auth)
    body = again.json()
    assert body["character"]["mind"] == draft["mind"] and body["dropped"] == []
    assert body["character"]["id"] == "mara-voss-2"  # the id is taken now
    bad = await api.client.post("/characters/import", content=b"nope", headers=api.auth)
    assert bad.status_code == 422 and "not" in bad.json()["detail"]
    scenario = await api.client.get("/scenarios/the-toll-house/export")
    bundle = scenario.json()
    assert bundle["format"] == "tavern-scenario"
    assert {c["id"] for c in bundle["characters"]} == set(bundle["scenario"]["cast"].values())


async def test_pictures_are_sniffed_sized_and_kept_apart(api: Api) -> None:
    cid = (await api.client.get("/characters")).json()["data"][0]["character"]["id"]
    assert (await api.client.get(f"/characters/{cid}/avatar")).status_code == 404
    picture = png()
    put = await api.client.put(f"/characters/{cid}/avatar", content=picture, headers=api.auth)
    assert put.status_code == 200 and put.json()["avatar"] is True
    got = await api.client.get(f"/characters/{cid}/avatar")
    assert got.content == picture and got.headers["content-type"] == "image/png"
    svg = await api.client.put(f"/characters/{cid}/avatar", content=b"<svg/>", headers=api.auth)
    assert svg.status_code == 422  # negative control: only sniffed raster types
    big = await api.client.put(
        f"/characters/{cid}/avatar", content=picture + b"\0" * 600_000, headers=api.auth
    )
    assert big.status_code == 413
    assert (await api.client.get(f"/characters/{cid}/avatar")).content == picture  # unchanged
    none = await api.client.put("/characters/no-one/avatar", content=picture, headers=api.auth)
    assert none.status_code == 404
    view = await api.client.post(
        "/sessions", json={"scenario_id": "the-toll-house"}, headers=api.auth
    )
    assert "avatar" not in json.dumps(view.json())  # never in a session
    gone = await api.client.delete(f"/characters/{cid}/avatar", headers=api.auth)
    assert gone.json()["avatar"] is False
