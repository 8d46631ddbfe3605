"""Session state: everything but the history and the journal."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pydantic import AwareDatetime, Field

from tavern.records._base import Record
from tavern.records.character import Character
from tavern.records.config import FilterProfile
from tavern.records.scenario import ActDeadline, Language
from tavern.records.scene import Scene

SESSION_SCHEMA_VERSION = 1
SESSION_ID_PATTERN = r"^[a-z0-9][a-z0-9_-]{2,63}$"


class NarrativeClock(Record):
    """Code-owned story time. It only moves forward while playing; undo restores it."""

    tick: int = Field(default=0, ge=0)
    """Current tick: +1 per committed beat, plus clamped time skips."""
    deadlines: list[ActDeadline] = Field(default_factory=list)
    """Scheduled world events not yet staged."""
    fired: list[str] = Field(default_factory=list)
    """Ids of deadlines already staged."""


class IdentityEntry(Record):
    """How one viewer knows one other character."""

    name: str | None = None
    """The name the viewer learned (possibly false), or None while a stranger."""
    learned_from_seq: int | None = None
    """Seq of the perceived record that taught the name."""
    description_ref: str
    """How the viewer refers to the character while no name is known."""


class PerspectiveLedger(Record):
    """One character's private view of the world."""

    owner: str
    """Slot id of the character whose ledger this is."""
    identities: dict[str, IdentityEntry] = Field(default_factory=dict)
    """Other slot id -> what the owner knows of them."""
    memory_summary: str = ""
    """First-person condensed memory of older lines (secrets, codes and numbers verbatim),
    written by a memory revision when the lines outgrow their budget; '' until the first."""
    memory: list[str] = Field(default_factory=list)
    """Recent digest lines, one per perceived record, in the owner's own names."""


DEFAULT_RETENTION_TURNS = 16
"""Distinct turns a compaction keeps live by default: every turn the observation, the secret
guards and the ledgers' memory masks look back over with the default limits (at least
`KernelLimits.perception_turns`, 8, from a start that moves in steps of `window_step`, 8:
at most 15), so a compaction takes from later turns only what the Director's own window
would have shown of older history, and that is what the summary stands in for."""


class CompactionSettings(Record):
    """How a session's history is compacted (`tavern.runner.compaction`)."""

    auto: bool = False
    """Opt-in: compact after a turn when the upcoming Director prompt passes `threshold`."""
    threshold: float = Field(default=0.75, gt=0, le=1)
    """Share of the model's context the upcoming Director prompt may take before an
    automatic compaction."""
    retention_turns: int = Field(default=DEFAULT_RETENTION_TURNS, ge=1)
    """Distinct turns of history left live by a compaction (the newest ones)."""
    context_tokens: int | None = Field(default=None, ge=256)
    """The model context the threshold is a share of, over the runner's
    (`KernelLimits.context_tokens`); None: the runner's, else 4,096."""
    auto_min_turns: int = Field(default=8, ge=1)
    """An automatic compaction runs only when it would evict at least this many distinct
    turns: a prompt that the retention window alone keeps past the threshold is compacted
    once every this many turns, not after every turn (one summarizer call each)."""


class SessionState(Record):
    """The mutable state of one play session. History rows live beside it in the store."""

    schema_version: int = SESSION_SCHEMA_VERSION
    """Format version; a session written by another version is refused, never migrated."""
    id: str = Field(pattern=SESSION_ID_PATTERN)
    """Session id: lowercase slug, safe as a directory name."""
    scenario_id: str
    """Scenario the session was created from."""
    title: str
    """Human-facing title."""
    created_at: AwareDatetime
    """Creation time, UTC."""
    world: str
    """World premise snapshot."""
    tone_directives: list[str] = Field(default_factory=list)
    """Tone directives snapshot."""
    language: Language = "en"
    """Response language."""
    cast: dict[str, Character]
    """Slot id -> character snapshot, independent of later library edits."""
    controlled_id: str
    """Slot id of the human-controlled character. Known to the runner only."""
    scene: Scene
    """The canonical stage."""
    opening_facts: list[str] = Field(default_factory=list)
    """The scenario's own scene facts, as the session opened: public from the first beat, so
    a character repeating one does not make its words speech the prose must not see."""
    moods: dict[str, str] = Field(default_factory=dict)
    """Slot id -> current mood word."""
    clock: NarrativeClock = Field(default_factory=NarrativeClock)
    """Narrative clock."""
    story_summary: str = ""
    """Public world summary written by compaction."""
    ledgers: dict[str, PerspectiveLedger] = Field(default_factory=dict)
    """Slot id -> that character's perspective ledger."""
    plugin_state: dict[str, Any] = Field(default_factory=dict)
    """Plugin id -> plugin-owned JSON state, saved and undone with the session."""
    revision: int = 0
    """Incremented by every commit, undo or compaction."""
    turn_number: int = 0
    """Number of the last committed turn (0 before the first)."""
    compaction: CompactionSettings = Field(default_factory=CompactionSettings)
    """How this session's history is compacted (automatic compaction is off by default)."""
    filter_profile: FilterProfile | None = None
    """The filter profile this session's narration and replies are repaired under, over the
    provider's (a campaign compares profiles on one provider); None: the provider's."""


def utc_now() -> datetime:
    """Return the current time as an aware UTC datetime."""
    return datetime.now(UTC)
