"""The boundary sweep over the summaries (each ledger's `memory_summary`, the story summary,
and the records live compactions hold), and the `memory_revisions` and `compactions` views,
on planted runs whose every value is known. Each guard has its planted leak and its clean
twin."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from analysis_planted import ALL, Planted, at
from harness_kit import play

import tavern.agents.summarizer as summarizer_module
from harness.analysis import connect, leaks_df
from harness.export import write_exports
from harness.loading import LoadedScript
from harness.records.script import Script
from tavern.records import (
    Audience,
    CommitLine,
    CompactLine,
    HistoryRecord,
    MemoryRevision,
    RestoreLine,
    SessionState,
    SpeechRecord,
    ThoughtRecord,
)
from tavern.store import session_dir

WHISPER = Audience(origin="whisper", perceivers=["C1", "C2"], aware=["C3"])
CODE = "Quill7731"
THOUGHT = "Saltmarrow5521"


def _whisper() -> SpeechRecord:
    return SpeechRecord(seq=2, turn_number=1, speaker="C1", author="human",
                        text=f"The code is {CODE}.", audience=WHISPER)  # fmt: skip


def _history(*, said_aloud: bool = False) -> list[HistoryRecord]:
    records: list[HistoryRecord] = [
        SpeechRecord(seq=1, turn_number=1, speaker="C1", author="human", text="Evening.",
                     audience=ALL),
        _whisper(),
        ThoughtRecord(seq=3, turn_number=1, speaker="C2", author="character",
                      text=f"I must keep {THOUGHT} to myself.",
                      audience=Audience(origin="private", perceivers=["C2"])),
    ]  # fmt: skip
    if said_aloud:
        records.append(
            SpeechRecord(seq=4, turn_number=2, speaker="C2", author="character",
                         text=f"Everyone, the code is {CODE}!", audience=ALL)
        )  # fmt: skip
    return records


def _summarized(run: Planted, memory: dict[str, str], story: str) -> SessionState:
    state = run.state()
    ledgers = {
        slot: ledger.model_copy(update={"memory_summary": memory.get(slot, "")})
        for slot, ledger in state.ledgers.items()
    }
    return state.model_copy(update={"ledgers": ledgers, "story_summary": story})


def _summary_leaks(data_dir: Path) -> list[list[object]]:
    rows = leaks_df(data_dir)
    return rows[["agent", "rule", "excerpt"]].values.tolist()  # type: ignore[no-any-return]


MEMORY = {
    "C2": f"I heard {CODE} whispered; I keep {THOUGHT} to myself.",  # both its own to know
    "C3": f"Ilse gave Maren the code {CODE}.",  # planted: C3 only noticed a whisper
}
STORY = f"Ilse said the strongbox code was {CODE}."  # planted: no public record said it


def test_a_canary_in_a_summary_its_reader_never_perceived_is_a_leak(
    tavern_data_dir: Path,
) -> None:
    run = Planted(tavern_data_dir)
    run.export(_history(), _summarized(run, MEMORY, STORY))
    assert _summary_leaks(tavern_data_dir) == [
        ["memory_summary:C3", "memory_summary", CODE],
        ["summarizer", "story_summary", CODE],
    ]


def test_once_the_canary_is_said_aloud_the_summaries_may_hold_it(tavern_data_dir: Path) -> None:
    run = Planted(tavern_data_dir)
    run.export(_history(said_aloud=True), _summarized(run, MEMORY, STORY))
    assert _summary_leaks(tavern_data_dir) == []


def test_another_characters_thought_in_a_story_summary_is_a_leak(tavern_data_dir: Path) -> None:
    run = Planted(tavern_data_dir)
    story = f"Maren keeps {THOUGHT} to herself."
    run.export(_history(said_aloud=True), _summarized(run, {"C3": story}, story))
    assert _summary_leaks(tavern_data_dir) == [
        ["memory_summary:C3", "memory_summary", THOUGHT],
        ["summarizer", "story_summary", THOUGHT],
    ]


def test_a_whisper_compacted_away_is_still_a_secret(tavern_data_dir: Path) -> None:
    """The whisper lives only in a compaction's checkpoint (the `compacted` export)."""
    run = Planted(tavern_data_dir)
    state = _summarized(run, {"C3": f"Ilse gave Maren the code {CODE}."}, "")
    live = [r for r in _history() if r.seq != 2]
    folder = session_dir(tavern_data_dir, run.session_id)
    write_exports(folder, state, live)  # the checkpoint not exported: nothing to sweep for
    assert _summary_leaks(tavern_data_dir) == []
    write_exports(folder, state, live, [_whisper()])
    assert _summary_leaks(tavern_data_dir) == [["memory_summary:C3", "memory_summary", CODE]]


def _revision(owner: str, outcome: str, **fields: object) -> MemoryRevision:
    return MemoryRevision.model_validate(
        {"owner": owner, "outcome": outcome, "folded_lines": 4, "summary_chars": 80, **fields}
    )


def _journal(run: Planted) -> duckdb.DuckDBPyConnection:
    sid = run.session_id
    revisions = [
        _revision("C2", "revised"),
        _revision("C3", "refused", reason="unlearned_name", detail=["Ilse"], summary_chars=0),
    ]
    run.write(CommitLine(ts=at(10), session_id=sid, turn_number=1, revision=1, record_count=3,
                         tick=1, control_returned=True, memory_revisions=revisions))  # fmt: skip
    failed = [_revision("C2", "failed", reason="timeout")]
    run.write(CommitLine(ts=at(20), session_id=sid, turn_number=2, revision=2, record_count=3,
                         tick=2, control_returned=True, memory_revisions=failed))  # fmt: skip
    run.undo(2, 30)
    run.write(CompactLine(ts=at(40), session_id=sid, turn_number=1, revision=4,
                          checkpoint_id="cp-aaaa", cutoff_turn=0, evicted_records=5,
                          evicted_turns=1, kept_turns=1, summary_chars=120))  # fmt: skip
    run.write(CompactLine(ts=at(50), session_id=sid, turn_number=1, revision=5,
                          checkpoint_id="cp-bbbb", parent_id="cp-aaaa", cutoff_turn=1,
                          evicted_records=3, evicted_turns=1, kept_turns=0, summary_chars=150,
                          trigger="auto", prompt_tokens=3000, token_count="estimate",
                          context_tokens=4000))  # fmt: skip
    run.write(RestoreLine(ts=at(60), session_id=sid, turn_number=1, revision=6,
                          checkpoint_id="cp-bbbb", cutoff_turn=1, restored_records=3))  # fmt: skip
    return connect(run.data_dir, sweep=False)


def test_memory_revisions_view_reads_every_outcome(tavern_data_dir: Path) -> None:
    con = _journal(Planted(tavern_data_dir))
    rows = con.execute(
        "SELECT turn_number, owner, outcome, reason, detail, folded_lines, undone "
        "FROM memory_revisions ORDER BY ts, owner"
    ).fetchall()
    assert rows == [
        (1, "C2", "revised", None, [], 4, False),
        (1, "C3", "refused", "unlearned_name", ["Ilse"], 4, False),
        (2, "C2", "failed", "timeout", [], 4, True),  # its turn was undone
    ]


def test_compactions_view_reads_compact_and_restore_lines(tavern_data_dir: Path) -> None:
    con = _journal(Planted(tavern_data_dir))
    rows = con.execute(
        "SELECT action, checkpoint_id, parent_id, cutoff_turn, evicted_records, "
        "restored_records, trigger, prompt_share, restored FROM compactions ORDER BY ts"
    ).fetchall()
    assert rows == [
        ("compact", "cp-aaaa", None, 0, 5, None, "manual", None, False),
        ("compact", "cp-bbbb", "cp-aaaa", 1, 3, None, "auto", 0.75, True),
        ("restore", "cp-bbbb", None, 1, None, 3, None, None, False),
    ]


WHISPERED = {
    "schema_version": 1,
    "id": "whisper-then-compact",
    "title": "A whisper, a compaction that folds it away, the sweep over the run",
    "scenario": "the-toll-house",
    "events": [
        {"kind": "turn", "speech": f"The code is {CODE}.", "whisper_to": ["C2"],
         "force_speaker": "Narrator"},
        {"kind": "turn", "speech": "The ferry leaves at dawn.", "repeat": 2},
        {"kind": "compact", "retention_turns": 1},
    ],
}  # fmt: skip


def _swept_run(data_dir: Path) -> list[list[object]]:
    outcome = play(LoadedScript(Script.model_validate(WHISPERED), "test"), data_dir)
    assert outcome.run.error is None
    compacted = list(data_dir.rglob("compacted.jsonl"))
    assert compacted and CODE in compacted[0].read_text()  # the whisper, folded away
    rows = leaks_df(data_dir)
    summaries = rows[rows["rule"].isin(["story_summary", "memory_summary"])]
    return summaries[["agent", "rule", "excerpt"]].values.tolist()  # type: ignore[no-any-return]


def test_a_harness_run_exports_what_it_compacted_and_its_summaries_are_swept(
    tavern_data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _swept_run(tavern_data_dir / "clean") == []
    # Planted: a summarizer that reads whispers too (the parrot repeats the code).
    monkeypatch.setattr(summarizer_module, "is_public", lambda record: True)
    assert ["summarizer", "story_summary", CODE] in _swept_run(tavern_data_dir / "faulty")
