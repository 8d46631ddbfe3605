"""Compaction checkpoints: what a compaction took out of a session, sealed by a hash.

A compaction folds the history older than a retention window into the public story summary.
What it evicted (the records and the summary they replaced) is kept whole in one immutable
checkpoint, chained to the one before by `parent_id` and sealed by `content_hash`, so a
restore can prove it puts back exactly what was taken, and refuses a tampered or foreign one.
"""

from __future__ import annotations

import hashlib
import json

from pydantic import AwareDatetime, ConfigDict, Field

from tavern.records._base import Record
from tavern.records.history import HistoryRecord

CHECKPOINT_ID_PATTERN = r"^cp-[0-9a-f]{16}$"


class CompactionCheckpoint(Record):
    """One compaction's evicted history and the summary it replaced; never edited."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(pattern=CHECKPOINT_ID_PATTERN)
    """Checkpoint id: `cp-` and the first 16 hex digits of its content hash."""
    session_id: str
    """Session the checkpoint was taken of (part of the hash: a copy in another session is
    foreign)."""
    parent_id: str | None
    """The session's checkpoint before this one (None for its first): restore is last in,
    first out along this chain."""
    content_hash: str = Field(pattern=r"^[0-9a-f]{64}$")
    """SHA-256 of every other field, canonical JSON (`checkpoint_hash`)."""
    cutoff_turn: int = Field(ge=0)
    """Records of turns at or below this one were evicted."""
    records: list[HistoryRecord]
    """The evicted history records, in seq order."""
    previous_summary: str
    """The story summary before the compaction (restored with the records)."""
    summary: str
    """The story summary the compaction wrote (the state must still hold it to restore)."""
    created_at: AwareDatetime
    """When the compaction ran, UTC."""


def checkpoint_hash(checkpoint: CompactionCheckpoint) -> str:
    """SHA-256 over the checkpoint's fields but `id` and `content_hash`, canonical JSON.

    >>> from datetime import UTC, datetime
    >>> cp = seal_checkpoint("s01", None, 3, [], "", "a summary",
    ...                      datetime(2026, 1, 1, tzinfo=UTC))
    >>> checkpoint_hash(cp) == cp.content_hash, cp.id == "cp-" + cp.content_hash[:16]
    (True, True)
    """
    body = checkpoint.model_dump(mode="json", exclude={"id", "content_hash"})
    text = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def seal_checkpoint(
    session_id: str,
    parent_id: str | None,
    cutoff_turn: int,
    records: list[HistoryRecord],
    previous_summary: str,
    summary: str,
    created_at: AwareDatetime,
) -> CompactionCheckpoint:
    """Build a checkpoint and seal it: its hash computed, its id taken from the hash."""
    draft = CompactionCheckpoint(
        id="cp-" + "0" * 16,
        session_id=session_id,
        parent_id=parent_id,
        content_hash="0" * 64,
        cutoff_turn=cutoff_turn,
        records=records,
        previous_summary=previous_summary,
        summary=summary,
        created_at=created_at,
    )
    digest = checkpoint_hash(draft)
    return draft.model_copy(update={"id": "cp-" + digest[:16], "content_hash": digest})
