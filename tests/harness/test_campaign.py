"""Campaigns: the plan, the manifest and its fingerprints, refusals, status, and the Dask
executor giving the same results as the local one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import harness.campaign as campaign_module
from harness.campaign import campaign_status, plan_campaign, read_manifest, run_campaign
from harness.cli import main
from harness.dask_executor import DaskExecutor
from harness.fingerprint import take_fingerprint
from harness.loading import InputError, load_campaign
from harness.records.campaign import Fingerprint
from harness.results import read_results

SCRIPT = {
    "schema_version": 1,
    "id": "tiny",
    "title": "one whispered turn",
    "scenario": "the-toll-house",
    "events": [
        {"kind": "turn", "speech": "Psst: Wren4411.", "whisper_to": ["C2"], "force_speaker": "C2"},
        {"kind": "recall", "character": "C2", "require": ["Wren4411"], "levels": ["prompt"]},
        {"kind": "boundary", "canaries": ["Wren4411"]},
    ],
}
CAMPAIGN = """
scripts = ["tiny.json", "nomes-aprendidos"]
repeats = 2
seeds = [7, 8]
concurrency = 2

[[arms]]
name = "parrot"
config = {{ provider = "fake" }}

[[arms]]
name = "adversary"
config = {{ provider = "{provider}", options = {{ mode = "adversary" }} }}

[preregistration]
metrics = ["probe_pass_rate"]
primary_metric = "probe_pass_rate"
control = "parrot"
treatment = "adversary"
better = "higher"
decision_rule = "adversary loses if its interval lies below parrot's"
"""


def _campaign(folder: Path, provider: str = "fake") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tiny.json").write_text(json.dumps(SCRIPT))
    path = folder / "small.toml"
    path.write_text(CAMPAIGN.format(provider=provider))
    return path


def test_a_campaign_runs_every_cell_and_records_its_manifest(tmp_path: Path) -> None:
    path = _campaign(tmp_path / "exp")
    plan = plan_campaign(path)
    assert [c.run_id for c in plan.cells] == [
        "parrot__tiny__r0", "adversary__tiny__r0", "parrot__nomes-aprendidos__r0",
        "adversary__nomes-aprendidos__r0", "parrot__tiny__r1", "adversary__tiny__r1",
        "parrot__nomes-aprendidos__r1", "adversary__nomes-aprendidos__r1",
    ]  # fmt: skip
    out = tmp_path / "out"
    assert "not started" in "\n".join(campaign_status(plan, out))
    assert run_campaign(plan, out, command="run") == 0
    results = read_results(out / "results.jsonl")
    assert [r.run_id for r in results.runs] != [] and len(results.runs) == 8
    assert {(r.arm, r.seed) for r in results.runs} == {
        (arm, seed) for arm in ("parrot", "adversary") for seed in (7, 8)
    }
    manifest = read_manifest(out)
    assert manifest is not None
    assert manifest.run_ids == [c.run_id for c in plan.cells]
    assert manifest.definition.preregistration.primary_metric == "probe_pass_rate"
    assert [a.name for a in manifest.arms] == ["parrot", "adversary"]
    parrot, adversary = manifest.arms
    assert parrot.config_sha256 != adversary.config_sha256 and parrot.model_sha256 is None
    assert "seed" not in parrot.config["settings"]  # an arm's config is the same every repeat
    [segment] = manifest.segments
    assert segment.runs_finished == 8 and segment.ended_at is not None
    assert segment.fingerprint.kernel_sha256 == take_fingerprint().kernel_sha256
    status = "\n".join(campaign_status(plan, out))
    assert "done 8 of 8 (parrot 4/4, adversary 4/4)" in status
    with pytest.raises(InputError, match="resume it"):
        run_campaign(plan, out, command="run")
    assert run_campaign(plan, out, command="resume") == 0  # nothing left: nothing runs
    assert len(read_results(out / "results.jsonl").runs) == 8


def test_resume_refuses_drift_a_changed_file_and_an_empty_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _campaign(tmp_path / "exp")
    plan = plan_campaign(path)
    out = tmp_path / "out"
    with pytest.raises(InputError, match="expected a started campaign"):
        run_campaign(plan, out, command="resume")
    assert run_campaign(plan, out, command="run") == 0
    real = take_fingerprint()

    def edited() -> Fingerprint:
        return real.model_copy(update={"kernel_sha256": "0" * 64})

    monkeypatch.setattr(campaign_module, "take_fingerprint", edited)
    with pytest.raises(InputError, match="the code differs from the campaign's: kernel_sha256"):
        run_campaign(plan, out, command="resume")
    status = "\n".join(campaign_status(plan, out))
    assert "fingerprints DIFFER" in status and "now: kernel_sha256" in status
    assert run_campaign(plan, out, command="resume", allow_drift=True) == 0
    assert "a resume: kernel_sha256" in "\n".join(campaign_status(plan, out))
    text = path.read_text().replace("repeats = 2", "repeats = 3")
    path.write_text(text.replace("[7, 8]", "[7, 8, 9]"))
    with pytest.raises(InputError, match="the file as it was when the campaign started"):
        run_campaign(plan_campaign(path), out, command="resume")


def test_bad_campaigns_are_refused_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _campaign(tmp_path / "exp", provider="no-such-provider")
    out = tmp_path / "out"
    assert main(["campaign", "run", str(path), "--out", str(out)]) == 2
    assert "arms[1].config.provider: unknown provider 'no-such-provider'" in capsys.readouterr().err
    path.write_text(path.read_text().replace('"tiny.json"', '"missing.json"'))
    assert main(["campaign", "run", str(path), "--out", str(out)]) == 2
    assert "scripts[0]: expected a bundled script id" in capsys.readouterr().err
    assert main(["campaign", "run", str(tmp_path / "nope.toml"), "--out", str(out)]) == 2
    assert not out.exists()


def test_a_campaign_naming_an_unknown_metric_is_refused_at_load(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _campaign(tmp_path / "exp")
    text = path.read_text().replace(
        'metrics = ["probe_pass_rate"]', 'metrics = ["probe_pass_rate", "vibes_per_turn"]'
    )
    path.write_text(text)
    out = tmp_path / "out"
    assert main(["campaign", "run", str(path), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "preregistration.metrics[1]: expected a metric of the battery" in err
    assert "got 'vibes_per_turn'" in err and "calls_per_run" in err
    assert not out.exists()
    with pytest.raises(InputError, match="vibes_per_turn"):
        plan_campaign(path)
    # The control: the same file naming battery metrics only loads.
    path.write_text(text.replace('"vibes_per_turn"', '"invariant_failures_per_run"'))
    assert plan_campaign(path).campaign.preregistration.metrics[1] == "invariant_failures_per_run"


def test_the_bundled_campaigns_name_battery_metrics_only() -> None:
    folder = Path(__file__).parents[2] / "experiments"
    for path in sorted(folder.glob("*.toml")):
        load_campaign(path)  # raises InputError on an unknown metric


def test_the_dask_executor_gives_the_local_executors_results(tmp_path: Path) -> None:
    plan = plan_campaign(_campaign(tmp_path / "exp"))
    local, dask = tmp_path / "local", tmp_path / "dask"
    assert run_campaign(plan, local, command="run") == 0
    executor = DaskExecutor(dask, concurrency=2)
    assert run_campaign(plan, dask, command="run", executor=executor) == 0

    def verdicts(folder: Path) -> dict[str, list[tuple[str, bool, str | None]]]:
        results = read_results(folder / "results.jsonl")
        out: dict[str, list[tuple[str, bool, str | None]]] = {}
        for probe in results.probes:
            out.setdefault(probe.run_id, []).append((probe.probe_id, probe.passed, probe.label))
        return out

    assert verdicts(dask) == verdicts(local) and len(verdicts(dask)) == 8


def test_an_arm_running_a_local_gguf_file_records_its_sha256(tmp_path: Path) -> None:
    import hashlib

    from harness.fingerprint import local_model_sha256

    weights = tmp_path / "tiny.gguf"
    weights.write_bytes(b"GGUF" + bytes(range(256)) * 64)
    expected = hashlib.sha256(weights.read_bytes()).hexdigest()
    assert local_model_sha256("llama_cpp", str(weights)) == expected
    assert local_model_sha256("llama_cpp", str(tmp_path / "absent.gguf")) is None
    assert local_model_sha256("llama_cpp", "qwen2.5-0.5b") is None  # a server's model name
    assert local_model_sha256("fake", None) is None

    path = _campaign(tmp_path / "exp")
    text = path.read_text().replace(
        'config = { provider = "fake" }',
        f'config = {{ provider = "llama_cpp", model = "{weights}", '
        'api_base = "http://127.0.0.1:9/v1" }',
    )
    path.write_text(text)
    parrot, adversary = plan_campaign(path).arms
    assert parrot.provider == "llama_cpp" and parrot.model_sha256 == expected
    assert adversary.model_sha256 is None
    weights.write_bytes(b"GGUF changed")  # another file under the same name: another hash
    assert plan_campaign(path).arms[0].model_sha256 != expected


@pytest.mark.parametrize("concurrency", [1, 2, 8])
def test_the_local_executor_keeps_at_most_concurrency_runs_in_flight(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, concurrency: int
) -> None:
    import asyncio

    import harness.executors as executors_module
    from harness.executors import LocalExecutor

    honest = executors_module.run_script
    flying, peak = 0, 0

    async def metered(*args: Any, **kwargs: Any) -> Any:
        nonlocal flying, peak
        flying += 1
        peak = max(peak, flying)
        try:
            await asyncio.sleep(0.02)  # a model's wait: the others get their turn
            return await honest(*args, **kwargs)
        finally:
            flying -= 1

    monkeypatch.setattr(executors_module, "run_script", metered)
    cells = plan_campaign(_campaign(tmp_path / "exp")).cells

    async def drain() -> list[str]:
        executor = LocalExecutor(tmp_path / f"out{concurrency}", concurrency)
        return [outcome.run.run_id async for outcome in executor.run(cells)]

    done = asyncio.run(drain())
    assert sorted(done) == sorted(c.run_id for c in cells)
    assert peak == min(concurrency, len(cells))  # bounded, and the bound is reached
