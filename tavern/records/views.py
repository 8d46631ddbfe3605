"""What the runner returns to its callers (the HTTP app, the terminal loop, the harness).

These are the human's views: they may name the controlled character, because they never
reach a model.
"""

from __future__ import annotations

from pydantic import Field

from tavern.records._base import Record
from tavern.records.decisions import CharacterReply
from tavern.records.history import HistoryRecord
from tavern.records.scene import Scene


class ContractWarning(Record):
    """A prompt-contract violation found in a scenario or character sheet."""

    rule: str
    """Contract rule that fired."""
    where: str
    """Where it was found, e.g. `character:mara.mind.personality`."""
    excerpt: str
    """The offending text."""


class TurnResult(Record):
    """Outcome of one committed turn."""

    session_id: str
    """Session id."""
    turn_number: int
    """The committed turn's number."""
    records: list[HistoryRecord]
    """Records of this turn the human's character perceived (plus the human's own)."""
    control_returned: bool
    """True when the speaker queue reached the controlled character."""
    next_speaker: str | None = None
    """Slot id whose turn it is, when known."""
    tick: int
    """Narrative clock tick after the turn."""


class InterviewResult(Record):
    """A character's answer to a question asked out of band (the harness's `interview`).

    The call is journaled under agent `interview:<slot>`; nothing is committed and no memory
    changes, so the session after it is the session before it.
    """

    session_id: str
    """Session id."""
    character: str
    """Slot id of the character asked."""
    turn_number: int
    """The last committed turn when it was asked."""
    question: str
    """The question, as sent (the last message of the prompt)."""
    reply: CharacterReply
    """The answer, in the names the character knows."""


class Suggestion(Record):
    """A candidate move for the controlled character; persisted nowhere."""

    speech: str | None = None
    """Suggested words."""
    action: str | None = None
    """Suggested attempt."""


class CastMember(Record):
    """One character of a session as the human sees it."""

    slot: str
    """Slot id."""
    character_id: str
    """Library id of the source sheet."""
    name: str
    """True display name."""
    appearance: str
    """Appearance."""
    zone: str | None = None
    """Current zone, if zoned."""
    mood: str | None = None
    """Current mood."""
    controlled: bool = False
    """Whether the human plays this character."""


class SessionView(Record):
    """The human's view of a session."""

    id: str
    """Session id."""
    title: str
    """Title."""
    scenario_id: str
    """Source scenario."""
    language: str
    """Response language."""
    controlled_id: str
    """Slot the human plays."""
    cast: list[CastMember]
    """Cast in slot order."""
    scene: Scene
    """Current stage."""
    tick: int
    """Narrative clock tick."""
    turn_number: int
    """Last committed turn."""
    revision: int
    """Session revision."""
    transcript: list[HistoryRecord] = Field(default_factory=list)
    """Recent records the controlled character perceived, plus narration."""
    whose_turn: str | None = None
    """Slot id whose turn it is (the controlled slot after control returned)."""
    warnings: list[ContractWarning] = Field(default_factory=list)
    """Prompt-contract warnings for the scenario and cast."""
