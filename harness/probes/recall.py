"""`recall`: did a fact reach a character's prompt in the last turn, and did its reply say it?

The evidence is the last `character:<slot>` call of that turn in the journal: its prompt as
sent and its answer as received. A turn in which the character was not called fails every
level with the label `no_character_call`; a turn that failed, with `turn_failed`.
"""

from __future__ import annotations

from harness.evidence import Evidence, prompt_text, reply_text, sent
from harness.probes import probe_result
from harness.probes.patterns import pattern_check
from harness.records.results import ProbeCheck, ProbeResult
from harness.records.script import RecallProbe


def recall(event: RecallProbe, index: int, evidence: Evidence, run_id: str) -> ProbeResult:
    """Check `event`'s patterns on the character's last call of the last turn played."""
    play = evidence.last_turn()
    assert play is not None  # the script's validator wants a turn before a recall
    agent = f"character:{event.character}"
    answered = [c for c in sent(play.lines) if c.agent == agent and c.response is not None]
    checks: list[ProbeCheck]
    if answered:
        call = answered[-1]
        texts = {"prompt": prompt_text(call), "reply": reply_text(call)}
        checks = [
            pattern_check(level, texts[level], event.require, event.forbid)
            for level in event.levels
        ]
    else:
        label = "turn_failed" if play.failure else "no_character_call"
        detail = play.failure or f"no answered {agent} call in turn {play.turn_number}"
        checks = [
            ProbeCheck(name=level, passed=False, label=label, detail=detail)
            for level in event.levels
        ]
    return probe_result(
        run_id=run_id,
        session_id=evidence.session_id,
        probe="recall",
        probe_id=event.id or f"recall-{index}",
        event_index=index,
        turn_number=play.turn_number,
        character=event.character,
        checks=checks,
    )
