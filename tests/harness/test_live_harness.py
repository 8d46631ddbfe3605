"""Live: three bundled scripts on the embedded local model (`make test-live`).

What the kernel guarantees holds with a real model exactly as with the fake: every invariant
(clock, names, contract, journal, atomic), every boundary canary, every prompt-level `forbid`
of a recall or interview, and an interview changes nothing. What a model chooses to say (a
reply-level recall, who answers a question) is measured, not asserted. Each session then
replays byte-equal. The committed sample of such a run is `tests/harness/data/live-local/`.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from harness.cli import main
from harness.records.results import ProbeResult
from harness.replay import read_recording, replay_in_process
from harness.results import read_results

pytestmark = pytest.mark.live

SCRIPTS = ["whisper-secrecy", "zones-cellar", "learned-names"]


def _guaranteed(probe: ProbeResult) -> list[tuple[str, bool]]:
    """The checks of a probe that hold whatever the model answers."""
    if probe.probe in ("invariants", "boundary"):
        return [(c.name, c.passed) for c in probe.checks]
    if probe.probe == "interview":
        return [(c.name, c.passed) for c in probe.checks if c.name == "state_unchanged"]
    return []


@pytest.mark.timeout(7200)  # a CPU-only 0.5B model on a shared machine: minutes per turn
def test_three_bundled_scripts_on_the_local_model(tmp_path: Path) -> None:
    from tavern.llm.local.model_files import installed_model
    from tavern.llm.local.paths import local_paths
    from tavern.llm.local.runtime_build import runtime_info

    paths = local_paths()
    if installed_model(paths) is None or runtime_info(paths) is None:
        pytest.fail("the local model is not installed: run `tavern model install`")
    main(["run", *SCRIPTS, "--provider", "local", "--data-dir", str(tmp_path)])
    results = read_results(tmp_path / "results.jsonl")
    assert [r.script for r in results.runs] == SCRIPTS
    assert all(r.status == "completed" and r.provider == "local" for r in results.runs)
    assert all(r.prompt_tokens for r in results.runs)  # the server reports real usage
    failed = [
        (p.run_id, p.probe_id, name)
        for p in results.probes
        for name, passed in _guaranteed(p)
        if not passed
    ]
    assert not failed
    for run in results.runs:
        folder = (tmp_path / run.journal).parent
        report = asyncio.run(replay_in_process(read_recording(folder), tmp_path / "replay"))
        assert report.equal, (run.script, report.divergence, report.state_divergence)
