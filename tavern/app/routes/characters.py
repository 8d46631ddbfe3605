"""Character library: list, read, write user copies, delete; built-ins are read-only."""

from __future__ import annotations

from fastapi import APIRouter

from tavern.app.deps import IdPath, LibraryDep
from tavern.app.routes._library import require_matching_id
from tavern.app.schemas import CharacterPublic, CharactersPublic
from tavern.records import Character
from tavern.store import Library

router = APIRouter(prefix="/characters", tags=["characters"])


def _public(character: Character, library: Library) -> CharacterPublic:
    return CharacterPublic(character=character, builtin=library.is_builtin_character(character.id))


@router.get("")
def list_characters(library: LibraryDep) -> CharactersPublic:
    """Every character sheet, built-ins and user copies."""
    data = [_public(c, library) for c in library.list_characters()]
    return CharactersPublic(data=data, count=len(data))


@router.get("/{character_id}")
def get_character(character_id: IdPath, library: LibraryDep) -> CharacterPublic:
    """One character sheet."""
    return _public(library.get_character(character_id), library)


@router.put("/{character_id}")
def put_character(character_id: IdPath, body: Character, library: LibraryDep) -> CharacterPublic:
    """Create or replace a user character; `revision` as for scenarios (409 when stale)."""
    require_matching_id(character_id, body.id)
    exists = character_id in {c.id for c in library.list_characters()}
    stored = library.put_character(body, body.revision if exists else None)
    return _public(stored, library)


@router.delete("/{character_id}")
def delete_character(character_id: IdPath, library: LibraryDep) -> CharacterPublic:
    """Delete a user character; answers with what was deleted."""
    character = library.get_character(character_id)
    library.delete_character(character_id)
    return CharacterPublic(character=character, builtin=False)
