"""Every clamp rule's case table: each row's decision, clamped by the whole registry, leaves
what the row expects, and the table's rule changes something on some row (rules overlap: a
row may be met by an earlier rule). Negative control per table: without its rule, some row
fails."""

from __future__ import annotations

from pathlib import Path

import pytest

import tavern.physics.clamps as clamps_module
from benchmarks.clamps import CASES, Beat, expected_of, load_beats
from tavern.physics.clamps import CLAMP_RULES, clamp_decision

TABLES = sorted(CASES.glob("*.jsonl"))
RULES = {rule.name for rule in CLAMP_RULES}


def _failures(beats: list[Beat]) -> list[str]:
    """The rows whose expectation the clamps do not meet, each with what they left."""
    failed = []
    for beat in beats:
        out, changes = clamp_decision(beat.decision, beat.ctx)
        rules = sorted({c.rule for c in changes})
        if not beat.expect:
            if out != beat.decision:
                failed.append(f"{beat.id}: changed by {rules}")
        elif (got := expected_of(out, beat.expect)) != beat.expect:
            failed.append(f"{beat.id}: {got} by {rules}")
    return failed


def test_every_table_is_a_rule_and_every_rule_reading_words_has_a_table() -> None:
    names = {path.stem for path in TABLES}
    assert names <= RULES
    assert names, "no case table found"


@pytest.mark.parametrize("table", TABLES, ids=lambda p: p.stem)
def test_case_table(table: Path) -> None:
    beats = load_beats(table)
    ids = [b.id for b in beats]
    assert len(ids) == len(set(ids))
    assert any(b.expect and b.expect != expected_of(b.decision, b.expect) for b in beats), (
        "a table needs a row its rule changes"
    )
    assert _failures(beats) == []
    fired = {c.rule for b in beats for c in clamp_decision(b.decision, b.ctx)[1]}
    assert table.stem in fired


@pytest.mark.parametrize("table", TABLES, ids=lambda p: p.stem)
def test_negative_control_without_its_rule_a_row_fails(
    table: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    without = [r for r in CLAMP_RULES if r.name != table.stem]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", without)
    assert _failures(load_beats(table))
