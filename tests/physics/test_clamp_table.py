"""The physics README's clamp table is the registry's (`clamps.rule_table`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import tavern.physics.clamps as clamps_module
from tavern.physics.clamps import CLAMP_RULES, ClampRule, rule_table

README = Path(clamps_module.__file__).with_name("README.md")
_TABLE = re.compile(r"<!-- clamp-table:start -->\n(.*?)<!-- clamp-table:end -->", re.DOTALL)


def readme_table() -> str:
    found = _TABLE.search(README.read_text(encoding="utf-8"))
    assert found is not None, "the README lost its clamp-table markers"
    return found.group(1)


def test_the_readme_table_is_the_registry() -> None:
    assert readme_table() == rule_table(), (
        "regenerate: python -c 'from tavern.physics.clamps import rule_table;"
        ' print(rule_table(), end="")\' and paste it between the markers'
    )


def test_every_rule_has_a_one_line_doc_and_a_unique_name() -> None:
    names = [rule.name for rule in CLAMP_RULES]
    assert len(names) == len(set(names))
    assert all(rule.doc and "|" not in rule.doc for rule in CLAMP_RULES)


def test_negative_control_a_rule_added_without_the_readme_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    planted = ClampRule("planted", CLAMP_RULES[0].apply)
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", [*CLAMP_RULES, planted])
    assert readme_table() != rule_table()
