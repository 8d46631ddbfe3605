"""Canon ledgers: load them, and evaluate one against the runs of its script.

A ledger (`harness.records.canon.CanonLedger`) names, rule by rule, what a story must keep
and the family of slip a broken rule counts toward. `evaluate` reads what the kernel wrote
for one run, never anything the harness computed while it played:

- the journal's `character:<slot>` calls of each committed turn (the last attempt at that
  turn; an undone turn is gone): the prompt as sent, the strings of the answer;
- the narration of each turn: the prose renderer's committed `narration` records from the
  run's `final.json`, or, for a turn that history no longer holds (evicted by a compaction),
  the prose renderer's answered call in the journal.

Counts are findings per family: a monitor of a model's slips, never a gate (the structural
tests check the ledger and this evaluator, not a model's prose).

Example::

    ledger = load_ledger("contracanone")
    for report in evaluate_dir(ledger, Path("runs/canon")):
        print(report.run_id, report.counts)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from harness.evidence import agent_slot, prompt_text, reply_text
from harness.loading import load_record
from harness.probes.patterns import forbidden_hit, missing_patterns
from harness.records.canon import (
    FAMILIES,
    CanonFinding,
    CanonLedger,
    CanonReport,
    CanonRule,
    ViolationFamily,
)
from harness.records.results import RunResult, SessionSnapshot
from harness.results import RESULTS_NAME, read_results
from harness.run import SNAPSHOT_NAME
from tavern.records import (
    CommitLine,
    HistoryRecord,
    JournalLine,
    LlmCallLine,
    NarrationRecord,
    TurnInputLine,
    UndoLine,
)
from tavern.store import journal_path, read_journal

LEDGERS_DIR = Path(__file__).resolve().parent / "ledgers"
"""The bundled ledgers (package data)."""
CANON_NAME = "canon.jsonl"
"""The reports file `tavern-harness canon` writes beside `results.jsonl`."""


def bundled_ledgers() -> dict[str, Path]:
    """Ledger id -> path of every bundled ledger."""
    return {path.stem: path for path in sorted(LEDGERS_DIR.glob("*.json"))}


def load_ledger(reference: str) -> CanonLedger:
    """A bundled ledger by id, or a ledger file by path.

    Raises:
        InputError: unreadable file, bad JSON, or a record that does not validate.
    """
    ledger, _ = load_record(CanonLedger, "ledger", reference, bundled_ledgers())
    return ledger


@dataclass
class TurnEvidence:
    """What one committed turn left: its character calls and its narration."""

    calls: list[LlmCallLine] = field(default_factory=list)
    """Answered `character:<slot>` calls, in journal order."""
    narration: list[str] = field(default_factory=list)
    """Narration texts the reader was shown."""


def committed_turns(lines: Iterable[JournalLine]) -> dict[int, list[LlmCallLine]]:
    """Turn number -> the calls of its committed attempt, for every turn still committed.

    A `turn_input` line starts a new attempt at its turn (a failed one leaves no commit, so
    its calls are dropped when the next attempt starts); a `commit` keeps the attempt; an
    `undo` removes its turn. Calls journaled after a commit (interviews, suggestions) do not
    belong to the turn.

    >>> from tavern.records import TurnInput
    >>> import datetime as dt
    >>> now = dt.datetime.now(dt.UTC)
    >>> start = TurnInputLine(ts=now, session_id="s", turn_number=1, input=TurnInput(skip=True))
    >>> done = CommitLine(ts=now, session_id="s", turn_number=1, revision=1, record_count=1,
    ...     tick=1, control_returned=True)
    >>> undo = UndoLine(ts=now, session_id="s", turn_number=1, revision=2, removed_turn=1,
    ...     removed_records=1)
    >>> sorted(committed_turns([start, done])), sorted(committed_turns([start, done, undo]))
    ([1], [])
    """
    pending: dict[int, list[LlmCallLine]] = {}
    committed: dict[int, list[LlmCallLine]] = {}
    for line in lines:
        if isinstance(line, TurnInputLine):
            pending[line.turn_number] = []
        elif isinstance(line, LlmCallLine):
            if line.turn_number in pending:
                pending[line.turn_number].append(line)
        elif isinstance(line, CommitLine):
            committed[line.turn_number] = pending.pop(line.turn_number, [])
        elif isinstance(line, UndoLine):
            committed.pop(line.removed_turn, None)
    return committed


def turn_evidence(
    lines: Sequence[JournalLine], history: Sequence[HistoryRecord]
) -> dict[int, TurnEvidence]:
    """Turn number -> its evidence, for every committed turn of the journal."""
    held: dict[int, list[str]] = {}
    for record in history:
        held.setdefault(record.turn_number, [])
        if isinstance(record, NarrationRecord):
            held[record.turn_number].append(record.text)
    evidence: dict[int, TurnEvidence] = {}
    for turn, calls in committed_turns(lines).items():
        answered = [c for c in calls if c.response is not None and c.error is None]
        characters = [c for c in answered if c.agent.startswith("character:")]
        if turn in held:
            narration = held[turn]
        else:  # evicted from history: the prose renderer's answer as journaled
            narration = [reply_text(c) for c in answered if c.agent == "prose"][-1:]
        evidence[turn] = TurnEvidence(characters, narration)
    return evidence


def _check_rule(
    rule_id: str,
    rule: CanonRule,
    turns: dict[int, TurnEvidence],
    cast: Sequence[str],
) -> tuple[list[CanonFinding], list[str]]:
    findings: list[CanonFinding] = []
    unmeasured: list[str] = []

    def found(turn: int, check: str, label: str, detail: str) -> None:
        findings.append(
            CanonFinding.model_validate(
                {
                    "rule": rule_id,
                    "family": rule.family,
                    "turn": turn,
                    "check": check,
                    "label": label,
                    "detail": detail,
                }
            )
        )

    at = turns.get(rule.turn)
    if rule.recall is not None:
        agent = f"character:{rule.recall.character}"
        mine = [c for c in at.calls if c.agent == agent] if at else []
        if not mine:
            unmeasured += [f"{rule_id}:{level}" for level in rule.recall.levels]
        else:
            call = mine[-1]
            texts = {"prompt": prompt_text(call), "reply": reply_text(call)}
            for level in rule.recall.levels:
                text = texts[level]
                missing = missing_patterns(rule.recall.require, text)
                if missing:
                    found(rule.turn, level, f"missing_in_{level}", f"no match for {missing}")
                hit = forbidden_hit(rule.recall.forbid, text)
                if hit is not None:
                    found(rule.turn, level, f"forbidden_in_{level}", hit)
    if rule.expect_responder:
        if at is None:
            unmeasured.append(f"{rule_id}:responder")
        else:
            called = list(dict.fromkeys(s for c in at.calls if (s := agent_slot(c.agent, cast))))
            if not set(called) & set(rule.expect_responder):
                label = "routed_elsewhere" if called else "no_character_call"
                detail = f"called {called}, expected one of {rule.expect_responder}"
                found(rule.turn, "responder", label, detail)
    for turn in range(rule.turn, rule.last_turn + 1):
        evidence = turns.get(turn)
        if evidence is None:
            if rule.call_bound is not None or rule.narration_forbid:
                unmeasured.append(f"{rule_id}:turn-{turn}")
            continue
        bound = rule.call_bound
        if bound is not None:
            counted = [
                c
                for c in evidence.calls
                if bound.character is None or c.agent == f"character:{bound.character}"
            ]
            if len(counted) > bound.max_calls:
                who = bound.character or "all characters"
                detail = f"{len(counted)} calls of {who}, at most {bound.max_calls}"
                found(turn, "call_bound", "over_call_bound", detail)
        for text in evidence.narration:
            hit = forbidden_hit(rule.narration_forbid, text)
            if hit is not None:
                found(turn, "narration", "forbidden_in_narration", hit)
    return findings, unmeasured


def evaluate(
    ledger: CanonLedger,
    lines: Sequence[JournalLine],
    history: Sequence[HistoryRecord],
    *,
    cast: Sequence[str],
    run_id: str,
    session_id: str,
    provider: str = "",
    model: str = "",
) -> CanonReport:
    """Every rule of `ledger` checked on one run's journal `lines` and `history`."""
    turns = turn_evidence(lines, history)
    findings: list[CanonFinding] = []
    unmeasured: list[str] = []
    for rule_id, rule in ledger.rules.items():
        more, missing = _check_rule(rule_id, rule, turns, cast)
        findings += more
        unmeasured += missing
    counts: dict[ViolationFamily, int] = dict.fromkeys(FAMILIES, 0)
    for finding in findings:
        counts[finding.family] += 1
    return CanonReport(
        ledger=ledger.id,
        run_id=run_id,
        session_id=session_id,
        provider=provider,
        model=model,
        turns_committed=len(turns),
        rules=len(ledger.rules),
        rules_violated=len({f.rule for f in findings}),
        unmeasured=unmeasured,
        counts=counts,
        findings=findings,
    )


def evaluate_run(ledger: CanonLedger, data_dir: Path, run: RunResult) -> CanonReport:
    """`evaluate` on one finished run of a data dir (its journal and `final.json`)."""
    path = journal_path(data_dir, run.session_id)
    lines = read_journal(path)
    snapshot_path = path.parent / SNAPSHOT_NAME
    history: list[HistoryRecord] = []
    cast: list[str] = []
    if snapshot_path.exists():
        snapshot = SessionSnapshot.model_validate_json(snapshot_path.read_bytes())
        history = snapshot.history
        cast = [c.slot for c in snapshot.view.cast]
    return evaluate(
        ledger,
        lines,
        history,
        cast=cast or _called_slots(lines),
        run_id=run.run_id,
        session_id=run.session_id,
        provider=run.provider,
        model=run.model,
    )


def _called_slots(lines: Sequence[JournalLine]) -> list[str]:
    """Slots of the `character:<slot>` calls in `lines` (the cast, when no snapshot says)."""
    agents = (line.agent for line in lines if isinstance(line, LlmCallLine))
    return sorted({a.partition(":")[2] for a in agents if a.startswith("character:")})


def evaluate_dir(ledger: CanonLedger, data_dir: Path) -> list[CanonReport]:
    """One report per finished run of `ledger.script` in `data_dir/results.jsonl`."""
    results = read_results(data_dir / RESULTS_NAME)
    return [evaluate_run(ledger, data_dir, r) for r in results.runs if r.script == ledger.script]


def counts_table(reports: Sequence[CanonReport]) -> str:
    """Counts per family (rows) per run (columns), as aligned text.

    >>> report = CanonReport(ledger="l", run_id="r1", session_id="s", provider="fake",
    ...     model="fake", turns_committed=2, rules=1, rules_violated=0,
    ...     counts=dict.fromkeys(FAMILIES, 0))
    >>> print(counts_table([report]).splitlines()[1].split())
    ['canon_regression', '0']
    """
    width = max(len(f) for f in FAMILIES) + 2
    runs = [r.run_id[-12:] for r in reports]
    header = "family".ljust(width) + "".join(f"{run:>14}" for run in runs)
    rows = [header]
    for family in FAMILIES:
        rows.append(family.ljust(width) + "".join(f"{r.counts[family]:>14}" for r in reports))
    rows.append("total".ljust(width) + "".join(f"{sum(r.counts.values()):>14}" for r in reports))
    return "\n".join(rows)
