"""Compaction checkpoints in the session store (store format 4).

One row of `compactions` per live compaction of a session, numbered by `position` (1, 2,
... in the order they ran): the sealed `CompactionCheckpoint` as JSON, plus its id, parent,
cutoff turn, hash and the highest seq it evicted as columns. Restore is last in, first out:
only the highest position can be restored, and only after its body, its hash, its session
and its parent link are checked against the rows and the state (`verified`).

Every pre-turn checkpoint (`checkpoints`) and set-aside variant (`alternatives`) of a turn
after the cutoff carries the live story summary, so an undo across a compaction keeps it
(`set_summary_after`).
"""

from __future__ import annotations

import sqlite3
from typing import NamedTuple

from pydantic import ValidationError

from tavern.records.compaction import CompactionCheckpoint, checkpoint_hash, seal_checkpoint
from tavern.records.session import SessionState
from tavern.store.errors import CheckpointError


class CompactionRow(NamedTuple):
    """One row of `compactions`, unparsed."""

    position: int
    id: str
    parent_id: str | None
    cutoff_turn: int
    content_hash: str
    body: str


_SELECT_ROWS = (
    "SELECT position, id, parent_id, cutoff_turn, content_hash, body FROM compactions"
    " WHERE session_id = ?"
)


def rows(db: sqlite3.Connection, session_id: str) -> list[CompactionRow]:
    """Every live compaction of a session, oldest first."""
    found = db.execute(_SELECT_ROWS + " ORDER BY position", (session_id,)).fetchall()
    return [CompactionRow(*r) for r in found]


def last_two(db: sqlite3.Connection, session_id: str) -> list[CompactionRow]:
    """The newest compaction row and the one before it (fewer when there are fewer)."""
    found = db.execute(_SELECT_ROWS + " ORDER BY position DESC LIMIT 2", (session_id,)).fetchall()
    return [CompactionRow(*r) for r in reversed(found)]


def heads(db: sqlite3.Connection, session_id: str) -> list[tuple[str, int, int]]:
    """(id, cutoff turn, evicted records) of each live compaction, oldest first, read from
    the rows without parsing their bodies in Python."""
    found = db.execute(
        "SELECT id, cutoff_turn, json_array_length(body, '$.records') FROM compactions"
        " WHERE session_id = ? ORDER BY position",
        (session_id,),
    ).fetchall()
    return [(r[0], r[1], r[2]) for r in found]


def compacted_through(db: sqlite3.Connection, session_id: str) -> int:
    """The highest cutoff turn of the session's live compactions, -1 when there is none."""
    row = db.execute(
        "SELECT max(cutoff_turn) FROM compactions WHERE session_id = ?", (session_id,)
    ).fetchone()
    return -1 if row[0] is None else int(row[0])


def insert(db: sqlite3.Connection, checkpoint: CompactionCheckpoint, position: int) -> None:
    """Store a sealed checkpoint at `position`."""
    max_seq = max((r.seq for r in checkpoint.records), default=None)
    db.execute(
        "INSERT INTO compactions (session_id, position, id, parent_id, cutoff_turn, max_seq,"
        " content_hash, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            checkpoint.session_id,
            position,
            checkpoint.id,
            checkpoint.parent_id,
            checkpoint.cutoff_turn,
            max_seq,
            checkpoint.content_hash,
            checkpoint.model_dump_json(),
        ),
    )


def check_sealed(checkpoint: CompactionCheckpoint, session_id: str, what: str) -> None:
    """Refuse a checkpoint whose hash or id does not match its content, or of another session.

    Raises:
        CheckpointError: naming `what` and the mismatch.
    """
    digest = checkpoint_hash(checkpoint)
    if digest != checkpoint.content_hash or checkpoint.id != "cp-" + digest[:16]:
        raise CheckpointError(
            f"{what} is tampered: its content hashes to {digest[:16]}, not"
            f" {checkpoint.content_hash[:16]} ({checkpoint.id}); nothing was changed"
        )
    if checkpoint.session_id != session_id:
        raise CheckpointError(
            f"{what} is foreign: taken of session {checkpoint.session_id!r}, not"
            f" {session_id!r}; nothing was changed"
        )


def verified(
    row: CompactionRow, before: CompactionRow | None, session_id: str, state: SessionState
) -> CompactionCheckpoint:
    """The checkpoint of `row`, checked whole before a restore.

    Raises:
        CheckpointError: the body does not parse, its hash, id or session do not match, its
            parent is not the row before it, or the state no longer holds its summary.
    """
    what = f"checkpoint {row.id} of session {session_id!r}"
    try:
        checkpoint = CompactionCheckpoint.model_validate_json(row.body)
    except ValidationError as exc:
        raise CheckpointError(f"{what} does not read: {exc}; nothing was changed") from None
    check_sealed(checkpoint, session_id, what)
    if (checkpoint.id, checkpoint.content_hash) != (row.id, row.content_hash):
        raise CheckpointError(
            f"{what} is tampered: its row names {row.id}/{row.content_hash[:16]}, its body"
            f" {checkpoint.id}/{checkpoint.content_hash[:16]}; nothing was changed"
        )
    parent = before.id if before is not None else None
    if checkpoint.parent_id != parent or row.parent_id != parent:
        raise CheckpointError(
            f"{what} is foreign: its parent is {checkpoint.parent_id}, the session's"
            f" checkpoint before it is {parent}; nothing was changed"
        )
    if checkpoint.summary != state.story_summary:
        raise CheckpointError(
            f"{what} does not match the session: the story summary changed since it was"
            " written; nothing was changed"
        )
    return checkpoint


def set_summary_after(
    db: sqlite3.Connection, session_id: str, cutoff_turn: int, summary: str
) -> None:
    """Put `summary` in every pre-turn checkpoint and set-aside variant of a turn after
    `cutoff_turn`: an undo of those turns keeps the live story summary."""
    db.execute(
        "UPDATE checkpoints SET pre_state = json_set(pre_state, '$.story_summary', ?)"
        " WHERE session_id = ? AND turn_number > ?",
        (summary, session_id, cutoff_turn),
    )
    db.execute(
        "UPDATE alternatives SET state = json_set(state, '$.story_summary', ?)"
        " WHERE session_id = ? AND turn_number > ?",
        (summary, session_id, cutoff_turn),
    )


def copy_resealed(db: sqlite3.Connection, source_id: str, target_id: str) -> None:
    """Copy a session's compactions to a fork: each checkpoint is sealed again under the
    fork's id (a checkpoint names its session), its parent link rewritten along."""
    parent: str | None = None
    for row in rows(db, source_id):
        old = CompactionCheckpoint.model_validate_json(row.body)
        check_sealed(old, source_id, f"checkpoint {row.id} of session {source_id!r}")
        new = seal_checkpoint(
            target_id,
            parent,
            old.cutoff_turn,
            old.records,
            old.previous_summary,
            old.summary,
            old.created_at,
        )
        insert(db, new, row.position)
        parent = new.id
