"""Variants of the last turn: a rerun sets the committed turn aside, a flip swaps it back.

The last turn `N` of a session may have been played more than once (regenerated, or re-run
with an edited input). Exactly one variant is committed: its records are in `history`, its
state is the session row, and its checkpoint row (the pre-turn state, the same for every
variant) holds its `input` and `variant` number. Every other variant is one row of
`alternatives`: its raw input, its records and its whole post-turn state (memory included,
so it never depends on `memory_lines`), as JSON.

Putting a variant in place of the committed one is undo and commit in one transaction: the
committed turn's records and memory lines (tagged `N`) go, the checkpoint's pre-turn state
stands in as the row's previous state, and the variant is written as `commit_turn` writes a
turn. An undo of turn `N` (or any delete) removes its alternatives with it.

Example (not run):

    store.replace_last_turn(sid, records, state, revision, turn_input)  # rerun: old set aside
    store.flip_last_turn(sid, variant=0, expected_revision=revision + 1)  # and back
"""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime
from typing import NamedTuple

from pydantic import BaseModel

from tavern.records.history import HISTORY_RECORD_ADAPTER, HistoryRecord
from tavern.records.session import SessionState, utc_now
from tavern.records.turn import TurnInput
from tavern.store._history import bodies_of_turns
from tavern.store._memory import Stored, parse_ranges, read_state
from tavern.store._memory import _lines as lines_of
from tavern.store._sqlite import parse_state
from tavern.store.errors import NothingToUndo, StoreError


class TurnVariant(BaseModel):
    """One variant of a session's last turn, as the variants list shows it."""

    variant: int
    """Its number: 0 for the turn as first played, then 1, 2, ... in the order they ran."""
    committed: bool
    """Whether it is the one in the history now."""
    input: TurnInput | None
    """The raw input it was played with (None for a turn played before format 3)."""
    created_at: datetime | None
    """When it was set aside (None for the committed one)."""


class Alternative(NamedTuple):
    """A set-aside variant, read back to be committed."""

    variant: int
    input: str | None
    records: list[HistoryRecord]
    state: SessionState


class Checkpoint(NamedTuple):
    """The checkpoint row of the last turn."""

    pre_state: str
    pre_memory_at: str | None
    input: str | None
    variant: int


def last_checkpoint(db: sqlite3.Connection, session_id: str, turn_number: int) -> Checkpoint:
    """The checkpoint of `turn_number`.

    Raises:
        NothingToUndo: at turn 0, or a turn without a checkpoint.
    """
    if turn_number == 0:
        raise NothingToUndo(f"session {session_id!r} is at turn 0")
    row = db.execute(
        "SELECT pre_state, pre_memory_at, input, variant FROM checkpoints"
        " WHERE session_id = ? AND turn_number = ?",
        (session_id, turn_number),
    ).fetchone()
    if row is None:
        raise NothingToUndo(f"turn {turn_number} of {session_id!r} has no checkpoint")
    return Checkpoint(row[0], row[1], row[2], int(row[3] or 0))


def pre_turn_state(
    db: sqlite3.Connection, session_id: str, turn_number: int, checkpoint: Checkpoint
) -> SessionState:
    """The state before `turn_number`, memory filled in."""
    return read_state(
        db,
        session_id,
        checkpoint.pre_state,
        checkpoint.pre_memory_at,
        f"checkpoint of turn {turn_number}",
    )


def checkpoint_memory(
    db: sqlite3.Connection, session_id: str, turn_number: int, checkpoint: Checkpoint
) -> Stored:
    """The memory the checkpoint's ranges name, as `stored_memory` gives a row's: what the
    row holds again once the turn's own lines are gone (lines of earlier turns stay)."""
    what = f"checkpoint of turn {turn_number}"
    return {
        owner: (lines_of(db, session_id, owner, start, count, what), start, count)
        for owner, (start, count) in (parse_ranges(checkpoint.pre_memory_at) or {}).items()
    }


def first_seq_of(db: sqlite3.Connection, session_id: str, turn_number: int) -> int:
    """The seq a record of `turn_number` starts at when that turn is played again."""
    row = db.execute(
        "SELECT max(seq) FROM history WHERE session_id = ? AND turn_number < ?",
        (session_id, turn_number),
    ).fetchone()
    return 0 if row[0] is None else int(row[0]) + 1


def set_aside(
    db: sqlite3.Connection,
    session_id: str,
    turn_number: int,
    checkpoint: Checkpoint,
    state: SessionState,
) -> None:
    """Store the committed variant (its records, `state` and the checkpoint's input) as an
    alternative, then remove its records and memory lines from the turn."""
    bodies = bodies_of_turns(db, session_id, turn_number, turn_number)
    db.execute(
        "INSERT INTO alternatives (session_id, turn_number, variant, input, records, state,"
        " created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            session_id,
            turn_number,
            checkpoint.variant,
            checkpoint.input,
            "[" + ",".join(bodies) + "]",
            state.model_dump_json(),
            utc_now().isoformat(),
        ),
    )
    for table in ("history", "memory_lines"):
        db.execute(
            f"DELETE FROM {table} WHERE session_id = ? AND turn_number >= ?",
            (session_id, turn_number),
        )


def take_alternative(
    db: sqlite3.Connection, session_id: str, turn_number: int, variant: int
) -> Alternative:
    """Read and remove one alternative of the turn.

    Raises:
        StoreError: no such alternative.
    """
    row = db.execute(
        "SELECT input, records, state FROM alternatives"
        " WHERE session_id = ? AND turn_number = ? AND variant = ?",
        (session_id, turn_number, variant),
    ).fetchone()
    if row is None:
        raise StoreError(f"turn {turn_number} of {session_id!r} has no variant {variant}")
    db.execute(
        "DELETE FROM alternatives WHERE session_id = ? AND turn_number = ? AND variant = ?",
        (session_id, turn_number, variant),
    )
    records = [HISTORY_RECORD_ADAPTER.validate_python(r) for r in json.loads(row[1])]
    state = parse_state(row[2], f"variant {variant} of turn {turn_number}")
    return Alternative(variant, row[0], records, state)


def next_variant(db: sqlite3.Connection, session_id: str, turn_number: int) -> int:
    """One more than any variant number the turn has used."""
    row = db.execute(
        "SELECT max(variant) FROM alternatives WHERE session_id = ? AND turn_number = ?",
        (session_id, turn_number),
    ).fetchone()
    held = db.execute(
        "SELECT variant FROM checkpoints WHERE session_id = ? AND turn_number = ?",
        (session_id, turn_number),
    ).fetchone()
    return max(-1 if row[0] is None else int(row[0]), int(held[0] or 0) if held else 0) + 1


def mark_committed(
    db: sqlite3.Connection, session_id: str, turn_number: int, input_json: str | None, variant: int
) -> None:
    """Record on the turn's checkpoint which variant is committed and its input."""
    db.execute(
        "UPDATE checkpoints SET input = ?, variant = ? WHERE session_id = ? AND turn_number = ?",
        (input_json, variant, session_id, turn_number),
    )


def list_variants(db: sqlite3.Connection, session_id: str, turn_number: int) -> list[TurnVariant]:
    """Every variant of the turn, by number (empty at turn 0)."""
    if turn_number == 0:
        return []
    checkpoint = last_checkpoint(db, session_id, turn_number)
    found = [
        TurnVariant(
            variant=checkpoint.variant,
            committed=True,
            input=_input(checkpoint.input),
            created_at=None,
        )
    ]
    for variant, text, created in db.execute(
        "SELECT variant, input, created_at FROM alternatives"
        " WHERE session_id = ? AND turn_number = ? ORDER BY variant",
        (session_id, turn_number),
    ):
        found.append(
            TurnVariant(
                variant=int(variant),
                committed=False,
                input=_input(text),
                created_at=datetime.fromisoformat(created),
            )
        )
    return sorted(found, key=lambda v: v.variant)


def input_json(turn_input: TurnInput | None) -> str | None:
    """The stored form of a turn's raw input."""
    return None if turn_input is None else turn_input.model_dump_json(exclude_defaults=True)


def _input(text: str | None) -> TurnInput | None:
    return None if text is None else TurnInput.model_validate_json(text)
