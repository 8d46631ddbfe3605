"""Helpers of the harness tests: play a bundled script in-process on the fake provider."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import tavern.runner.beat_records as beat_records
from harness.config import resolve_config
from harness.loading import LoadedScript, load_script
from harness.records.results import ProbeResult
from harness.records.script import ConfigOverrides
from harness.run import RunOutcome, prepare, run_script
from harness.targets.in_process import InProcessTarget
from tavern.llm.client import LlmClient
from tavern.llm.fake import FakeFunction, FakeProvider
from tavern.llm.wrappers import RetryPolicy
from tavern.records import Audience, LlmCallLine, Scene
from tavern.runner import KernelLimits, OwnedRunner
from tavern.store import JournalWriter, Library, SessionStore

TargetHook = Callable[[InProcessTarget], None]
AudienceFault = Callable[[Scene, Any, Audience], Audience]
"""A planted fault of perception: (scene, record kind, the honest audience) -> the audience."""


def plant_audience(monkeypatch: pytest.MonkeyPatch, fault: AudienceFault) -> None:
    """Route every record's audience through `fault` (the kernel's `audience_for`, patched
    where the runner reads it)."""
    honest = beat_records.audience_for

    def planted(scene: Scene, speaker: str, kind: Any, *args: Any, **kwargs: Any) -> Audience:
        return fault(scene, kind, honest(scene, speaker, kind, *args, **kwargs))

    monkeypatch.setattr(beat_records, "audience_for", planted)


def whispers_reach_everyone(scene: Scene, kind: Any, audience: Audience) -> Audience:
    """An `AudienceFault`: a whisper's bystanders (only aware of it) perceive its words."""
    if audience.origin != "whisper":
        return audience
    everyone = [*audience.perceivers, *audience.aware]
    return audience.model_copy(update={"perceivers": everyone, "aware": []})


async def no_sleep(_: float) -> None:
    return None


def function_target(data_dir: Path, fn: FakeFunction) -> InProcessTarget:
    """An in-process target whose every call is answered by `fn` (the fake's function mode)."""
    store = SessionStore(data_dir)
    library = Library(data_dir)
    journal = JournalWriter(data_dir)

    def sink(line: LlmCallLine) -> None:
        journal.append(line.session_id, line)

    client = LlmClient(
        FakeProvider("function", fn=fn),
        sink=sink,
        retry=RetryPolicy(max_attempts=1),
        sleep=no_sleep,
    )
    runner = OwnedRunner(store, library, journal, client, limits=KernelLimits())
    return InProcessTarget(runner, store, library, owns_store=True)


def play(
    script: str | LoadedScript,
    data_dir: Path,
    *,
    overrides: ConfigOverrides | None = None,
    fn: FakeFunction | None = None,
    hook: TargetHook | None = None,
) -> RunOutcome:
    """Play a bundled script (or a loaded one) once, in-process, on the fake provider."""
    loaded = load_script(script) if isinstance(script, str) else script
    merged = loaded.script.config.merged(overrides or ConfigOverrides(provider="fake"))
    resolved = resolve_config(merged, loaded.script.language)

    async def go() -> RunOutcome:
        if fn is None:
            target = InProcessTarget.open(data_dir, resolved.config, resolved.limits)
        else:
            target = function_target(data_dir, fn)
        if hook is not None:
            hook(target)
        try:
            prepared = await prepare(loaded, target, resolved)
            return await run_script(target, prepared, data_dir)
        finally:
            await target.aclose()

    return asyncio.run(go())


def probe(outcome: RunOutcome, probe_id: str) -> ProbeResult:
    """The probe result of that id."""
    [found] = [p for p in outcome.probes if p.probe_id == probe_id]
    return found


def failed(outcome: RunOutcome) -> dict[str, str | None]:
    """Probe id -> label of every failed probe."""
    return {p.probe_id: p.label for p in outcome.probes if not p.passed}


def failed_checks(outcome: RunOutcome, name: str) -> list[Any]:
    """Every failed check of that name, across the run's probes."""
    return [c for p in outcome.probes for c in p.checks if c.name == name and not c.passed]
