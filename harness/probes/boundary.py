"""`boundary`: a canary planted by the script never reaches a prompt outside its audience.

A canary is planted where the script's own input says it (a whisper, a thought, an action,
speech aloud). Its audience is what `tavern.physics.perception.audience_for` gives that
input on the stage it met, computed here from the script's input, not read from the record
the kernel stored: a kernel that stored a wrong audience is caught. Another character who
legitimately knows it may say it again, or write it into an attempt anyone can see (the
kernel's own secret guards count such a line public, `physics.guards`); whoever perceives
that line (`perceives`, on the stored record) may then know it too. Prompts are then checked
call by call: the Director reads everything; a per-character agent (`character:C2`,
`interview:C2`) reads as its slot; `suggest` as the controlled character; any other agent
(`prose`, `openings`) may hold no canary at all.

The audience only grows as the script plays: an undo of the turn that planted a canary does
not take it back (a later leak of an undone whisper is not caught).
"""

from __future__ import annotations

from typing import Literal

from harness.evidence import Evidence, Play, agent_slot, excerpt, prompt_text, sent
from harness.probes import probe_result
from harness.records.results import ProbeCheck, ProbeResult
from harness.records.script import BoundaryProbe
from tavern.physics.perception import audience_for, perceives
from tavern.records import ActionRecord, SpeechRecord

InputKind = Literal["speech", "thought", "action"]


def boundary(event: BoundaryProbe, index: int, evidence: Evidence, run_id: str) -> ProbeResult:
    """One check per canary, over every call the script's plays journaled so far."""
    last = evidence.last_turn()
    return probe_result(
        run_id=run_id,
        session_id=evidence.session_id,
        probe="boundary",
        probe_id=event.id or f"boundary-{index}",
        event_index=index,
        turn_number=last.turn_number if last is not None else 0,
        checks=[canary_check(canary, evidence) for canary in event.canaries],
    )


def planted_audience(play: Play, canary: str, controlled: str) -> set[str]:
    """Who perceives the content of the script input of `play` that holds `canary`."""
    if play.input is None:
        return set()
    fields: list[tuple[InputKind, str | None]] = [
        ("speech", play.input.speech),
        ("thought", play.input.thought),
        ("action", play.input.action),
    ]
    found: set[str] = set()
    for kind, text in fields:
        if text and canary.casefold() in text.casefold():
            whisper = play.input.whisper_to if kind == "speech" else []
            audience = audience_for(play.before.scene, controlled, kind, whisper)
            found |= set(audience.perceivers) | {controlled}
    return found


def canary_check(canary: str, evidence: Evidence) -> ProbeCheck:
    """Whether `canary` stayed inside its audience in every prompt journaled so far."""
    name = f"canary:{canary}"
    cast = list(evidence.cast)
    allowed: set[str] = set()
    planted = False
    leaks: list[str] = []
    folded = canary.casefold()
    for play in evidence.plays:
        if play.kind == "turn":
            audience = planted_audience(play, canary, evidence.controlled)
            planted |= bool(audience)
            allowed |= audience
            if play.committed:
                allowed |= _retold_to(evidence, play.turn_number, folded, allowed)
        for call in sent(play.lines):
            if call.agent.startswith("director"):
                continue  # the Director reads every line and thought by design
            slot = agent_slot(call.agent, cast)
            viewer = evidence.controlled if call.agent == "suggest" else slot
            if viewer is not None and viewer in allowed:
                continue
            text = prompt_text(call)
            at = text.casefold().find(folded)
            if at >= 0:
                leaks.append(
                    f"{call.agent} turn {call.turn_number}: {excerpt(text, at, at + len(canary))}"
                )
    if not planted:
        return ProbeCheck(
            name=name,
            passed=False,
            label="canary_not_planted",
            detail="no turn of the script submitted it",
        )
    if leaks:
        return ProbeCheck(name=name, passed=False, label="leak", detail="; ".join(leaks[:3]))
    return ProbeCheck(name=name, passed=True, detail=f"audience {sorted(allowed)}")


def _retold_to(evidence: Evidence, turn: int, folded: str, allowed: set[str]) -> set[str]:
    """Who perceived `folded` said or attempted again in `turn` by someone allowed to know it."""
    knowing = set(allowed)
    for record in evidence.history:
        if record.turn_number != turn or not isinstance(record, SpeechRecord | ActionRecord):
            continue
        if record.author != "character":
            continue  # the script's own lines count as planted, with the audience computed here
        if record.speaker in knowing and folded in record.text.casefold():
            knowing |= {v for v in evidence.cast if perceives(record, v) == "content"}
    return knowing
