"""Probes: typed checks of what each character was shown and what it said.

One module per probe kind, each a pure function of the script event and the `Evidence` (the
journal and history the kernel wrote): `recall`, `interview`, `routing`, `boundary`, and the
`invariants` checked after every call the script makes. They reuse the kernel's definitions
(audiences from `tavern.physics.perception`, name forms from `tavern.physics.identity`, the
contract from `tavern.contract`) and never a second copy.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.records.results import ProbeCheck, ProbeKind, ProbeResult


def probe_result(
    *,
    run_id: str,
    session_id: str,
    probe: ProbeKind,
    probe_id: str,
    event_index: int,
    turn_number: int,
    checks: Sequence[ProbeCheck],
    character: str | None = None,
) -> ProbeResult:
    """A probe result whose verdict and label follow from its checks.

    >>> r = probe_result(run_id="r", session_id="s", probe="routing", probe_id="routing-1",
    ...     event_index=1, turn_number=1,
    ...     checks=[ProbeCheck(name="routing", passed=False, label="routed_elsewhere")])
    >>> r.passed, r.label
    (False, 'routed_elsewhere')
    """
    failed = [c for c in checks if not c.passed]
    return ProbeResult(
        run_id=run_id,
        session_id=session_id,
        probe=probe,
        probe_id=probe_id,
        event_index=event_index,
        turn_number=turn_number,
        character=character,
        passed=not failed,
        label=failed[0].label if failed else None,
        checks=list(checks),
    )
