"""Request and response bodies of the HTTP API, in families (`XCreate`, `XPublic`, `XsPublic`).

Persisted shapes come from `tavern.records`; these are only the envelopes around them.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from tavern.records import (
    Character,
    ChatMessage,
    CompactionSettings,
    HistoryRecord,
    JournalLine,
    Scenario,
    TurnInput,
)
from tavern.records.scenario import Language
from tavern.records.views import Suggestion
from tavern.store import SessionSummary, TurnVariant

ID_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,63}$"
"""Scenario, character and session ids: lowercase slugs, never a path."""


class Body(BaseModel):
    """Base of request bodies: unknown fields are refused with a 422."""

    model_config = ConfigDict(extra="forbid")


class BootstrapPublic(BaseModel):
    """What the web UI needs before its first mutating call."""

    access_token: str
    """The per-process token to send as `X-Tavern-Token`."""


class HealthPublic(BaseModel):
    """Liveness and the active provider."""

    status: str
    """Always `ok` when the process answers."""
    provider: str
    """Provider of the active runner."""


class ScenarioPublic(BaseModel):
    """A scenario and whether it is a read-only built-in."""

    scenario: Scenario
    """The scenario."""
    builtin: bool
    """True for built-ins (read-only)."""


class ScenariosPublic(BaseModel):
    """Every scenario."""

    data: list[ScenarioPublic]
    """Entries, ordered by id."""
    count: int
    """Number of entries."""


class CharacterPublic(BaseModel):
    """A character sheet and whether it is a read-only built-in."""

    character: Character
    """The sheet."""
    builtin: bool
    """True for built-ins (read-only)."""
    avatar: bool = False
    """Whether the character has a picture (`GET /characters/{id}/avatar`)."""


class CharacterExport(BaseModel):
    """A character as a file to keep or share (importable again)."""

    format: Literal["tavern-character"] = "tavern-character"
    """What this file is."""
    version: int = 1
    """Format version."""
    character: Character
    """The sheet."""


class ScenarioExport(BaseModel):
    """A scenario with the characters its cast names, as one file."""

    format: Literal["tavern-scenario"] = "tavern-scenario"
    """What this file is."""
    version: int = 1
    """Format version."""
    scenario: Scenario
    """The scenario."""
    characters: list[Character]
    """Every character its cast names, in cast order."""


class CharactersPublic(BaseModel):
    """Every character sheet."""

    data: list[CharacterPublic]
    """Entries, ordered by id."""
    count: int
    """Number of entries."""


class SessionCreate(Body):
    """Create a session from a scenario."""

    scenario_id: str = Field(pattern=ID_PATTERN)
    """Scenario to start from."""
    controlled_character_id: str | None = Field(default=None, max_length=64)
    """Character (library id or slot id) the human plays; the scenario default otherwise."""
    compaction: CompactionSettings | None = None
    """The session's compaction settings (automatic compaction is opt-in); defaults when
    absent."""


class CompactRequest(Body):
    """Options of a manual compaction (`POST /sessions/{id}/compact`)."""

    retention_turns: int | None = Field(default=None, ge=1, le=10_000)
    """Distinct turns kept live; the session's setting when absent."""


class RestoreRequest(Body):
    """Options of a restore (`POST /sessions/{id}/restore`)."""

    checkpoint_id: str | None = Field(default=None, max_length=40)
    """The checkpoint the caller expects to restore (refused unless it is the last)."""


class InterviewAsk(Body):
    """A question for one character, asked out of band (nothing is committed)."""

    character: str = Field(min_length=1, max_length=64)
    """Slot id (`C2`) or library id of the cast member asked."""
    question: str = Field(min_length=1, max_length=2000)
    """The question."""


class SessionsPublic(BaseModel):
    """The session list."""

    data: list[SessionSummary]
    """Sessions, newest first."""
    count: int
    """Number of sessions."""


class SessionRename(Body):
    """A new name for the session list (blank clears it)."""

    name: str | None = Field(default=None, max_length=120)
    """The name; the scenario's title shows when there is none."""


class RerunRequest(Body):
    """Play the last turn again."""

    input: TurnInput | None = None
    """An edited input; the turn's own input when omitted (regenerate)."""


class VariantsPublic(BaseModel):
    """Every variant of the session's last turn."""

    turn_number: int
    """The last turn."""
    data: list[TurnVariant]
    """Variants by number; exactly one is committed (none at turn 0)."""


class HistoryPage(BaseModel):
    """A bounded page of a session's history."""

    data: list[HistoryRecord]
    """Records with seq greater than `after`."""
    count: int
    """Records in this page."""
    next_after: int | None
    """Pass as `after` for the next page; None when this page was the last."""


class JournalPage(BaseModel):
    """A bounded page of a session's JSONL journal."""

    data: list[JournalLine]
    """Lines after `after`, oldest first."""
    indexes: list[int]
    """Line index of each entry of `data`."""
    count: int
    """Lines in this page."""
    next_after: int | None
    """Pass as `after` for the next page; None when this page was the last."""


class SuggestionsPublic(BaseModel):
    """Candidate moves for the controlled character."""

    data: list[Suggestion]
    """Suggestions (usually three)."""


class OpeningsPublic(BaseModel):
    """Opening sparks for an empty session."""

    data: list[str]
    """Sparks (usually three)."""


class PromptPreview(BaseModel):
    """The next Director prompt, built without calling a model."""

    messages: list[ChatMessage]
    """Chat messages as they would be sent."""


class ConfigPublic(BaseModel):
    """The config as any client may see it: no secrets, ever."""

    active_provider: str
    """Provider every agent call goes to."""
    language: Language
    """Interface and response language."""
    api_key_configured: bool
    """Whether the active provider has a key stored (the key never leaves the server)."""
    providers: dict[str, dict[str, Any]]
    """Provider name -> its settings without secrets, each with `api_key_configured`."""
    catalogue: list[dict[str, Any]]
    """Every provider this server can switch to, with its defaults and URL policy."""


class ConfigUpdate(Body):
    """A config change. Omitted fields keep their value; a blank key keeps the stored one."""

    active_provider: str | None = Field(default=None, pattern=r"^[a-z][a-z0-9_]{0,31}$")
    """Provider to switch to."""
    language: Language | None = None
    """Interface and response language."""
    provider: str | None = Field(default=None, pattern=r"^[a-z][a-z0-9_]{0,31}$")
    """Whose settings the fields below change; the (new) active provider when omitted."""
    api_base: str | None = Field(default=None, max_length=500)
    """Endpoint; blank returns to the provider default."""
    model: str | None = Field(default=None, max_length=200)
    """Model name; blank returns to the provider default."""
    api_key: str | None = Field(default=None, max_length=500)
    """New key; blank or omitted keeps the stored one."""
    clear_api_key: bool = False
    """Forget the stored key."""
