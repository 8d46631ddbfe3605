"""`routing`: after a natural turn (no forced speaker), one of the expected characters
answered.

The evidence is the `character:<slot>` calls of the last turn in the journal: the kernel
calls a Character exactly when the speaker queue reaches it. Labels: `routed_elsewhere`
(only other characters were called), `no_character_call`, `turn_failed`.
"""

from __future__ import annotations

from harness.evidence import Evidence, agent_slot, sent
from harness.probes import probe_result
from harness.records.results import ProbeCheck, ProbeResult
from harness.records.script import RoutingProbe


def routing(event: RoutingProbe, index: int, evidence: Evidence, run_id: str) -> ProbeResult:
    """Check who was called in the last turn played."""
    play = evidence.last_turn()
    assert play is not None  # the script's validator wants a turn before a routing probe
    called = list(
        dict.fromkeys(
            slot
            for call in sent(play.lines)
            if call.agent.startswith("character:")
            and (slot := agent_slot(call.agent, list(evidence.cast))) is not None
        )
    )
    hit = [slot for slot in called if slot in event.expect]
    if hit:
        check = ProbeCheck(name="routing", passed=True, detail=f"called {called}")
    elif play.failure:
        check = ProbeCheck(name="routing", passed=False, label="turn_failed", detail=play.failure)
    elif called:
        check = ProbeCheck(
            name="routing",
            passed=False,
            label="routed_elsewhere",
            detail=f"called {called}, expected one of {event.expect}",
        )
    else:
        check = ProbeCheck(
            name="routing",
            passed=False,
            label="no_character_call",
            detail=f"no character was called; expected one of {event.expect}",
        )
    return probe_result(
        run_id=run_id,
        session_id=evidence.session_id,
        probe="routing",
        probe_id=event.id or f"routing-{index}",
        event_index=index,
        turn_number=play.turn_number,
        checks=[check],
    )
