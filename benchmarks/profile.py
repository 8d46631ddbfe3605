"""Where a turn's kernel time goes, by function: a sampling profile of `benchmarks.kernel`.

    python -m benchmarks.profile [--turns 150] [--durable] [--no-gate] [--clock wall|cpu]
                                 [--top 40] [--under FUNC] [--collapsed FILE]

The sessions, inputs, scripted answers and runner are `benchmarks.kernel`'s, played the way
the server plays them: one runner and one event loop, the collector tuned as `tavern serve`
tunes it (`runner.collector`), sessions built in a child process so no cache is warmed by
writing the history. Turns rotate between the 20- and 2,000-turn sessions.

Three mistakes of earlier hand-made profiles are made impossible here:
- the collector tuning was left out, so collections showed up as the self time of whatever
  comprehension allocated last;
- only stacks under `play_turn` were kept, which missed the asyncio tasks a turn starts
  (the narration and the ledger preparation run as tasks of their own);
- the fake provider's answering was counted as kernel time (here every sample taken inside
  `TimedProvider.complete` is dropped: that is the model wait).

Sampling: a timer interrupts the process every `--interval-ms` and the handler records the
main thread's Python stack. `--clock wall` (the default) is `ITIMER_REAL`, a high-resolution
timer; samples taken while the event loop waits in `select` are counted apart as idle, and
on a loaded machine the samples of moments the process was not running fall where it was,
evenly. `--clock cpu` is `ITIMER_PROF`, which counts only the process's CPU time but fires
on the kernel's scheduler tick (every 4 ms at HZ=250, whatever the interval asked): fewer
samples, and background threads (journal fsyncs) advance it too. Either way CPU spent in C
(a regex, pydantic's serializer, SQLite) lands on the Python frame that called it, which is
where a change would go. A sample costs the handler ~10-20 us.

`--collapsed FILE` writes the stacks as `frame;frame;... count` lines, the input of
flamegraph.pl and speedscope.
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import multiprocessing
import shutil
import signal
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from types import FrameType

from benchmarks import kernel
from tavern.runner.collector import tune_collector

Stack = tuple[str, ...]
"""Frames outermost first, each `module:qualname`."""

_MODEL_WAIT = kernel.TimedProvider.complete.__code__
_ROOT = asyncio.events.Handle._run.__code__
"""Where a stack starts: the event loop stepping a task (the turn's, or one it started)."""
_IDLE = "selectors:EpollSelector.select"
_TIMERS = {
    "wall": (signal.ITIMER_REAL, signal.SIGALRM),
    "cpu": (signal.ITIMER_PROF, signal.SIGPROF),
}


def frame_name(frame: FrameType) -> str:
    """`module:qualname` of a frame, the module dotted from the project or library root
    (`tavern.runner.turn:TurnTransaction.run`, `pydantic.main:BaseModel.__init__`)."""
    code = frame.f_code
    path = code.co_filename
    for root in _ROOTS:
        at = path.rfind(root)
        if at >= 0:
            module = path[at + len(root) :].removesuffix(".py").replace("/", ".")
            return f"{module.removesuffix('.__init__')}:{code.co_qualname}"
    return f"{path}:{code.co_qualname}"


_ROOTS = (
    "/site-packages/",  # first: a virtual environment may sit inside the checkout
    f"{Path(__file__).resolve().parents[1]}/",  # this checkout: tavern/, benchmarks/
    f"/python{sys.version_info[0]}.{sys.version_info[1]}/",  # the standard library
)


class Sampler:
    """Counts the main thread's stacks at each profiling-timer signal while `active`."""

    def __init__(self) -> None:
        self.stacks: Counter[Stack] = Counter()
        self.model_wait = 0
        """Samples inside the fake provider (the model wait), left out of `stacks`."""
        self.idle = 0
        """Samples of the event loop waiting in `select`, left out of `stacks`."""
        self.active = False
        self._timer, self._signal = _TIMERS["wall"]

    def _take(self, _signum: int, frame: FrameType | None) -> None:
        if not self.active or frame is None:
            return
        names: list[str] = []
        while frame is not None and frame.f_code is not _ROOT:
            if frame.f_code is _MODEL_WAIT:
                self.model_wait += 1
                return
            names.append(frame_name(frame))
            frame = frame.f_back
        if names and names[0] == _IDLE:
            self.idle += 1
            return
        self.stacks[tuple(reversed(names))] += 1

    def start(self, interval_ms: float, clock: str = "wall") -> None:
        """Install the handler and start the timer (samples count only while `active`)."""
        self._timer, self._signal = _TIMERS[clock]
        signal.signal(self._signal, self._take)
        seconds = interval_ms / 1000
        signal.setitimer(self._timer, seconds, seconds)

    def stop(self) -> None:
        """Stop the timer."""
        signal.setitimer(self._timer, 0, 0)
        signal.signal(self._signal, signal.SIG_DFL)


def cumulative(stacks: Counter[Stack]) -> Counter[str]:
    """Samples per function with anything it called (a recursive function counts once)."""
    out: Counter[str] = Counter()
    for stack, n in stacks.items():
        for name in set(stack):
            out[name] += n
    return out


def exclusive(stacks: Counter[Stack]) -> Counter[str]:
    """Samples per function in its own frame (with the C it called)."""
    out: Counter[str] = Counter()
    for stack, n in stacks.items():
        if stack:
            out[stack[-1]] += n
    return out


def under(stacks: Counter[Stack], function: str, depth: int = 1) -> Counter[str]:
    """Samples inside `function` (its outermost frame), by the `depth` frames it called
    (`<self>` for its own frame); `function` matches a name's qualname or the whole name."""
    out: Counter[str] = Counter()
    for stack, n in stacks.items():
        at = next((i for i, name in enumerate(stack) if _is(name, function)), None)
        if at is not None:
            out[" > ".join(stack[at + 1 : at + 1 + depth]) or "<self>"] += n
    return out


def _is(name: str, function: str) -> bool:
    return name == function or name.rpartition(":")[2] == function


def collapsed(stacks: Counter[Stack]) -> Iterable[str]:
    """`frame;frame;... count` lines, most samples first."""
    for stack, n in stacks.most_common():
        yield ";".join(stack) + f" {n}"


def _table(title: str, counts: Counter[str], total: int, top: int) -> None:
    print(title)
    for name, n in counts.most_common(top):
        print(f"  {100 * n / total:5.1f}%  {name}")


async def _play(runner: kernel.Runner, sessions: dict[int, str], turns: int, s: Sampler) -> None:
    for i in range(turns):
        for sid in sessions.values():
            s.active = True
            try:
                await runner.play_turn(sid, kernel.INPUTS[i % len(kernel.INPUTS)])
            finally:
                s.active = False


def main() -> None:
    """Profile the kernel's turns and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=150, help="played turns per session")
    parser.add_argument("--durable", action="store_true", help="fsync journal and store")
    parser.add_argument("--no-gate", action="store_true", help="turn the contract gate off")
    parser.add_argument("--clock", choices=sorted(_TIMERS), default="wall", help="see above")
    parser.add_argument("--interval-ms", type=float, default=0.5, help="ms between samples")
    parser.add_argument("--top", type=int, default=40, help="rows per table")
    parser.add_argument("--under", metavar="FUNC", help="also break FUNC down by callee")
    parser.add_argument("--depth", type=int, default=1, help="callee frames for --under")
    parser.add_argument("--collapsed", type=Path, help="write collapsed stacks to this file")
    args = parser.parse_args()
    if args.turns < 1 or args.interval_ms <= 0:
        parser.error("--turns must be at least 1 and --interval-ms positive")
    data_dir = Path(tempfile.mkdtemp(prefix="tavern-profile-"))
    atexit.register(shutil.rmtree, data_dir, True)
    sizes = [20, 2000]
    print(f"building sessions of {sizes} turns (a child process)...", flush=True)
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        sessions = pool.submit(
            kernel.build_sessions, data_dir, sizes, kernel.SCENARIO, kernel.LIMIT
        ).result()
    runner, _ = kernel._runner(data_dir, durable=args.durable, gate=not args.no_gate)
    tune_collector()
    sampler = Sampler()
    asyncio.run(_play(runner, sessions, 2, sampler))  # warm-up, unsampled
    print(f"profiling {args.turns} turns per session...", flush=True)
    sampler.start(args.interval_ms, args.clock)
    try:
        asyncio.run(_play(runner, sessions, args.turns, sampler))
    finally:
        sampler.stop()
    total = sum(sampler.stacks.values())
    if not total:
        raise SystemExit("no samples: raise --turns or lower --interval-ms")
    print(
        f"{total} kernel samples of {args.turns * len(sessions)} turns ({args.clock} clock);"
        f" left out: {sampler.model_wait} in the fake provider, {sampler.idle} idle in select;"
        f" durable={args.durable}, gate={not args.no_gate}"
    )
    _table("cumulative (the function and what it called):", cumulative(sampler.stacks),
           total, args.top)  # fmt: skip
    _table("exclusive (the function's own frame, C it called included):",
           exclusive(sampler.stacks), total, args.top)  # fmt: skip
    if args.under:
        _table(f"inside {args.under}:", under(sampler.stacks, args.under, args.depth),
               total, args.top)  # fmt: skip
    if args.collapsed:
        args.collapsed.write_text("\n".join(collapsed(sampler.stacks)) + "\n")
        print(f"collapsed stacks: {args.collapsed}")


if __name__ == "__main__":
    main()
