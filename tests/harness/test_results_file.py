"""The results file: whole blocks per run, a half-written tail cut on recovery."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from harness.records.results import ProbeCheck, ProbeResult, RunResult
from harness.results import ResultsFile, read_results

NOW = datetime(2026, 12, 6, tzinfo=UTC)


def _probe(run_id: str, n: int) -> ProbeResult:
    return ProbeResult(
        run_id=run_id, session_id="s", probe="recall", probe_id=f"recall-{n}", event_index=n,
        turn_number=1, passed=True, checks=[ProbeCheck(name="prompt", passed=True)],
    )  # fmt: skip


def _run(run_id: str) -> RunResult:
    return RunResult(
        run_id=run_id, script="x", script_sha256="0" * 64, language="en",
        scenario="the-toll-house", controlled="C1", session_id="s", journal="j",
        target="in_process", provider="fake", model="fake", config_sha256="0" * 64,
        started_at=NOW, ended_at=NOW, status="completed", turns_played=1, probes=2,
        probes_passed=2, calls=3, attempts=3, failed_attempts=0, model_ms=1.0, wall_ms=2.0,
        harness_ms=0.1,
    )  # fmt: skip


def test_blocks_are_read_back_and_a_torn_tail_is_cut(tmp_path: Path) -> None:
    results = ResultsFile(tmp_path / "results.jsonl")
    assert results.recover() == set()
    results.append([_probe("a", 1), _probe("a", 2)], _run("a"))
    results.append([_probe("b", 1)], _run("b"))
    whole = results.path.read_bytes()
    # A crash mid-block: the probes of run c are written, its run line only half.
    half = _probe("c", 1).model_dump_json() + "\n" + _run("c").model_dump_json()[:40]
    results.path.write_bytes(whole + half.encode())
    read = read_results(results.path)
    assert [r.run_id for r in read.runs] == ["a", "b"] and read.dropped == 2
    assert [p.run_id for p in read.probes] == ["a", "a", "b"]
    assert results.recover() == {"a", "b"}
    assert results.path.read_bytes() == whole  # cut back to the last finished run
    results.append([_probe("c", 1)], _run("c"))
    assert [r.run_id for r in read_results(results.path).runs] == ["a", "b", "c"]


def test_orphan_probe_lines_before_a_run_line_are_dropped(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    lines = [_probe("ghost", 1), _probe("a", 1), _run("a")]
    path.write_text("".join(x.model_dump_json() + "\n" for x in lines))
    read = read_results(path)
    assert [p.run_id for p in read.probes] == ["a"] and read.dropped == 1
