"""Every rule against its case table, alone; every table can fail and covers every language
its rule declares."""

from __future__ import annotations

from typing import Any

import pytest

from tavern.filters import ALL_RULES, TextRule
from tavern.filters.rule import apply_rules

from .cases import CASES, context, load, texts

RULES = sorted(ALL_RULES)


def _run(rule: Any, row: dict[str, Any]) -> dict[str, str]:
    return apply_rules([rule], texts(row["input"]), context(row), {rule.name}).texts


def _same(got: dict[str, str], row: dict[str, Any]) -> bool:
    want = texts(row["expected"])
    return {k: v.strip() for k, v in got.items()} == {k: v.strip() for k, v in want.items()}


def test_every_rule_has_a_table_and_every_table_a_rule() -> None:
    assert {p.stem for p in CASES.glob("*.jsonl")} == set(RULES)


@pytest.mark.parametrize("name", RULES)
def test_the_rule_gives_each_row_its_expected_text(name: str) -> None:
    failed = [
        (row["source"], row["input"], _run(ALL_RULES[name], row))
        for row in load(name)
        if not _same(_run(ALL_RULES[name], row), row)
    ]
    assert not failed, failed[:5]


@pytest.mark.parametrize("name", RULES)
def test_negative_control_a_rule_that_cuts_nothing_fails_its_table(name: str) -> None:
    rule = ALL_RULES[name]
    idle = TextRule(name, rule.targets, rule.languages, lambda text, target, ctx: text)
    for language in rule.languages:
        rows = [row for row in load(name) if row["language"] == language]
        assert any(not _same(_run(idle, row), row) for row in rows), (name, language)


@pytest.mark.parametrize("name", RULES)
def test_the_table_keeps_clean_rows_in_every_language_it_declares(name: str) -> None:
    rule = ALL_RULES[name]
    for language in rule.languages:
        rows = [row for row in load(name) if row["language"] == language]
        assert any(texts(row["input"]) == texts(row["expected"]) for row in rows), (name, language)


def test_every_row_says_where_it_comes_from() -> None:
    for name in RULES:
        for row in load(name):
            assert row["source"] and row["language"] in ("en", "pt-BR"), (name, row)
