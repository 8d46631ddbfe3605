"""A small JSONL journal reader for replay (the LLM layer may not import `tavern.store`).

Lines are parsed with `records.journal.parse_journal_line`; a line of another `schema_version` is
refused with a clear error, never migrated.
"""

from __future__ import annotations

from pathlib import Path

from tavern.records.journal import (
    JournalFormatError,
    JournalLine,
    LlmCallLine,
    parse_journal_line,
)

__all__ = ["JournalFormatError", "read_journal_lines", "successful_calls"]


def read_journal_lines(path: Path) -> list[JournalLine]:
    """Every line of the JSONL journal at `path`, in file order.

    Raises:
        JournalFormatError: with the line number, for any unreadable line.
    """
    with path.open(encoding="utf-8") as handle:
        return [
            parse_journal_line(raw, f"{path}:{number}")
            for number, raw in enumerate(handle, start=1)
            if raw.strip()
        ]


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
