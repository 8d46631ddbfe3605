"""Journal load time: the Python loop the analysis used until issue 44 against DuckDB's reader.

    python -m benchmarks.analysis_load                      # 1,000,000 lines
    python -m benchmarks.analysis_load --lines 100000 --keep /tmp/j

A fake-provider session of the toll house (12 turns, the soak's inputs) is played once and
copied under new session ids into one journal per session until the set holds `--lines`
lines; each message is cut to `--message-chars` characters so a million lines fit on disk
and in memory (real prompts run 5-20 KB; shorter lines favour the loop, which pays per line).
Then, on the same files:

- **loop**: the former `harness.analysis` (each line parsed by `read_journal` into pydantic
  records, forks' copies dropped by comparing records, frames built row by row), as it
  stood at commit 350f8fc, copied below;
- **duckdb**: `harness.loader.load` (DuckDB's `read_json` with the generated column types),
  then the `calls` and `turns` views fetched as frames.

Both print their time, lines per second and peak memory growth; the ratio is printed last.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import shutil
import tempfile
import time
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd

from harness.loader import load
from harness.prices import create_price_table, read_prices
from harness.tokens import create_token_table
from harness.views import create_views
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


# -- the loop, as `harness.analysis` stood at 350f8fc ------------------------------------


def _old_paths(paths: Path) -> list[Path]:
    return sorted(paths.rglob("*.jsonl")) if paths.is_dir() else [paths]


def old_read_lines(paths: Path) -> list[JournalLine]:
    """The former `read_lines`: every line parsed, forks' copies dropped record by record."""
    lines: list[JournalLine] = []
    seen: dict[tuple[str, str, datetime, int], list[JournalLine]] = {}
    for path in _old_paths(paths):
        own = []
        for line in read_journal(path):
            key = (line.kind, line.session_id, line.ts, line.turn_number)
            if any(line == earlier for earlier in seen.get(key, ())):
                continue
            own.append((key, line))
            lines.append(line)
        for key, line in own:
            seen.setdefault(key, []).append(line)
    return lines


def _old_calls(lines: Iterable[JournalLine]) -> pd.DataFrame:
    rows = []
    for line in lines:
        if isinstance(line, LlmCallLine):
            usage = line.usage or {}
            rows.append(
                {
                    "session_id": line.session_id, "turn_number": line.turn_number,
                    "ts": line.ts, "agent": line.agent, "role": line.agent.split(":", 1)[0],
                    "provider": line.provider, "model": line.model, "source": line.source,
                    "attempt_number": line.attempt_number, "error_type": line.error_type,
                    "stopped_early": line.stopped_early, "duration_ms": line.duration_ms,
                    "prompt_chars": line.prompt_chars,
                    "prompt_estimated_tokens": line.prompt_estimated_tokens,
                    "prompt_tokens": usage.get("prompt_tokens"),
                    "completion_tokens": usage.get("completion_tokens"),
                    "cache_hit_tokens": line.prompt_cache.hit_tokens,
                    "cache_miss_tokens": line.prompt_cache.miss_tokens,
                }
            )  # fmt: skip
    return pd.DataFrame(rows)


def _old_turns(lines: Sequence[JournalLine]) -> pd.DataFrame:
    undone = {(u.session_id, u.removed_turn) for u in lines if isinstance(u, UndoLine)}
    rows = [
        {
            "session_id": c.session_id, "turn_number": c.turn_number, "ts": c.ts,
            "revision": c.revision, "record_count": c.record_count, "tick": c.tick,
            "control_returned": c.control_returned, "clamp_changes": len(c.clamp_changes),
            "undone": (c.session_id, c.turn_number) in undone,
        }
        for c in lines
        if isinstance(c, CommitLine)
    ]  # fmt: skip
    return pd.DataFrame(rows)


def run_loop(root: Path) -> tuple[int, int]:
    """The former frames: (calls, turns)."""
    lines = old_read_lines(root)
    return len(_old_calls(lines)), len(_old_turns(lines))


def run_duckdb(root: Path) -> tuple[int, int]:
    """The new load, then the same two frames from the views."""
    con = duckdb.connect()
    load(con, root)
    create_token_table(con)
    create_price_table(con, read_prices())
    create_views(con)
    calls = con.execute("SELECT * EXCLUDE (messages, response) FROM calls").df()
    turns = con.execute("SELECT * EXCLUDE (input) FROM turns").df()
    con.close()
    return len(calls), len(turns)


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _timed(name: str, fn: Any, root: Path, lines: int) -> float:
    before = _peak_mb()
    start = time.perf_counter()
    calls, turns = fn(root)
    seconds = time.perf_counter() - start
    print(
        f"{name:7s} {seconds:9.2f} s  {lines / seconds:12,.0f} lines/s  "
        f"calls {calls:,}  turns {turns:,}  peak RSS +{_peak_mb() - before:,.0f} MB"
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
        # DuckDB first: the loop's peak memory then shows on top of a process that has
        # already held the set once, not the other way round.
        fast = _timed("duckdb", run_duckdb, root, args.lines)
        if not args.skip_loop:
            slow = _timed("loop", run_loop, root, args.lines)
            print(f"ratio: the DuckDB load is {slow / fast:.1f}x faster than the loop")
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
