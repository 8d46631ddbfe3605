"""`interview`: ask a character a question out of band and check its prompt and answer.

The question goes through `Target.interview` (journaled as `interview:<slot>`). The prompt
level reads the prompt without its last message, the question itself, so a pattern the
question holds cannot pass on its account. The probe also checks that the stored session is
unchanged (`state_unchanged`, label `state_changed`): an interview is never committed and
never remembered.
"""

from __future__ import annotations

from harness.evidence import Evidence, prompt_text, reply_text, sent
from harness.probes import probe_result
from harness.probes.patterns import pattern_check
from harness.records.results import ProbeCheck, ProbeResult
from harness.records.script import InterviewProbe
from tavern.records import LlmCallLine


def interview(
    event: InterviewProbe,
    index: int,
    evidence: Evidence,
    run_id: str,
    *,
    turn_number: int,
    new_lines: list[LlmCallLine],
    digests: tuple[str, str],
    failure: str | None = None,
) -> ProbeResult:
    """Check the interview call among `new_lines`, and that `digests` (before, after) agree."""
    agent = f"interview:{event.character}"
    answered = [c for c in sent(new_lines) if c.agent == agent and c.response is not None]
    checks: list[ProbeCheck] = []
    if answered:
        call = answered[-1]
        texts = {"prompt": prompt_text(call, drop_last=True), "reply": reply_text(call)}
        checks += [
            pattern_check(level, texts[level], event.require, event.forbid)
            for level in event.levels
        ]
    else:
        detail = failure or f"no answered {agent} call"
        checks += [
            ProbeCheck(name=level, passed=False, label="no_character_call", detail=detail)
            for level in event.levels
        ]
    before, after = digests
    checks.append(
        ProbeCheck(
            name="state_unchanged",
            passed=before == after,
            label=None if before == after else "state_changed",
            detail="" if before == after else f"session digest {before[:12]} -> {after[:12]}",
        )
    )
    return probe_result(
        run_id=run_id,
        session_id=evidence.session_id,
        probe="interview",
        probe_id=event.id or f"interview-{index}",
        event_index=index,
        turn_number=turn_number,
        character=event.character,
        checks=checks,
    )
