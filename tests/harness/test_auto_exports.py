"""Exports written without asking: `tavern-harness run` leaves each session's history,
memory and cast beside its journal; `campaign run|resume` writes each finished run's Parquet
partition, and a resume writes those a killed process left missing."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest
from test_campaign import _campaign

from harness.analysis import connect
from harness.campaign import plan_campaign, run_campaign
from harness.cli import main
from harness.export import run_partition, sync_partitions
from harness.loader import PARTITIONS_NAME
from harness.results import read_results
from tavern.store import SessionStore, session_dir


def test_a_run_exports_every_session_beside_its_journal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "whisper-secrecy", "undo-replay", "--data-dir", str(tmp_path)]) == 0
    capsys.readouterr()
    runs = read_results(tmp_path / "results.jsonl").runs
    with SessionStore(tmp_path) as store:
        stored = {r.session_id: len(store.history(r.session_id)) for r in runs}
    for run in runs:
        folder = session_dir(tmp_path, run.session_id)
        for name in ("history", "memory", "session"):
            assert (folder / f"{name}.jsonl").stat().st_size > 0, (run.script, name)
    con = connect(tmp_path)
    exported = dict(con.execute("SELECT session_id, count(*) FROM history GROUP BY ALL").fetchall())
    assert exported == stored  # the store's live history, undone turns gone
    assert con.execute("SELECT count(*) FROM sessions").fetchone() == (2,)
    whispers = con.execute("SELECT count(*) FROM speech WHERE origin = 'whisper'").fetchone()
    assert whispers is not None and whispers[0] > 0


def _partition_rows(root: Path) -> list[tuple[str, str, int]]:
    glob = str(root / "**" / "journal.parquet")
    return duckdb.sql(
        f"""SELECT arm, run, count(*) FILTER (WHERE kind = 'llm_call')
            FROM read_parquet('{glob}', hive_partitioning = true)
            GROUP BY ALL ORDER BY ALL"""
    ).fetchall()


def test_a_campaign_writes_its_partitions_and_a_resume_repairs_them(tmp_path: Path) -> None:
    plan = plan_campaign(_campaign(tmp_path / "exp"))
    out = tmp_path / "out"
    assert run_campaign(plan, out, command="run") == 0
    runs = read_results(out / "results.jsonl").runs
    root = out / PARTITIONS_NAME
    rows = _partition_rows(root)
    assert [(arm, run) for arm, run, _ in rows] == sorted(
        (r.arm, f"{r.script}__r{r.repeat}") for r in runs
    )
    calls = {(r.arm, f"{r.script}__r{r.repeat}"): r.attempts for r in runs}
    assert {(a, r): n for a, r, n in rows} == calls
    # The same views over the partitions and over the directory; the directory's search
    # leaves its partitions (a copy) out, so nothing counts twice.
    over_dir, over_parts = connect(out), connect(root)
    query = "SELECT count(*), count(DISTINCT session_id) FROM calls"
    assert over_dir.execute(query).fetchone() == over_parts.execute(query).fetchone()
    assert over_dir.execute(query).fetchone() == (sum(calls.values()), 8)
    history = "SELECT count(*) FROM history"
    assert over_dir.execute(history).fetchone() == over_parts.execute(history).fetchone()
    arms = over_parts.execute("SELECT DISTINCT arm FROM calls ORDER BY arm").fetchall()
    assert arms == [("adversary",), ("parrot",)]

    # A process killed after two results lines but before their partitions; a stale one.
    first, second = runs[0], runs[1]
    shutil.rmtree(run_partition(root, first))
    (run_partition(root, second) / "journal.parquet").unlink()
    stale = root / "campaign=small" / "arm=parrot" / "run=ghost__r9"
    stale.mkdir(parents=True)
    (stale / "journal.parquet").write_bytes(b"not parquet")
    assert run_campaign(plan, out, command="resume") == 0
    assert _partition_rows(root) == rows and not stale.exists()
    assert sync_partitions(out) == []  # nothing left to write


def test_sync_partitions_catches_a_missing_partition(tmp_path: Path) -> None:
    """The negative control: partitions deleted behind the campaign's back are found."""
    plan = plan_campaign(_campaign(tmp_path / "exp"))
    out = tmp_path / "out"
    assert run_campaign(plan, out, command="run") == 0
    shutil.rmtree(out / PARTITIONS_NAME)
    written = sync_partitions(out)
    assert len(written) == 8 and all((p / "journal.parquet").exists() for p in written)
