"""Campaigns: plan the cells of a campaign file, run them, resume them, say where they stand.

A campaign directory is a Tavern data dir of its own, plus:

```
manifest.json      what was planned, each arm resolved, and every invocation's fingerprint
results.jsonl      ProbeResult lines then one RunResult line per finished run
sessions/<id>/     each run's journal.jsonl, final.json and JSONL exports
partitions/        each finished run as Parquet: campaign=C/arm=A/run=<script>__r<repeat>/
```

Run ids are `<arm>__<script>__r<repeat>`, in plan order repeat by repeat (so an interrupted
campaign has every arm at about the same count). Resuming keeps every finished run (its
`RunResult` line is in the file), cuts what a killed process left half-written, deletes the
sessions of runs that never finished, and runs the rest: no run twice, none lost. Each run's
partition is written as soon as its results line is; a run or resume first writes those a
killed process left missing (`harness.export.sync_partitions`).

Example::

    plan = plan_campaign(Path("experiments/fake-modes.toml"))
    code = run_campaign(plan, campaign_dir(plan), command="run")
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TextIO

from harness.campaign_judge import BLIND_NAME, REPORT_NAME, judge_campaign, report_line
from harness.config import canonical_sha256, resolve_config
from harness.executors import Cell, Executor, LocalExecutor
from harness.export import export_run, sync_partitions
from harness.fingerprint import differences, local_model_sha256, take_fingerprint
from harness.loader import PARTITIONS_NAME
from harness.loading import InputError, LoadedScript, load_campaign, load_script
from harness.progress import CampaignProgress
from harness.records.campaign import (
    ArmManifest,
    Campaign,
    JudgeReport,
    Manifest,
    ManifestSegment,
)
from harness.records.script import ConfigOverrides
from harness.results import RESULTS_NAME, ResultsFile, read_results
from harness.run import prepare
from harness.targets.in_process import LibraryCatalog
from tavern.llm.provider import Provider
from tavern.records import utc_now
from tavern.store import Library, SessionStore, write_atomic

MANIFEST_NAME = "manifest.json"
INTERRUPTED = 130
"""Exit status after Ctrl+C (the shell's convention for SIGINT)."""


@dataclass(frozen=True)
class CampaignPlan:
    """A campaign file checked and expanded into cells."""

    path: Path
    campaign: Campaign
    text_sha256: str
    scripts: dict[str, LoadedScript]
    """Script id -> the loaded script."""
    references: dict[str, str]
    """Script id -> what a worker loads it by (a bundled id or an absolute path)."""
    cells: list[Cell]
    arms: list[ArmManifest]

    @property
    def name(self) -> str:
        """The campaign's name."""
        assert self.campaign.name is not None  # set from the file's stem by the loader
        return self.campaign.name


def plan_campaign(path: Path, library: Library | None = None) -> CampaignPlan:
    """Load a campaign file, its scripts and its arms, checking everything that can be checked
    before a run: formats, providers, scenarios, characters, canaries.

    Raises:
        InputError: naming the file and field of the first file with problems.
    """
    campaign = load_campaign(path)
    library = library or Library(path.parent / ".no-user-library")
    scripts: dict[str, LoadedScript] = {}
    references: dict[str, str] = {}
    for index, reference in enumerate(campaign.scripts):
        try:
            loaded = load_script(reference, base=path.parent)
        except InputError as exc:
            if exc.source == reference:  # neither a bundled id nor a file
                field, expected = f"scripts[{index}]", exc.problems[0][1]
                raise InputError.one(str(path), field, expected) from None
            raise
        if loaded.script.id in scripts:
            raise InputError.one(str(path), f"scripts[{index}]", f"{loaded.script.id!r} twice")
        scripts[loaded.script.id] = loaded
        bundled = Path(loaded.source).parent.name == "scripts" and reference == loaded.script.id
        references[loaded.script.id] = reference if bundled else str(Path(loaded.source).resolve())

    def overrides(loaded: LoadedScript, arm_index: int, repeat: int) -> ConfigOverrides:
        return (
            loaded.script.config.merged(campaign.defaults)
            .merged(campaign.arms[arm_index].config)
            .merged(ConfigOverrides(seed=campaign.seed_of(repeat)))
        )

    for loaded in scripts.values():
        for arm_index in range(len(campaign.arms)):
            _check(path, arm_index, loaded, overrides(loaded, arm_index, 0), library)
    cells: list[Cell] = []
    for repeat in range(campaign.repeats):
        for script_id, loaded in scripts.items():
            for arm_index, arm in enumerate(campaign.arms):
                cells.append(
                    Cell(
                        run_id=f"{arm.name}__{script_id}__r{repeat}",
                        campaign=campaign.name or path.stem,
                        arm=arm.name,
                        script=references[script_id],
                        repeat=repeat,
                        overrides=overrides(loaded, arm_index, repeat),
                    )
                )
    if campaign.judge is not None:
        try:
            resolve_config(campaign.judge.config, "en")
        except KeyError as exc:
            raise InputError.one(str(path), "judge.config.provider", str(exc.args[0])) from None
        except ValueError as exc:
            raise InputError.one(str(path), "judge.config", str(exc)) from None
    arms = [_arm_manifest(path, i, campaign) for i in range(len(campaign.arms))]
    text_sha = canonical_sha256(path.read_text(encoding="utf-8"))
    return CampaignPlan(path, campaign, text_sha, scripts, references, cells, arms)


def _check(
    path: Path, arm_index: int, loaded: LoadedScript, overrides: ConfigOverrides, library: Library
) -> None:
    """The arm's config resolves and the script fits its scenario."""
    try:
        resolved = resolve_config(overrides, loaded.script.language)
    except KeyError as exc:
        field = f"arms[{arm_index}].config.provider"
        raise InputError.one(str(path), field, str(exc.args[0])) from None
    except ValueError as exc:
        raise InputError.one(str(path), f"arms[{arm_index}].config", str(exc)) from None
    asyncio.run(prepare(loaded, LibraryCatalog(library), resolved))


def _arm_manifest(path: Path, index: int, campaign: Campaign) -> ArmManifest:
    arm = campaign.arms[index]
    resolved = resolve_config(campaign.defaults.merged(arm.config), "en", with_seed=False)
    return ArmManifest(
        name=arm.name,
        provider=resolved.provider,
        model=resolved.model,
        model_sha256=local_model_sha256(resolved.provider, resolved.model),
        config=resolved.public,
        config_sha256=resolved.sha256,
    )


def campaign_dir(plan: CampaignPlan, out: Path | None = None) -> Path:
    """Where a campaign's sessions, results and manifest go (default: under the data dir)."""
    if out is not None:
        return out
    from tavern.settings import get_settings

    return get_settings().data_dir / "campaigns" / plan.name


def read_manifest(directory: Path) -> Manifest | None:
    """The directory's manifest, or None before the campaign first ran."""
    path = directory / MANIFEST_NAME
    if not path.exists():
        return None
    return Manifest.model_validate_json(path.read_bytes())


def _write_manifest(directory: Path, manifest: Manifest) -> None:
    write_atomic(directory / MANIFEST_NAME, manifest.model_dump_json(indent=2).encode())


def _new_manifest(plan: CampaignPlan) -> Manifest:
    return Manifest(
        campaign=plan.name,
        campaign_file=str(plan.path),
        campaign_sha256=plan.text_sha256,
        definition=plan.campaign,
        scripts={
            sid: canonical_sha256(loaded.script.model_dump(mode="json"))
            for sid, loaded in plan.scripts.items()
        },
        arms=plan.arms,
        run_ids=[cell.run_id for cell in plan.cells],
        created_at=utc_now(),
    )


def drop_unfinished_sessions(directory: Path, finished: set[str]) -> int:
    """Delete the sessions of runs that never finished (a killed or interrupted process)."""
    if not (directory / "sessions.sqlite3").exists():
        return 0
    with SessionStore(directory) as store:
        stale = [s.id for s in store.list() if s.id not in finished]
        for session_id in stale:
            store.delete(session_id)
    return len(stale)


def make_executor(plan: CampaignPlan, directory: Path, kind: str | None = None) -> Executor:
    """The campaign's executor (or `kind`), with its concurrency."""
    chosen = kind or plan.campaign.executor
    if chosen == "dask":
        from harness.dask_executor import DaskExecutor

        return DaskExecutor(directory, plan.campaign.concurrency, plan.campaign.scheduler)
    return LocalExecutor(directory, plan.campaign.concurrency)


async def _drive(
    executor: Executor,
    cells: Sequence[Cell],
    results: ResultsFile,
    progress: CampaignProgress,
    segment: ManifestSegment,
) -> None:
    partitions = results.path.parent / PARTITIONS_NAME
    async with contextlib.aclosing(executor.run(cells)) as runs:
        async for outcome in runs:
            results.append(outcome.probes, outcome.run)
            segment.runs_finished += 1
            # After its results line: a partition exists only for a finished run.
            await asyncio.to_thread(
                export_run, results.path.parent, outcome.run, partitions, refresh=False
            )
            progress.finished(outcome.run)


def run_campaign(
    plan: CampaignPlan,
    directory: Path,
    *,
    command: Literal["run", "resume"],
    executor: Executor | None = None,
    allow_drift: bool = False,
    stream: TextIO | None = None,
    judge_provider: Provider | None = None,
) -> int:
    """Run (or resume) the campaign in `directory`; the exit status.

    Once every planned run has finished, a campaign with a `[judge]` has its runs judged
    blind (`harness.campaign_judge.judge_campaign`; `judge_provider` replaces the one its
    config names, for tests), and the report's line is printed.

    Raises:
        InputError: `run` on a directory that already holds a campaign, `resume` on one
            that holds none or another campaign, or a fingerprint that differs from the
            campaign's without `allow_drift`.
    """
    manifest = read_manifest(directory)
    where = str(directory)
    if command == "run" and manifest is not None:
        expected = "expected a new directory; this campaign started here, resume it"
        raise InputError.one(where, "", expected)
    if command == "resume":
        if manifest is None:
            raise InputError.one(where, "", "expected a started campaign here (run it first)")
        if manifest.campaign_sha256 != plan.text_sha256:
            expected = "the file as it was when the campaign started (runs would not compare)"
            raise InputError.one(str(plan.path), "", expected)
    fingerprint = take_fingerprint()
    if manifest is not None and manifest.segments:
        drift = differences(manifest.segments[0].fingerprint, fingerprint)
        if drift and not allow_drift:
            raise InputError.one(
                where, "fingerprint", "the code differs from the campaign's: " + "; ".join(drift)
            )
    directory.mkdir(parents=True, exist_ok=True)
    manifest = manifest or _new_manifest(plan)
    results = ResultsFile(directory / RESULTS_NAME)
    finished = results.recover()
    if command == "resume":
        drop_unfinished_sessions(directory, _finished_sessions(directory))
    sync_partitions(directory)
    todo = [cell for cell in plan.cells if cell.run_id not in finished]
    segment = ManifestSegment(command=command, started_at=utc_now(), fingerprint=fingerprint)
    manifest.segments.append(segment)
    _write_manifest(directory, manifest)
    executor = executor or make_executor(plan, directory)
    progress = CampaignProgress(plan.name, len(plan.cells), len(finished), stream)
    code = 0
    try:
        with progress:
            asyncio.run(_drive(executor, todo, results, progress, segment))
    except KeyboardInterrupt:
        segment.interrupted = True
        code = INTERRUPTED
    finally:
        segment.ended_at = utc_now()
        _write_manifest(directory, manifest)
    if code == 0 and plan.campaign.judge is not None:
        if len(_finished_sessions(directory)) == len(plan.cells):
            report = judge_campaign(
                directory, plan.campaign, plan.path.parent, provider=judge_provider
            )
            print(report_line(report), file=stream or sys.stdout, flush=True)
    return code


def _finished_sessions(directory: Path) -> set[str]:
    path = directory / RESULTS_NAME
    if not path.exists():
        return set()
    return {run.session_id for run in read_results(path).runs}


def campaign_status(plan: CampaignPlan, directory: Path) -> list[str]:
    """What a campaign directory holds, as lines: runs done per arm, probe pass rates,
    invocations, and whether the code and the campaign file still match the first run."""
    manifest = read_manifest(directory)
    lines = [f"campaign {plan.name} ({plan.path}): {len(plan.cells)} runs planned"]
    if manifest is None:
        return [*lines, f"  not started in {directory}"]
    path = directory / RESULTS_NAME
    runs = read_results(path).runs if path.exists() else []
    probes = read_results(path).probes if path.exists() else []
    per_arm = Counter(run.arm for run in runs)
    planned = Counter(cell.arm for cell in plan.cells)
    arms = ", ".join(f"{arm} {per_arm[arm]}/{n}" for arm, n in planned.items())
    lines.append(f"  done {len(runs)} of {len(plan.cells)} ({arms})")
    for arm in planned:
        mine = [p for p in probes if p.run_id.startswith(f"{arm}__")]
        passed = sum(p.passed for p in mine)
        share = f"{100 * passed / len(mine):.1f}%" if mine else "n/a"
        lines.append(f"  {arm}: {passed} of {len(mine)} probes passed ({share})")
    for segment in manifest.segments:
        end = (
            segment.ended_at.isoformat(timespec="seconds")
            if segment.ended_at
            else "no end recorded (killed, or still running)"
        )
        mark = " (interrupted)" if segment.interrupted else ""
        lines.append(
            f"  {segment.command} {segment.started_at.isoformat(timespec='seconds')} -> "
            f"{end}{mark}: {segment.runs_finished} runs"
        )
    first = manifest.segments[0].fingerprint if manifest.segments else None
    drift = differences(first, take_fingerprint()) if first is not None else []
    later = [
        d
        for s in manifest.segments[1:]
        for d in differences(manifest.segments[0].fingerprint, s.fingerprint)
    ]
    if drift or later:
        lines.append("  fingerprints DIFFER, runs may not compare:")
        lines += [f"    now: {d}" for d in drift] + [f"    a resume: {d}" for d in later]
    else:
        lines.append("  fingerprints: the same in every invocation and now")
    same = manifest.campaign_sha256 == plan.text_sha256
    changed = "unchanged" if same else "CHANGED since the campaign started"
    lines.append(f"  campaign file: {changed}")
    report = directory / BLIND_NAME / REPORT_NAME
    if report.exists():
        lines.append("  " + report_line(JudgeReport.model_validate_json(report.read_bytes())))
    elif plan.campaign.judge is not None:
        lines.append("  judge: not run yet (it runs once every run has finished)")
    return lines
