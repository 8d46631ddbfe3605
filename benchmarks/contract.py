"""Prompt-contract benchmark: recall and false positives on the corpus under tests/contract.

Run: .venv/bin/python -m benchmarks.contract
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from tavern.contract import RULES

_STATS = Path(__file__).resolve().parents[1] / "tests" / "contract" / "corpus_stats.py"
_spec = importlib.util.spec_from_file_location("contract_corpus_stats", _STATS)
assert _spec and _spec.loader
corpus_stats = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = corpus_stats  # dataclasses resolve their module by name
_spec.loader.exec_module(corpus_stats)
load, score = corpus_stats.load, corpus_stats.score


def main() -> None:
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


if __name__ == "__main__":
    main()
