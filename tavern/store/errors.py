"""Errors raised by the store. They stay store-local; the runner maps them to its own types."""

from __future__ import annotations


class StoreError(Exception):
    """Base class of every store error."""


class InvalidIdError(StoreError, ValueError):
    """An id that does not match its pattern (path traversal and friends are refused here)."""


class SessionNotFound(StoreError, KeyError):
    """No session with that id."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "session not found"


class SessionExists(StoreError):
    """A session with that id already exists."""


class SchemaVersionMismatch(StoreError):
    """A session or store written by another format version; nothing is migrated or changed."""

    def __init__(self, what: str, found: int, expected: int) -> None:
        self.found = found
        self.expected = expected
        super().__init__(
            f"{what} has schema_version {found}, this Tavern reads schema_version {expected}; "
            "refusing to load it (nothing was changed on disk)"
        )


class RevisionConflict(StoreError):
    """The session changed since the caller loaded it (stale `expected_revision`)."""


class InvalidTurn(StoreError, ValueError):
    """Records or state that cannot form the next turn (wrong turn number or seq)."""


class NothingToUndo(StoreError):
    """The session is at turn 0, or its last turn has no checkpoint to restore."""


class CompactedTurn(NothingToUndo):
    """The last turn's records were folded into the story summary by a compaction: restore
    its checkpoint before undoing or replaying it."""


class CheckpointError(StoreError):
    """A compaction checkpoint that cannot be applied or restored: tampered (its hash does
    not match), foreign (another session's, or off the session's parent chain), not the
    last one, or out of step with the state. Nothing was changed."""


class NotInLibrary(StoreError, KeyError):
    """No scenario or character with that id in the library."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "not in library"


class BuiltinReadOnly(StoreError):
    """Built-in scenarios and characters are immutable; save a copy under a new id."""


class JournalError(StoreError):
    """A journal line that cannot be read (other than a torn last line, which is skipped)."""
