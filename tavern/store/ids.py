"""Id validation and generation. Every id that becomes a path or a key passes through here."""

from __future__ import annotations

import re
import secrets
from datetime import UTC, datetime

from tavern.records.character import CHARACTER_ID_PATTERN
from tavern.records.scenario import SCENARIO_ID_PATTERN
from tavern.records.session import SESSION_ID_PATTERN
from tavern.store.errors import InvalidIdError

_SESSION_ID = re.compile(SESSION_ID_PATTERN)
_CHARACTER_ID = re.compile(CHARACTER_ID_PATTERN)
_SCENARIO_ID = re.compile(SCENARIO_ID_PATTERN)


def _check(pattern: re.Pattern[str], value: object, what: str) -> str:
    # fullmatch, not match: `$` alone would accept a trailing newline.
    if not isinstance(value, str) or pattern.fullmatch(value) is None:
        raise InvalidIdError(f"invalid {what} id {value!r}: must match {pattern.pattern}")
    return value


def check_session_id(session_id: object) -> str:
    """Return `session_id` if it is a valid session id.

    Raises:
        InvalidIdError: for anything else (path separators, dots, upper case, empty).
    """
    return _check(_SESSION_ID, session_id, "session")


def check_character_id(character_id: object) -> str:
    """Return `character_id` if it is a valid library character id, else raise InvalidIdError."""
    return _check(_CHARACTER_ID, character_id, "character")


def check_scenario_id(scenario_id: object) -> str:
    """Return `scenario_id` if it is a valid library scenario id, else raise InvalidIdError."""
    return _check(_SCENARIO_ID, scenario_id, "scenario")


def new_session_id() -> str:
    """Return a fresh session id: UTC date, time and random hex, sortable by creation.

    >>> bool(_SESSION_ID.fullmatch(new_session_id()))
    True
    """
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    return f"s{stamp}-{secrets.token_hex(4)}"
