"""A campaign's pre-registered decision applied by code (`harness.compare.decide_campaign`,
`campaign_decision`) on the battery of its runs, arms read from its results file."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from harness.analysis import connect
from harness.campaign import plan_campaign, run_campaign
from harness.compare import campaign_decision, decide_campaign
from harness.export import export_campaign
from harness.metrics import run_metrics
from harness.records.campaign import Preregistration
from harness.results import read_results

SCRIPT = {
    "schema_version": 1,
    "id": "tiny",
    "title": "one whispered turn",
    "scenario": "the-toll-house",
    "events": [
        {"kind": "turn", "speech": "Psst: Wren4411.", "whisper_to": ["C2"], "force_speaker": "C2"},
        {"kind": "boundary", "canaries": ["Wren4411"]},
    ],
}
CAMPAIGN = """
scripts = ["tiny.json"]
repeats = 3
seeds = [1, 2, 3]

[[arms]]
name = "parrot"
config = { provider = "fake" }

[[arms]]
name = "adversary"
config = { provider = "fake", options = { mode = "adversary" } }

[preregistration]
metrics = ["probe_pass_rate", "calls_per_run"]
primary_metric = "probe_pass_rate"
control = "parrot"
treatment = "adversary"
better = "higher"
decision_rule = "adversary loses if its interval lies below parrot's"
"""
PRE = Preregistration(
    metrics=["story_yield"], primary_metric="story_yield", control="a", treatment="b",
    better="higher", decision_rule="b wins if its interval clears a's and the floor",
)  # fmt: skip


def test_a_campaign_directory_is_decided_by_its_preregistration(tmp_path: Path) -> None:
    folder = tmp_path / "exp"
    folder.mkdir()
    (folder / "tiny.json").write_text(json.dumps(SCRIPT))
    (folder / "small.toml").write_text(CAMPAIGN)
    out = tmp_path / "out"
    assert run_campaign(plan_campaign(folder / "small.toml"), out, command="run") == 0
    decision = campaign_decision(out)
    primary = decision.iloc[0]
    # Six runs, three pairs (tiny, seeds 1-3): the boundary holds in both arms, so the
    # pass rates are equal and nothing is decided.
    assert (primary.metric, bool(primary.primary), primary.n) == ("probe_pass_rate", True, 3)
    assert (primary.a_mean, primary.b_mean, primary.verdict) == (1.0, 1.0, "none")
    # The battery's calls per run are the journal's first attempts: each arm's mean is the
    # mean of its runs' `RunResult.calls`.
    runs = read_results(out / "results.jsonl").runs
    calls = decision.iloc[1]
    assert (calls.metric, calls.n) == ("calls_per_run", 3)
    for arm, mean in (("parrot", calls.a_mean), ("adversary", calls.b_mean)):
        assert mean == pytest.approx(sum(r.calls for r in runs if r.arm == arm) / 3)
    # Exported beside the journals, the history is SQL too; as partitions, the same runs
    # under the same arms and pairing keys.
    assert len(export_campaign(out)) == 6
    with connect(out) as con:
        assert con.execute("SELECT count(DISTINCT session_id) FROM speech").fetchone() == (6,)
    parts = export_campaign(out, tmp_path / "parts")
    assert sorted(p.relative_to(tmp_path / "parts").as_posix() for p in parts)[:2] == [
        "campaign=small/arm=adversary/run=tiny__r0",
        "campaign=small/arm=adversary/run=tiny__r1",
    ]
    with connect(tmp_path / "parts") as con:
        battery = run_metrics(con)
    assert sorted(zip(battery["arm"], battery["run"], strict=True))[:3] == [
        ("adversary", "tiny__r0"), ("adversary", "tiny__r1"), ("adversary", "tiny__r2"),
    ]  # fmt: skip


def test_no_manifest_is_refused(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="never ran"):
        campaign_decision(tmp_path)


def _battery(a: list[float], b: list[float]) -> pd.DataFrame:
    runs = [f"tiny__r{i}" for i in range(len(a))]
    return pd.DataFrame(
        {"arm": ["a"] * len(a) + ["b"] * len(b), "run": runs + runs, "story_yield": a + b}
    )


def test_the_primary_rule_decides_beyond_the_noise_floor() -> None:
    out = decide_campaign(_battery([0.20, 0.21, 0.22, 0.20], [0.50, 0.52, 0.51, 0.50]), PRE)
    assert out.iloc[0][["metric", "primary", "verdict"]].tolist() == ["story_yield", True, "b"]


def test_negative_control_identical_arms_decide_nothing() -> None:
    values = [0.20, 0.25, 0.22, 0.21]
    assert decide_campaign(_battery(values, values), PRE).iloc[0].verdict == "none"


def test_a_primary_metric_outside_the_battery_is_refused() -> None:
    with pytest.raises(ValueError, match="not in the battery"):
        decide_campaign(_battery([1.0], [1.0]).drop(columns="story_yield"), PRE)


def test_a_metric_the_battery_lacks_is_listed_never_dropped() -> None:
    """`leaks` is a metric only on a swept connection: a battery without it says so."""
    pre = PRE.model_copy(update={"metrics": ["story_yield", "leaks"]})
    out = decide_campaign(_battery([0.2, 0.2, 0.2], [0.2, 0.2, 0.2]), pre)
    assert out.iloc[1][["metric", "verdict", "reason"]].tolist() == [
        "leaks", "none", "not a metric of the battery",
    ]  # fmt: skip
