"""The precision bar holds on the clean-prose corpus: every rule cuts at most
`PRECISION_BAR` of the sentences of each language it declares (`benchmarks.filters fp`
prints the figures), and a rule that cut clean prose would be seen."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from tavern.filters import ALL_RULES, TextRule
from tavern.text import sentences

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    monkeypatch.syspath_prepend(str(ROOT))
    import benchmarks.filters as module

    yield module


def _rates(bench: ModuleType) -> dict[tuple[str, str], float]:
    tally = bench.false_positives(sorted(bench.CLEAN_DIR.glob("*.jsonl")))
    return {key: len(tally.cut.get(key, [])) / seen for key, seen in tally.seen.items() if seen}


def test_every_rule_keeps_under_the_bar_in_every_language(bench: ModuleType) -> None:
    rates = _rates(bench)
    for name, rule in ALL_RULES.items():
        for language in rule.languages:
            assert (name, language) in rates, (name, language)
    over = {key: rate for key, rate in rates.items() if rate > bench.PRECISION_BAR}
    assert not over


def test_the_corpus_holds_several_hundred_sentences_per_language(bench: ModuleType) -> None:
    tally = bench.false_positives(sorted(bench.CLEAN_DIR.glob("*.jsonl")))
    assert tally.seen[("loop", "en")] >= 400 and tally.seen[("loop", "pt-BR")] >= 400


def test_negative_control_a_rule_cutting_clean_prose_is_over_the_bar(
    bench: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    rule = ALL_RULES["retold"]
    greedy = TextRule(
        "retold", rule.targets, rule.languages, lambda text, target, ctx: sentences(text)[0]
    )
    monkeypatch.setitem(ALL_RULES, "retold", greedy)
    rates = _rates(bench)
    assert rates[("retold", "en")] > bench.PRECISION_BAR
    assert rates[("retold", "pt-BR")] > bench.PRECISION_BAR
