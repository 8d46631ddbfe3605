"""Journal and store agreement, restored when a session is opened again.

The store commits a turn first and the journal marks it after (`commit`); an undo likewise
(`undo`). A process that ends between the two leaves them disagreeing: a committed turn the
journal never marked, or a journal commit the store does not hold (an undo whose line was
lost, or a commit the store never made). Opening the session again reconciles: the journal
gets an `undo` line marked `recovered` for each commit it holds that the store does not
(newest first), then a `commit` line marked `recovered` for each committed turn it lacks
(oldest first), and one fsync. Afterwards the journal's commits minus its undos are exactly
the store's turns, which is what journal analysis reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tavern.records import CommitLine, UndoLine, utc_now
from tavern.store.journal import JournalWriter, journal_path, read_markers
from tavern.store.sessions import SessionStore


@dataclass(frozen=True)
class Reconciled:
    """What opening a session again appended to its journal."""

    recovered: list[int] = field(default_factory=list)
    """Turns the store held and the journal had not marked: a recovered commit line each."""
    voided: list[int] = field(default_factory=list)
    """Turns the journal marked committed that the store does not hold: a recovered undo
    line each."""

    def __bool__(self) -> bool:
        return bool(self.recovered or self.voided)


def journal_commits(markers: list[CommitLine | UndoLine]) -> dict[int, CommitLine]:
    """Turn -> the commit line that stands for it: the journal's commits, minus its undos.

    Example:
        >>> from tavern.records import utc_now
        >>> def commit(t: int) -> CommitLine:
        ...     return CommitLine(ts=utc_now(), session_id="s", turn_number=t, revision=t,
        ...                       record_count=1, tick=t, control_returned=True)
        >>> undo = UndoLine(ts=utc_now(), session_id="s", turn_number=2, revision=3,
        ...                 removed_turn=2, removed_records=1)
        >>> sorted(journal_commits([commit(1), commit(2), undo]))
        [1]
    """
    turns: dict[int, CommitLine] = {}
    for line in markers:
        if isinstance(line, CommitLine):
            turns[line.turn_number] = line
        else:
            turns.pop(line.removed_turn, None)
    return turns


def reconcile_journal(store: SessionStore, journal: JournalWriter, session_id: str) -> Reconciled:
    """Make the session's journal agree with its store; return what was appended.

    Raises:
        SessionNotFound, SchemaVersionMismatch: as for `SessionStore.load`.
        JournalError: a marker line of the journal does not validate.
    """
    held = {t.turn_number: t for t in store.committed_turns(session_id)}
    marked = journal_commits(read_markers(journal_path(journal.data_dir, session_id)))
    voided = sorted((t for t in marked if t not in held), reverse=True)
    recovered = sorted(t for t in held if t not in marked)
    if not voided and not recovered:
        return Reconciled()
    revision = store.load(session_id).revision
    for turn in voided:
        undo = UndoLine(
            ts=utc_now(), session_id=session_id, turn_number=turn, revision=revision,
            removed_turn=turn, removed_records=0, recovered=True,
        )  # fmt: skip
        journal.append(session_id, undo)
    for turn in recovered:
        done = held[turn]
        commit = CommitLine(
            ts=utc_now(), session_id=session_id, turn_number=turn, revision=done.revision,
            record_count=done.record_count, tick=done.tick, control_returned=False,
            recovered=True,
        )  # fmt: skip
        journal.append(session_id, commit)
    journal.sync(session_id)
    return Reconciled(recovered, voided)
