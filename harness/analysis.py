"""Journals as frames and DuckDB views, in the shape of inspect_ai's `*_df` functions.

Every frame carries the join keys `session_id` and `turn_number`. Columns are declared as
specs whose paths are checked against the journal record schema when this module is imported,
so a typo fails at once instead of producing an empty column.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd

from tavern.contract import check_prompt
from tavern.records import CommitLine, JournalLine, LlmCallLine, UndoLine
from tavern.store import read_journal

JournalPaths = str | Path | Sequence[str | Path]


@dataclass(frozen=True)
class Column:
    """One frame column: a dotted path into a journal line, or a function of the line."""

    name: str
    path: str | None = None
    fn: Callable[[Any], Any] | None = None


def _usage(key: str) -> Callable[[LlmCallLine], Any]:
    return lambda line: (line.usage or {}).get(key)


LLM_CALL_COLUMNS: tuple[Column, ...] = (
    Column("session_id", "session_id"),
    Column("turn_number", "turn_number"),
    Column("ts", "ts"),
    Column("agent", "agent"),
    Column("role", fn=lambda line: line.agent.split(":", 1)[0]),
    Column("provider", "provider"),
    Column("model", "model"),
    Column("source", "source"),
    Column("attempt_number", "attempt_number"),
    Column("error_type", "error_type"),
    Column("stopped_early", "stopped_early"),
    Column("duration_ms", "duration_ms"),
    Column("prompt_chars", "prompt_chars"),
    Column("prompt_estimated_tokens", "prompt_estimated_tokens"),
    Column("prompt_tokens", fn=_usage("prompt_tokens")),
    Column("completion_tokens", fn=_usage("completion_tokens")),
    Column("cache_hit_tokens", "prompt_cache.hit_tokens"),
    Column("cache_miss_tokens", "prompt_cache.miss_tokens"),
)

COMMIT_COLUMNS: tuple[Column, ...] = (
    Column("session_id", "session_id"),
    Column("turn_number", "turn_number"),
    Column("ts", "ts"),
    Column("revision", "revision"),
    Column("record_count", "record_count"),
    Column("tick", "tick"),
    Column("control_returned", "control_returned"),
    Column("clamp_changes", fn=lambda line: len(line.clamp_changes)),
)


def _check_paths(columns: Iterable[Column], model: type[Any]) -> None:
    """Fail at import if a column path does not exist in the record's JSON Schema."""
    schema = model.model_json_schema()
    defs = schema.get("$defs", {})
    for column in columns:
        if column.path is None:
            continue
        node: dict[str, Any] = schema
        for part in column.path.split("."):
            ref = node.get("$ref")
            if ref:
                node = defs[ref.rsplit("/", 1)[-1]]
            properties = node.get("properties", {})
            if part not in properties:
                raise ValueError(f"column {column.name!r}: {column.path!r} not in {model.__name__}")
            node = properties[part]


_check_paths(LLM_CALL_COLUMNS, LlmCallLine)
_check_paths(COMMIT_COLUMNS, CommitLine)


def _as_paths(paths: JournalPaths) -> list[Path]:
    if isinstance(paths, str | Path):
        candidates = [Path(paths)]
    else:
        candidates = [Path(p) for p in paths]
    out: list[Path] = []
    for path in candidates:
        out.extend(sorted(path.rglob("*.jsonl")) if path.is_dir() else [path])
    return out


_LineKey = tuple[str, str, datetime, int]
"""(kind, session_id, ts, turn_number): lines equal in full are equal here first."""


def read_lines(paths: JournalPaths) -> list[JournalLine]:
    """Read every journal line from files or directories of `*.jsonl` journals.

    A forked session's journal starts with a verbatim copy of its source's lines (same
    session id, same timestamps): a line equal to one already read from *another* file is
    that copy, and is dropped, so the source's calls and turns count once. Equal lines
    within one file are kept: they would be a double write, which analysis must show.
    """
    lines: list[JournalLine] = []
    seen: dict[_LineKey, list[JournalLine]] = {}
    for path in _as_paths(paths):
        own: list[tuple[_LineKey, JournalLine]] = []
        for line in read_journal(path):
            key: _LineKey = (line.kind, line.session_id, line.ts, line.turn_number)
            if any(line == earlier for earlier in seen.get(key, ())):
                continue  # copied from a journal already read: the fork's inheritance
            own.append((key, line))
            lines.append(line)
        for key, line in own:
            seen.setdefault(key, []).append(line)
    return lines


def _value(line: Any, column: Column) -> Any:
    if column.fn is not None:
        return column.fn(line)
    value = line
    for part in (column.path or "").split("."):
        value = getattr(value, part)
    return value


def _frame(lines: Iterable[Any], columns: Sequence[Column]) -> pd.DataFrame:
    rows = [{c.name: _value(line, c) for c in columns} for line in lines]
    return pd.DataFrame(rows, columns=[c.name for c in columns])


def llm_calls_df(paths: JournalPaths) -> pd.DataFrame:
    """One row per LLM attempt.

    Example:
        >>> llm_calls_df([]).columns[:3].tolist()
        ['session_id', 'turn_number', 'ts']
    """
    lines = [line for line in read_lines(paths) if isinstance(line, LlmCallLine)]
    return _frame(lines, LLM_CALL_COLUMNS)


def turns_df(paths: JournalPaths) -> pd.DataFrame:
    """One row per committed turn; undone turns are flagged `undone`."""
    lines = read_lines(paths)
    undone = {(u.session_id, u.removed_turn) for u in lines if isinstance(u, UndoLine)}
    frame = _frame([c for c in lines if isinstance(c, CommitLine)], COMMIT_COLUMNS)
    frame["undone"] = [
        (s, t) in undone for s, t in zip(frame["session_id"], frame["turn_number"], strict=True)
    ]
    return frame


def leaks_df(paths: JournalPaths, cast_names: Sequence[str] = ()) -> pd.DataFrame:
    """Sweep every journaled prompt with the prompt contract: one row per violation.

    Without `cast_names` only the lexical rules and the raw-id rule can fire; the structural
    rules that compare one character's block with the others' need the display names.
    """
    rows = []
    for line in read_lines(paths):
        if not isinstance(line, LlmCallLine):
            continue
        for violation in check_prompt(line.request.messages, cast_names):
            rows.append(
                {
                    "session_id": line.session_id,
                    "turn_number": line.turn_number,
                    "agent": line.agent,
                    "attempt_number": line.attempt_number,
                    "rule": violation.rule,
                    "message_index": violation.message_index,
                    "excerpt": violation.excerpt,
                }
            )
    columns = ["session_id", "turn_number", "agent", "attempt_number", "rule"]
    return pd.DataFrame(rows, columns=[*columns, "message_index", "excerpt"])


def connect(paths: JournalPaths, cast_names: Sequence[str] = ()) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB with typed views over the journals.

    Views: `calls` (every attempt), `turns` (commits), `usage` (tokens per session and role),
    `cache` (hit ratio per session and role), `leaks` (contract violations), `cost`
    (estimated prompt and completion tokens per session). Pass the session's `cast_names`:
    the contract's structural rules compare character blocks and need them.
    """
    con = duckdb.connect()
    con.register("calls_frame", llm_calls_df(paths))
    con.register("turns_frame", turns_df(paths))
    con.register("leaks_frame", leaks_df(paths, cast_names))
    con.execute("CREATE VIEW calls AS SELECT * FROM calls_frame")
    con.execute("CREATE VIEW turns AS SELECT * FROM turns_frame")
    con.execute("CREATE VIEW leaks AS SELECT * FROM leaks_frame")
    con.execute(
        """CREATE VIEW usage AS
        SELECT session_id, role, count(*) AS attempts,
               sum(CASE WHEN error_type IS NULL THEN 1 ELSE 0 END) AS successes,
               sum(coalesce(prompt_tokens, prompt_estimated_tokens)) AS prompt_tokens,
               sum(coalesce(completion_tokens, 0)) AS completion_tokens,
               median(duration_ms) AS median_ms
        FROM calls GROUP BY session_id, role"""
    )
    con.execute(
        """CREATE VIEW cache AS
        SELECT session_id, role,
               sum(cache_hit_tokens) AS hit_tokens, sum(cache_miss_tokens) AS miss_tokens,
               sum(cache_hit_tokens) / nullif(sum(cache_hit_tokens) + sum(cache_miss_tokens), 0)
                   AS hit_ratio
        FROM calls WHERE cache_hit_tokens IS NOT NULL GROUP BY session_id, role"""
    )
    con.execute(
        """CREATE VIEW cost AS
        SELECT session_id, sum(coalesce(prompt_tokens, prompt_estimated_tokens)) AS prompt_tokens,
               sum(coalesce(completion_tokens, 0)) AS completion_tokens, count(*) AS attempts
        FROM calls GROUP BY session_id"""
    )
    return con
