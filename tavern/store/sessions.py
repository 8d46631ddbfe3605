"""The session store: SQLite in WAL mode, one transaction per turn.

Layout of `<data_dir>/sessions.sqlite3` (store format 3, `_sqlite.STORE_FORMAT`):

- `sessions`: one row per session: the `SessionState` as JSON *without* its ledgers' memory,
  `memory_at` (which lines are each ledger's memory), and the columns `list()` needs.
  Rewritten on every commit; its size does not grow with history.
- `memory_lines`: the ledgers' memory, one row per line, keyed by `(session_id, owner,
  position)`, tagged with the turn that wrote it; a commit inserts only the lines appended
  since the last write (`_memory.py`, `docs/store-memory-lines.md`).
- `history`: one row per history record, keyed by `(session_id, seq)`.
- `checkpoints`: one row per committed turn holding the *pre-turn* state and `memory_at`, so
  undo costs one turn, not one session, and the turn's raw `input` and committed `variant`.
- `alternatives`: the set-aside variants of a session's last turn (`_variants.py`).

A format-1 file is migrated when opened (rows keep their memory in their JSON until their
next write). Every read and write is plain SQL on the rows it needs: a commit reads the
stored memory ranges it appends to, never the history.

Every write runs in `BEGIN IMMEDIATE`, so a second process waits (busy timeout) instead of
failing, and `expected_revision` turns a lost update into a `RevisionConflict`.
"""

from __future__ import annotations

import builtins
import shutil
import sqlite3
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

from pydantic import BaseModel

from tavern.records.compaction import CompactionCheckpoint
from tavern.records.history import HistoryRecord
from tavern.records.session import SESSION_SCHEMA_VERSION, CompactionSettings, SessionState
from tavern.records.turn import TurnInput
from tavern.store import _compactions
from tavern.store._history import (
    Snapshot,
    bodies_of_turns,
    parse_records,
    tail_bodies,
    tail_bodies_before,
    turn_ticks,
)
from tavern.store._memory import Stored, read_state, stored_memory, write_row
from tavern.store._sqlite import (
    DB_NAME,
    Database,
    check_seqs,
    check_turns,
    copy_rows,
    delete_rows,
    insert_records,
    next_seq_in,
    read_row,
    session_head,
    write_state,
)
from tavern.store._variants import (
    Checkpoint,
    TurnVariant,
    checkpoint_memory,
    first_seq_of,
    input_json,
    last_checkpoint,
    list_variants,
    mark_committed,
    next_variant,
    pre_turn_state,
    set_aside,
    take_alternative,
)
from tavern.store.errors import (
    CheckpointError,
    CompactedTurn,
    InvalidTurn,
    NothingToUndo,
    RevisionConflict,
    SchemaVersionMismatch,
    SessionExists,
    SessionNotFound,
)
from tavern.store.ids import check_session_id
from tavern.store.journal import session_dir


class CommittedTurn(BaseModel):
    """One turn the store holds, as its commit left it (`SessionStore.committed_turns`)."""

    turn_number: int
    revision: int
    """Session revision after the turn: of the state the next turn started from, or the
    current state's for the last turn (an undo of a later turn raised it since)."""
    tick: int
    """Clock tick after the turn, read the same way."""
    record_count: int
    """History records of the turn."""


class SessionSummary(BaseModel):
    """One line of the session list."""

    id: str
    title: str
    scenario_id: str
    turn_number: int
    updated_at: datetime
    name: str | None = None
    """The name the human gave the session in the list (the kernel only reads `title`)."""
    controlled_name: str | None = None
    """Display name of the character the human plays."""
    forked_from: str | None = None
    """Id of the session this one was forked from."""
    forked_at_turn: int | None = None
    """The turn of that session the fork starts after."""


class Evictable(NamedTuple):
    """What a compaction keeping `retention_turns` distinct turns would take, read in one
    transaction (`SessionStore.evictable`)."""

    state: SessionState
    """The state now (its revision is the one the compaction must expect)."""
    cutoff_turn: int
    """Turns at or below this one would be evicted (-1: nothing to evict)."""
    records: list[HistoryRecord]
    """The live records of those turns, in seq order."""
    evicted_turns: int
    """Distinct turns among them."""
    kept_turns: int
    """Distinct turns left live."""
    parent_id: str | None
    """The session's last checkpoint (the new one's parent)."""


class TurnsPage(NamedTuple):
    """Records of a range of turns and the story tick each turn started at."""

    records: list[HistoryRecord]
    """Every record of the turns, in seq order."""
    ticks: dict[int, int]
    """Turn -> the clock tick it started at."""


class RerunBase(NamedTuple):
    """What playing the last turn again starts from, read in one transaction."""

    snapshot: Snapshot
    """The pre-turn state, the window before the turn, and the seq its records start at."""
    turn_input: TurnInput | None
    """The committed variant's raw input (None when it was played before format 3)."""
    revision: int
    """The session's revision now (a commit of the new variant must expect it)."""


_SYNCHRONOUS = {"OFF", "NORMAL", "FULL", "EXTRA"}


class SessionStore:
    """Sessions, their history and per-turn checkpoints in one SQLite file.

    Thread-safe (one connection behind a lock) and safe across processes (SQLite locking).
    Calls are short and blocking; async callers may run them via `asyncio.to_thread`.

    Example (not run):

        store = SessionStore(data_dir)
        state = store.create(state, [start_marker])
        state = store.commit_turn(state.id, 1, records, new_state, state.revision)
        store.undo(state.id).turn_number  # 0
    """

    def __init__(self, data_dir: Path | str, *, synchronous: str = "FULL") -> None:
        """Open (creating if needed) `<data_dir>/sessions.sqlite3`.

        Args:
            data_dir: The Tavern data directory.
            synchronous: SQLite `synchronous` pragma; FULL keeps committed turns across
                power loss, NORMAL only across process crashes.
        """
        if synchronous not in _SYNCHRONOUS:
            raise ValueError(f"synchronous must be one of {sorted(_SYNCHRONOUS)}")
        self.data_dir = Path(data_dir)
        self.path = self.data_dir / DB_NAME
        self._database = Database(self.path, synchronous)
        self._lock = self._database.lock
        self._transaction = self._database.transaction

    # -- connection -------------------------------------------------------------------------

    def _conn(self) -> sqlite3.Connection:
        return self._database.conn()

    def close(self) -> None:
        """Close the connection (reopened lazily on the next call)."""
        self._database.close()

    def __enter__(self) -> SessionStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- sessions -------------------------------------------------------------------------

    def create(self, state: SessionState, records: Sequence[HistoryRecord] = ()) -> SessionState:
        """Store a new session with its opening records (turn 0).

        Raises:
            SessionExists: if the id is taken.
            InvalidTurn: if a record is not of turn 0 or seqs are not increasing.
        """
        check_session_id(state.id)
        if state.schema_version != SESSION_SCHEMA_VERSION:
            raise SchemaVersionMismatch("new session", state.schema_version, SESSION_SCHEMA_VERSION)
        check_turns(records, state.turn_number)
        check_seqs(records, 0)
        stale = session_dir(self.data_dir, state.id)
        if stale.exists() and not self.exists(state.id):
            # Left by a delete interrupted between its commit and its rmtree: never let an
            # old journal reappear under a new session.
            shutil.rmtree(stale, ignore_errors=True)
        with self._transaction() as db:
            if db.execute("SELECT 1 FROM sessions WHERE id = ?", (state.id,)).fetchone():
                raise SessionExists(f"session {state.id!r} already exists")
            write_row(db, state, state.turn_number, {}, insert=True)
            insert_records(db, state.id, records)
        return state

    def load(self, session_id: str) -> SessionState:
        """Return the session's current state.

        Raises:
            SessionNotFound: no such session.
            SchemaVersionMismatch: the session was written by another format version; the
                message names both versions and nothing is changed.
        """
        check_session_id(session_id)
        with self._transaction("DEFERRED") as db:
            return self._read_state(db, session_id)

    def _read_state(self, db: sqlite3.Connection, session_id: str) -> SessionState:
        """The current state (inside the caller's transaction), refusing a missing session
        or a foreign version."""
        session_head(db, session_id)
        text, memory_at = read_row(db, session_id)
        return read_state(db, session_id, text, memory_at, f"session {session_id!r}")

    def exists(self, session_id: str) -> bool:
        """Whether a session with this id is stored (whatever its version)."""
        check_session_id(session_id)
        with self._lock:
            found = self._conn().execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,))
            return found.fetchone() is not None

    def list(self) -> builtins.list[SessionSummary]:
        """Summaries of every stored session, most recently updated first."""
        query = (
            "SELECT id, title, scenario_id, turn_number, updated_at, name, forked_from,"
            " forked_at_turn, json_extract(state, '$.cast.' || json_extract(state,"
            " '$.controlled_id') || '.body.display_name') FROM sessions"
        )
        with self._lock:
            rows = self._conn().execute(query + " ORDER BY updated_at DESC, id").fetchall()
        return [
            SessionSummary(
                id=r[0],
                title=r[1],
                scenario_id=r[2],
                turn_number=r[3],
                updated_at=r[4],
                name=r[5],
                forked_from=r[6],
                forked_at_turn=r[7],
                controlled_name=r[8],
            )
            for r in rows
        ]

    def rename(self, session_id: str, name: str | None) -> None:
        """Set (or with None clear) the session's name in the list; the state is untouched.

        Raises:
            SessionNotFound: no such session.
        """
        check_session_id(session_id)
        with self._transaction() as db:
            session_head(db, session_id)
            db.execute("UPDATE sessions SET name = ? WHERE id = ?", (name, session_id))

    def turns(self, session_id: str, first: int, last: int) -> TurnsPage:
        """Every record of turns `first` to `last` and the tick each turn started at."""
        check_session_id(session_id)
        with self._transaction("DEFERRED") as db:
            session_head(db, session_id)
            bodies = bodies_of_turns(db, session_id, first, last)
            return TurnsPage(parse_records(bodies), turn_ticks(db, session_id, first, last))

    def history(
        self, session_id: str, after_seq: int | None = None, limit: int | None = None
    ) -> builtins.list[HistoryRecord]:
        """Records in seq order, optionally only those after `after_seq`, at most `limit`."""
        check_session_id(session_id)
        with self._transaction("DEFERRED") as db:
            session_head(db, session_id)
            rows = db.execute(
                "SELECT body FROM history WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?",
                (
                    session_id,
                    -1 if after_seq is None else after_seq,
                    -1 if limit is None else limit,
                ),
            ).fetchall()
            return parse_records(r[0] for r in rows)

    def history_tail(self, session_id: str, turns: int) -> builtins.list[HistoryRecord]:
        """Every record of the last `turns` turn numbers present in the history, in seq order."""
        check_session_id(session_id)
        if turns <= 0:
            return []
        with self._transaction("DEFERRED") as db:
            session_head(db, session_id)
            return parse_records(tail_bodies(db, session_id, turns))

    def snapshot(self, session_id: str, turns: int, step: int = 1) -> Snapshot:
        """The state, `history_tail(turns)` and `next_seq` of one consistent read.

        With `step`, the tail also holds `turn_number % step` more turns, so its first turn
        only moves every `step` turns (between them, the tail only grows at its end).

        Raises:
            SessionNotFound, SchemaVersionMismatch: as for `load`.
        """
        check_session_id(session_id)
        with self._transaction("DEFERRED") as db:
            state = self._read_state(db, session_id)
            turns += state.turn_number % max(1, step)
            tail = parse_records(tail_bodies(db, session_id, turns)) if turns > 0 else []
            first_free = next_seq_in(db, session_id)
        return Snapshot(state, tail, first_free)

    def committed_turns(self, session_id: str) -> builtins.list[CommittedTurn]:
        """Every committed turn the store holds (1 to the current one), in one read.

        The revision and tick after turn N are those of the state turn N + 1 started from
        (its checkpoint), or the current state's for the last turn.

        Raises:
            SessionNotFound, SchemaVersionMismatch: as for `load`.
        """
        check_session_id(session_id)
        with self._transaction("DEFERRED") as db:
            revision, current_turn = session_head(db, session_id)
            tick = self._read_state(db, session_id).clock.tick
            after = {
                turn - 1: (rev, at)
                for turn, rev, at in db.execute(
                    "SELECT turn_number, json_extract(pre_state, '$.revision'),"
                    " json_extract(pre_state, '$.clock.tick') FROM checkpoints"
                    " WHERE session_id = ? AND turn_number > 1",
                    (session_id,),
                )
            }
            counts = dict(
                db.execute(
                    "SELECT turn_number, COUNT(*) FROM history WHERE session_id = ?"
                    " AND turn_number > 0 GROUP BY turn_number",
                    (session_id,),
                ).fetchall()
            )
        after[current_turn] = (revision, tick)
        return [
            CommittedTurn(
                turn_number=turn,
                revision=after[turn][0],
                tick=after[turn][1],
                record_count=counts.get(turn, 0),
            )  # fmt: skip
            for turn in range(1, current_turn + 1)
        ]

    def next_seq(self, session_id: str) -> int:
        """The seq the next appended record must use (or exceed)."""
        check_session_id(session_id)
        with self._transaction("DEFERRED") as db:
            session_head(db, session_id)
            return next_seq_in(db, session_id)

    def commit_turn(
        self,
        session_id: str,
        turn_number: int,
        records: Sequence[HistoryRecord],
        new_state: SessionState,
        expected_revision: int,
        before_commit: Callable[[], None] | None = None,
        turn_input: TurnInput | None = None,
    ) -> SessionState:
        """Atomically append one turn's records and replace the state.

        The pre-turn state is kept in a checkpoint row so `undo` restores it exactly, with
        `turn_input` (the raw input, so the turn can be played again). The
        stored state gets `turn_number` and `revision = expected_revision + 1`; it is
        returned. Cost depends on the turn and the state, never on the history length.
        `before_commit` runs last inside the transaction (the runner waits there for the
        turn's journal fsync); if it raises, nothing is committed.

        Raises:
            RevisionConflict: the session changed since `expected_revision`.
            InvalidTurn: `turn_number` is not the next turn, a record belongs to another
                turn, or seqs collide with stored ones.
            SessionNotFound, SchemaVersionMismatch: as for `load`.
        """
        check_session_id(session_id)
        if new_state.id != session_id:
            raise InvalidTurn(f"state of {new_state.id!r} committed to {session_id!r}")
        check_turns(records, turn_number)
        stored = new_state.model_copy(
            update={"turn_number": turn_number, "revision": expected_revision + 1}
        )
        with self._transaction() as db:
            current_turn, memory = self._current(db, session_id, expected_revision)
            if turn_number != current_turn + 1:
                raise InvalidTurn(f"turn {turn_number} cannot follow turn {current_turn}")
            check_seqs(records, next_seq_in(db, session_id))
            # Copied inside SQLite: the pre-turn state never travels through Python.
            db.execute(
                "INSERT OR REPLACE INTO checkpoints"
                " (session_id, turn_number, pre_state, pre_memory_at, input)"
                " SELECT id, ?, state, memory_at, ? FROM sessions WHERE id = ?",
                (turn_number, input_json(turn_input), session_id),
            )
            insert_records(db, session_id, records)
            write_row(db, stored, turn_number, memory, insert=False)
            if before_commit is not None:
                before_commit()
        return stored

    def replace_state(
        self, session_id: str, new_state: SessionState, expected_revision: int
    ) -> SessionState:
        """Replace the state outside a turn (e.g. compaction); history is untouched.

        Returns the stored state with `revision = expected_revision + 1`. The turn number
        must not change; this is not undoable by `undo`.
        """
        check_session_id(session_id)
        if new_state.id != session_id:
            raise InvalidTurn(f"state of {new_state.id!r} written to {session_id!r}")
        stored = new_state.model_copy(update={"revision": expected_revision + 1})
        with self._transaction() as db:
            current_turn, memory = self._current(db, session_id, expected_revision)
            if stored.turn_number != current_turn:
                raise InvalidTurn("replace_state cannot change the turn number")
            # Lines are tagged with the current turn: undoing it removes them with the rest.
            write_row(db, stored, current_turn, memory, insert=False)
        return stored

    def _current(
        self, db: sqlite3.Connection, session_id: str, expected_revision: int
    ) -> tuple[int, Stored]:
        """(turn, stored memory) of the row, refusing another revision."""
        revision, current_turn = session_head(db, session_id)
        if revision != expected_revision:
            raise RevisionConflict(
                f"session {session_id!r} is at revision {revision}, not {expected_revision}"
            )
        return current_turn, stored_memory(db, session_id, f"session {session_id!r}")

    def rerun_base(self, session_id: str, turns: int, step: int = 1) -> RerunBase:
        """What playing the last turn again starts from, as `snapshot` read before it.

        Raises:
            NothingToUndo: at turn 0 (there is no last turn to play again).
            SessionNotFound, SchemaVersionMismatch: as for `load`.
        """
        check_session_id(session_id)
        with self._transaction("DEFERRED") as db:
            revision, turn = session_head(db, session_id)
            _refuse_compacted(db, session_id, turn)
            checkpoint = last_checkpoint(db, session_id, turn)
            pre = pre_turn_state(db, session_id, turn, checkpoint).model_copy(
                update={"compaction": _settings(db, session_id)}
            )
            window = turns + (turn - 1) % max(1, step)
            tail = parse_records(tail_bodies_before(db, session_id, window, turn))
            first = first_seq_of(db, session_id, turn)
        stored_input = None
        if checkpoint.input is not None:
            stored_input = TurnInput.model_validate_json(checkpoint.input)
        return RerunBase(Snapshot(pre, tail, first), stored_input, revision)

    def variants(self, session_id: str) -> builtins.list[TurnVariant]:
        """Every variant of the last turn, by number (empty at turn 0)."""
        check_session_id(session_id)
        with self._transaction("DEFERRED") as db:
            _, turn = session_head(db, session_id)
            return list_variants(db, session_id, turn)

    def replace_last_turn(
        self,
        session_id: str,
        records: Sequence[HistoryRecord],
        new_state: SessionState,
        expected_revision: int,
        turn_input: TurnInput | None = None,
    ) -> SessionState:
        """Commit a new variant of the last turn (played again from its pre-turn state); the
        committed one is kept as an alternative (`_variants.py`).

        Raises:
            RevisionConflict: the session changed since `expected_revision`.
            NothingToUndo: at turn 0.
            InvalidTurn: records of another turn, or seqs that do not follow the turn before.
        """
        check_session_id(session_id)
        with self._transaction() as db:
            turn, _ = self._current(db, session_id, expected_revision)
            _refuse_compacted(db, session_id, turn)
            checkpoint = last_checkpoint(db, session_id, turn)
            variant = next_variant(db, session_id, turn)
            return self._put_variant(
                db,
                (session_id, turn, checkpoint),
                records,
                new_state,
                expected_revision,
                (input_json(turn_input), variant),
            )

    def flip_last_turn(
        self, session_id: str, variant: int, expected_revision: int
    ) -> tuple[SessionState, builtins.list[HistoryRecord]]:
        """Commit the set-aside `variant` of the last turn in place of the committed one, which
        is set aside in turn; returns the stored state and the variant's records.

        Raises:
            RevisionConflict: the session changed since `expected_revision`.
            NothingToUndo: at turn 0.
            StoreError: the turn has no such alternative.
        """
        check_session_id(session_id)
        with self._transaction() as db:
            turn, _ = self._current(db, session_id, expected_revision)
            _refuse_compacted(db, session_id, turn)
            checkpoint = last_checkpoint(db, session_id, turn)
            taken = take_alternative(db, session_id, turn, variant)
            stored = self._put_variant(
                db,
                (session_id, turn, checkpoint),
                taken.records,
                taken.state.model_copy(update={"compaction": _settings(db, session_id)}),
                expected_revision,
                (taken.input, taken.variant),
            )
        return stored, taken.records

    def _put_variant(
        self,
        db: sqlite3.Connection,
        where: tuple[str, int, Checkpoint],
        records: Sequence[HistoryRecord],
        new_state: SessionState,
        expected_revision: int,
        marks: tuple[str | None, int],
    ) -> SessionState:
        """Inside a write transaction: set the committed variant aside and write this one as
        `commit_turn` writes a turn, over the checkpoint's pre-turn state."""
        session_id, turn, checkpoint = where
        if new_state.id != session_id:
            raise InvalidTurn(f"state of {new_state.id!r} committed to {session_id!r}")
        check_turns(records, turn)
        set_aside(db, session_id, turn, checkpoint, self._read_state(db, session_id))
        check_seqs(records, first_seq_of(db, session_id, turn))
        stored = new_state.model_copy(
            update={"turn_number": turn, "revision": expected_revision + 1}
        )
        insert_records(db, session_id, records)
        write_row(
            db, stored, turn, checkpoint_memory(db, session_id, turn, checkpoint), insert=False
        )
        mark_committed(db, session_id, turn, *marks)
        return stored

    def undo(self, session_id: str) -> SessionState:
        """Remove every record of the highest turn and restore its pre-turn state.

        Repeatable down to turn 0. The restored state gets a fresh, higher revision so a
        writer holding the old one conflicts instead of overwriting.

        Raises:
            NothingToUndo: at turn 0, or when the last turn has no checkpoint.
        """
        check_session_id(session_id)
        with self._transaction() as db:
            revision, current_turn = session_head(db, session_id)
            if current_turn == 0:
                raise NothingToUndo(f"session {session_id!r} is at turn 0")
            _refuse_compacted(db, session_id, current_turn)
            row = db.execute(
                "SELECT pre_state, pre_memory_at FROM checkpoints"
                " WHERE session_id = ? AND turn_number = ?",
                (session_id, current_turn),
            ).fetchone()
            if row is None:
                raise NothingToUndo(f"turn {current_turn} of {session_id!r} has no checkpoint")
            delete_rows(db, session_id, current_turn)
            # Lines of earlier turns are untouched, so the checkpoint's ranges still hold.
            restored = read_state(
                db, session_id, row[0], row[1], f"checkpoint of turn {current_turn}"
            ).model_copy(update={"revision": revision + 1, "compaction": _settings(db, session_id)})
            write_state(db, restored, insert=False, memory_at=row[1])
        return restored

    # -- compaction -------------------------------------------------------------------------

    def evictable(self, session_id: str, retention_turns: int | None = None) -> Evictable:
        """What a compaction keeping the newest `retention_turns` distinct turns of the live
        history (the session's `compaction.retention_turns` when None) would evict, with
        the state and the parent checkpoint, in one read.

        Raises:
            ValueError: `retention_turns` below 1.
            SessionNotFound, SchemaVersionMismatch: as for `load`.
        """
        check_session_id(session_id)
        if retention_turns is not None and retention_turns < 1:
            raise ValueError("a compaction keeps at least one turn")
        with self._transaction("DEFERRED") as db:
            state = self._read_state(db, session_id)
            if retention_turns is None:
                retention_turns = state.compaction.retention_turns
            turns = [
                t
                for (t,) in db.execute(
                    "SELECT DISTINCT turn_number FROM history WHERE session_id = ?"
                    " ORDER BY turn_number",
                    (session_id,),
                )
            ]
            evicted = turns[: max(0, len(turns) - retention_turns)]
            cutoff = evicted[-1] if evicted else -1
            records = parse_records(bodies_of_turns(db, session_id, 0, cutoff)) if evicted else []
            last = _compactions.last_two(db, session_id)
        return Evictable(
            state=state,
            cutoff_turn=cutoff,
            records=records,
            evicted_turns=len(evicted),
            kept_turns=len(turns) - len(evicted),
            parent_id=last[-1].id if last else None,
        )

    def compact(
        self,
        session_id: str,
        checkpoint: CompactionCheckpoint,
        expected_revision: int,
        before_commit: Callable[[], None] | None = None,
    ) -> SessionState:
        """Fold the history up to `checkpoint.cutoff_turn` into its summary, in one transaction.

        The sealed checkpoint is stored, the records it holds leave the history, the state
        gets `checkpoint.summary` as its story summary (and a fresh revision), and every
        pre-turn checkpoint after the cutoff the same summary, so undo keeps it. Nothing
        else of the state changes. `before_commit` runs last inside the transaction; if it
        raises, nothing is written.

        Raises:
            RevisionConflict: the session changed since `expected_revision`.
            CheckpointError: the checkpoint is not sealed, of another session, not a child
                of the session's last checkpoint, does not hold exactly the live records up
                to its cutoff, or replaces another summary than the state's.
            InvalidTurn: the cutoff leaves no turn live or is not after the last cutoff.
        """
        check_session_id(session_id)
        what = f"checkpoint {checkpoint.id} of session {session_id!r}"
        _compactions.check_sealed(checkpoint, session_id, what)
        with self._transaction() as db:
            current_turn, memory = self._current(db, session_id, expected_revision)
            state = self._read_state(db, session_id)
            last = _compactions.last_two(db, session_id)
            parent = last[-1].id if last else None
            if checkpoint.parent_id != parent:
                raise CheckpointError(
                    f"{what} is foreign: its parent is {checkpoint.parent_id}, the session's"
                    f" last checkpoint is {parent}; nothing was changed"
                )
            if checkpoint.previous_summary != state.story_summary:
                raise CheckpointError(f"{what} replaces another story summary than the state's")
            cutoff = checkpoint.cutoff_turn
            if cutoff >= current_turn or (last and cutoff <= last[-1].cutoff_turn):
                raise InvalidTurn(
                    f"cutoff turn {cutoff} must be after the last compaction's and before the"
                    f" current turn {current_turn}"
                )
            live = [
                seq
                for (seq,) in db.execute(
                    "SELECT seq FROM history WHERE session_id = ? AND turn_number <= ?"
                    " ORDER BY seq",
                    (session_id, cutoff),
                )
            ]
            if live != [r.seq for r in checkpoint.records]:
                raise CheckpointError(
                    f"{what} does not hold the live records up to turn {cutoff}"
                    f" ({len(checkpoint.records)} given, {len(live)} stored)"
                )
            _compactions.insert(db, checkpoint, (last[-1].position if last else 0) + 1)
            db.execute(
                "DELETE FROM history WHERE session_id = ? AND turn_number <= ?",
                (session_id, cutoff),
            )
            _compactions.set_summary_after(db, session_id, cutoff, checkpoint.summary)
            stored = state.model_copy(
                update={"story_summary": checkpoint.summary, "revision": expected_revision + 1}
            )
            write_row(db, stored, current_turn, memory, insert=False)
            if before_commit is not None:
                before_commit()
        return stored

    def restore(
        self,
        session_id: str,
        expected_revision: int,
        checkpoint_id: str | None = None,
        before_commit: Callable[[], None] | None = None,
    ) -> tuple[SessionState, CompactionCheckpoint]:
        """Undo the session's last compaction from its checkpoint, in one transaction.

        The checkpoint is checked whole first (`_compactions.verified`: hash, id, session,
        parent link, the state's summary); then its records come back to the history, the
        previous summary to the state and to every pre-turn checkpoint after the cutoff, and
        the checkpoint row goes. Every turn played after the compaction stays.

        Raises:
            RevisionConflict: the session changed since `expected_revision`.
            NothingToUndo: the session has no compaction to restore.
            CheckpointError: `checkpoint_id` is not the last checkpoint (last in, first out),
                or the checkpoint is tampered or foreign; nothing is changed.
        """
        check_session_id(session_id)
        with self._transaction() as db:
            current_turn, memory = self._current(db, session_id, expected_revision)
            state = self._read_state(db, session_id)
            last = _compactions.last_two(db, session_id)
            if not last:
                raise NothingToUndo(f"session {session_id!r} has no compaction to restore")
            row = last[-1]
            if checkpoint_id is not None and checkpoint_id != row.id:
                raise CheckpointError(
                    f"restore is last in, first out: the last checkpoint of {session_id!r} is"
                    f" {row.id}, not {checkpoint_id}; nothing was changed"
                )
            before = last[0] if len(last) == 2 else None
            checkpoint = _compactions.verified(row, before, session_id, state)
            (first_live,) = db.execute(
                "SELECT min(seq) FROM history WHERE session_id = ?", (session_id,)
            ).fetchone()
            if first_live is not None and any(
                r.seq >= first_live or r.turn_number > checkpoint.cutoff_turn
                for r in checkpoint.records
            ):
                raise CheckpointError(
                    f"checkpoint {row.id} of session {session_id!r} does not fit before"
                    " the live history; nothing was changed"
                )
            insert_records(db, session_id, checkpoint.records)
            _compactions.set_summary_after(
                db, session_id, checkpoint.cutoff_turn, checkpoint.previous_summary
            )
            db.execute(
                "DELETE FROM compactions WHERE session_id = ? AND position = ?",
                (session_id, row.position),
            )
            stored = state.model_copy(
                update={
                    "story_summary": checkpoint.previous_summary,
                    "revision": expected_revision + 1,
                }
            )
            write_row(db, stored, current_turn, memory, insert=False)
            if before_commit is not None:
                before_commit()
        return stored, checkpoint

    def checkpoints(self, session_id: str) -> builtins.list[CompactionCheckpoint]:
        """The session's live compaction checkpoints, oldest first, as stored (unchecked)."""
        check_session_id(session_id)
        with self._transaction("DEFERRED") as db:
            session_head(db, session_id)
            found = _compactions.rows(db, session_id)
        return [CompactionCheckpoint.model_validate_json(r.body) for r in found]

    def checkpoint_heads(self, session_id: str) -> builtins.list[tuple[str, int, int]]:
        """(id, cutoff turn, evicted records) of each live checkpoint, oldest first, read
        from the rows without parsing their bodies."""
        check_session_id(session_id)
        with self._transaction("DEFERRED") as db:
            session_head(db, session_id)
            return _compactions.heads(db, session_id)

    def compacted_through(self, session_id: str) -> int:
        """The highest cutoff turn of the session's live compactions (-1: none)."""
        check_session_id(session_id)
        with self._transaction("DEFERRED") as db:
            session_head(db, session_id)
            return _compactions.compacted_through(db, session_id)

    def fork(self, session_id: str, new_id: str, at_turn: int | None = None) -> SessionState:
        """Copy a session (state, history, checkpoints, journal) under `new_id`.

        The copy is independent: later writes to either never reach the other. Journal lines
        are copied verbatim, so they keep the `session_id` they were written under. With
        `at_turn`, the copy is then taken back to the state right after that turn (its later
        turns undone in the same transaction). The copy's row names its origin
        (`SessionSummary.forked_from`, `forked_at_turn`).

        Raises:
            SessionExists: `new_id` is taken.
            InvalidTurn: `at_turn` is not a turn of the session.
        """
        check_session_id(session_id)
        check_session_id(new_id)
        source_dir = session_dir(self.data_dir, session_id)
        target_dir = session_dir(self.data_dir, new_id)
        if self.exists(new_id):
            raise SessionExists(f"session {new_id!r} already exists")
        # Refuse missing or foreign-version sources before copying files.
        last = self.load(session_id).turn_number
        if at_turn is not None and not 0 <= at_turn <= last:
            raise InvalidTurn(f"session {session_id!r} has no turn {at_turn} (last: {last})")
        # Copy the journal first: if the process dies here, no session row points at it and a
        # later fork or delete of `new_id` overwrites or removes it.
        if target_dir.exists():
            shutil.rmtree(target_dir)
        if source_dir.exists():
            shutil.copytree(source_dir, target_dir)
        try:
            with self._transaction() as db:
                if db.execute("SELECT 1 FROM sessions WHERE id = ?", (new_id,)).fetchone():
                    raise SessionExists(f"session {new_id!r} already exists")
                forked = self._read_state(db, session_id).model_copy(update={"id": new_id})
                through = _compactions.compacted_through(db, session_id)
                if at_turn is not None and at_turn < through:
                    raise InvalidTurn(
                        f"turn {at_turn} of {session_id!r} was compacted (through turn"
                        f" {through}): restore its checkpoint before forking there"
                    )
                copy_rows(db, session_id, forked)
                _compactions.copy_resealed(db, session_id, new_id)
                if at_turn is not None and at_turn < forked.turn_number:
                    forked = self._back_to(db, forked, at_turn)
                db.execute(
                    "UPDATE sessions SET forked_from = ?, forked_at_turn = ? WHERE id = ?",
                    (session_id, forked.turn_number, new_id),
                )
        except BaseException:
            shutil.rmtree(target_dir, ignore_errors=True)
            raise
        return forked

    def _back_to(self, db: sqlite3.Connection, state: SessionState, turn: int) -> SessionState:
        """Inside a write transaction: undo every turn of `state`'s session after `turn`."""
        checkpoint = last_checkpoint(db, state.id, turn + 1)
        delete_rows(db, state.id, turn + 1)
        restored = read_state(
            db, state.id, checkpoint.pre_state, checkpoint.pre_memory_at, f"turn {turn + 1}"
        ).model_copy(update={"revision": state.revision + 1})
        write_state(db, restored, insert=False, memory_at=checkpoint.pre_memory_at)
        return restored

    def delete(self, session_id: str) -> None:
        """Remove a session's state, memory lines, history, checkpoints and journal together.

        Raises:
            SessionNotFound: nothing of that session existed.
        """
        check_session_id(session_id)
        with self._transaction() as db:
            gone = delete_rows(db, session_id)
        directory = session_dir(self.data_dir, session_id)
        had_dir = directory.exists()
        shutil.rmtree(directory, ignore_errors=True)
        if not gone and not had_dir:
            raise SessionNotFound(f"no session {session_id!r}")


def _settings(db: sqlite3.Connection, session_id: str) -> CompactionSettings:
    """The session's compaction settings as they are now: a preference of the session, not
    story state, so undo, rerun and a flip of variants keep them (the earlier turn's state
    they restore may hold older ones)."""
    (text,) = db.execute(
        "SELECT json_extract(state, '$.compaction') FROM sessions WHERE id = ?", (session_id,)
    ).fetchone()
    return CompactionSettings() if text is None else CompactionSettings.model_validate_json(text)


def _refuse_compacted(db: sqlite3.Connection, session_id: str, turn: int) -> None:
    """Refuse to undo or replay a turn a compaction folded into the summary.

    Raises:
        CompactedTurn: `turn` is at or below the last compaction's cutoff.
    """
    through = _compactions.compacted_through(db, session_id)
    if 0 < turn <= through:
        raise CompactedTurn(
            f"turn {turn} of session {session_id!r} was compacted (through turn {through}):"
            " restore the compaction's checkpoint first"
        )
