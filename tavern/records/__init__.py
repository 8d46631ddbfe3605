"""Records: the one definition of every persisted or journaled shape.

Everything Tavern writes to disk, journals, or exchanges with a model is a model defined in
this package. `data_schemas/` is generated from these models (`tavern schemas export`).
"""

from tavern.records._base import Record
from tavern.records.character import Body, Character, Mind
from tavern.records.decisions import (
    CharacterReply,
    ClampChange,
    DirectorDecision,
    FilterCut,
    LinkUpdate,
    PerceptionEvent,
    SceneDelta,
    ZoneMove,
)
from tavern.records.history import (
    HISTORY_RECORD_ADAPTER,
    NARRATOR,
    WORLD,
    ActionRecord,
    Audience,
    EventRecord,
    HistoryRecord,
    NarrationRecord,
    SpeechRecord,
    SystemRecord,
    ThoughtRecord,
)
from tavern.records.journal import (
    JOURNAL_LINE_ADAPTER,
    JOURNAL_SCHEMA_VERSION,
    ChatMessage,
    CommitLine,
    CompactLine,
    JournalLine,
    LlmCallLine,
    LlmRequestBody,
    PromptCache,
    RestoreLine,
    TurnInputEffectiveLine,
    TurnInputLine,
    UndoLine,
    VariantLine,
    estimate_tokens,
)
from tavern.records.scenario import ActDeadline, Language, Scenario
from tavern.records.scene import Scene, Zone, ZoneLink
from tavern.records.session import (
    SESSION_SCHEMA_VERSION,
    IdentityEntry,
    NarrativeClock,
    PerspectiveLedger,
    SessionState,
    utc_now,
)
from tavern.records.turn import TurnInput

__all__ = [
    "HISTORY_RECORD_ADAPTER",
    "JOURNAL_LINE_ADAPTER",
    "JOURNAL_SCHEMA_VERSION",
    "NARRATOR",
    "SESSION_SCHEMA_VERSION",
    "WORLD",
    "ActDeadline",
    "ActionRecord",
    "Audience",
    "Body",
    "Character",
    "CharacterReply",
    "ChatMessage",
    "ClampChange",
    "FilterCut",
    "CommitLine",
    "CompactLine",
    "DirectorDecision",
    "EventRecord",
    "HistoryRecord",
    "IdentityEntry",
    "JournalLine",
    "Language",
    "LinkUpdate",
    "LlmCallLine",
    "LlmRequestBody",
    "Mind",
    "NarrationRecord",
    "NarrativeClock",
    "PerceptionEvent",
    "PerspectiveLedger",
    "PromptCache",
    "Record",
    "RestoreLine",
    "Scenario",
    "Scene",
    "SceneDelta",
    "SessionState",
    "SpeechRecord",
    "SystemRecord",
    "ThoughtRecord",
    "TurnInput",
    "TurnInputEffectiveLine",
    "TurnInputLine",
    "UndoLine",
    "VariantLine",
    "Zone",
    "ZoneLink",
    "ZoneMove",
    "estimate_tokens",
    "utc_now",
]
