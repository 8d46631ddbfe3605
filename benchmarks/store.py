"""Commit cost versus session length: per-commit median on a 20-turn and a 5,000-turn session.

    python -m benchmarks.store

Both sessions carry the same state; only their history differs. A commit appends one turn
of four records and rewrites the state, so the ratio of the medians should stay near 1
(goal: <= 1.5).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.crash_store import initial_state, turn_state
from tavern.records import Audience, SessionState, SpeechRecord
from tavern.store import SessionStore

_AUDIENCE = Audience(origin="zone", perceivers=["C1", "C2"])
TEXT = "A line of dialogue long enough to look like one, give or take a clause. " * 3


def _records(seq: int, turn: int) -> list[SpeechRecord]:
    return [
        SpeechRecord(
            seq=seq + i, turn_number=turn, speaker="C2", author="character",
            audience=_AUDIENCE, text=TEXT,
        )
        for i in range(4)
    ]  # fmt: skip


def _commit(store: SessionStore, state: SessionState) -> SessionState:
    turn = state.turn_number + 1
    records = _records(store.next_seq(state.id), turn)
    return store.commit_turn(state.id, turn, records, turn_state(state, turn), state.revision)


def _fill(data_dir: Path, session_id: str, turns: int) -> None:
    # Filling needs no durability; the measured commits below run with synchronous=FULL.
    with SessionStore(data_dir, synchronous="OFF") as store:
        state = store.create(initial_state(session_id))
        for _ in range(turns):
            state = _commit(store, state)


def measure(data_dir: Path, short: int, long: int, commits: int) -> dict[str, float]:
    """Fill two sessions, then time `commits` commits on each, interleaved."""
    _fill(data_dir, "bench-short", short)
    _fill(data_dir, "bench-long", long)
    times: dict[str, list[float]] = {"bench-short": [], "bench-long": []}
    with SessionStore(data_dir) as store:
        states = {sid: store.load(sid) for sid in times}
        for _ in range(commits):
            for sid in times:  # interleaved so drift in the machine hits both alike
                started = time.perf_counter()
                states[sid] = _commit(store, states[sid])
                times[sid].append(time.perf_counter() - started)
        tails: dict[str, list[float]] = {sid: [] for sid in times}
        for _ in range(commits):
            for sid in tails:  # the runner reads a window of recent turns before each turn
                started = time.perf_counter()
                store.history_tail(sid, 12)
                tails[sid].append(time.perf_counter() - started)
    short_ms = statistics.median(times["bench-short"]) * 1000
    long_ms = statistics.median(times["bench-long"]) * 1000
    tail_short = statistics.median(tails["bench-short"]) * 1000
    tail_long = statistics.median(tails["bench-long"]) * 1000
    return {
        "short_ms": short_ms,
        "long_ms": long_ms,
        "ratio": long_ms / short_ms,
        "tail_short_ms": tail_short,
        "tail_long_ms": tail_long,
        "tail_ratio": tail_long / tail_short,
    }


def main() -> None:
    """Print the per-commit medians and their ratio; exit 1 above the goal."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", type=int, default=20)
    parser.add_argument("--long", type=int, default=5000)
    parser.add_argument("--commits", type=int, default=200)
    parser.add_argument("--goal", type=float, default=1.5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tavern-bench-") as tmp:
        result = measure(Path(tmp), args.short, args.long, args.commits)
    print(f"session of {args.short} turns: median commit {result['short_ms']:.3f} ms")
    print(f"session of {args.long} turns: median commit {result['long_ms']:.3f} ms")
    print(f"ratio long/short: {result['ratio']:.2f} (goal <= {args.goal})")
    print(
        f"history_tail(12 turns): {result['tail_short_ms']:.3f} ms vs"
        f" {result['tail_long_ms']:.3f} ms, ratio {result['tail_ratio']:.2f}"
    )
    sys.exit(0 if result["ratio"] <= args.goal else 1)


if __name__ == "__main__":
    main()
