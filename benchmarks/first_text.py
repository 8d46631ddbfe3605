"""First visible text: from Send to the first line a player reads, and to the turn's end.

    python -m benchmarks.first_text                 # the embedded local model, 10 turns
    python -m benchmarks.first_text --provider fake # the fake provider (a smoke run)

Plays `--warmup` turns (not counted: they fill the server's prompt cache, as a session that
has been played a while has it) and then `--turns` turns of a built-in scenario through
`Runner.play_turn` with a `lines` callback, the path the SSE route streams from
(`tavern.app.sse.stream_turn` forwards each batch as it comes). For each turn it takes the
time from the call (Send) to the first batch holding a record the player did not write (an
event, the narration, another character's line, or a quiet beat's marker: what the page
draws first that is not the player's own words; `narration*` marks a narration's first
complete sentences, shown while the rest is written) and to the end of the turn (committed).
Prints each turn (with its model time by role, from the journal: `outcome` is the Director's
follow-up calls, shown after the events the decision admitted; and the Director decision's
prompt tokens cached and new and its answer tokens), then the median and p90
of both (goal: first visible text within 12 s on the local model, 2 cores, warm cache), with
the load average before and after: on a shared machine the figures include waiting for a
core.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tavern.records import HistoryRecord, LlmCallLine, TurnInput
from tavern.records.config import AppConfig, ProviderSettings
from tavern.runner import ModelFailureError, build_runner
from tavern.store import Library, SessionStore, journal_path, read_journal

INPUTS = [
    TurnInput(speech="Good evening. Is the ferry still running tonight?"),
    TurnInput(action="shakes the rain off her coat and looks at the toll box"),
    TurnInput(speech="Who keeps the ledger here?"),
    TurnInput(thought="They are hiding something.", speech="I only want to cross."),
    TurnInput(action="sets a coin on the table"),
    TurnInput(speech="What happened to the last ferryman?"),
    TurnInput(skip=True),
    TurnInput(speech="I will wait by the fire, then."),
    TurnInput(action="listens at the door"),
    TurnInput(speech="Someone is out there. Do you hear it?"),
]
"""What the player sends, in turn (cycled)."""


@dataclass
class Timing:
    """One turn: seconds from Send to the first visible text (None: nothing but the
    player's own lines) and to the end, and what came first."""

    first_s: float | None
    end_s: float
    first_kind: str
    failed: bool = False
    director_s: float = 0.0
    """The model time of the Director's decision call (its follow-ups apart)."""


async def timed_turn(runner: object, sid: str, turn: TurnInput) -> Timing:
    """Play one turn, noting when the first line the player did not write arrives."""
    start = time.perf_counter()
    first: list[tuple[float, str]] = []

    async def lines(records: Sequence[HistoryRecord], partial: bool = False) -> None:
        theirs = [r for r in records if r.author != "human"]
        if theirs and not first:
            kind = f"{theirs[0].kind}{'*' if partial else ''}"
            first.append((time.perf_counter() - start, kind))

    try:
        await runner.play_turn(sid, turn, None, None, lines)  # type: ignore[attr-defined]
    except ModelFailureError as exc:
        print(f"   a turn failed: {exc}")
        return Timing(None, time.perf_counter() - start, "-", failed=True)
    end = time.perf_counter() - start
    at, kind = first[0] if first else (None, "-")
    return Timing(at, end, kind)


def role_of(agent: str) -> str:
    """A journal agent's role for the figures: the Director's follow-up calls
    (`director:outcome`) apart from its decision, every Character together."""
    return "outcome" if agent == "director:outcome" else agent.split(":")[0]


def model_seconds(data_dir: Path, sid: str, turn: int) -> dict[str, float]:
    """The turn's model time by role, from its journal (every attempt's `duration_ms`)."""
    spent: dict[str, float] = {}
    for line in read_journal(journal_path(data_dir, sid)):
        if isinstance(line, LlmCallLine) and line.turn_number == turn:
            role = role_of(line.agent)
            spent[role] = spent.get(role, 0.0) + (line.duration_ms or 0) / 1000
    return spent


def director_tokens(data_dir: Path, sid: str, turn: int) -> str:
    """The turn's Director decision calls: prompt tokens served from the cache / evaluated,
    and answer tokens (the provider's `usage`), per attempt."""
    out = []
    for line in read_journal(journal_path(data_dir, sid)):
        if isinstance(line, LlmCallLine) and line.turn_number == turn:
            if line.agent == "director":
                usage = line.usage or {}
                hit, miss = line.prompt_cache.hit_tokens, line.prompt_cache.miss_tokens
                out.append(f"cached {hit} new {miss} answer {usage.get('completion_tokens')}")
    return "; ".join(out)


def p90(values: list[float]) -> float:
    """The 90th percentile (inclusive method; the largest of fewer than two values)."""
    if len(values) < 2:
        return values[0]
    return statistics.quantiles(values, n=10, method="inclusive")[-1]


def config_for(provider: str) -> AppConfig:
    """The app's own settings for `provider`, seeded so two runs ask the same."""
    return AppConfig(active_provider=provider, providers={provider: ProviderSettings(seed=7)})


async def bench(args: argparse.Namespace, data_dir: Path) -> list[Timing]:
    store = SessionStore(data_dir)
    runner = build_runner(config=config_for(args.provider), library=Library(data_dir), store=store)
    try:
        view = await runner.create_session(args.scenario)
        timings = []
        for i in range(args.warmup + args.turns):
            turn = INPUTS[i % len(INPUTS)]
            timing = await timed_turn(runner, view.id, turn)
            counted = i >= args.warmup
            first = "-" if timing.first_s is None else f"{timing.first_s:6.1f}"
            label = "turn" if counted else "warm-up"
            spent = model_seconds(data_dir, view.id, i + 1)
            timing.director_s = spent.get("director", 0.0)
            roles = ", ".join(f"{role} {s:.1f}" for role, s in spent.items())
            print(
                f"   {label:8s} {i + 1:2d}  first text {first} s ({timing.first_kind:10s})"
                f"  end {timing.end_s:6.1f} s{'  FAILED' if timing.failed else ''}  [{roles}]"
                f"  director: {director_tokens(data_dir, view.id, i + 1)}",
                flush=True,
            )
            if counted:
                timings.append(timing)
        return timings
    finally:
        await runner.aclose()
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--provider", default="local", choices=["local", "fake"])
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--scenario", default="the-toll-house")
    args = parser.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        timings = asyncio.run(bench(args, Path(tmp)))
    load_after = os.getloadavg()
    played = [t for t in timings if not t.failed]
    firsts = [t.first_s for t in played if t.first_s is not None]
    ends = [t.end_s for t in played]
    print(f"first_text: {args.provider}, {args.scenario}, {len(played)} of {len(timings)} turns")
    if firsts:
        print(f"   first visible text  median {statistics.median(firsts):6.1f} s  "
              f"p90 {p90(firsts):6.1f} s  ({len(firsts)} turns showed model text)")  # fmt: skip
    shares = [t.director_s / t.first_s for t in played if t.first_s]
    if shares:
        director_median = statistics.median(t.director_s for t in played)
        print(f"   the Director's decision call: median {statistics.median(shares):.0%} of the "
              f"time to the first text (median {director_median:.1f} s)")  # fmt: skip
    if ends:
        print(f"   turn end            median {statistics.median(ends):6.1f} s  "
              f"p90 {p90(ends):6.1f} s")  # fmt: skip
    print(
        f"   load average before {load_before[0]:.1f}, after {load_after[0]:.1f} "
        f"({os.cpu_count()} cores)"
    )


if __name__ == "__main__":
    main()
