"""Parsed model outputs: the Director's typed decision and a Character's reply."""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from tavern.records._base import Record
from tavern.records.history import EventKind
from tavern.records.scene import LinkState


class PerceptionEvent(Record):
    """One thing that happens this beat, with who perceives it."""

    kind: EventKind
    """Event category."""
    text: str
    """What happens, neutrally worded."""
    actor_id: str | None = None
    """Slot id the event is about, if any."""
    witness_ids: list[str] = Field(default_factory=list)
    """Slot ids that perceive the event (clamped by the zone graph)."""
    utterance_ref: int | None = None
    """Seq of a speech record this event refers to."""


class ZoneMove(Record):
    """A character moving to a zone, possibly one declared here."""

    character_id: str
    """Slot id that moves."""
    to_zone: str
    """Destination zone id."""
    new_zone_label: str | None = None
    """If set, declares `to_zone` as a new zone with this label (audible from the origin)."""


class LinkUpdate(Record):
    """Opening or sealing a directed perception link."""

    source: str
    """Zone whose events travel."""
    target: str
    """Zone that perceives them."""
    sound: LinkState | None = None
    """New sound state, or None to keep it."""
    sight: LinkState | None = None
    """New sight state, or None to keep it."""


class SceneDelta(Record):
    """Changes to the public stage."""

    add_facts: list[str] = Field(default_factory=list)
    """Facts established this beat."""
    remove_facts: list[str] = Field(default_factory=list)
    """Facts no longer true."""
    new_location: str | None = None
    """A new location; applied only when the whole scene moves."""


class DirectorDecision(Record):
    """The Director's answer: typed decisions only, no prose and no dialogue."""

    blocking: str = ""
    """Short spatial draft of the beat (never shown to anyone)."""
    events: list[PerceptionEvent] = Field(default_factory=list)
    """What happens this beat."""
    next_speakers: list[str] = Field(default_factory=list)
    """Ordered speaker queue: slot ids or `Narrator`."""
    scene: SceneDelta = Field(default_factory=SceneDelta)
    """Scene changes."""
    mood_updates: dict[str, str] = Field(default_factory=dict)
    """Slot id -> new mood."""
    zone_moves: list[ZoneMove] = Field(default_factory=list)
    """Zone moves."""
    link_updates: list[LinkUpdate] = Field(default_factory=list)
    """Link changes."""
    time_skip_ticks: int = Field(default=0, ge=0)
    """Requested time compression in ticks (bounded by code)."""
    nothing_happens: bool = False
    """Explicit "nothing material happens" outcome."""


class CharacterReply(Record):
    """A Character's answer: words, a private thought, and an attempt (never an outcome)."""

    speech: str | None = None
    """Words spoken aloud (or into the whisper, when replying to one)."""
    thought: str | None = None
    """Private thought."""
    action_intent: str | None = None
    """A physical attempt the next Director beat adjudicates."""

    @model_validator(mode="after")
    def _at_least_one(self) -> CharacterReply:
        if not any((self.speech, self.thought, self.action_intent)):
            raise ValueError("a character reply needs speech, thought or action_intent")
        return self


class ClampChange(Record):
    """One change a clamp made to a model proposal, for the journal."""

    rule: str
    """Clamp rule name, e.g. `witness_zone`, `speaker_queue`, `thought_guard`."""
    path: str
    """Where in the proposal the change happened, e.g. `events[0].witness_ids`."""
    before: Any = None
    """The proposed value."""
    after: Any = None
    """The admitted value."""


class FilterCut(Record):
    """One change a filter rule made to a model's text (narration or a reply), for the
    journal: the harness counts cuts per rule, target and language from these."""

    rule: str
    """Filter rule name, as registered (e.g. `loop`, `retold`, `out_of_world`)."""
    target: str
    """What was filtered: `narration`, `reply:C2.speech`, `reply:C2.action_intent`, ..."""
    language: str
    """The language the rule read the text in (`en`, `pt-BR`)."""
    before: str
    """The text as the rule received it."""
    after: str
    """The text the rule returned ("" when it removed everything)."""
