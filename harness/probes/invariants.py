"""Invariants checked after every call the script makes to the kernel.

- `clock`: a committed turn moves story time forward; a failed turn, an interview, a
  suggestion or an opening leave it alone; an undo restores the tick before the undone turn.
- `names`: no character's prompt holds a true-name form (`tavern.physics.identity`) of
  another cast member that it did not learn: not introduced by the scenario, and never heard
  in a speech it perceived (`tavern.physics.perception.perceives`).
- `contract`: no prompt sent to a model breaks the agency lock (`tavern.contract`), and the
  kernel refused none (label `contract_refusal`).
- `journal` (a committed turn, an undo): the journal and the history agree: the turn's
  `turn_input` holds what was submitted, its `commit` counts the turn's records and the
  tick; an undo's `undo` line names the removed turn, whose records are gone.
- `atomic` (a failed turn): nothing of it was committed.
- `compaction` (a compaction or a restore): the journal has exactly one `compact` (or
  `restore`) line for it; after a compaction no live record is of a turn at or below its
  cutoff and the line counts the records of the run's history it took; after a restore the
  live records up to the cutoff are exactly as many as the line says came back; the turn
  stays and the revision moves on. A failed compaction wrote no line and kept the revision.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from harness.evidence import Evidence, Play, agent_slot, calls, commits, excerpt, sent
from harness.probes import probe_result
from harness.records.results import ProbeCheck, ProbeResult
from tavern.contract import check_prompt
from tavern.physics.perception import perceives
from tavern.records import (
    CompactLine,
    JournalLine,
    LlmCallLine,
    RestoreLine,
    SpeechRecord,
    TurnInputLine,
    UndoLine,
)


def invariants(play: Play, evidence: Evidence, run_id: str, probe_id: str) -> ProbeResult:
    """Every invariant that applies to `play`, in one result."""
    checks = [clock(play, evidence), names(play, evidence), contract(play, evidence)]
    if play.kind == "turn":
        checks.append(journal(play, evidence) if play.committed else atomic(play, evidence))
    elif play.kind == "undo":
        checks.append(undone(play, evidence))
    elif play.kind in ("compact", "restore"):
        checks.append(compaction(play, evidence))
    return probe_result(
        run_id=run_id,
        session_id=evidence.session_id,
        probe="invariants",
        probe_id=probe_id,
        event_index=play.event_index,
        turn_number=play.turn_number,
        checks=checks,
    )


def clock(play: Play, evidence: Evidence) -> ProbeCheck:
    """Story time: forward on a commit, still otherwise, restored by an undo."""
    before, after = play.before.tick, play.after.tick
    if play.committed:
        ok = after > before
        label = "clock_backwards" if after < before else "clock_stopped"
    elif play.kind == "undo":
        expected = _tick_before(evidence, play)
        ok = expected is None or after == expected
        label = "undo_tick_mismatch"
        before = expected if expected is not None else before
    else:
        ok = after == before
        label = "clock_moved"
    detail = f"tick {before} -> {after}"
    return ProbeCheck(name="clock", passed=ok, label=None if ok else label, detail=detail)


def _tick_before(evidence: Evidence, undo: Play) -> int | None:
    """The tick before the committed turn `undo` removed (the latest play of that turn)."""
    index = evidence.plays.index(undo)
    for play in reversed(evidence.plays[:index]):
        if play.committed and play.turn_number == undo.turn_number:
            return play.before.tick
    return None


@lru_cache(maxsize=256)
def _form_pattern(form: str) -> re.Pattern[str]:
    return re.compile(rf"\b{re.escape(form)}\b")


def known_forms(
    viewer: str, evidence: Evidence, turn: int, *, own_turn_said: bool
) -> set[tuple[str, str]]:
    """(slot, name form) pairs `viewer` may know by `turn`: introduced, or heard.

    Without `own_turn_said`, what the viewer itself said in `turn` is left out: a Character's
    reply comes after the prompt that asked for it.
    """
    forms = evidence.name_forms
    introduced = evidence.scenario.introductions.get(viewer, [])
    known = {(slot, form) for slot in introduced for form in forms.get(slot, [])}
    for record in evidence.history:
        if record.turn_number > turn or not isinstance(record, SpeechRecord):
            continue
        if record.turn_number == turn and record.speaker == viewer and not own_turn_said:
            continue
        if perceives(record, viewer) != "content":
            continue
        for slot, slot_forms in forms.items():
            known.update((slot, f) for f in slot_forms if _form_pattern(f).search(record.text))
    return known


def names(play: Play, evidence: Evidence) -> ProbeCheck:
    """No character prompt of the play names someone its character never learned."""
    forms = evidence.name_forms
    found: list[str] = []
    for call in _character_calls(play.lines, evidence):
        viewer = agent_slot(call.agent, list(evidence.cast))
        assert viewer is not None
        text = "\n".join(m.content for m in call.request.messages)
        known: set[tuple[str, str]] | None = None
        for slot, slot_forms in forms.items():
            if slot == viewer:
                continue
            for form in slot_forms:
                hit = _form_pattern(form).search(text)
                if hit is None:
                    continue
                if known is None:
                    said = play.kind != "turn"  # an interview comes after the whole turn
                    known = known_forms(viewer, evidence, call.turn_number, own_turn_said=said)
                if (slot, form) not in known:
                    found.append(
                        f"{call.agent} shows {form!r} ({slot}): "
                        f"{excerpt(text, hit.start(), hit.end(), 40)}"
                    )
    if found:
        return ProbeCheck(
            name="names", passed=False, label="unlearned_name", detail="; ".join(found[:3])
        )
    return ProbeCheck(name="names", passed=True)


def _character_calls(lines: Iterable[JournalLine], evidence: Evidence) -> list[LlmCallLine]:
    """Sent calls of per-character agents (every attempt: a retry is a prompt too)."""
    cast = list(evidence.cast)
    return [c for c in sent(lines) if agent_slot(c.agent, cast) is not None]


def contract(play: Play, evidence: Evidence) -> ProbeCheck:
    """No sent prompt breaks the agency lock; no prompt was refused for breaking it."""
    refused = [c for c in calls(play.lines) if c.error_type == "contract"]
    if refused:
        detail = "; ".join(f"{c.agent}: {c.error}" for c in refused[:3])
        return ProbeCheck(name="contract", passed=False, label="contract_refusal", detail=detail)
    cast_names = evidence.cast_names
    found = []
    for call in sent(play.lines):
        for violation in check_prompt(call.request.messages, cast_names):
            found.append(f"{call.agent}: {violation.rule} {violation.excerpt!r}")
    if found:
        return ProbeCheck(
            name="contract",
            passed=False,
            label="operator_vocabulary",
            detail="; ".join(found[:3]),
        )
    return ProbeCheck(name="contract", passed=True)


def journal(play: Play, evidence: Evidence) -> ProbeCheck:
    """The committed turn's journal lines agree with its input, its records and the clock."""
    n = play.turn_number
    problems = []
    inputs = [x for x in play.lines if isinstance(x, TurnInputLine) and x.turn_number == n]
    if len(inputs) != 1 or inputs[0].input != play.input:
        problems.append(f"{len(inputs)} turn_input lines for turn {n} holding the input")
    done = [c for c in commits(play.lines) if c.turn_number == n]
    records = sum(1 for r in evidence.history if r.turn_number == n)
    if len(done) != 1:
        problems.append(f"{len(done)} commit lines for turn {n}")
    else:
        if done[0].record_count != records:
            problems.append(f"commit counts {done[0].record_count} records, history {records}")
        if done[0].tick != play.after.tick:
            problems.append(f"commit tick {done[0].tick}, session tick {play.after.tick}")
    if play.after.turn_number != n:
        problems.append(f"session at turn {play.after.turn_number}, not {n}")
    return _verdict("journal", "journal_disagrees", problems)


def compaction(play: Play, evidence: Evidence) -> ProbeCheck:
    """A compaction or restore did what its journal line says, and nothing else."""
    kind = CompactLine if play.kind == "compact" else RestoreLine
    marks = [x for x in play.lines if isinstance(x, kind)]
    problems = []
    if play.failure is not None:
        if marks or play.after.revision != play.before.revision:
            problems.append(f"a failed {play.kind} changed the session ({len(marks)} lines)")
        return _verdict("compaction", "compaction_disagrees", problems)
    if len(marks) != 1:
        return _verdict("compaction", "compaction_disagrees", [f"{len(marks)} {play.kind} lines"])
    line = marks[0]
    live = play.live or []
    below = sum(1 for r in live if r.turn_number <= line.cutoff_turn)
    if isinstance(line, CompactLine):
        if below:
            problems.append(f"{below} live records at or below cutoff turn {line.cutoff_turn}")
        earlier = _live_cutoffs(evidence.lines, line)
        floor = earlier[-1] if earlier else -1
        taken = sum(1 for r in evidence.history if floor < r.turn_number <= line.cutoff_turn)
        if line.evicted_records != taken:
            problems.append(
                f"line counts {line.evicted_records} evicted, the run saw {taken} records of"
                f" turns {floor + 1} to {line.cutoff_turn}"
            )
    elif below != line.restored_records:
        problems.append(
            f"line counts {line.restored_records} restored, {below} live up to turn"
            f" {line.cutoff_turn}"
        )
    if play.after.turn_number != play.before.turn_number:
        problems.append(f"turn {play.before.turn_number} -> {play.after.turn_number}")
    if play.after.revision <= play.before.revision:
        problems.append(f"revision {play.before.revision} -> {play.after.revision}")
    return _verdict("compaction", "compaction_disagrees", problems)


def _live_cutoffs(lines: Iterable[JournalLine], until: JournalLine) -> list[int]:
    """Cutoff turns of the compactions still live just before the line `until`."""
    stack: list[int] = []
    for line in lines:
        if line is until:
            break
        if isinstance(line, CompactLine):
            stack.append(line.cutoff_turn)
        elif isinstance(line, RestoreLine) and stack:
            stack.pop()
    return stack


def atomic(play: Play, evidence: Evidence) -> ProbeCheck:
    """A failed turn left nothing behind: no commit line, no record, the same revision."""
    n = play.turn_number
    problems = []
    if [c for c in commits(play.lines) if c.turn_number == n]:
        problems.append(f"a commit line for failed turn {n}")
    if any(r.turn_number == n for r in evidence.history):
        problems.append(f"records of failed turn {n} in the history")
    if play.after.revision != play.before.revision:
        problems.append(f"revision {play.before.revision} -> {play.after.revision}")
    return _verdict("atomic", "not_atomic", problems)


def undone(play: Play, evidence: Evidence) -> ProbeCheck:
    """The undo line names the removed turn, and its records are gone."""
    n = play.turn_number
    problems = []
    lines = [x for x in play.lines if isinstance(x, UndoLine)]
    if len(lines) != 1 or lines[0].removed_turn != n:
        problems.append(f"{len(lines)} undo lines removing turn {n}")
    if any(r.turn_number >= n for r in evidence.history):
        problems.append(f"records of turn {n} remain after its undo")
    if play.after.turn_number != n - 1:
        problems.append(f"session at turn {play.after.turn_number}, not {n - 1}")
    return _verdict("journal", "journal_disagrees", problems)


def _verdict(name: str, label: str, problems: list[str]) -> ProbeCheck:
    if problems:
        return ProbeCheck(name=name, passed=False, label=label, detail="; ".join(problems))
    return ProbeCheck(name=name, passed=True)
