"""History records: what happened in a session, as a tagged union on `kind`.

Persisted records keep the truth plus their audience. What a viewer may see of them is
computed by `tavern.physics`, never stored.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Discriminator, Field, TypeAdapter

from tavern.records._base import Record

AudienceOrigin = Literal["public", "zone", "whisper", "private"]
Author = Literal["human", "character", "director", "renderer", "kernel"]
NARRATOR = "Narrator"
"""Speaker of narration and the routing sentinel meaning "no character reacts"."""
WORLD = "World"
"""Speaker of world events that no character causes."""


class Audience(Record):
    """Who perceives a record's content, and how the audience was decided."""

    model_config = ConfigDict(frozen=True)

    origin: AudienceOrigin
    """`public`: everyone in perception range; `zone`: bounded by the zone graph;
    `whisper`: exactly the named audience; `private`: the owner only (thoughts)."""
    perceivers: list[str] = Field(default_factory=list)
    """Slot ids that perceive the content."""
    aware: list[str] = Field(default_factory=list)
    """Slot ids that perceive only that something was whispered, never its content."""


class _RecordBase(Record):
    # Frozen: the store shares one parsed record between every reader of a window.
    model_config = ConfigDict(frozen=True)

    seq: int = Field(ge=0)
    """Position in the session's history, unique and increasing."""
    turn_number: int = Field(ge=0)
    """Turn the record belongs to; undo removes every record of the highest turn."""
    speaker: str
    """Slot id of the character, or `Narrator` / `World`."""
    author: Author
    """Internal marker of who produced the record. Never rendered into a prompt."""
    audience: Audience
    """Who perceived the content."""
    tick: int = Field(default=0, ge=0)
    """Narrative clock tick when the record was appended."""


class SpeechRecord(_RecordBase):
    """Words spoken aloud or whispered."""

    kind: Literal["speech"] = "speech"
    text: str
    """The spoken words."""
    reply_to: int | None = None
    """Seq of the whispered line this one answers, if any (inherits its audience)."""


class ThoughtRecord(_RecordBase):
    """A private thought: perceived by its owner and known to the Director only."""

    kind: Literal["thought"] = "thought"
    text: str
    """The thought."""


class ActionRecord(_RecordBase):
    """A physical attempt. Characters state intents; the next Director beat adjudicates."""

    kind: Literal["action"] = "action"
    text: str
    """What the character tries to do."""
    resolved: bool = False
    """True once a Director beat has adjudicated the attempt."""


class NarrationRecord(_RecordBase):
    """Reader-facing prose from the blind renderer. Never enters any character's memory."""

    kind: Literal["narration"] = "narration"
    text: str
    """The prose."""


EventKind = Literal[
    "action_outcome", "world_event", "arrival", "departure", "sensory_cue", "utterance"
]


class EventRecord(_RecordBase):
    """A clamped perception event decided by the Director."""

    kind: Literal["event"] = "event"
    event_kind: EventKind
    """What sort of event this is."""
    text: str
    """What happens, in neutral words (stored truthfully; redacted per viewer)."""
    actor_id: str | None = None
    """Slot id of the character the event is about, if any."""
    utterance_ref: int | None = None
    """Seq of a speech record the event refers to (the Director never writes dialogue)."""
    reader_text: str | None = None
    """The text as the blind prose renderer reads it: every word that was so far only ever
    spoken masked, fixed when the event was recorded (so the reader's transcript of past
    events never changes). None on records written before it existed."""


class SystemRecord(_RecordBase):
    """A kernel marker in the history (session start, time skip, staged deadline)."""

    kind: Literal["system"] = "system"
    marker: str
    """Marker name, e.g. `session_start`, `time_skip`, `deadline`."""
    text: str = ""
    """Human-facing detail."""


HistoryRecord = Annotated[
    SpeechRecord | ThoughtRecord | ActionRecord | NarrationRecord | EventRecord | SystemRecord,
    Discriminator("kind"),
]
HISTORY_RECORD_ADAPTER: TypeAdapter[HistoryRecord] = TypeAdapter(HistoryRecord)
