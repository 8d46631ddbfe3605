"""`tavern-harness run`: scripts played in-process, results beside the journals; the soak is
the bundled `soak` script with `--report`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main
from harness.records.results import SessionSnapshot
from harness.results import read_results
from tavern.llm.fake import FakeProvider
from tavern.llm.provider import ProviderRequest, ProviderResponse
from tavern.store import SessionStore, journal_path, read_journal


def test_run_writes_results_beside_the_journals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["run", "whisper-secrecy", "nomes-aprendidos", "--data-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "whisper-secrecy (the-toll-house, en, fake/fake): 3 turns, 8 of 8 probes passed" in out
    results = read_results(tmp_path / "results.jsonl")
    assert [r.script for r in results.runs] == ["whisper-secrecy", "nomes-aprendidos"]
    assert [r.language for r in results.runs] == ["en", "pt-BR"]
    for run in results.runs:
        journal = tmp_path / run.journal
        assert journal == journal_path(tmp_path, run.session_id)
        calls = [x for x in read_journal(journal) if x.kind == "llm_call"]
        assert run.calls == len(calls) and run.harness_ms < run.wall_ms
        snapshot = SessionSnapshot.model_validate_json((journal.parent / "final.json").read_bytes())
        assert snapshot.state is not None and snapshot.state.turn_number == run.turns_played
        mine = [p for p in results.probes if p.run_id == run.run_id]
        assert len(mine) == run.probes and all(p.session_id == run.session_id for p in mine)


def test_the_soak_is_a_bundled_script_with_a_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["run", "soak", "--provider", "fake", "--report", "-v", "--data-dir", str(tmp_path)]
    assert main(args) == 0
    out = capsys.readouterr().out
    turns = [line.split(":")[0] for line in out.splitlines() if line.startswith("turn ")]
    assert turns == [f"turn {n}" for n in range(1, 13)]
    assert "calls by role and outcome:" in out and "director" in out and "prose" in out
    assert "human attempts with an outcome" in out and "clamp changes:" in out
    assert "FAILED" not in out
    [run] = read_results(tmp_path / "results.jsonl").runs
    assert run.seed == 11 and run.turns_played == 12  # the soak's own config
    with SessionStore(tmp_path) as store:
        assert store.load(run.session_id).turn_number == 12


def test_a_failing_model_is_counted_and_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    async def unparsable(self: FakeProvider, request: ProviderRequest) -> ProviderResponse:
        return ProviderResponse(content="I'm sorry, I can't answer in JSON.")

    monkeypatch.setattr(FakeProvider, "complete", unparsable)
    args = ["run", "undo-replay", "--report", "--data-dir", str(tmp_path)]
    assert main(args) == 1
    out = capsys.readouterr().out
    assert "1 turns, 1 turns failed" in out
    assert "failed: turn 1 director attempt 1 (parse)" in out
    assert "FAILED recall heard-first (turn 1, C2) prompt: turn_failed: model_failure" in out
    [run] = read_results(tmp_path / "results.jsonl").runs
    assert run.turns_failed == [1]
    # The undo found nothing to undo: the run stopped there, as an error.
    assert run.status == "error" and "409" in (run.error or "")
    lines = [json.loads(x) for x in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert lines[-1]["kind"] == "run"
