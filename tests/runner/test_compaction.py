"""Compaction through the runner: one transaction, reversible, refusing a forged checkpoint.

Each guard has its negative control: a canary planted past the summarizer's public filter
is caught, a tampered and a foreign checkpoint are refused with nothing changed, and a
failure inside the compaction's transaction leaves the session byte-equal.
"""

from __future__ import annotations

import json
import sqlite3

import pytest

from tavern.agents import summarizer
from tavern.records import CompactLine, RestoreLine, seal_checkpoint
from tavern.runner import compaction
from tavern.runner.calls import AgentCaller
from tavern.runner.compaction import restore as restore_fn
from tavern.runner.interface import ConflictError, ModelFailureError, WorkDone
from tavern.store import journal_path, read_journal

from .compaction_kit import CANARY_THOUGHT, CANARY_WHISPER, answers, dump
from .kit import Kit, KitFactory, run


def _story(kit: Kit, turns: int = 6) -> str:
    sid = kit.create()
    kit.play(sid, speech=f"The code is {CANARY_WHISPER}.", whisper_to=["C2"])
    kit.play(sid, thought=f"I hid the {CANARY_THOUGHT} under the cask.")
    for i in range(turns - 2):
        kit.play(sid, speech=f"Teodor says the seal number {i} was forged.")
    return sid


def _summarizer_prompts(kit: Kit) -> str:
    return "\n".join(m.content for r in kit.requests("summarizer") for m in r.messages)


def test_summarizer_sees_public_records_only(make_kit: KitFactory) -> None:
    kit = make_kit(fn=answers)
    sid = _story(kit)
    result = run(kit.runner.compact(sid, retention_turns=2))
    assert result.cutoff_turn == 4 and result.records > 0
    prompt = _summarizer_prompts(kit)
    assert "seal number 0 was forged" in prompt  # the public records did reach it
    assert CANARY_WHISPER not in prompt and CANARY_THOUGHT not in prompt
    assert CANARY_WHISPER not in kit.state(sid).story_summary
    assert "C2" not in prompt and "C1" not in prompt  # display names, never slot ids


def test_negative_control_a_bypassed_filter_lets_the_canary_through(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(summarizer, "is_public", lambda record: True)
    kit = make_kit(fn=answers)
    sid = _story(kit)
    run(kit.runner.compact(sid, retention_turns=2))
    prompt = _summarizer_prompts(kit)
    assert CANARY_WHISPER in prompt  # the whisper reaches the prompt: the check above fails
    assert CANARY_WHISPER in kit.state(sid).story_summary  # and the parrot's summary


def test_compact_then_restore_is_the_identity_and_is_journaled(make_kit: KitFactory) -> None:
    kit = make_kit(fn=answers)
    sid = _story(kit, turns=8)
    before, history = kit.state(sid), kit.history(sid)
    done = run(kit.runner.compact(sid, retention_turns=3))
    assert done.cutoff_turn == 5
    live = kit.history(sid)
    assert live == [r for r in history if r.turn_number > 5]
    state = kit.state(sid)
    assert state.story_summary and state.revision == before.revision + 1
    assert state.turn_number == before.turn_number
    # the Director now reads the summary
    kit.play(sid, speech="And then?")
    director = kit.requests("director")[-1].messages[-1].content
    assert state.story_summary.splitlines()[0][:40] in director
    run(kit.runner.undo(sid))
    restored = run(kit.runner.restore(sid))
    assert restored.checkpoint_id == done.checkpoint_id and restored.records == done.records
    after = kit.state(sid)
    assert after.model_copy(update={"revision": before.revision}) == before
    assert kit.history(sid) == history
    lines = read_journal(journal_path(kit.data_dir, sid))
    compact = [x for x in lines if isinstance(x, CompactLine)]
    restore = [x for x in lines if isinstance(x, RestoreLine)]
    assert [(c.trigger, c.cutoff_turn, c.evicted_turns, c.kept_turns) for c in compact] == [
        ("manual", 5, 6, 3)
    ]
    assert restore[0].checkpoint_id == done.checkpoint_id
    assert restore[0].restored_records == done.records


def test_undo_across_a_compaction_keeps_the_summary(make_kit: KitFactory) -> None:
    kit = make_kit(fn=answers)
    sid = _story(kit, turns=6)
    run(kit.runner.compact(sid, retention_turns=2))  # cutoff 4, turns 5 and 6 live
    summary = kit.state(sid).story_summary
    kit.play(sid, speech="Later.")
    for expected in (6, 5, 4):
        run(kit.runner.undo(sid))
        state = kit.state(sid)
        assert state.turn_number == expected and state.story_summary == summary
    with pytest.raises(ConflictError, match="compacted"):
        run(kit.runner.undo(sid))  # turn 4 was folded into the summary
    run(kit.runner.restore(sid))
    assert kit.state(sid).story_summary == ""
    run(kit.runner.undo(sid))  # its records are back: turn 4 undoes again
    assert kit.state(sid).turn_number == 3


def test_restore_is_last_in_first_out(make_kit: KitFactory) -> None:
    kit = make_kit(fn=answers)
    sid = _story(kit, turns=6)
    first = run(kit.runner.compact(sid, retention_turns=4))
    for _ in range(3):
        kit.play(sid, speech="More.")
    second = run(kit.runner.compact(sid, retention_turns=2))
    assert kit.store.checkpoints(sid)[1].parent_id == first.checkpoint_id
    with pytest.raises(ConflictError, match="last in, first out"):
        run(kit.runner.restore(sid, checkpoint_id=first.checkpoint_id))
    assert run(kit.runner.restore(sid)).checkpoint_id == second.checkpoint_id
    assert run(kit.runner.restore(sid)).checkpoint_id == first.checkpoint_id
    with pytest.raises(ConflictError, match="no compaction"):
        run(kit.runner.restore(sid))


def _edit_body(kit: Kit, sid: str, edit: str, replacement: str) -> None:
    db = sqlite3.connect(kit.data_dir / "sessions.sqlite3")
    with db:
        (body,) = db.execute("SELECT body FROM compactions WHERE session_id = ?", (sid,)).fetchone()
        assert edit in body
        db.execute(
            "UPDATE compactions SET body = ? WHERE session_id = ?",
            (body.replace(edit, replacement, 1), sid),
        )
    db.close()


def test_a_tampered_checkpoint_is_refused_and_nothing_changes(make_kit: KitFactory) -> None:
    kit = make_kit(fn=answers)
    sid = _story(kit)
    run(kit.runner.compact(sid, retention_turns=2))
    _edit_body(kit, sid, "seal number 0 was forged", "seal number 0 was genuine")
    planted = dump(kit.data_dir, sid)
    with pytest.raises(ConflictError, match="tampered"):
        run(kit.runner.restore(sid))
    assert dump(kit.data_dir, sid) == planted


def test_a_foreign_checkpoint_is_refused_and_nothing_changes(make_kit: KitFactory) -> None:
    kit = make_kit(fn=answers)
    mine, other = _story(kit), _story(kit)
    run(kit.runner.compact(mine, retention_turns=2))
    run(kit.runner.compact(other, retention_turns=2))
    db = sqlite3.connect(kit.data_dir / "sessions.sqlite3")
    with db:  # the other session's checkpoint, row and all, planted as mine
        db.execute(
            "UPDATE compactions SET (id, content_hash, body) = (SELECT id, content_hash, body"
            " FROM compactions WHERE session_id = ?) WHERE session_id = ?",
            (other, mine),
        )
    db.close()
    planted = dump(kit.data_dir, mine)
    with pytest.raises(ConflictError, match="foreign"):
        run(kit.runner.restore(mine))
    assert dump(kit.data_dir, mine) == planted


def test_a_checkpoint_off_the_parent_chain_is_refused(make_kit: KitFactory) -> None:
    kit = make_kit(fn=answers)
    sid = _story(kit)
    run(kit.runner.compact(sid, retention_turns=2))
    (cp,) = kit.store.checkpoints(sid)
    forged = seal_checkpoint(
        sid,
        "cp-" + "a" * 16,
        cp.cutoff_turn,
        cp.records,
        cp.previous_summary,
        cp.summary,
        cp.created_at,
    )  # well sealed, but its parent is no checkpoint of the session
    db = sqlite3.connect(kit.data_dir / "sessions.sqlite3")
    with db:
        db.execute(
            "UPDATE compactions SET id = ?, parent_id = ?, content_hash = ?, body = ?"
            " WHERE session_id = ?",
            (forged.id, forged.parent_id, forged.content_hash, forged.model_dump_json(), sid),
        )
    db.close()
    planted = dump(kit.data_dir, sid)
    with pytest.raises(ConflictError, match="parent"):
        restore_fn(kit.store, kit.journal, sid)
    assert dump(kit.data_dir, sid) == planted


def test_a_failure_inside_the_transaction_leaves_the_session_byte_equal(
    make_kit: KitFactory,
) -> None:
    kit = make_kit(fn=answers)
    sid = _story(kit)
    before = dump(kit.data_dir, sid)
    base = kit.store.evictable(sid, 2)
    checkpoint = seal_checkpoint(
        sid,
        base.parent_id,
        base.cutoff_turn,
        base.records,
        "",
        "A summary.",
        base.state.created_at,
    )

    def crash() -> None:
        assert dump(kit.data_dir, sid) == before  # another connection sees nothing yet
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        kit.store.compact(sid, checkpoint, base.state.revision, before_commit=crash)
    assert dump(kit.data_dir, sid) == before
    # negative control: the same call without the failure does change the session
    kit.store.compact(sid, checkpoint, base.state.revision)
    assert dump(kit.data_dir, sid) != before


def test_a_failed_summarizer_writes_nothing(make_kit: KitFactory) -> None:
    def broken(request):  # type: ignore[no-untyped-def]
        if request.agent == "summarizer":
            return {"summary": ""}  # schema-invalid (minLength 1)
        return answers(request)

    kit = make_kit(fn=broken, attempts=1)
    sid = _story(kit)
    before = dump(kit.data_dir, sid)
    with pytest.raises(ModelFailureError):
        run(kit.runner.compact(sid, retention_turns=2))
    assert dump(kit.data_dir, sid) == before


def test_nothing_old_enough_is_a_conflict(make_kit: KitFactory) -> None:
    kit = make_kit(fn=answers)
    sid = _story(kit, turns=3)
    before = dump(kit.data_dir, sid)
    with pytest.raises(ConflictError, match="nothing older"):
        run(kit.runner.compact(sid, retention_turns=10))
    assert dump(kit.data_dir, sid) == before


def test_a_long_eviction_is_folded_in_runs_each_reading_the_last_summary(
    make_kit: KitFactory,
) -> None:
    kit = make_kit(fn=answers)
    sid = _story(kit, turns=8)
    state = kit.state(sid)
    caller = AgentCaller(kit.runner.client, sid, kit.runner._gate(state))
    shares: list[float] = []
    works: list[WorkDone] = []

    async def progress(stage: str, share: float | None, work: WorkDone | None = None) -> None:
        shares.append(share or 0.0)
        assert work is not None
        works.append(work)

    done = run(
        compaction.compact(
            kit.store,
            kit.journal,
            caller,
            sid,
            retention_turns=1,
            fold_chars=150,
            progress=progress,
        )  # fmt: skip
    )
    assert done is not None
    asked = kit.requests("summarizer")
    assert len(asked) >= 3 and len(shares) == len(asked) + 2  # a start, each call, the commit
    assert shares == sorted(shares) and shares[0] == 0.0 and shares[-1] == 1.0
    assert shares == [w.done / w.total for w in works]  # the fraction is the counted work
    assert [w.calls for w in works] == list(range(len(asked) + 1)) + [len(asked)]
    assert {w.calls_total for w in works} == {len(asked)}
    folded = sum(len(r) for r in summarizer.chunks(state, done.checkpoint.records, 150))
    assert works[-1].done == works[-1].total == folded + 1
    assert [w.written for w in works] == [0] * (len(works) - 1) + [len(done.checkpoint.records)]
    told = [
        json.loads(c.response or "{}")["summary"] for c in kit.calls(sid) if c.agent == "summarizer"
    ]
    for summary, later in zip(told, asked[1:], strict=False):
        assert summary[:30] in later.messages[-1].content  # each run reads the last summary
    assert done.state.story_summary == told[-1]


def test_a_restore_against_a_stale_revision_is_refused(make_kit: KitFactory) -> None:
    kit = make_kit(fn=answers)
    sid = _story(kit)
    run(kit.runner.compact(sid, retention_turns=2))
    revision = kit.state(sid).revision
    planted = dump(kit.data_dir, sid)
    with pytest.raises(ConflictError, match=f"at revision {revision}, not {revision - 1}"):
        restore_fn(kit.store, kit.journal, sid, expected_revision=revision - 1)
    assert dump(kit.data_dir, sid) == planted
    stored, _ = restore_fn(kit.store, kit.journal, sid, expected_revision=revision)  # control
    assert stored.revision == revision + 1 and kit.store.checkpoints(sid) == []
