"""Canon ledgers and what their evaluation reports.

A canon ledger (`CanonLedger`, bundled under `harness/ledgers/`) belongs to one script. Its
rules are keyed by id; each names the turn it is checked at, the checks that measure it and
the family of violation it counts toward (`ViolationFamily`). `harness.canon` evaluates a
ledger against the journal of a run and writes one `CanonReport` per run: the violations it
found and their counts per family. The counts are a monitor of a model's slips, never a
pass/fail gate on its prose.

Example (JSON, as bundled)::

    {"schema_version": 1, "id": "contracanone", "script": "contracanone",
     "rules": {"senha-fora-da-narracao": {
        "turn": 2, "until_turn": 26, "family": "secret_leak",
        "statement": "A senha sussurrada nunca aparece na narração.",
        "narration_forbid": ["Sabi[aá]4417"]}}}
"""

from __future__ import annotations

import re
from typing import Final, Literal, get_args

from pydantic import Field, field_validator, model_validator

from harness.records.script import BOTH_LEVELS, SLUG_PATTERN, ProbeLevel
from tavern.records import Record
from tavern.records.scenario import Language

CANON_SCHEMA_VERSION: Final = 1

ViolationFamily = Literal[
    "canon_regression",
    "world_truth_contradiction",
    "forgotten_promise_or_object",
    "unearned_name",
    "secret_leak",
    "routing_failure",
    "agency_violation",
    "claim_stated_as_fact",
]
"""The taxonomy of canon slips.

- `canon_regression`: the familiar version of the story comes back over the world's inversion.
- `world_truth_contradiction`: a standing truth of this world (its facts, its scene) is
  contradicted.
- `forgotten_promise_or_object`: a promise made, a secret confided or an object handed over
  is gone from the holder's prompt or answer.
- `unearned_name`: a name used by someone who never perceived it.
- `secret_leak`: a whisper or a private thought reaches someone outside its audience, or
  the narration.
- `routing_failure`: the wrong character answers, or one who could not hear.
- `agency_violation`: the human's character is voiced, called or decided for.
- `claim_stated_as_fact`: what a character only claimed is told as what happened.
"""
FAMILIES: Final[tuple[ViolationFamily, ...]] = get_args(ViolationFamily)


def _compiled(patterns: list[str]) -> list[str]:
    for pattern in patterns:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"pattern {pattern!r} is not a regular expression: {exc}") from None
    return patterns


class RecallCheck(Record):
    """Patterns on one character's call in the rule's turn: its prompt, its reply, or both.

    The evidence is the character's last answered `character:<slot>` call of that turn; a
    turn without one leaves the check unmeasured (never a violation: the expected responder
    or a call bound says whether the call should have happened).
    """

    character: str = Field(pattern=r"^C[1-9][0-9]?$")
    """Slot id of the character read."""
    require: list[str] = Field(default_factory=list)
    """Regular expressions (case-insensitive) that must each match."""
    forbid: list[str] = Field(default_factory=list)
    """Regular expressions (case-insensitive) that must not match."""
    levels: list[ProbeLevel] = Field(default_factory=lambda: [*BOTH_LEVELS], min_length=1)
    """Where the patterns are checked: the prompt as sent, the strings of the reply."""

    @field_validator("require", "forbid")
    @classmethod
    def _patterns_compile(cls, patterns: list[str]) -> list[str]:
        return _compiled(patterns)

    @model_validator(mode="after")
    def _something_to_check(self) -> RecallCheck:
        if not self.require and not self.forbid:
            raise ValueError("a recall check needs at least one `require` or `forbid` pattern")
        return self


class CallBound(Record):
    """At most `max_calls` answered character calls per checked turn, for one slot or all."""

    character: str | None = Field(default=None, pattern=r"^C[1-9][0-9]?$")
    """Slot id whose `character:<slot>` calls are counted; None counts every character."""
    max_calls: int = Field(ge=0)
    """The bound (0: never called)."""


class CanonRule(Record):
    """One standing truth of the story and the checks that measure it."""

    turn: int = Field(ge=1)
    """The turn it is checked at (the recall and the expected responder read this turn)."""
    until_turn: int | None = Field(default=None, ge=1)
    """The call bound and the narration patterns are checked on every turn from `turn` to
    this one (None: `turn` only)."""
    family: ViolationFamily
    """The family a failed check counts toward."""
    statement: str = Field(min_length=1)
    """What must hold, in the script's language."""
    recall: RecallCheck | None = None
    """A recall probe at prompt and/or reply level."""
    expect_responder: list[str] = Field(default_factory=list)
    """Slot ids, any of whom must have answered in `turn` (empty: not checked)."""
    call_bound: CallBound | None = None
    """A bound on character calls."""
    narration_forbid: list[str] = Field(default_factory=list)
    """Regular expressions (case-insensitive) the narration must not hold: the prose
    renderer's answer and the Director's staged events of each checked turn."""

    @field_validator("narration_forbid")
    @classmethod
    def _patterns_compile(cls, patterns: list[str]) -> list[str]:
        return _compiled(patterns)

    @field_validator("expect_responder")
    @classmethod
    def _slots(cls, slots: list[str]) -> list[str]:
        for slot in slots:
            if not re.fullmatch(r"C[1-9][0-9]?", slot):
                raise ValueError(f"expected slot ids like `C2`, got {slot!r}")
        return slots

    @model_validator(mode="after")
    def _checkable(self) -> CanonRule:
        checks = (self.recall, self.expect_responder, self.call_bound, self.narration_forbid)
        if not any(checks):
            raise ValueError(
                "a rule needs a check: recall, expect_responder, call_bound or narration_forbid"
            )
        if self.until_turn is not None and self.until_turn < self.turn:
            raise ValueError(f"until_turn {self.until_turn} comes before turn {self.turn}")
        return self

    @property
    def last_turn(self) -> int:
        """The last turn any of its checks reads."""
        return self.until_turn if self.until_turn is not None else self.turn


class CanonLedger(Record):
    """The canon a script's story must keep, rule by rule."""

    schema_version: Literal[1] = CANON_SCHEMA_VERSION
    """Ledger format version."""
    id: str = Field(pattern=SLUG_PATTERN)
    """Ledger name; bundled ledgers are found by it."""
    script: str = Field(pattern=SLUG_PATTERN)
    """The script whose runs it reads."""
    language: Language = "en"
    """The language of its statements and patterns."""
    description: str = ""
    """What the story inverts and what the rules cover."""
    rules: dict[str, CanonRule] = Field(min_length=1)
    """Rule id (a slug) -> rule."""

    @field_validator("rules")
    @classmethod
    def _rule_ids(cls, rules: dict[str, CanonRule]) -> dict[str, CanonRule]:
        for rule_id in rules:
            if not re.fullmatch(SLUG_PATTERN, rule_id):
                raise ValueError(f"rule id {rule_id!r}: expected a lowercase slug")
        return rules


CheckKind = Literal["prompt", "reply", "responder", "call_bound", "narration"]
"""Which part of a rule a finding comes from."""


class CanonFinding(Record):
    """One failed check of one rule in one turn."""

    rule: str
    """Rule id."""
    family: ViolationFamily
    """The rule's family."""
    turn: int = Field(ge=0)
    """The turn the check read."""
    check: CheckKind
    """The check that failed."""
    label: str
    """Why, as a stable label: `missing_in_prompt`, `forbidden_in_reply`, `routed_elsewhere`,
    `no_character_call`, `over_call_bound`, `forbidden_in_narration`."""
    detail: str = ""
    """Evidence for a reader: the pattern and an excerpt around the hit."""


class CanonReport(Record):
    """A ledger evaluated on one run: its violations and their counts per family."""

    kind: Literal["canon_report"] = "canon_report"
    schema_version: Literal[1] = CANON_SCHEMA_VERSION
    """Report format version."""
    ledger: str
    """Ledger id."""
    run_id: str
    """The run read (`RunResult.run_id`)."""
    session_id: str
    """Its session."""
    provider: str
    """Provider of the run."""
    model: str
    """Model of the run."""
    turns_committed: int = Field(ge=0)
    """Turns the journal shows committed (and not undone) at the end of the run."""
    rules: int = Field(ge=0)
    """Rules in the ledger."""
    rules_violated: int = Field(ge=0)
    """Rules with at least one finding."""
    unmeasured: list[str] = Field(default_factory=list)
    """`rule:check` entries that could not be read: their turn never committed, or the
    recall's character was not called in it."""
    counts: dict[ViolationFamily, int]
    """Family -> findings in this run (every family present, zeros included)."""
    findings: list[CanonFinding] = Field(default_factory=list)
    """Every failed check."""
