"""A small JSONL journal reader for replay (the LLM layer may not import `tavern.store`).

Lines are parsed with `records.JOURNAL_LINE_ADAPTER`; a line of another `schema_version` is
refused with a clear error, never migrated.
"""

from __future__ import annotations

import json
from pathlib import Path

from tavern.records.journal import (
    JOURNAL_LINE_ADAPTER,
    JOURNAL_SCHEMA_VERSION,
    JournalLine,
    LlmCallLine,
)


class JournalFormatError(ValueError):
    """A journal line that cannot be read: bad JSON, unknown shape or another version."""


def read_journal_lines(path: Path) -> list[JournalLine]:
    """Every line of the JSONL journal at `path`, in file order.

    Raises:
        JournalFormatError: with the line number, for any unreadable line.
    """
    lines: list[JournalLine] = []
    with path.open(encoding="utf-8") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                data = json.loads(raw)
            except ValueError as exc:
                raise JournalFormatError(f"{path}:{number}: not JSON ({exc})") from None
            version = data.get("schema_version") if isinstance(data, dict) else None
            if version != JOURNAL_SCHEMA_VERSION:
                raise JournalFormatError(
                    f"{path}:{number}: journal schema_version {version!r}, this Tavern reads "
                    f"{JOURNAL_SCHEMA_VERSION}; refusing to guess"
                )
            try:
                lines.append(JOURNAL_LINE_ADAPTER.validate_python(data))
            except ValueError as exc:
                raise JournalFormatError(f"{path}:{number}: {exc}") from None
    return lines


def successful_calls(lines: list[JournalLine], session_id: str | None = None) -> list[LlmCallLine]:
    """The successful `llm_call` lines (no error, a response), optionally of one session."""
    return [
        line
        for line in lines
        if isinstance(line, LlmCallLine)
        and line.error is None
        and line.response is not None
        and (session_id is None or line.session_id == session_id)
    ]
