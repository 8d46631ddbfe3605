"""A campaign of 2 arms x 3 scripts x 3 repeats (experiments/fake-modes.toml, fake provider)
is interrupted with Ctrl+C, resumed, killed with SIGKILL at a random point, and resumed
again to the same results file: every planned run is there exactly once, with its probes,
and no session of an unfinished run is left behind."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from harness.campaign import campaign_status, plan_campaign, read_manifest
from harness.cli import main
from harness.results import read_results
from tavern.store import SessionStore

REPO = Path(__file__).resolve().parents[2]
CAMPAIGN = REPO / "experiments" / "fake-modes.toml"


def _start(action: str, out: Path, data_dir: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "TAVERN_DATA_DIR": str(data_dir), "PYTHONUNBUFFERED": "1"}
    command = [str(Path(sys.executable).parent / "tavern-harness"), "campaign", action]
    return subprocess.Popen(
        [*command, str(CAMPAIGN), "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )


def _stop_after(process: subprocess.Popen[str], finished: int, delay: float, sig: int) -> str:
    """Let `finished` runs finish, wait `delay` seconds more, then send `sig`."""
    assert process.stdout is not None
    seen, lines = 0, []
    while seen < finished:
        line = process.stdout.readline()
        assert line, "".join(lines)  # the campaign ended before it could be stopped
        lines.append(line)
        seen += line.startswith("[")
    time.sleep(delay)
    process.send_signal(sig)
    rest, _ = process.communicate(timeout=120)
    return "".join(lines) + rest


@pytest.mark.timeout(900)
def test_interrupted_and_killed_campaign_resumes_to_every_run_once(
    tmp_path: Path, tavern_data_dir: Path
) -> None:
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    out = tmp_path / "campaign"
    plan = plan_campaign(CAMPAIGN)
    planned = [cell.run_id for cell in plan.cells]
    assert len(planned) == 18  # 2 arms x 3 scripts x 3 repeats

    first = _start("run", out, tavern_data_dir)
    log = _stop_after(first, rng.randint(1, 6), rng.uniform(0, 0.3), signal.SIGINT)
    assert first.returncode == 130, log
    manifest = read_manifest(out)
    assert manifest is not None and manifest.segments[0].interrupted
    assert manifest.segments[0].ended_at is not None

    second = _start("resume", out, tavern_data_dir)
    log = _stop_after(second, rng.randint(1, 6), rng.uniform(0, 0.3), signal.SIGKILL)
    assert second.returncode == -signal.SIGKILL, log
    manifest = read_manifest(out)
    assert manifest is not None and manifest.segments[1].ended_at is None  # killed: no end

    assert main(["campaign", "resume", str(CAMPAIGN), "--out", str(out)]) == 0, f"seed {seed}"
    results = read_results(out / "results.jsonl")
    counts = Counter(run.run_id for run in results.runs)
    assert sorted(counts) == sorted(planned) and set(counts.values()) == {1}, f"seed {seed}"
    assert results.dropped == 0
    per_run = Counter(probe.run_id for probe in results.probes)
    assert all(per_run[run.run_id] == run.probes for run in results.runs), f"seed {seed}"
    lines = (out / "results.jsonl").read_text().splitlines()
    assert len(lines) == len(results.runs) + len(results.probes)
    with SessionStore(out) as store:
        assert {s.id for s in store.list()} == {run.session_id for run in results.runs}
    status = "\n".join(campaign_status(plan, out))
    assert "done 18 of 18 (parrot 9/9, adversary 9/9)" in status
    assert "(interrupted)" in status and "no end recorded" in status
    assert "fingerprints: the same in every invocation and now" in status
