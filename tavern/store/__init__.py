"""Sessions, journals, the scenario/character library, atomic files and per-session locks.

Imports only `tavern.records` (see DESIGN.md layering). Errors are store-local
(`tavern.store.errors`); the runner maps them to its own error types.
"""

from tavern.store._history import Snapshot
from tavern.store._variants import TurnVariant
from tavern.store.atomic import write_atomic
from tavern.store.errors import (
    BuiltinReadOnly,
    CheckpointError,
    CompactedTurn,
    InvalidIdError,
    InvalidTurn,
    JournalError,
    NothingToUndo,
    NotInLibrary,
    RevisionConflict,
    SchemaVersionMismatch,
    SessionExists,
    SessionNotFound,
    StoreError,
)
from tavern.store.ids import (
    check_character_id,
    check_scenario_id,
    check_session_id,
    new_session_id,
)
from tavern.store.journal import (
    JournalWriter,
    journal_path,
    read_compaction_markers,
    read_journal,
    read_journal_markers,
    read_markers,
    session_dir,
)
from tavern.store.library import Library
from tavern.store.locks import SessionLocks
from tavern.store.materialize import materialize_session
from tavern.store.reconcile import (
    Reconciled,
    journal_commits,
    journal_compactions,
    reconcile_journal,
)
from tavern.store.sessions import (
    CommittedTurn,
    Evictable,
    RerunBase,
    SessionStore,
    SessionSummary,
    TurnsPage,
)

__all__ = [
    "BuiltinReadOnly",
    "CheckpointError",
    "CommittedTurn",
    "CompactedTurn",
    "Evictable",
    "InvalidIdError",
    "InvalidTurn",
    "JournalError",
    "JournalWriter",
    "Library",
    "NotInLibrary",
    "NothingToUndo",
    "Reconciled",
    "RerunBase",
    "RevisionConflict",
    "SchemaVersionMismatch",
    "SessionExists",
    "SessionLocks",
    "SessionNotFound",
    "SessionStore",
    "SessionSummary",
    "Snapshot",
    "StoreError",
    "TurnVariant",
    "TurnsPage",
    "check_character_id",
    "check_scenario_id",
    "check_session_id",
    "journal_commits",
    "journal_compactions",
    "journal_path",
    "materialize_session",
    "new_session_id",
    "read_compaction_markers",
    "read_journal",
    "read_journal_markers",
    "read_markers",
    "reconcile_journal",
    "session_dir",
    "write_atomic",
]
