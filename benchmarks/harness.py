"""The harness's own cost, campaign throughput, and memory over a long campaign (fake provider).

    python -m benchmarks.harness [--runs 8] [--throughput-runs 24] [--memory-runs 1000]

1. Overhead: a 10-turn script (speech, whisper, thought, action, skip, questions; recall,
   routing and boundary probes, invariants after every turn) played `--runs` times
   in-process. The harness's time is a run's wall time minus the time spent awaiting the
   kernel (`RunResult.harness_ms`: probes, invariants, reading the journal and history,
   snapshots); the kernel's is the rest (the fake provider's answering included). Goal:
   the harness under 10% of the kernel.
2. Throughput: one campaign of `--throughput-runs` short runs at concurrency 1, 4 and 8
   (local executor), with the fake answering at once, and with each call held
   `--model-delay-ms` as a model would be (the wait concurrency overlaps).
3. Memory: a campaign of `--memory-runs` one-turn runs; after every tenth of them, the
   process's resident memory and the live memory allocated by the harness's own code lines
   (tracemalloc). Results stream to disk, so the harness's should stay flat; the kernel's
   memos (bounded, `physics.record_memo`) fill towards their limits over the first runs.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import tempfile
import time
import tracemalloc
from collections.abc import AsyncGenerator, Iterable
from pathlib import Path
from typing import Any

import harness
from harness.campaign import plan_campaign, run_campaign
from harness.config import resolve_config
from harness.executors import Cell, LocalExecutor
from harness.loading import LoadedScript
from harness.records.script import ConfigOverrides, Script
from harness.run import RunOutcome, prepare, run_script
from harness.targets.in_process import InProcessTarget
from tavern.llm.fake import FakeProvider
from tavern.llm.provider import ProviderRequest, ProviderResponse

TEN_TURNS = {
    "schema_version": 1,
    "id": "bench-ten",
    "title": "ten varied turns with probes",
    "scenario": "the-vintners-wake",
    "events": [
        {"kind": "turn", "speech": "Good evening. Who found him?"},
        {"kind": "routing", "expect": ["C2", "C4", "C5"]},
        {"kind": "turn", "speech": "The seal is Wax5512.", "whisper_to": ["C2"],
         "force_speaker": "C2"},
        {"kind": "recall", "character": "C2", "require": ["Wax5512"], "levels": ["prompt"]},
        {"kind": "turn", "thought": "The notary is nervous."},
        {"kind": "turn", "action": "lifts a candle from the coffin"},
        {"kind": "turn", "skip": True},
        {"kind": "turn", "speech": "Shall we read it now?", "action": "reaches for the satchel"},
        {"kind": "turn", "speech": "Where were you all evening?"},
        {"kind": "turn", "skip": True, "hint": "a draught snuffs two candles"},
        {"kind": "turn", "action": "sits by the coffin", "force_speaker": "C4"},
        {"kind": "turn", "speech": "Let us begin."},
        {"kind": "boundary", "canaries": ["Wax5512"]},
    ],
}  # fmt: skip
ONE_TURN = {
    "schema_version": 1,
    "id": "bench-one",
    "title": "one turn",
    "scenario": "the-toll-house",
    "events": [{"kind": "turn", "speech": "Evening.", "force_speaker": "C2"}],
}
CAMPAIGN = """
scripts = ["{script}"]
repeats = {repeats}
[[arms]]
name = "parrot"
config = {{ provider = "fake" }}
[[arms]]
name = "adversary"
config = {{ provider = "fake", options = {{ mode = "adversary" }} }}
[preregistration]
metrics = ["probe_pass_rate"]
primary_metric = "probe_pass_rate"
control = "parrot"
treatment = "adversary"
better = "higher"
decision_rule = "benchmark only"
"""


def rss_mb() -> float:
    """Resident memory of this process, in MB (Linux)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


async def overhead(runs: int, folder: Path) -> list[RunOutcome]:
    script = Script.model_validate(TEN_TURNS)
    loaded = LoadedScript(script, "benchmark")
    resolved = resolve_config(ConfigOverrides(provider="fake"), "en")
    target = InProcessTarget.open(folder, resolved.config, resolved.limits)
    outcomes = []
    try:
        prepared = await prepare(loaded, target, resolved)
        for _ in range(runs):
            outcomes.append(await run_script(target, prepared, folder))
    finally:
        await target.aclose()
    return outcomes


def _campaign(folder: Path, script: dict[str, object], runs: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "script.json").write_text(json.dumps(script))
    path = folder / "bench.toml"
    path.write_text(CAMPAIGN.format(script="script.json", repeats=max(1, runs // 2)))
    return path


HARNESS_LINES = [tracemalloc.Filter(True, f"{Path(harness.__file__).parent}/*")]
"""Allocations made by a line of the harness's own code (the frame that allocated)."""


def harness_kb() -> float:
    """Live memory allocated by harness code lines, in KB (tracemalloc, innermost frame)."""
    snapshot = tracemalloc.take_snapshot().filter_traces(HARNESS_LINES)
    return sum(stat.size for stat in snapshot.statistics("filename")) / 1024


class _Sampling(LocalExecutor):
    """The local executor, sampling memory every `every` finished runs."""

    def __init__(self, folder: Path, concurrency: int, every: int) -> None:
        super().__init__(folder, concurrency)
        self.every = every
        self.samples: list[tuple[int, float, float]] = []

    async def run(self, cells: Iterable[Cell]) -> AsyncGenerator[RunOutcome, None]:
        done = 0
        async for outcome in super().run(cells):
            done += 1
            if done % self.every == 0:
                gc.collect()
                self.samples.append((done, rss_mb(), harness_kb()))
            yield outcome


def throughput(folder: Path, runs: int, concurrency: int) -> tuple[float, int]:
    plan = plan_campaign(_campaign(folder / "exp", TEN_TURNS, runs))
    started = time.perf_counter()
    with open(os.devnull, "w") as quiet:
        run_campaign(
            plan,
            folder / "out",
            command="run",
            executor=LocalExecutor(folder / "out", concurrency),
            stream=quiet,
        )
    return time.perf_counter() - started, len(plan.cells)


def _held(honest: Any, seconds: float) -> Any:
    """`FakeProvider.complete`, waiting `seconds` first as a model would."""

    async def held(self: FakeProvider, request: ProviderRequest) -> ProviderResponse:
        await asyncio.sleep(seconds)
        answer: ProviderResponse = await honest(self, request)
        return answer

    return held


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--throughput-runs", type=int, default=24)
    parser.add_argument("--model-delay-ms", type=float, default=100.0)
    parser.add_argument("--memory-runs", type=int, default=1000)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-harness-"))

    outcomes = asyncio.run(overhead(args.runs, root / "overhead"))
    harness = [o.run.harness_ms for o in outcomes]
    kernel = [o.run.wall_ms - o.run.harness_ms for o in outcomes]
    turns = outcomes[0].run.turns_played
    probes = outcomes[0].run.probes
    print(
        f"1. overhead: {len(outcomes)} runs of a {turns}-turn script, {probes} probe results each"
    )
    print(
        f"   harness  median {statistics.median(harness):7.1f} ms a run "
        f"({statistics.median(harness) / turns:.2f} ms a turn)"
    )
    print(
        f"   kernel   median {statistics.median(kernel):7.1f} ms a run "
        f"({statistics.median(kernel) / turns:.2f} ms a turn)"
    )
    ratios = [h / k for h, k in zip(harness, kernel, strict=True)]
    print(f"   harness / kernel: median {statistics.median(ratios):.3f}, "
          f"max {max(ratios):.3f} (goal < 0.10)")  # fmt: skip

    print(f"2. throughput: {args.throughput_runs} runs of the same script, local executor")
    honest = FakeProvider.complete
    for delay in (0.0, args.model_delay_ms):
        if delay:
            FakeProvider.complete = _held(honest, delay / 1000)  # type: ignore[method-assign]
        for concurrency in (1, 4, 8):
            folder = root / f"throughput-{delay:g}-{concurrency}"
            seconds, runs = throughput(folder, args.throughput_runs, concurrency)
            print(f"   model wait {delay:5.0f} ms a call, concurrency {concurrency}: "
                  f"{runs} runs in {seconds:6.1f} s = {runs / seconds:5.2f} runs/s")  # fmt: skip
    FakeProvider.complete = honest  # type: ignore[method-assign]

    print(f"3. memory: a campaign of {args.memory_runs} one-turn runs (concurrency 4)")
    folder = root / "memory"
    plan = plan_campaign(_campaign(folder / "exp", ONE_TURN, args.memory_runs))
    executor = _Sampling(folder / "out", 4, max(1, args.memory_runs // 10))
    before = rss_mb()
    started = time.perf_counter()
    tracemalloc.start(1)
    with open(os.devnull, "w") as quiet:
        run_campaign(plan, folder / "out", command="run", executor=executor, stream=quiet)
    tracemalloc.stop()
    print(f"   resident memory before: {before:.1f} MB; "
          f"{len(plan.cells)} runs in {time.perf_counter() - started:.0f} s")  # fmt: skip
    print("   runs   resident MB   live KB allocated by harness code")
    for done, mb, kb in executor.samples:
        print(f"   {done:5d}   {mb:10.1f}   {kb:10.1f}")
    if len(executor.samples) >= 2:
        (n0, mb0, kb0), (n1, mb1, kb1) = executor.samples[0], executor.samples[-1]
        print(f"   from {n0} to {n1} runs: resident {mb1 - mb0:+.1f} MB "
              f"({1024 * (mb1 - mb0) / (n1 - n0):+.1f} KB a run), harness "
              f"{kb1 - kb0:+.1f} KB ({1024 * (kb1 - kb0) / (n1 - n0):+.1f} B a run)")  # fmt: skip
    print(f"data: {root}")


if __name__ == "__main__":
    main()
