"""Progress of long work: `tavern-harness run` counts plays, a campaign counts runs; each a
`rich` bar on a terminal and plain lines elsewhere, with calls, tokens and the elapsed time."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from test_campaign import _campaign

from harness.campaign import plan_campaign, run_campaign
from harness.cli import main
from harness.loading import load_script
from harness.progress import CampaignProgress, RunProgress, planned_plays
from harness.results import read_results

PLAIN = re.compile(
    r"^\[(\d+)/(\d+)\] (\S+) (.+): (\d+) calls, (\d+) tokens \((\d+\.\d) s so far\)$"
)


def test_run_prints_one_plain_line_per_play_off_a_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scripts = ["whisper-secrecy", "undo-replay", "idle-scene"]
    assert main(["run", *scripts, "--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    steps = [m.groups() for line in out.splitlines() if (m := PLAIN.match(line))]
    total = sum(planned_plays(load_script(s).script) for s in scripts)
    assert [int(s[0]) for s in steps] == list(range(1, total + 1))
    assert {int(s[1]) for s in steps} == {total}
    assert [s[2] for s in steps].count("undo-replay") == 4
    assert ("undo-replay", "undo of turn 1") in [(s[2], s[3]) for s in steps]
    results = read_results(tmp_path / "results.jsonl")
    assert int(steps[-1][4]) == sum(r.calls for r in results.runs)  # calls so far, at the end
    # A plain line per play: each run has one invariants probe per play.
    plays = sum(1 for p in results.probes if p.probe == "invariants")
    assert plays == total


def test_run_progress_is_a_bar_on_a_terminal() -> None:
    out = io.StringIO()
    with RunProgress(total=3, stream=out, terminal=True) as progress:
        progress.start_script("soak")
        for n in (1, 2, 3):
            progress.step("soak", f"turn {n}", calls=2, tokens=50)
    text = out.getvalue()
    assert "3/3" in text and "6 calls" in text and "150 tokens" in text and "soak" in text
    assert "\x1b[" in text  # drawn, not printed
    assert not any(PLAIN.match(line) for line in text.splitlines())


def test_run_progress_grows_its_total_rather_than_overflow() -> None:
    out = io.StringIO()
    with RunProgress(total=1, stream=out, terminal=False) as progress:
        progress.step("x", "turn 1", calls=1, tokens=0)
        progress.step("x", "compact", calls=1, tokens=0)  # a kind the count did not know
    assert out.getvalue().splitlines()[-1].startswith("[2/2] x compact: 2 calls, 0 tokens")


def test_a_campaign_prints_one_line_per_run_off_a_terminal_and_a_bar_on_one(
    tmp_path: Path,
) -> None:
    plan = plan_campaign(_campaign(tmp_path / "exp"))
    out = io.StringIO()
    assert run_campaign(plan, tmp_path / "out", command="run", stream=out) == 0
    lines = [x for x in out.getvalue().splitlines() if x.startswith("[")]
    assert [x.split("]")[0] for x in lines] == [f"[{n}/8" for n in range(1, 9)]
    runs = read_results(tmp_path / "out" / "results.jsonl").runs
    calls = sum(r.calls for r in runs)
    assert f"({calls} calls, 0 tokens, " in lines[-1]
    assert re.search(r"\d+\.\d s so far\)$", lines[-1])

    drawn = io.StringIO()
    with CampaignProgress("small", total=8, done=5, stream=drawn, terminal=True) as progress:
        for run in runs[5:]:
            progress.finished(run)
    text = drawn.getvalue()
    assert "8/8" in text and f"{sum(r.calls for r in runs[5:])} calls" in text
    assert not any(x.startswith("[") for x in text.splitlines())
