"""Journal and store agree once a session is opened again (issue 41, hole 5).

A process killed between the store's commit of a turn and the journal's `commit` line left a
committed turn the journal never marked; one killed between the store's undo and the `undo`
line left a journal commit the store does not hold. Opening the session again (a new runner
over the same data dir) reconciles: a recovered commit marker for every committed turn the
journal lacks, and the reverse case marked. Agreement is read here by a plain walk of the
journal's markers, not by the code under test.
"""

from __future__ import annotations

import pytest

from tavern.records import CommitLine, CompactLine, JournalLine, RestoreLine, UndoLine
from tavern.store import JournalWriter, journal_path, read_journal

from .compaction_kit import answers
from .kit import Kit, KitFactory, run


class Killed(Exception):
    """The process dies here."""


def journal_turns(kit: Kit, sid: str) -> dict[int, int]:
    """Turn -> revision of every turn the journal says is committed (commits minus undos)."""
    turns: dict[int, int] = {}
    for line in read_journal(journal_path(kit.data_dir, sid)):
        if isinstance(line, CommitLine):
            turns[line.turn_number] = line.revision
        elif isinstance(line, UndoLine):
            turns.pop(line.removed_turn, None)
    return turns


def store_turns(kit: Kit, sid: str) -> dict[int, int]:
    """Turn -> revision after it, for every turn the store holds."""
    return {t.turn_number: t.revision for t in kit.store.committed_turns(sid)}


def _dying_at(kind: type, monkeypatch: pytest.MonkeyPatch) -> None:
    real = JournalWriter.append

    def append(self: JournalWriter, session_id: str, line: JournalLine) -> None:
        if isinstance(line, kind):
            raise Killed
        real(self, session_id, line)

    monkeypatch.setattr(JournalWriter, "append", append)


def test_a_turn_committed_without_its_line_is_marked_on_reopen(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    kit = make_kit("parrot")
    sid = kit.create()
    kit.play(sid, speech="Who keeps the cellar key?")
    with monkeypatch.context() as m:
        _dying_at(CommitLine, m)
        with pytest.raises(Killed):
            kit.play(sid, speech="And who bolted the trapdoor?")
    assert kit.state(sid).turn_number == 2 and 2 not in journal_turns(kit, sid)
    reopened = make_kit("parrot")
    run(reopened.runner.view(sid))
    assert journal_turns(reopened, sid) == store_turns(reopened, sid) == {1: 1, 2: 2}


def test_an_undo_without_its_line_is_marked_on_reopen(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    kit = make_kit("parrot")
    sid = kit.create()
    kit.play(sid, speech="Who keeps the cellar key?")
    kit.play(sid, speech="And who bolted the trapdoor?")
    with monkeypatch.context() as m:
        _dying_at(UndoLine, m)
        with pytest.raises(Killed):
            run(kit.runner.undo(sid))
    assert kit.state(sid).turn_number == 1 and 2 in journal_turns(kit, sid)
    reopened = make_kit("parrot")
    run(reopened.runner.view(sid))
    assert journal_turns(reopened, sid).keys() == store_turns(reopened, sid).keys() == {1}


def journal_checkpoints(kit: Kit, sid: str) -> list[str]:
    """The checkpoint ids the journal says are live: compact lines minus restore lines,
    walked here by hand (last in, first out)."""
    live: list[str] = []
    for line in read_journal(journal_path(kit.data_dir, sid)):
        if isinstance(line, CompactLine):
            live.append(line.checkpoint_id)
        elif isinstance(line, RestoreLine):
            assert live and live[-1] == line.checkpoint_id
            live.pop()
    return live


def test_compactions_and_restores_without_their_lines_are_marked_on_reopen(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    kit = make_kit(fn=answers)
    sid = kit.create()
    for i in range(5):
        kit.play(sid, speech=f"Line {i}.")
    first = run(kit.runner.compact(sid, retention_turns=3)).checkpoint_id
    with monkeypatch.context() as m:
        _dying_at(CompactLine, m)
        with pytest.raises(Killed):
            run(kit.runner.compact(sid, retention_turns=1))
    second = kit.store.checkpoints(sid)[-1].id
    assert journal_checkpoints(kit, sid) == [first]  # the store holds two
    reopened = make_kit(fn=answers)
    run(reopened.runner.view(sid))
    assert journal_checkpoints(reopened, sid) == [first, second]
    with monkeypatch.context() as m:
        _dying_at(RestoreLine, m)
        with pytest.raises(Killed):
            run(reopened.runner.restore(sid))
    again = make_kit(fn=answers)
    run(again.runner.view(sid))
    assert (
        journal_checkpoints(again, sid) == [first] == [c.id for c in again.store.checkpoints(sid)]
    )
    marked = [
        x for x in read_journal(journal_path(again.data_dir, sid))
        if isinstance(x, CompactLine | RestoreLine) and x.recovered
    ]  # fmt: skip
    assert [(x.kind, x.checkpoint_id) for x in marked] == [
        ("compact", second),
        ("restore", second),
    ]
