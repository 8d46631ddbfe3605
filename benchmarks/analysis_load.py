"""Journal load time: the Python loop the analysis used until issue 44 against DuckDB's reader.

    python -m benchmarks.analysis_load                      # 1,000,000 lines
    python -m benchmarks.analysis_load --lines 100000 --keep /tmp/j

A fake-provider session of the toll house (12 turns, the soak's inputs) is played once and
copied under new session ids into one journal per session until the set holds `--lines`
lines; each message is cut to `--message-chars` characters so a million lines fit on disk
and in memory (real prompts run 5-20 KB; shorter lines favour the loop, which pays per line).
Then, on the same files:

- **loop**: the former `harness.analysis` as it stood at commit 350f8fc, its functions
  copied below: `llm_calls_df` and `turns_df`, each reading every line with `read_journal`
  into pydantic records, dropping forks' copies by comparing records, and building its
  frame row by row (the sweep its `connect` also ran is left out of both sides);
- **duckdb**: `harness.analysis.connect` without the sweeps (the journals read in place by
  DuckDB, split into lines and cast once to the records' column types; the views), then
  the `calls` and `turns` views fetched as frames:
  in memory (cold); into a database file (cold, writing it); and that file opened again on
  the unchanged journals (warm: `connect` reuses the tables it holds).

Each prints its time, lines per second and peak memory growth; the ratios are printed last.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pandas as pd

from harness.analysis import connect
from tavern.records import CommitLine, JournalLine, LlmCallLine, TurnInput, UndoLine
from tavern.records.config import AppConfig, ProviderSettings
from tavern.runner import build_runner
from tavern.store import Library, SessionStore, journal_path, read_journal

TURNS = [
    TurnInput(speech="Good evening to you all. What brings everyone here tonight?"),
    TurnInput(action="walks slowly to the nearest window and looks outside"),
    TurnInput(thought="Someone here is lying to me."),
    TurnInput(skip=True),
    TurnInput(speech="I think we should open it now.", action="reaches for the door"),
    TurnInput(speech="Keep your voice down.", whisper_to=["C2"]),
    TurnInput(skip=True),
    TurnInput(speech="Who are you, exactly?"),
    TurnInput(action="sits down by the fire"),
    TurnInput(speech="Let's get on with it."),
    TurnInput(speech="The river will not wait."),
    TurnInput(skip=True),
]


async def _play(data_dir: Path) -> str:
    config = AppConfig(
        active_provider="fake", providers={"fake": ProviderSettings(options={"mode": "parrot"})}
    )
    store = SessionStore(data_dir, synchronous="OFF")
    runner = build_runner(config=config, library=Library(data_dir), store=store)
    view = await runner.create_session("the-toll-house")
    for turn in TURNS:
        await runner.play_turn(view.id, turn)
    await runner.aclose()
    store.close()
    return view.id


def template_lines(message_chars: int) -> tuple[str, list[str]]:
    """One played session's journal lines, each message cut to `message_chars`."""
    with tempfile.TemporaryDirectory(prefix="tavern-bench-") as tmp:
        session_id = asyncio.run(_play(Path(tmp)))
        raw = journal_path(tmp, session_id).read_text(encoding="utf-8").splitlines()
    out = []
    for text in raw:
        data = json.loads(text)
        for message in data.get("request", {}).get("messages", []):
            message["content"] = message["content"][:message_chars]
        out.append(json.dumps(data, ensure_ascii=False))
    return session_id, out


def write_set(root: Path, lines: int, message_chars: int) -> tuple[int, int]:
    """Copy the template session until `lines` lines are written; (files, bytes)."""
    session_id, template = template_lines(message_chars)
    written = files = size = 0
    while written < lines:
        sid = f"bench-{files:06d}"
        chunk = template[: lines - written]
        body = "\n".join(line.replace(session_id, sid) for line in chunk) + "\n"
        path = root / "sessions" / sid / "journal.jsonl"
        path.parent.mkdir(parents=True)
        path.write_text(body, encoding="utf-8")
        written += len(chunk)
        files += 1
        size += len(body.encode())
    return files, size


# -- the loop: `harness.analysis` as it stood at 350f8fc, its frame functions verbatim ---


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
_LineKey = tuple[str, str, datetime, int]


def old_read_lines(paths: Path) -> list[JournalLine]:
    """The former `read_lines`: every line parsed, forks' copies dropped record by record."""
    lines: list[JournalLine] = []
    seen: dict[_LineKey, list[JournalLine]] = {}
    for path in sorted(paths.rglob("*.jsonl")) if paths.is_dir() else [paths]:
        own: list[tuple[_LineKey, JournalLine]] = []
        for line in read_journal(path):
            key: _LineKey = (line.kind, line.session_id, line.ts, line.turn_number)
            if any(line == earlier for earlier in seen.get(key, ())):
                continue
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


def old_llm_calls_df(paths: Path) -> pd.DataFrame:
    """The former `llm_calls_df`."""
    lines = [line for line in old_read_lines(paths) if isinstance(line, LlmCallLine)]
    return _frame(lines, LLM_CALL_COLUMNS)


def old_turns_df(paths: Path) -> pd.DataFrame:
    """The former `turns_df`."""
    lines = old_read_lines(paths)
    undone = {(u.session_id, u.removed_turn) for u in lines if isinstance(u, UndoLine)}
    frame = _frame([c for c in lines if isinstance(c, CommitLine)], COMMIT_COLUMNS)
    frame["undone"] = [
        (s, t) in undone for s, t in zip(frame["session_id"], frame["turn_number"], strict=True)
    ]
    return frame


def run_loop(root: Path) -> tuple[int, int]:
    """The former frames, each function reading the journals as it did: (calls, turns)."""
    return len(old_llm_calls_df(root)), len(old_turns_df(root))


def run_duckdb(root: Path, database: str = ":memory:") -> tuple[int, int]:
    """The new load, then the same two frames from the views."""
    con = connect(root, sweep=False, database=database)
    calls = con.execute("SELECT * EXCLUDE (messages, response) FROM calls").df()
    turns = con.execute("SELECT * EXCLUDE (input) FROM turns").df()
    con.close()
    return len(calls), len(turns)


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _timed(name: str, fn: Any, lines: int) -> float:
    before = _peak_mb()
    start, cpu = time.perf_counter(), time.process_time()
    calls, turns = fn()
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(
        f"{name:14s} {seconds:8.2f} s wall {cpu:8.2f} s CPU  {lines / seconds:11,.0f} lines/s  "
        f"calls {calls:,}  turns {turns:,}  peak RSS +{_peak_mb() - before:,.0f} MB",
        flush=True,
    )
    return seconds


def main(argv: Sequence[str] | None = None) -> None:
    """Generate the set, time both loaders on it, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--message-chars", type=int, default=300)
    parser.add_argument("--keep", type=Path, help="write the set here and keep it")
    parser.add_argument("--skip-loop", action="store_true", help="time only the DuckDB load")
    args = parser.parse_args(argv)
    root = args.keep or Path(tempfile.mkdtemp(prefix="tavern-bench-journals-"))
    try:
        start = time.perf_counter()
        files, size = write_set(root, args.lines, args.message_chars)
        print(
            f"set: {args.lines:,} lines in {files:,} journals, {size / 1e6:,.0f} MB "
            f"(messages cut to {args.message_chars} chars), written in "
            f"{time.perf_counter() - start:.1f} s"
        )
        database = str(root / "analysis.duckdb")
        # DuckDB first: the loop's peak memory then shows on top of a process that has
        # already held the set once, not the other way round.
        cold = _timed("duckdb", lambda: run_duckdb(root), args.lines)
        _timed("duckdb to file", lambda: run_duckdb(root, database), args.lines)
        warm = _timed("duckdb reopened", lambda: run_duckdb(root, database), args.lines)
        if not args.skip_loop:
            slow = _timed("loop", lambda: run_loop(root), args.lines)
            print(
                f"ratio: the DuckDB load is {slow / cold:.1f}x faster than the loop cold, "
                f"{slow / warm:.1f}x reopened"
            )
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
