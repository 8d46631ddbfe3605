"""Input filters: the human's raw turn becomes the effective turn the kernel plays.

Both forms are journaled (`turn_input`, `turn_input_effective`) so an analysis can see what
the filters changed. Filters never add content; they normalize and refuse.
"""

from __future__ import annotations

from dataclasses import dataclass

from tavern import contract
from tavern.records import NARRATOR, SessionState, TurnInput
from tavern.runner.interface import InvalidTurnError


@dataclass(frozen=True)
class EffectiveTurn:
    """The filtered input and what changed."""

    turn: TurnInput
    force_speaker: str | None
    transformed_fields: list[str]


def _clean(text: str | None) -> str | None:
    if text is None:
        return None
    stripped = " ".join(text.split()) if "\n" not in text else text.strip()
    return stripped or None


def filter_input(turn: TurnInput, state: SessionState) -> EffectiveTurn:
    """Normalize whitespace, whisper targets and the forced speaker; refuse impossible input.

    Raises:
        InvalidTurnError: a whisper target or forced speaker that is not present, a
            whisper with no one left to hear it, or text breaking the prompt contract.
    """
    changed: list[str] = []
    fields = {}
    for name in ("speech", "thought", "action", "hint"):
        raw = getattr(turn, name)
        clean = _clean(raw)
        if clean != raw:
            changed.append(name)
        fields[name] = clean
    present = set(state.scene.present)
    targets = [t for t in dict.fromkeys(turn.whisper_to) if t != state.controlled_id]
    unknown = [t for t in targets if t not in present]
    if unknown:
        raise InvalidTurnError(f"whisper target(s) not present: {unknown}")
    if targets != turn.whisper_to:
        changed.append("whisper_to")
    if turn.whisper_to and not targets:
        raise InvalidTurnError("a whisper needs someone present to whisper to")
    force = turn.force_speaker
    if force is not None and force.lower() == NARRATOR.lower():
        force = NARRATOR
    if force is not None and force != NARRATOR and force not in present:
        raise InvalidTurnError(f"forced speaker {force!r} is not present")
    if force != turn.force_speaker:
        changed.append("force_speaker")
    # Whatever the human types reaches prompts; text that breaks the prompt contract would
    # make every later prompt carrying it refuse, so it is refused here, before any write.
    for name in ("speech", "thought", "action", "hint"):
        text = fields[name]
        found = contract.check_text(text, f"turn.{name}") if text else []
        if found:
            raise InvalidTurnError(
                f"{name} would reveal who is playing ({found[0].rule}: {found[0].excerpt!r}); "
                "please rephrase it inside the fiction"
            )
    try:
        effective = TurnInput(
            speech=fields["speech"],
            thought=fields["thought"],
            action=fields["action"],
            hint=fields["hint"],
            whisper_to=targets,
            force_speaker=force,
            skip=turn.skip,
        )
    except ValueError as exc:
        raise InvalidTurnError(str(exc)) from exc
    return EffectiveTurn(effective, force, changed)
