"""Where a turn's kernel time goes: CPU per phase, median over played turns.

    python -m benchmarks.kernel_phases [--turns 60] [--history 2000] [--limits large|local]

Same set-up as `benchmarks.kernel` (fake provider, sessions built in a child process, no
fsync, contract gate on). Each phase is timed by wrapping the function the runner calls,
exclusively: a phase called inside another (validation inside the LLM client) counts only
for itself. The fake provider's own time is the model wait, left out of the turn. `other`
is the turn's kernel time minus the phases (the turn transaction's own work, record
building, asyncio). `gc` is the collector's time within the turn; it is already counted
inside whichever phase triggered it, so it is shown apart and not subtracted.
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import gc
import inspect
import multiprocessing
import shutil
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import tavern.contract
import tavern.llm.client
import tavern.llm.wrappers
import tavern.runner.follow_up
import tavern.runner.service
import tavern.runner.turn
from benchmarks import kernel
from tavern.runner.collector import tune_collector

PHASES: list[tuple[Any, str, str]] = [
    (tavern.contract, "check_prompt", "contract gate"),
    (tavern.llm.wrappers, "parse_json_answer", "answer validation"),
    (tavern.runner.turn.director, "build_messages", "director prompt"),
    (tavern.runner.turn.prose, "build_messages", "prose prompt"),
    (tavern.runner.turn.character, "build_messages", "character prompt"),
    (tavern.runner.follow_up.outcome, "build_messages", "follow-up prompt"),
    (tavern.runner.turn, "follow_up", "follow-up (rest)"),
    (tavern.runner.turn, "clamp_decision", "clamps"),
    (tavern.runner.turn, "observe", "observations"),
    (tavern.runner.turn, "capture_memory", "memory capture"),
    (tavern.runner.turn, "has_unresolved_action", "unresolved-action check"),
    (tavern.runner.turn, "apply_canon", "canon"),
    (tavern.runner.turn.TurnTransaction, "_reader_mask", "reader mask"),
    (tavern.runner.turn.BeatLog, "add_events", "event records"),
    (tavern.runner.service, "filter_input", "input filter"),
    (tavern.llm.client.LlmClient, "call_json", "llm client"),
]
MODEL_WAIT = "(model wait)"


def _timed(spent: dict[str, float], label: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn`, adding its exclusive CPU time to `spent[label]` (time of timed calls inside it
    goes to theirs: each frame takes its own elapsed time back from its caller's)."""

    def enter() -> float:
        _STACK.append(label)
        return time.process_time()

    def leave(start: float) -> None:
        elapsed = time.process_time() - start
        _STACK.pop()
        spent[label] += elapsed
        if _STACK:
            spent[_STACK[-1]] -= elapsed

    if inspect.iscoroutinefunction(fn):

        async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
            start = enter()
            try:
                return await fn(*args, **kwargs)
            finally:
                leave(start)

        return async_wrapper

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = enter()
        try:
            return fn(*args, **kwargs)
        finally:
            leave(start)

    return wrapper


_STACK: list[str] = []
"""Labels of the timed calls in progress (the fake provider never suspends, so the beat's
concurrent tasks run one after the other and frames nest)."""


def main() -> None:
    """Run the breakdown and print it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=60)
    parser.add_argument("--history", type=int, default=2000)
    parser.add_argument("--limits", choices=sorted(kernel.LIMITS), default="large")
    args = parser.parse_args()
    kernel.LIMIT = args.limits
    data_dir = Path(tempfile.mkdtemp(prefix="tavern-phases-bench-"))
    atexit.register(shutil.rmtree, data_dir, True)  # its sessions (up to ~200 MB)
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        built = pool.submit(
            kernel.build_sessions, data_dir, [args.history], kernel.SCENARIO, args.limits
        )
        sid = built.result()[args.history]
    runner, provider = kernel._runner(data_dir, durable=False, gate=True)
    tune_collector()  # as the server does at start-up
    spent: dict[str, float] = defaultdict(float)
    for owner, name, label in PHASES:
        setattr(owner, name, _timed(spent, label, getattr(owner, name)))
    for owner, name, label in [
        (runner.store, "snapshot", "store snapshot"),
        (runner.store, "commit_turn", "store commit"),
        (runner.journal, "append", "journal append"),
        (provider, "complete", MODEL_WAIT),
    ]:
        setattr(owner, name, _timed(spent, label, getattr(owner, name)))
    collecting = [0.0, 0.0]

    def on_gc(phase: str, _info: dict[str, Any]) -> None:
        if phase == "start":
            collecting[0] = time.process_time()
        else:
            collecting[1] += time.process_time() - collecting[0]

    gc.callbacks.append(on_gc)
    per: dict[str, list[float]] = defaultdict(list)

    async def play(turns: int, keep: bool) -> None:
        for i in range(turns):
            spent.clear()
            collecting[1] = 0.0
            start = time.process_time()
            await runner.play_turn(sid, kernel.INPUTS[i % len(kernel.INPUTS)])
            total = time.process_time() - start - spent.pop(MODEL_WAIT, 0.0)
            if keep:
                per["(turn)"].append(total)
                per["other"].append(total - sum(spent.values()))
                per["gc (inside the phases)"].append(collecting[1])
                for label, value in spent.items():
                    per[label].append(value)

    calibration = kernel.calibration_ms()
    asyncio.run(play(6, keep=False))
    asyncio.run(play(args.turns, keep=True))
    print(
        f"{kernel.SCENARIO}, {args.history} turns of history, {args.limits} budgets, no fsync,"
        f" contract gate; calibration loop {calibration:.1f} / {kernel.calibration_ms():.1f} ms"
    )
    turn = statistics.median(per.pop("(turn)"))
    print(f"  kernel time per turn: median {turn * 1000:.2f} ms CPU")
    for label, values in sorted(per.items(), key=lambda kv: -statistics.median(kv[1])):
        median = statistics.median(values)
        print(f"  {label:26s} {median * 1000:6.2f} ms  ({median / turn:5.1%})")


if __name__ == "__main__":
    main()
