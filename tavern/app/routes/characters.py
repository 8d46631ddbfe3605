"""Character library: list, read, write user copies, delete; built-ins are read-only.
Also: import a character card as a draft, export a character, and its picture."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request, Response
from fastapi.responses import FileResponse

from tavern.app.avatars import MAX_AVATAR_BYTES, MEDIA_TYPES, AvatarError
from tavern.app.cards import MAX_CARD_BYTES, CardError, CardImport, import_card
from tavern.app.deps import AvatarsDep, IdPath, LibraryDep
from tavern.app.routes._library import attachment, require_matching_id
from tavern.app.schemas import CharacterExport, CharacterPublic, CharactersPublic
from tavern.records import Character
from tavern.store import Library

router = APIRouter(prefix="/characters", tags=["characters"])

_BINARY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}},
    }
}
"""The raw-bytes body of uploads, for the OpenAPI document (the route reads it itself)."""


def _public(character: Character, library: Library, avatars: AvatarsDep) -> CharacterPublic:
    return CharacterPublic(
        character=character,
        builtin=library.is_builtin_character(character.id),
        avatar=avatars.find(character.id) is not None,
    )


async def _body(request: Request, limit: int) -> bytes:
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > limit:
            raise HTTPException(413, f"the file is larger than {limit // 1024} KB")
    return bytes(data)


@router.get("")
def list_characters(library: LibraryDep, avatars: AvatarsDep) -> CharactersPublic:
    """Every character sheet, built-ins and user copies."""
    data = [_public(c, library, avatars) for c in library.list_characters()]
    return CharactersPublic(data=data, count=len(data))


@router.post("/import", openapi_extra=_BINARY)
async def import_character(request: Request, library: LibraryDep) -> CardImport:
    """Read a Character Card (V1/V2/V3, JSON or PNG) or a Tavern character export into an
    editable draft, with what was carried over, dropped and worth checking. Nothing is saved."""
    data = await _body(request, MAX_CARD_BYTES)
    taken = {c.id for c in library.list_characters()}
    try:
        return import_card(data, taken)
    except CardError as exc:
        raise HTTPException(422, str(exc)) from exc


@router.get("/{character_id}")
def get_character(
    character_id: IdPath, library: LibraryDep, avatars: AvatarsDep
) -> CharacterPublic:
    """One character sheet."""
    return _public(library.get_character(character_id), library, avatars)


@router.get("/{character_id}/export")
def export_character(
    character_id: IdPath, library: LibraryDep, response: Response
) -> CharacterExport:
    """The character as a file (`<id>.tavern.json`), importable again."""
    attachment(response, f"{character_id}.tavern.json")
    return CharacterExport(character=library.get_character(character_id))


@router.get(
    "/{character_id}/avatar",
    response_class=FileResponse,
    responses={200: {"content": {t: {} for t in MEDIA_TYPES.values()}}},
)
def get_avatar(character_id: IdPath, avatars: AvatarsDep) -> FileResponse:
    """The character's picture (404 when it has none)."""
    path = avatars.find(character_id)
    if path is None:
        raise HTTPException(404, f"character {character_id!r} has no picture")
    kind = MEDIA_TYPES[path.suffix.lstrip(".")]
    return FileResponse(path, media_type=kind, headers={"Cache-Control": "no-cache"})


@router.put("/{character_id}/avatar", openapi_extra=_BINARY)
async def put_avatar(
    character_id: IdPath, request: Request, library: LibraryDep, avatars: AvatarsDep
) -> CharacterPublic:
    """Keep a picture (PNG, JPEG, WebP or GIF, up to 512 KB) for a library character."""
    character = library.get_character(character_id)
    data = await _body(request, MAX_AVATAR_BYTES)
    try:
        avatars.put(character_id, data)
    except AvatarError as exc:
        raise HTTPException(422, str(exc)) from exc
    return _public(character, library, avatars)


@router.delete("/{character_id}/avatar")
def delete_avatar(
    character_id: IdPath, library: LibraryDep, avatars: AvatarsDep
) -> CharacterPublic:
    """Remove the character's picture (nothing happens when it has none)."""
    character = library.get_character(character_id)
    avatars.delete(character_id)
    return _public(character, library, avatars)


@router.put("/{character_id}")
def put_character(
    character_id: IdPath, body: Character, library: LibraryDep, avatars: AvatarsDep
) -> CharacterPublic:
    """Create or replace a user character; `revision` as for scenarios (409 when stale)."""
    require_matching_id(character_id, body.id)
    exists = character_id in {c.id for c in library.list_characters()}
    stored = library.put_character(body, body.revision if exists else None)
    return _public(stored, library, avatars)


@router.delete("/{character_id}")
def delete_character(
    character_id: IdPath, library: LibraryDep, avatars: AvatarsDep
) -> CharacterPublic:
    """Delete a user character (and its picture); answers with what was deleted."""
    character = library.get_character(character_id)
    library.delete_character(character_id)
    avatars.delete(character_id)
    return CharacterPublic(character=character, builtin=False)
