"""Prompt-contract benchmark: recall and false positives per family and language, before and
after the lexical rebuild, and the gate's cost per prompt.

Run: .venv/bin/python -m benchmarks.contract [--speed] [--speed-only] [--before COMMIT]

"Before" is the contract of `BEFORE` (the commit this rebuild started from), read from git
into a temporary package and run in the same process on the same corpus. Splits:
- tuned: the hand corpus with rounds 1 and 2, and the generated tuning split;
- round 3: written blind before round 2 was tuned; never tuned on (read once during the
  rebuild, so no longer blind);
- held-out: the generated held-out split (tests/contract/corpus_gen.py), never tuned on.

`--speed` also times `check_prompt` per prompt and per turn on the prompts of a fake-provider
session (the kernel benchmark's set-up), read back from its journal: before, after with the
per-message cache as in a running session, after with every message new, and the plain
evaluation (no prefilter, nothing cached).
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import importlib
import importlib.util
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from tavern import contract
from tavern.contract import RULES, MessageCache
from tavern.contract import _lexical as lexical
from tavern.records import ChatMessage, LlmCallLine

ROOT = Path(__file__).resolve().parents[1]
_TESTS = ROOT / "tests" / "contract"
BEFORE = "350f8fc972b4a6d439fecf18b5a0a8a71b763b68"
"""main when the contract's speed machinery was shed and its lexical rules rebuilt."""

SPLITS: list[tuple[str, list[tuple[str, str]]]] = [
    (
        "tuned",
        [
            ("planted", "clean"),
            ("round1_planted", "round1_clean"),
            ("round2_planted", "round2_clean"),
            ("gen_tune_planted", "gen_tune_clean"),
        ],
    ),
    ("round 3", [("round3_planted", "round3_clean")]),
    ("held-out", [("gen_heldout_planted", "gen_heldout_clean")]),
]
HAND = ["planted", "clean", "round1_planted", "round1_clean", "round2_planted", "round2_clean"]
HAND += ["round3_planted", "round3_clean"]


def _load_module(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve their module by name
    spec.loader.exec_module(module)
    return module


corpus_stats = _load_module("contract_corpus_stats", _TESTS / "corpus_stats.py")
Case = Any
Check = Callable[[Sequence[ChatMessage], Sequence[str]], list[Any]]


def load_before(commit: str) -> ModuleType:
    """The `tavern.contract` package of `commit`, importable as `contract_before`."""

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(ROOT), *args], check=True, capture_output=True, text=True
        ).stdout

    where = Path(tempfile.mkdtemp(prefix="tavern-contract-before-"))
    atexit.register(shutil.rmtree, where, True)
    package = where / "contract_before"
    package.mkdir()
    for path in git("ls-tree", "--name-only", f"{commit}:tavern/contract").split():
        if path.endswith(".py"):
            source = git("show", f"{commit}:tavern/contract/{path}")
            text = source.replace("tavern.contract", "contract_before")
            (package / path).write_text(text, encoding="utf-8")
    sys.path.insert(0, str(where))
    return importlib.import_module("contract_before")


def _found(check: Check, case: Case) -> set[str]:
    return {v.rule for v in check(case.messages, case.cast)}


def corpus(before: ModuleType) -> None:
    checks: dict[str, Check] = {"before": before.check_prompt, "after": contract.check_prompt}
    families = [r.name for r in RULES]
    for label, pairs in SPLITS:
        planted = [c for p, _ in pairs for c in corpus_stats.load(p)]
        clean = [c for _, n in pairs for c in corpus_stats.load(n)]
        found = {k: [_found(check, c) for c in planted] for k, check in checks.items()}
        flagged = {k: [_found(check, c) for c in clean] for k, check in checks.items()}
        names = ", ".join(p for p, _ in pairs)
        print(f"== {label}: {len(planted)} planted, {len(clean)} clean ({names})")
        print("   recall: intended rule fired (any rule fired); FP: clean cases it fired on")
        head = f"{'family':26s} {'lang':6s} {'n':>4s}  {'recall before':>20s}  {'after':>20s}"
        print(f"   {head}  {'FP before':>9s} {'after':>5s}")
        for lang in ("en", "pt-BR", "all"):
            for family in [*families, "total"]:
                rows = [
                    i
                    for i, c in enumerate(planted)
                    if lang in (c.lang, "all") and family in (c.rule, "total")
                ]
                clean_rows = [i for i, c in enumerate(clean) if lang in (c.lang, "all")]
                if not rows and family != "total":
                    continue
                cells = []
                for k in checks:
                    hit = sum(planted[i].rule in found[k][i] for i in rows)
                    anyhit = sum(bool(found[k][i]) for i in rows)
                    n = max(len(rows), 1)
                    cells.append(f"{hit / n:.3f} ({anyhit / n:.3f})")
                fps = [
                    sum(
                        bool(flagged[k][i]) if family == "total" else family in flagged[k][i]
                        for i in clean_rows
                    )
                    for k in checks
                ]
                row = f"{family:26s} {lang:6s} {len(rows):4d}  {cells[0]:>20s}  {cells[1]:>20s}"
                print(f"   {row}  {fps[0]:9d} {fps[1]:5d}")
        if label != "held-out":  # counts only: its cases are not for tuning
            misses = [c.id for i, c in enumerate(planted) if c.rule not in found["after"][i]]
            fp_ids = [c.id for i, c in enumerate(clean) if flagged["after"][i]]
            print(f"   after, missed: {', '.join(misses) or '-'}")
            print(f"   after, false positives: {', '.join(fp_ids) or '-'}")


def changes(before: ModuleType) -> None:
    """Every hand-corpus case whose violations (rule, message, span) differ after the rebuild."""
    print("== hand corpus: cases whose violations changed (- before only, + after only)")
    changed = 0
    for name in HAND:
        for case in corpus_stats.load(name):
            old, new = (
                {
                    (v.rule, v.message_index, v.span, v.excerpt)
                    for v in check(case.messages, case.cast)
                }
                for check in (before.check_prompt, contract.check_prompt)
            )
            if old != new:
                changed += 1
                diff = [f"-{r} @ {e!r}" for r, _, _, e in sorted(old - new)]
                diff += [f"+{r} @ {e!r}" for r, _, _, e in sorted(new - old)]
                print(f"   {case.id} ({case.rule or 'clean'}): {'; '.join(diff)}")
    print(f"   {changed} changed")


Prompts = list[tuple[int, str, list[ChatMessage]]]


def session_prompts(history: int, turns: int) -> tuple[Prompts, list[str]]:
    """(turn, agent, messages) of every model call the runner made over a fake-provider
    session, and the cast names."""
    from benchmarks import kernel
    from tavern.store import journal_path, read_journal

    data_dir = Path(tempfile.mkdtemp(prefix="tavern-contract-bench-"))
    atexit.register(shutil.rmtree, data_dir, True)  # its sessions (up to ~200 MB)
    runner, provider = kernel._runner(data_dir, durable=False)
    sid = kernel.build_session(runner, runner.store, history)
    asyncio.run(kernel.kernel_times(runner, provider, {history: sid}, turns))
    calls = [c for c in read_journal(journal_path(data_dir, sid)) if isinstance(c, LlmCallLine)]
    cast = [c.body.display_name for c in runner.store.load(sid).cast.values()]
    prompts = [(c.turn_number, c.agent, c.request.messages) for c in calls]
    return [p for p in prompts if p[0] > history], cast


def _always(pattern: lexical.Pattern, words: frozenset[str]) -> bool:
    return True


def speed(before: ModuleType, history: int, turns: int) -> None:
    """Median and p95 ms per `check_prompt` call and per turn, before and after."""
    prompts, cast = session_prompts(history, turns)
    sizes = sorted(sum(len(m.content) for m in p) for _, _, p in prompts)
    print(
        f"== speed: {len(prompts)} prompts of {len({t for t, _, _ in prompts})} turns after "
        f"{history} turns of history, {sizes[0]}-{sizes[-1]} characters, cast of {len(cast)}"
    )
    same = sum(
        {(v.rule, v.span) for v in contract.check_prompt(p, cast)}
        == {(v.rule, v.span) for v in before.check_prompt(p, cast)}
        for _, _, p in prompts
    )
    print(f"   same violations before and after on {same}/{len(prompts)} prompts")
    uncached = MessageCache(maxsize=0)
    real = lexical.Pattern.may_match

    def plain(messages: Sequence[ChatMessage], names: Sequence[str]) -> object:
        lexical.Pattern.may_match = _always  # type: ignore[method-assign]
        try:
            return contract.check_prompt(messages, names, cache=uncached)
        finally:
            lexical.Pattern.may_match = real  # type: ignore[method-assign]

    rows: list[tuple[str, Callable[[], None], Check]] = [
        ("before, in session order", lambda: None, before.check_prompt),
        ("after, in session order", lambda: None, contract.check_prompt),
        ("after, every message new", contract.clear_caches, contract.check_prompt),
        ("plain: no prefilter, no cache", lambda: None, plain),
    ]
    # CPU time is the figure to read on a shared, loaded machine (wall also counts waiting).
    head = f"{'':32s} {'per prompt: median':>18s} {'p95':>7s} {'max':>7s}"
    print(f"   {head}   {'per turn: median':>16s} {'p95':>7s}  (CPU ms)")
    for label, prepare, check in rows:
        before.clear_caches()
        contract.clear_caches()
        cpu: list[float] = []
        per_turn: dict[int, float] = defaultdict(float)
        for turn, _, messages in prompts:
            prepare()
            start = time.process_time()
            check(messages, cast)
            spent = (time.process_time() - start) * 1000
            cpu.append(spent)
            per_turn[turn] += spent
        turn_ms = sorted(per_turn.values())
        p95 = statistics.quantiles(cpu, n=20)[-1]
        turn_p95 = statistics.quantiles(turn_ms, n=20)[-1] if len(turn_ms) > 1 else turn_ms[0]
        row = f"{label:32s} {statistics.median(cpu):18.2f} {p95:7.2f} {max(cpu):7.2f}"
        print(f"   {row}   {statistics.median(turn_ms):16.2f} {turn_p95:7.2f}")


def main() -> None:
    """Corpus figures before and after, the hand corpus's changes, and with --speed the timing."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--speed", action="store_true", help="also time check_prompt")
    parser.add_argument("--speed-only", action="store_true", help="only time check_prompt")
    parser.add_argument("--before", default=BEFORE, help="commit of the 'before' contract")
    parser.add_argument("--history", type=int, default=200, help="history turns (speed)")
    parser.add_argument("--turns", type=int, default=30, help="played turns (speed)")
    args = parser.parse_args()
    before = load_before(args.before)
    if not args.speed_only:
        corpus(before)
        changes(before)
    if args.speed or args.speed_only:
        speed(before, args.history, args.turns)


if __name__ == "__main__":
    main()
