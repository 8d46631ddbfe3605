"""Long sessions with automatic compaction: turn cost stays flat and the summary bounded.

    python -m benchmarks.compaction [--turns 2000] [--short 20] [--measure 40]

Plays one session of `--turns` turns through `Runner.play_turn` on the in-process fake
provider, with automatic compaction on (the session's `CompactionSettings` defaults but
`auto`: retention of 16 turns, threshold 0.75, at least 8 turns a compaction) and the
embedded model's limits (`KernelLimits.for_context(4096)`: every prompt fitted to a
4,096-token context, which the threshold is a share of), durable store and journal as the
server runs them, with the kernel benchmark's realistic-length scripted answers
(`benchmarks.kernel.answer`). The summarizer answers like a model that keeps everything it
is given: the summary so far plus the start of the newly folded lines, cut to the schema's
bound (`summarizer.SUMMARY_MAX_CHARS`), so the summary grows to its bound and stays there.

Printed, from the one run: the turn cost of `--measure` turns played on `--short` turns of
history (turns 21-60: a 20-turn session, as `benchmarks.kernel` measures one) and of the last
`--measure` turns of the long session (wall time of `play_turn` less the model wait,
automatic compactions included where they ran; and the prompt tokens the turn sent), their
ratios, the compactions made, the longest story summary against its bound, and the
live history's size at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks import kernel
from tavern.agents.summarizer import SUMMARY_MAX_CHARS
from tavern.llm.client import LlmClient
from tavern.llm.provider import ProviderRequest
from tavern.llm.wrappers import RetryPolicy
from tavern.records import CompactionSettings, CompactLine, LlmCallLine, TurnInput
from tavern.runner import KernelLimits, Runner
from tavern.store import JournalWriter, Library, SessionStore, journal_path, read_journal

CONTEXT = 4096
MOVES = [
    TurnInput(speech="Who signed the last page of the ledger?"),
    TurnInput(action="I lift the lantern toward the cellar stair."),
    TurnInput(speech="The seal on this letter looks fresh.", force_speaker="C2"),
    TurnInput(thought="Someone here is lying about the will."),
    TurnInput(skip=True),
]


def story_so_far(request: ProviderRequest) -> tuple[str, str]:
    """(summary so far, lines to fold) read from a summarizer prompt."""
    text = request.messages[-1].content
    summary = text.split("## Story so far\n", 1)[1].split("\n## ", 1)[0]
    lines = text.split("## Earlier events to fold in\n", 1)[1]
    return ("" if summary.strip() == "(none)" else summary.strip()), lines


def answer(request: ProviderRequest) -> dict[str, Any]:
    """The kernel benchmark's answers, and a summarizer that keeps what it is given."""
    if request.agent == "summarizer":
        summary, lines = story_so_far(request)
        grown = f"{summary} {lines[:300]}".strip()
        return {"summary": grown[-SUMMARY_MAX_CHARS:].strip() or "Nothing yet."}
    return kernel.answer(request)


@dataclass
class Turn:
    """One played turn."""

    kernel_ms: float
    prompt_tokens: int
    """Estimated tokens of every prompt the turn sent but the summarizer's."""
    director_tokens: int
    """Estimated tokens of the turn's Director prompt (the one compaction keeps bounded)."""
    revisions: int
    """Ledger memory revisions the turn asked for (`reviser:<slot>` calls)."""
    compacted: bool


@dataclass
class Report:
    turns: list[Turn] = field(default_factory=list)
    compactions: int = 0
    summary_max: int = 0
    live_records: int = 0
    live_turns: int = 0
    tokenizer: set[str] = field(default_factory=set)
    seconds: float = 0.0


def play(data_dir: Path, turns: int) -> Report:
    """Play the long session and collect what the report prints."""
    provider = kernel.TimedProvider()
    provider.inner._fn = answer
    store, journal = SessionStore(data_dir), JournalWriter(data_dir)
    calls: list[LlmCallLine] = []

    def sink(line: LlmCallLine) -> None:
        calls.append(line)
        journal.append(line.session_id, line)

    client = LlmClient(provider, sink=sink, retry=RetryPolicy(max_attempts=1))
    limits = KernelLimits.for_context(CONTEXT)
    runner = Runner(store, Library(data_dir), journal, client, limits=limits)
    report = Report()
    started = time.perf_counter()

    async def go() -> None:
        view = await runner.create_session(
            kernel.SCENARIO, compaction=CompactionSettings(auto=True)
        )
        sid = view.id
        for n in range(turns):
            move = MOVES[n % len(MOVES)]
            kernel.WAITING = kernel.waiting_actors(runner, sid, move)
            waited, seen = provider.waited, len(calls)
            before = store.compacted_through(sid)
            t0 = time.perf_counter()
            await runner.play_turn(sid, move)
            wall = time.perf_counter() - t0
            sent = [c for c in calls[seen:] if c.agent != "summarizer"]
            report.turns.append(
                Turn(
                    kernel_ms=(wall - (provider.waited - waited)) * 1000,
                    prompt_tokens=sum(c.prompt_estimated_tokens for c in sent),
                    director_tokens=sum(
                        c.prompt_estimated_tokens for c in sent if c.agent == "director"
                    ),
                    revisions=sum(1 for c in sent if c.agent.startswith("reviser:")),
                    compacted=store.compacted_through(sid) != before,
                )
            )
            report.summary_max = max(report.summary_max, len(store.load(sid).story_summary))
        lines = read_journal(journal_path(data_dir, sid))
        compacts = [x for x in lines if isinstance(x, CompactLine)]
        report.compactions = len(compacts)
        report.tokenizer = {str(x.token_count) for x in compacts}
        live = store.history(sid)
        report.live_records = len(live)
        report.live_turns = len({r.turn_number for r in live})

    asyncio.run(go())
    store.close()
    report.seconds = time.perf_counter() - started
    return report


def _p95(values: list[float]) -> float:
    return sorted(values)[max(0, round(0.95 * len(values)) - 1)]


def main() -> None:
    """Command line: `--turns` (default 2,000), `--short` (20), `--measure` (40)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=2000)
    parser.add_argument("--short", type=int, default=20)
    parser.add_argument("--measure", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tavern-compaction-") as tmp:
        report = play(Path(tmp), args.turns)
    first = report.turns[args.short : args.short + args.measure]
    last = report.turns[-args.measure :]
    short_name = f"turns {args.short + 1}-{args.short + args.measure}"
    long_name = f"turns {args.turns - args.measure + 1}-{args.turns}"
    for name, part in ((short_name, first), (long_name, last)):
        ms = [t.kernel_ms for t in part]
        tokens = [t.prompt_tokens for t in part]
        director = [t.director_tokens for t in part]
        print(
            f"{name}: kernel ms median {statistics.median(ms):.1f} p95 {_p95(ms):.1f};"
            f" prompt tokens per turn median {statistics.median(tokens):.0f}"
            f" max {max(tokens)}; Director prompt median {statistics.median(director):.0f}"
            f" max {max(director)}; memory revisions {sum(t.revisions for t in part)};"
            f" compactions among them {sum(t.compacted for t in part)}"
        )
    ms_first, ms_last = [t.kernel_ms for t in first], [t.kernel_ms for t in last]
    tok_first = [t.prompt_tokens for t in first]
    tok_last = [t.prompt_tokens for t in last]
    dir_first = [t.director_tokens for t in first]
    dir_last = [t.director_tokens for t in last]
    print(
        f"ratio last/first: kernel p95 {_p95(ms_last) / _p95(ms_first):.2f},"
        f" median {statistics.median(ms_last) / statistics.median(ms_first):.2f};"
        f" prompt tokens median"
        f" {statistics.median(tok_last) / statistics.median(tok_first):.2f},"
        f" Director prompt median"
        f" {statistics.median(dir_last) / statistics.median(dir_first):.2f}"
    )
    plain_first = [t.kernel_ms for t in first if not t.compacted]
    plain_last = [t.kernel_ms for t in last if not t.compacted]
    if plain_first and plain_last:
        print(
            f"turns without a compaction: kernel p95 {_p95(plain_first):.1f} ->"
            f" {_p95(plain_last):.1f} ms, ratio {_p95(plain_last) / _p95(plain_first):.2f}"
        )
    compacted = [t.kernel_ms for t in report.turns if t.compacted]
    if compacted:
        print(
            f"turns that compacted: {len(compacted)}, kernel ms median"
            f" {statistics.median(compacted):.1f} p95 {_p95(compacted):.1f}"
        )
    print(f"compactions: {report.compactions} (token counts: {sorted(report.tokenizer)})")
    print(f"longest story summary: {report.summary_max} chars (bound {SUMMARY_MAX_CHARS})")
    print(f"live history at the end: {report.live_records} records of {report.live_turns} turns")
    print(f"turns played: {len(report.turns)} in {report.seconds:.1f} s")


if __name__ == "__main__":
    main()
