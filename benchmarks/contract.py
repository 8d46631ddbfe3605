"""Prompt-contract benchmark: recall and false positives on the corpus under tests/contract.

Run: .venv/bin/python -m benchmarks.contract [--speed] [--speed-only]

`--speed` also times `check_prompt` on real Director prompts (~20 KB of user message): built
by the runner over a fake-provider session (the kernel benchmark's set-up) and read back
from its journal, checked before (the reference evaluation in tests/contract/reference.py,
i.e. the contract as it was before it was optimized) and after, in the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import importlib.util
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from tavern import contract
from tavern.contract import RULES
from tavern.records import ChatMessage, LlmCallLine

_TESTS = Path(__file__).resolve().parents[1] / "tests" / "contract"


def _load_module(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve their module by name
    spec.loader.exec_module(module)
    return module


corpus_stats = _load_module("contract_corpus_stats", _TESTS / "corpus_stats.py")
load, score = corpus_stats.load, corpus_stats.score


def director_prompts(history: int, turns: int) -> tuple[list[list[ChatMessage]], list[str]]:
    """Director prompts the runner built over a fake-provider session, and the cast names."""
    from benchmarks import kernel
    from tavern.store import journal_path, read_journal

    data_dir = Path(tempfile.mkdtemp(prefix="tavern-contract-bench-"))
    atexit.register(shutil.rmtree, data_dir, True)  # its sessions (up to ~200 MB)
    runner, provider = kernel._runner(data_dir, durable=False, gate=False)
    sid = kernel.build_session(runner, runner.store, history)
    asyncio.run(kernel.kernel_times(runner, provider, {history: sid}, turns))
    calls = [c for c in read_journal(journal_path(data_dir, sid)) if isinstance(c, LlmCallLine)]
    cast = [c.body.display_name for c in runner.store.load(sid).cast.values()]
    return [c.request.messages for c in calls if c.agent == "director"], cast


def _median_ms(
    prompts: list[list[ChatMessage]],
    check: Callable[[list[ChatMessage]], object],
    before_each: Callable[[int], None],
) -> tuple[float, float]:
    """Median (wall, process CPU) milliseconds of `check` over the prompts."""
    wall, cpu = [], []
    for i, messages in enumerate(prompts):
        before_each(i)
        start, start_cpu = time.perf_counter(), time.process_time()
        check(messages)
        wall.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
    return statistics.median(wall), statistics.median(cpu)


def speed(history: int, turns: int) -> None:
    """Print the median ms per `check_prompt` on ~20 KB Director prompts, before and after."""
    reference = _load_module("contract_reference", _TESTS / "reference.py")
    prompts, cast = director_prompts(history, turns)
    sizes = [sum(len(m.content) for m in p) for p in prompts]
    print(
        f"== speed: {len(prompts)} Director prompts of {min(sizes)}-{max(sizes)} characters "
        f"(user message {min(len(p[-1].content) for p in prompts)}+), cast of {len(cast)}"
    )
    same = all(
        contract.check_prompt(p, cast) == reference.reference_check_prompt(p, cast) for p in prompts
    )
    print(f"  fast path == reference on every prompt: {same}")

    def cold(i: int) -> None:
        contract.clear_caches()

    def system_warm(i: int) -> None:
        # As in a session: the previous call of the role already checked the same system
        # message; the user message (history window) is new.
        contract.clear_caches()
        contract.check_prompt(prompts[i - 1], cast)

    rows = [
        (
            "before (reference evaluation)",
            lambda m: reference.reference_check_prompt(m, cast),
            cold,
        ),
        ("after, cold caches", lambda m: contract.check_prompt(m, cast), cold),
        ("after, system message cached", lambda m: contract.check_prompt(m, cast), system_warm),
    ]
    # CPU time is the figure to read on a shared, loaded machine (wall also counts waiting).
    for label, check, prepare in rows:
        wall, cpu = _median_ms(prompts, check, prepare)
        print(f"  {label:32s} median wall {wall:8.2f} ms  cpu {cpu:8.2f} ms")


def corpus() -> None:
    for label, planted_name, clean_name in (
        ("tuned corpus", "planted", "clean"),
        ("round 1 (written blind, then used to tune)", "round1_planted", "round1_clean"),
        ("round 2 (written blind, then used to tune)", "round2_planted", "round2_clean"),
        (
            "round 3 (written blind before round-2 tuning, never tuned on)",
            "round3_planted",
            "round3_clean",
        ),
    ):
        planted, clean = load(planted_name), load(clean_name)
        s = score(planted, clean)
        anyrule = sum(bool(corpus_stats.run(c)) for c in planted)
        print(f"== {label}: {len(planted)} planted, {len(clean)} clean")
        print(f"recall (intended rule) {s.caught}/{s.planted} = {s.recall:.3f}")
        print(f"recall (any rule) {anyrule}/{s.planted} = {anyrule / max(s.planted, 1):.3f}")
        print(f"false positives {s.false_positives}/{s.clean} = {s.fp_rate:.3f}")
        for lang in ("en", "pt-BR"):
            ls = score([c for c in planted if c.lang == lang], [c for c in clean if c.lang == lang])
            print(f"  {lang}: recall {ls.recall:.3f}, false positives {ls.fp_rate:.3f}")
        for rule in RULES:
            got, total = s.per_rule.get(rule.name, [0, 0])
            print(f"  {rule.name:28s} {got}/{total}")
        if s.misses:
            print("  misses:", ", ".join(s.misses))
        if s.fp_ids:
            print("  false positives:", ", ".join(s.fp_ids))


def main() -> None:
    """Corpus figures, and with --speed the timing of check_prompt."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--speed", action="store_true", help="also time check_prompt")
    parser.add_argument("--speed-only", action="store_true", help="only time check_prompt")
    parser.add_argument("--history", type=int, default=200, help="history turns (speed)")
    parser.add_argument("--turns", type=int, default=30, help="played turns (speed)")
    args = parser.parse_args()
    if not args.speed_only:
        corpus()
    if args.speed or args.speed_only:
        speed(args.history, args.turns)


if __name__ == "__main__":
    main()
