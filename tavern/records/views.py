"""What the runner returns to its callers (the HTTP app, the terminal loop, the harness).

These are the human's views: they may name the controlled character, because they never
reach a model.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from tavern.records._base import Record
from tavern.records.decisions import CharacterReply
from tavern.records.history import HistoryRecord
from tavern.records.scene import Scene
from tavern.records.session import CompactionSettings


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
    revision: int | None = None
    """Session revision after the commit (a later request that names it is not stale)."""
    variant: int = 0
    """Which variant of the turn this is (0 as first played; reruns count up)."""
    variants: int = 1
    """How many variants the turn has, this one included."""


class TurnMark(Record):
    """One turn of a transcript page, for its separator."""

    turn_number: int
    """The turn."""
    tick: int | None = None
    """Story time (narrative clock tick) the turn started at, when known."""
    visible: int = 0
    """Records of the turn the human's screen shows (0: nothing their character perceived)."""


class CompactedSpan(Record):
    """Turns that compactions folded into the story summary: the transcript shows one line
    where they were (`tavern.runner.compaction`; `restore` brings them back)."""

    first_turn: int = 0
    """The first compacted turn (a compaction evicts every turn up to its cutoff)."""
    last_turn: int
    """The last compacted turn: the last live compaction's cutoff."""
    summary: str
    """The story summary as stored (public records only, display names)."""


class TranscriptPage(Record):
    """The human's view of a range of turns: earlier scrollback, or the latest turns."""

    data: list[HistoryRecord]
    """Records the controlled character perceived (plus narration), in order."""
    turns: list[TurnMark]
    """Every turn of the range, in order, whether or not it shows anything."""
    first_turn: int
    """The range's first turn."""
    next_before: int | None
    """Pass as `before` for the page before this one; None when this page starts at turn 0
    or at the first turn after the compacted ones."""
    compacted: CompactedSpan | None = None
    """On the page that reaches the first live turn of a compacted session: the turns folded
    into the summary, for the line shown where they were."""


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


class CompactResult(Record):
    """Outcome of a compaction or a restore (`POST /sessions/{id}/compact`, `/restore`)."""

    session_id: str
    """Session id."""
    action: Literal["compact", "restore"]
    """Which of the two ran."""
    checkpoint_id: str
    """The checkpoint written (compact) or restored (restore)."""
    cutoff_turn: int
    """Turns at or below this one were evicted (compact) or came back (restore)."""
    records: int
    """History records evicted or brought back."""
    turn_number: int
    """The session's last turn (unchanged by either)."""
    revision: int
    """The session's revision after it."""
    summary_chars: int
    """Length of the story summary now."""


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
    present: bool = True
    """Whether the character is in the scene now."""
    hears_you: bool | None = None
    """Whether the character hears the human's character speak aloud now (None for the
    human's own character)."""
    you_hear: bool | None = None
    """Whether the human's character hears this one speak aloud now (None for itself)."""


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
    compaction: CompactionSettings = Field(default_factory=CompactionSettings)
    """The session's compaction settings (automatic compaction, retention in turns)."""
