"""Character cards in, as editable drafts: Character Card V1/V2/V3 as JSON or as a PNG with
the card in a text chunk, and our own character export.

A card is mapped to a `Character` draft and a report: which card fields were carried over,
which were dropped and why, and what the user should check (a placeholder the sheet needs, a
contract violation in the card's words). Nothing is saved here; the editor shows the draft.

Mapping (the public spec: `spec`, `spec_version`, `data` with `name`, `description`,
`personality`, `scenario`, `first_mes`, `mes_example`, ...): `data.nickname` (V3) or
`data.name` -> `body.display_name`; `description` then `personality` -> `mind.personality`
(a card's description is its character definition, the model's to read, not what strangers
see). `{{char}}` becomes the name and `{{user}}` "someone": no model here may learn that a
person plays. Greetings, example dialogue, prompt overrides, lorebooks and metadata have no
place in a sheet and are dropped, each named in the report.

PNG text chunks are read with the standard library: `ccv3` (V3) is preferred over `chara`
(V2), each base64 of the card's JSON, in `tEXt`, `zTXt` or `iTXt`.

Example:
    >>> draft = import_card(b'{"spec": "chara_card_v2", "spec_version": "2.0",'
    ...     b' "data": {"name": "Mara Voss", "description": "{{char}} keeps a ledger.",'
    ...     b' "first_mes": "Hello."}}', taken=set())
    >>> draft.character.id, draft.character.mind.personality
    ('mara-voss', 'Mara Voss keeps a ledger.')
    >>> [d.field for d in draft.dropped]
    ['first_mes']
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import struct
import unicodedata
import zlib
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, ValidationError

from tavern import contract
from tavern.records import Body, Character, Mind

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MAX_CARD_BYTES = 10 * 1024 * 1024
"""The largest card accepted (PNG cards carry a full picture)."""
STRANGER_REF = "the stranger"
"""What strangers call an imported character until the user writes something better."""
OWN_FORMAT = "tavern-character"

DROPPED_REASONS: dict[str, str] = {
    "scenario": "a setting belongs to a scenario: write it in the scenario editor",
    "first_mes": "greetings are not kept: openings here come from the scene",
    "alternate_greetings": "greetings are not kept: openings here come from the scene",
    "group_only_greetings": "greetings are not kept: openings here come from the scene",
    "mes_example": "example dialogue is not kept: characters speak from their sheet",
    "system_prompt": "prompt overrides are not kept: prompts are built by the kernel",
    "post_history_instructions": "prompt overrides are not kept: prompts are built by the kernel",
    "character_book": "lorebooks are not supported",
    "creator_notes": "notes for people, not for the story",
    "creator_notes_multilingual": "notes for people, not for the story",
    "tags": "metadata",
    "creator": "metadata",
    "character_version": "metadata",
    "source": "metadata",
    "creation_date": "metadata",
    "modification_date": "metadata",
    "assets": "assets are not supported (a PNG card's own picture is offered as the picture)",
    "extensions": "tool-specific extensions are not read",
}
CARRIED = ("name", "nickname", "description", "personality")


class DroppedField(BaseModel):
    """A card field that has no place in a character sheet."""

    field: str
    """The card's field name."""
    reason: str
    """Why it was not carried over."""


class CardImport(BaseModel):
    """A card read into a draft character; nothing is saved."""

    character: Character
    """The draft, ready for the editor."""
    source: str
    """What was read, e.g. `Character Card V2 (PNG)`."""
    carried: list[str]
    """Card fields carried into the draft."""
    dropped: list[DroppedField]
    """Card fields left out, with reasons."""
    notes: list[str]
    """What to check before saving."""
    picture: bool
    """The file is a PNG whose image can be the character's picture."""


class CardError(ValueError):
    """A file that is not a card this importer reads (answered with a 422)."""


def png_text_chunks(data: bytes) -> Iterator[tuple[str, str]]:
    """(keyword, text) of every tEXt, zTXt and iTXt chunk of a PNG.

    Raises:
        CardError: not a PNG, or a damaged chunk.
    """
    if not data.startswith(PNG_SIGNATURE):
        raise CardError("not a PNG file")
    at = len(PNG_SIGNATURE)
    while at + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[at : at + 8])
        body = data[at + 8 : at + 8 + length]
        if len(body) != length:
            raise CardError("the PNG file is cut short")
        at += 12 + length
        try:
            if kind == b"tEXt":
                key, _, text = body.partition(b"\0")
                yield key.decode("latin-1"), text.decode("latin-1")
            elif kind == b"zTXt":
                key, _, rest = body.partition(b"\0")
                yield key.decode("latin-1"), zlib.decompress(rest[1:]).decode("latin-1")
            elif kind == b"iTXt":
                key, _, rest = body.partition(b"\0")
                compressed, rest = rest[0], rest[2:]
                _, _, rest = rest.partition(b"\0")  # language tag
                _, _, text = rest.partition(b"\0")  # translated keyword
                raw = zlib.decompress(text) if compressed else text
                yield key.decode("latin-1"), raw.decode("utf-8")
        except (zlib.error, UnicodeDecodeError, IndexError) as exc:
            raise CardError(f"a damaged {kind.decode('latin-1')} chunk in the PNG") from exc
        if kind == b"IEND":
            return


def _card_json(data: bytes) -> tuple[dict[str, Any], str]:
    """The card's JSON object and where it came from (`JSON` or `PNG`)."""
    if data.startswith(PNG_SIGNATURE):
        chunks = dict(png_text_chunks(data))
        encoded = chunks.get("ccv3") or chunks.get("chara")
        if encoded is None:
            raise CardError("this PNG holds no character card (no 'chara' or 'ccv3' text)")
        try:
            text = base64.b64decode(encoded, validate=False).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError) as exc:
            raise CardError("the card inside the PNG is not readable base64 text") from exc
        where = "PNG"
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise CardError("not a JSON or PNG file") from exc
        where = "JSON"
    try:
        found = json.loads(text)
    except ValueError as exc:
        raise CardError("the card is not valid JSON") from exc
    if not isinstance(found, dict):
        raise CardError("the card is not a JSON object")
    return found, where


def slug(name: str, taken: set[str]) -> str:
    """A library id from a name, not in `taken`.

    >>> slug("Élise O'Hara", {"elise-o-hara"})
    'elise-o-hara-2'
    """
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    base = re.sub(r"[^a-z0-9]+", "-", plain).strip("-")[:56] or "character"
    candidate, n = base, 2
    while candidate in taken:
        candidate, n = f"{base}-{n}", n + 1
    return candidate


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _macros(text: str, name: str) -> tuple[str, bool]:
    replaced = re.sub(r"\{\{\s*char\s*\}\}|<BOT>", name, text, flags=re.IGNORECASE)
    user = re.compile(r"\{\{\s*user\s*\}\}|<USER>", re.IGNORECASE)
    return user.sub("someone", replaced), bool(user.search(replaced))


def _own_export(found: dict[str, Any], where: str, taken: set[str]) -> CardImport:
    try:
        character = Character.model_validate(found.get("character"))
    except ValidationError as exc:
        raise CardError(f"the exported character does not read: {exc.errors()[0]['msg']}") from exc
    notes = []
    if character.id in taken:
        new_id = slug(character.id, taken)
        notes.append(f"the id {character.id!r} is taken here: the draft is {new_id!r}")
        character = character.model_copy(update={"id": new_id})
    character = character.model_copy(update={"revision": 0})
    return CardImport(
        character=character,
        source=f"a Tavern character export ({where})",
        carried=["character"],
        dropped=[],
        notes=notes,
        picture=False,
    )


def import_card(data: bytes, taken: set[str]) -> CardImport:
    """Read a card (JSON or PNG bytes) into a draft character and its report.

    Args:
        data: The uploaded file.
        taken: Library ids already in use (the draft gets another).

    Raises:
        CardError: not a card, or one without a name.
    """
    if len(data) > MAX_CARD_BYTES:
        raise CardError(f"the file is larger than {MAX_CARD_BYTES // (1024 * 1024)} MB")
    found, where = _card_json(data)
    if found.get("format") == OWN_FORMAT:
        return _own_export(found, where, taken)
    spec = found.get("spec")
    if spec in ("chara_card_v2", "chara_card_v3"):
        fields = found.get("data")
        if not isinstance(fields, dict):
            raise CardError("the card has no 'data' object")
        version = "V3" if spec == "chara_card_v3" else "V2"
    elif spec is None and "name" in found:
        fields, version = found, "V1"
    else:
        raise CardError(f"not a character card this importer reads (spec {spec!r})")
    name = _text(fields.get("nickname")) or _text(fields.get("name"))
    if not name:
        raise CardError("the card has no name")
    notes: list[str] = []
    if len(name) > 80:
        notes.append("the name was cut to 80 characters")
        name = name[:80].strip()
    parts = [_text(fields.get("description")), _text(fields.get("personality"))]
    personality, had_user = _macros("\n\n".join(p for p in parts if p), name)
    if had_user:
        notes.append("'{{user}}' (the card's stand-in for the player) now reads 'someone'")
    notes.append(f"how strangers refer to them is '{STRANGER_REF}': describe them better")
    notes.append("appearance is empty: write what others can see")
    character = Character(
        id=slug(name, taken),
        body=Body(display_name=name, description_ref=STRANGER_REF, appearance=""),
        mind=Mind(personality=personality),
    )
    for where_, text in (("name", name), ("personality", personality)):
        for violation in contract.check_text(text, where_):
            notes.append(
                f"{where_}: {violation.excerpt!r} would reveal who plays ({violation.rule}):"
                " change it before playing"
            )
    carried = [f for f in CARRIED if _text(fields.get(f))]
    dropped = [
        DroppedField(field=key, reason=DROPPED_REASONS.get(key, "not a field of a character sheet"))
        for key, value in fields.items()
        if key not in CARRIED and value not in (None, "", [], {})
    ]
    return CardImport(
        character=character,
        source=f"Character Card {version} ({where})",
        carried=carried,
        dropped=dropped,
        notes=notes,
        picture=where == "PNG",
    )
