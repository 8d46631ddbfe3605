"""Journal and store agreement, restored when a session is opened again.

The store commits a turn first and the journal marks it after (`commit`); an undo likewise
(`undo`). A process that ends between the two leaves them disagreeing: a committed turn the
journal never marked, or a journal commit the store does not hold (an undo whose line was
lost, or a commit the store never made). Opening the session again reconciles: the journal
gets an `undo` line marked `recovered` for each commit it holds that the store does not
(newest first), then a `commit` line marked `recovered` for each committed turn it lacks
(oldest first), and one fsync. Afterwards the journal's commits minus its undos are exactly
the store's turns, which is what journal analysis reads.

Compactions likewise: the journal's `compact` lines minus its `restore` lines (last in,
first out, `journal_compactions`) must name the store's live checkpoints in order. Where
they part, a `restore` line marked `recovered` goes in for each checkpoint the journal holds
beyond the store's (newest first), then a `compact` line marked `recovered` for each the
store holds beyond the journal's (oldest first).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tavern.records import CommitLine, CompactLine, RestoreLine, UndoLine, utc_now
from tavern.store.journal import JournalWriter, journal_path, read_journal_markers
from tavern.store.sessions import SessionStore


@dataclass(frozen=True)
class Reconciled:
    """What opening a session again appended to its journal."""

    recovered: list[int] = field(default_factory=list)
    """Turns the store held and the journal had not marked: a recovered commit line each."""
    voided: list[int] = field(default_factory=list)
    """Turns the journal marked committed that the store does not hold: a recovered undo
    line each."""
    compactions: list[str] = field(default_factory=list)
    """Checkpoints the store held and the journal had not marked: a recovered compact line
    each."""
    restores: list[str] = field(default_factory=list)
    """Checkpoints the journal marked live that the store no longer holds: a recovered
    restore line each."""

    def __bool__(self) -> bool:
        return bool(self.recovered or self.voided or self.compactions or self.restores)


def journal_compactions(markers: list[CompactLine | RestoreLine]) -> list[str]:
    """The checkpoint ids the journal's compactions leave live, oldest first.

    Example:
        >>> from tavern.records import utc_now
        >>> def line(kind, cp):
        ...     common = dict(ts=utc_now(), session_id="s", turn_number=3, revision=1,
        ...                   checkpoint_id=cp, cutoff_turn=1)
        ...     if kind == "compact":
        ...         return CompactLine(evicted_records=2, **common)
        ...     return RestoreLine(restored_records=2, **common)
        >>> journal_compactions([line("compact", "a"), line("compact", "b"),
        ...                      line("restore", "b")])
        ['a']
    """
    live: list[str] = []
    for line in markers:
        if isinstance(line, CompactLine):
            live.append(line.checkpoint_id)
        elif line.checkpoint_id in live:
            del live[live.index(line.checkpoint_id) :]
    return live


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
    markers = read_journal_markers(journal_path(journal.data_dir, session_id))
    marked = journal_commits(markers.commits)
    voided = sorted((t for t in marked if t not in held), reverse=True)
    recovered = sorted(t for t in held if t not in marked)
    compactions, restores = _reconcile_compactions(store, journal, session_id, markers.compactions)
    if voided:
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
    reconciled = Reconciled(recovered, voided, compactions, restores)
    if reconciled:
        journal.sync(session_id)
    return reconciled


def _reconcile_compactions(
    store: SessionStore,
    journal: JournalWriter,
    session_id: str,
    markers: list[CompactLine | RestoreLine],
) -> tuple[list[str], list[str]]:
    """Append the recovered restore and compact lines that make the journal's live
    compactions the store's; (compacted, restored) ids, both empty when they agreed."""
    heads = store.checkpoint_heads(session_id)
    marked = journal_compactions(markers)
    same = 0
    while same < min(len(heads), len(marked)) and heads[same][0] == marked[same]:
        same += 1
    if same == len(heads) == len(marked):
        return [], []
    state = store.load(session_id)
    cutoffs = {line.checkpoint_id: line.cutoff_turn for line in markers}
    restores = list(reversed(marked[same:]))
    for checkpoint_id in restores:
        restore = RestoreLine(
            ts=utc_now(), session_id=session_id, turn_number=state.turn_number,
            revision=state.revision, checkpoint_id=checkpoint_id,
            cutoff_turn=cutoffs[checkpoint_id], restored_records=0, recovered=True,
        )  # fmt: skip
        journal.append(session_id, restore)
    compacted = [checkpoint_id for checkpoint_id, _, _ in heads[same:]]
    for checkpoint_id, cutoff, records in heads[same:]:
        compact = CompactLine(
            ts=utc_now(), session_id=session_id, turn_number=state.turn_number,
            revision=state.revision, checkpoint_id=checkpoint_id, cutoff_turn=cutoff,
            evicted_records=records, recovered=True,
        )  # fmt: skip
        journal.append(session_id, compact)
    return compacted, restores
