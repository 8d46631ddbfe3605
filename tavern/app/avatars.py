"""Character pictures: one optional image per library character, beside the library.

Pictures are decoration for the human's screen only: they live in
`<data_dir>/library/avatars/<character id>.<ext>`, never in a `Character` record, a session
state or a prompt. The type is read from the file's first bytes (never trusted from the
request), and only PNG, JPEG, WebP and GIF up to `MAX_AVATAR_BYTES` are kept.

Example:
    >>> kind_of(b"\\x89PNG\\r\\n\\x1a\\n....")
    'png'
    >>> kind_of(b"<svg>") is None
    True
"""

from __future__ import annotations

from pathlib import Path

from tavern.store import check_character_id, write_atomic

MAX_AVATAR_BYTES = 512 * 1024
MEDIA_TYPES = {"png": "image/png", "jpg": "image/jpeg", "webp": "image/webp", "gif": "image/gif"}


class AvatarError(ValueError):
    """An upload that is not a picture this app keeps (answered with a 422)."""


def kind_of(data: bytes) -> str | None:
    """The picture type of `data` by its signature, or None."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if data.startswith(b"\xff\xd8\xff"):
        return "jpg"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "gif"
    return None


class Avatars:
    """The pictures of one data directory."""

    def __init__(self, data_dir: Path) -> None:
        """Pictures under `data_dir/library/avatars`."""
        self.directory = Path(data_dir) / "library" / "avatars"

    def find(self, character_id: str) -> Path | None:
        """The stored picture of a character, if any."""
        check_character_id(character_id)
        for ext in MEDIA_TYPES:
            path = self.directory / f"{character_id}.{ext}"
            if path.is_file():
                return path
        return None

    def put(self, character_id: str, data: bytes) -> str:
        """Keep `data` as the character's picture (replacing any); returns its media type.

        Raises:
            AvatarError: too large, or not a PNG, JPEG, WebP or GIF.
        """
        check_character_id(character_id)
        if len(data) > MAX_AVATAR_BYTES:
            raise AvatarError(f"the picture is larger than {MAX_AVATAR_BYTES // 1024} KB")
        kind = kind_of(data)
        if kind is None:
            raise AvatarError("the picture must be a PNG, JPEG, WebP or GIF file")
        self.directory.mkdir(parents=True, exist_ok=True)
        write_atomic(self.directory / f"{character_id}.{kind}", data)
        for other in MEDIA_TYPES:
            if other != kind:
                (self.directory / f"{character_id}.{other}").unlink(missing_ok=True)
        return MEDIA_TYPES[kind]

    def delete(self, character_id: str) -> bool:
        """Remove the character's picture; whether there was one."""
        path = self.find(character_id)
        if path is None:
            return False
        path.unlink(missing_ok=True)
        return True
