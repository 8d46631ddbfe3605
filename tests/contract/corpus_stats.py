"""Load the contract benchmark corpus and score the detector on it (shared by tests and report)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tavern.contract import Rule, Violation, check_prompt
from tavern.records import ChatMessage

CORPUS = Path(__file__).parent / "corpus"


@dataclass(frozen=True)
class Case:
    id: str
    lang: str
    rule: str | None
    cast: list[str]
    messages: list[ChatMessage]
    note: str = ""


def load(name: str) -> list[Case]:
    cases = []
    for line in (CORPUS / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            raw = json.loads(line)
            cases.append(
                Case(
                    id=raw["id"],
                    lang=raw["lang"],
                    rule=raw.get("rule"),
                    cast=raw["cast"],
                    messages=[ChatMessage(**m) for m in raw["messages"]],
                    note=raw.get("note", ""),
                )
            )
    return cases


@dataclass
class Score:
    planted: int = 0
    caught: int = 0
    clean: int = 0
    false_positives: int = 0
    misses: list[str] = field(default_factory=list)
    fp_ids: list[str] = field(default_factory=list)
    per_rule: dict[str, list[int]] = field(default_factory=dict)

    @property
    def recall(self) -> float:
        return self.caught / self.planted if self.planted else 1.0

    @property
    def fp_rate(self) -> float:
        return self.false_positives / self.clean if self.clean else 0.0

    def rule_recall(self, rule: str) -> float:
        got, total = self.per_rule.get(rule, [0, 0])
        return got / total if total else 0.0


def run(case: Case, rules: Sequence[Rule] | None = None) -> list[Violation]:
    return check_prompt(case.messages, case.cast, rules=rules)


def score(
    planted: Sequence[Case], clean: Sequence[Case], rules: Sequence[Rule] | None = None
) -> Score:
    """A planted case counts as caught only when its intended rule fires."""
    s = Score()
    for case in planted:
        assert case.rule is not None
        s.planted += 1
        tally = s.per_rule.setdefault(case.rule, [0, 0])
        tally[1] += 1
        if case.rule in {v.rule for v in run(case, rules)}:
            s.caught += 1
            tally[0] += 1
        else:
            s.misses.append(case.id)
    for case in clean:
        s.clean += 1
        if run(case, rules):
            s.false_positives += 1
            s.fp_ids.append(case.id)
    return s
