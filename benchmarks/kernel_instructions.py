"""Kernel instructions per turn, counted by callgrind: a figure this VM's speed cannot move.

    python -m benchmarks.kernel_instructions [--turns 20] [--warm 6] [--jobs 2]

`benchmarks.kernel` times turns in milliseconds, and on a shared VM those move by up to 1.8x
within minutes. This benchmark counts the instructions instead: each measurement runs a child
Python under `valgrind --tool=callgrind` twice on its own copy of a prebuilt session, once
playing `--warm` turns and once playing `--warm + --turns`, and divides the difference by
`--turns`. Start-up, imports, the copy and the warm-up cancel out. Counts repeat to within a
fraction of a percent, whatever else the machine does, given `PYTHONHASHSEED=0` (set here:
hash randomization alone moved them by about 1 M per turn).

Sessions, inputs and scripted answers are those of `benchmarks.kernel` (20 and 2,000 turns
of history, the fake provider, no fsync). Two differences from its millisecond figure: the
fake provider's own answer generation is counted (it cannot be told apart from inside; it is
3.6-3.9% of a turn's CPU time with the gate on), and durable I/O is left out (an fsync is
work of the operating system, which callgrind does not count). Needs valgrind
(`apt-get install valgrind`). About 4.5 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

from benchmarks import kernel
from tavern.runner.collector import tune_collector

CONFIGS = {"contract gate": True, "no gate": False}
"""Label -> whether the contract gate checks every prompt (no fsync in either)."""

_COLLECTED = re.compile(r"Collected : (\d+)")


def play(data_dir: Path, session_id: str, turns: int, gate: bool) -> None:
    """Play `turns` turns on a private copy of `data_dir` (the child's whole job)."""
    work = Path(tempfile.mkdtemp(prefix="tavern-kernel-ir-"))
    try:
        copy = work / "data"
        shutil.copytree(data_dir, copy)
        runner, _ = kernel._runner(copy, durable=False, gate=gate)
        tune_collector()  # as the server does at start-up

        async def turns_played() -> None:
            for i in range(turns):
                await runner.play_turn(session_id, kernel.INPUTS[i % len(kernel.INPUTS)])

        asyncio.run(turns_played())
    finally:
        shutil.rmtree(work, ignore_errors=True)


def count(data_dir: Path, session_id: str, turns: int, gate: bool) -> int:
    """Instructions of one child run of `play` under callgrind."""
    child = [str(data_dir), session_id, str(turns), "1" if gate else "0"]
    return callgrind_count("benchmarks.kernel_instructions", child)


def callgrind_count(module: str, child_args: list[str]) -> int:
    """Instructions of `python -m module --child *child_args` under callgrind, with the hash
    seed fixed (hash randomization alone moves a count by ~1 M a turn)."""
    command = [
        "valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
        sys.executable, "-m", module, "--child", *child_args,
    ]  # fmt: skip
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    found = _COLLECTED.search(done.stderr)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"callgrind run failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return int(found.group(1))


def main() -> None:
    """Build the sessions, count every cell and print instructions per turn."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=20, help="measured turns per cell")
    parser.add_argument("--warm", type=int, default=6, help="warm-up turns before them")
    parser.add_argument("--short", type=int, default=20, help="history turns, short session")
    parser.add_argument("--long", type=int, default=2000, help="history turns, long session")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="runs at once")
    parser.add_argument("--child", nargs=4, metavar=("DATA", "SESSION", "TURNS", "GATE"),
                        help=argparse.SUPPRESS)  # fmt: skip
    args = parser.parse_args()
    if args.child:
        data, session_id, turns, gate = args.child
        play(Path(data), session_id, int(turns), gate == "1")
        return
    if args.turns < 1 or args.warm < 0:
        parser.error("--turns must be at least 1 and --warm at least 0")
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind not found: install it (apt-get install valgrind)")
    data_dir = Path(tempfile.mkdtemp(prefix="tavern-kernel-ir-bench-"))
    atexit.register(shutil.rmtree, data_dir, True)
    sizes = [args.short, args.long]
    print(f"building sessions of {sizes} turns of history ...", flush=True)
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        sessions = pool.submit(
            kernel.build_sessions, data_dir, sizes, kernel.SCENARIO, kernel.LIMIT
        ).result()
    runs = [
        (label, history, turns)
        for label in CONFIGS
        for history in sizes
        for turns in (args.warm, args.warm + args.turns)
    ]
    print(f"{len(runs)} callgrind runs, {args.jobs} at a time ...", flush=True)
    started = time.monotonic()
    counts: dict[tuple[str, int, int], int] = {}

    def run(cell: tuple[str, int, int]) -> None:
        label, history, turns = cell
        counts[cell] = count(data_dir, sessions[history], turns, CONFIGS[label])
        print(f"  done {len(counts)}/{len(runs)} ({time.monotonic() - started:.0f} s)", flush=True)

    with ThreadPoolExecutor(max(1, args.jobs)) as threads:
        list(threads.map(run, runs))
    print(
        f"{kernel.SCENARIO}: kernel instructions per turn (callgrind, PYTHONHASHSEED=0),"
        f" {args.turns} turns after {args.warm} warm-up turns, fake provider, no fsync"
    )
    for label in CONFIGS:
        per_turn = {
            h: (counts[(label, h, args.warm + args.turns)] - counts[(label, h, args.warm)])
            / args.turns
            for h in sizes
        }
        cells = "  ".join(f"{h:>5} turns: {per_turn[h] / 1e6:6.2f} M" for h in sizes)
        ratio = per_turn[args.long] / per_turn[args.short]
        print(f"  [{label:>13}] {cells}  ratio {ratio:.2f}")


if __name__ == "__main__":
    main()
