"""Instructions per `check_prompt` call, on the prompts a kernel session really checks.

    python -m benchmarks.gate_replay [--turns 40] [--warm 20]

Plays `--turns` turns of both `benchmarks.kernel` sessions (20 and 2,000 turns of history)
once, recording every call of the contract gate, then replays those calls in order, each
session from cold caches, under `valgrind --tool=callgrind`: once up to call `--warm` of
each session and once through all of them. The difference divided by the later calls is
the figure (start-up, imports and the warm-up cancel out; `PYTHONHASHSEED=0`). It isolates
the gate from the rest of a turn: `benchmarks.kernel_instructions` measures whole turns.
Prints a hash of every result as well, so two versions can be shown to agree.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks import kernel
from benchmarks.kernel_instructions import callgrind_count
from tavern import contract
from tavern.records import ChatMessage

Call = tuple[list[tuple[str, str]], list[str]]
"""One gate call: the messages as (role, content), and the cast names."""


def record(turns: int) -> list[list[Call]]:
    """Every `check_prompt` call of `turns` turns, per session."""
    data = Path(tempfile.mkdtemp(prefix="tavern-gate-replay-"))
    try:
        sessions = kernel.build_sessions(data, [20, 2000], kernel.SCENARIO, kernel.LIMIT)
        runner, _ = kernel._runner(data, durable=False, gate=True)
        recorded: list[list[Call]] = []
        plain = contract.check_prompt

        def recording(
            messages: Sequence[ChatMessage], cast_names: Sequence[str] = (), rules: Any = None
        ) -> list[contract.Violation]:
            if rules is None:  # the gate's calls (`check_text` passes its rules)
                recorded[-1].append(([(m.role, m.content) for m in messages], list(cast_names)))
            return plain(messages, cast_names, rules)

        contract.check_prompt = recording
        try:
            for session_id in sessions.values():
                recorded.append([])
                for i in range(turns):
                    turn = kernel.INPUTS[i % len(kernel.INPUTS)]
                    asyncio.run(runner.play_turn(session_id, turn))
        finally:
            contract.check_prompt = plain
        return recorded
    finally:
        shutil.rmtree(data, ignore_errors=True)


def replay(calls: list[list[Call]], upto: int) -> str:
    """Check the first `upto` calls of each session in order, from cold caches; a result hash."""
    results = []
    for session in calls:
        contract.clear_caches()
        for messages, cast in session[:upto]:
            prompt = [ChatMessage(role=role, content=content) for role, content in messages]
            results.append(contract.check_prompt(prompt, cast))
    return hashlib.sha256(repr(results).encode()).hexdigest()[:16]


def counted(saved: Path, upto: int) -> int:
    """Instructions of a child replaying the first `upto` calls per session, under callgrind."""
    return callgrind_count("benchmarks.gate_replay", [str(saved), str(upto)])


def main() -> None:
    """Record, replay under callgrind, print instructions per later call and the hash."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=40, help="turns played per session")
    parser.add_argument("--warm", type=int, default=20, help="calls per session not counted")
    parser.add_argument("--child", nargs=2, metavar=("CALLS", "UPTO"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        saved, upto = args.child
        print(replay(json.loads(Path(saved).read_text()), int(upto)))
        return
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind not found: install it (apt-get install valgrind)")
    calls = record(args.turns)
    later = sum(max(0, len(session) - args.warm) for session in calls)
    with tempfile.TemporaryDirectory(prefix="tavern-gate-replay-") as work:
        saved = Path(work) / "calls.json"
        saved.write_text(json.dumps(calls))
        per_call = (counted(saved, 1 << 30) - counted(saved, args.warm)) / max(1, later)
    print(
        f"check_prompt: {per_call / 1e6:.3f} M instructions per call over {later} calls"
        f" (after {args.warm} per session; {args.turns} turns of both sessions);"
        f" results {replay(calls, 1 << 30)}"
    )


if __name__ == "__main__":
    main()
