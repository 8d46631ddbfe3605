"""Playing one script against a target: events in order, probes and invariants as it goes.

`prepare` checks a loaded script against the target's scenario and config before anything
runs; `run_script` plays it and returns the run's `RunResult` and `ProbeResult`s, leaving a
`final.json` snapshot (and, for a remote target, a copy of the journal) beside the session's
journal under `out_dir/sessions/<id>/`.

Each event kind has one handler in `HANDLERS`; a new event is one record in
`harness.records.script` and one handler here.

Example::

    prepared = await prepare(load_script("whisper-secrecy"), target, resolved)
    outcome = await run_script(target, prepared, out_dir)
    outcome.run.probes_passed, outcome.run.probes
"""

from __future__ import annotations

import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from harness.config import ResolvedConfig, canonical_sha256
from harness.evidence import Evidence, Play, PlayKind, calls
from harness.export import write_exports, write_history
from harness.loading import InputError, LoadedScript
from harness.plan import resolve_script
from harness.probes.boundary import boundary
from harness.probes.interview import interview
from harness.probes.invariants import invariants
from harness.probes.recall import recall
from harness.probes.routing import routing
from harness.records.results import ProbeResult, RunResult, SessionSnapshot
from harness.records.script import (
    BoundaryProbe,
    CompactEvent,
    InterviewProbe,
    OpeningsEvent,
    RecallProbe,
    RestoreEvent,
    RoutingProbe,
    Script,
    SuggestEvent,
    TurnEvent,
    UndoEvent,
)
from harness.targets import Catalog, Target, TargetError
from tavern.records import Character, LlmCallLine, Scenario, TurnInput, utc_now
from tavern.records.views import SessionView
from tavern.store import journal_path

T = TypeVar("T")
SNAPSHOT_NAME = "final.json"


@dataclass(frozen=True)
class Prepared:
    """A script checked against its target: references resolved, scenario and cast read."""

    script: Script
    source: str
    scenario: Scenario
    characters: dict[str, Character]
    """Slot -> the library's sheet of its character."""
    resolved: ResolvedConfig
    script_sha256: str


async def prepare(loaded: LoadedScript, target: Catalog, resolved: ResolvedConfig) -> Prepared:
    """Check `loaded` against the scenarios and characters `target` holds, before anything
    is played.

    Raises:
        InputError: unknown scenario, character or slot; a canary no turn plants.
    """
    script = loaded.script
    try:
        scenario = await target.scenario(script.scenario)
    except TargetError as exc:
        if exc.status != 404:
            raise
        raise InputError.one(
            loaded.source, "scenario", f"expected a scenario id of the library, got {exc}"
        ) from None
    planned = resolve_script(loaded, scenario)
    characters = {}
    for slot, character_id in scenario.cast.items():
        try:
            characters[slot] = await target.character(character_id)
        except TargetError as exc:
            if exc.status != 404:
                raise
            raise InputError.one(
                loaded.source,
                "scenario",
                f"expected a playable scenario; its cast names {character_id!r}, "
                "which the library does not hold",
            ) from None
    sha = canonical_sha256(script.model_dump(mode="json"))
    return Prepared(planned, loaded.source, scenario, characters, resolved, sha)


@dataclass
class RunOutcome:
    """What a run wrote: its probes and its run line."""

    run: RunResult
    probes: list[ProbeResult]


PlayObserver = Callable[[Play, Evidence], None]
"""Called after each play (progress bars, the per-turn printout)."""


@dataclass
class _Run:
    target: Target
    prepared: Prepared
    run_id: str
    view: SessionView
    evidence: Evidence
    observe: PlayObserver | None
    probes: list[ProbeResult] = field(default_factory=list)
    kernel_s: float = 0.0
    turns_played: int = 0
    turns_failed: list[int] = field(default_factory=list)
    undos: int = 0

    @property
    def session_id(self) -> str:
        return self.view.id

    async def timed(self, work: Awaitable[T]) -> T:
        """Await kernel work, counting its time apart from the harness's own."""
        started = time.perf_counter()
        try:
            return await work
        finally:
            self.kernel_s += time.perf_counter() - started

    async def play(
        self,
        kind: PlayKind,
        index: int,
        turn_number: int,
        work: Callable[[], Awaitable[Any]],
        turn: TurnInput | None = None,
    ) -> tuple[Play, Any]:
        """Make one call to the kernel, read what it wrote, check the invariants."""
        before = self.view
        failure: str | None = None
        result: Any = None
        try:
            result = await self.timed(work())
        except TargetError as exc:
            if not exc.turn_failure or kind in ("undo", "restore"):
                raise
            cause = "model_failure" if exc.status == 502 else "refused"
            failure = f"{cause}: {exc.message}"
        self.view = await self.target.view(self.session_id)
        lines = await self.evidence.refresh(self.target, self.view)
        play = Play(kind, index, turn_number, before, self.view, turn, failure, lines)
        if kind in ("compact", "restore"):
            play.live = await self.target.history_since(self.session_id, -1)
        self.evidence.plays.append(play)
        count = sum(1 for p in self.evidence.plays if p.event_index == index)
        probe_id = f"invariants-{index}.{count}"
        self.probes.append(invariants(play, self.evidence, self.run_id, probe_id))
        if self.observe is not None:
            self.observe(play, self.evidence)
        return play, result


Handler = Callable[[_Run, int, Any], Awaitable[None]]


async def _turn(run: _Run, index: int, event: TurnEvent) -> None:
    turn = event.to_input()
    for _ in range(event.repeat):
        number = run.view.turn_number + 1
        work = partial(run.target.play_turn, run.session_id, turn)
        play, _ = await run.play("turn", index, number, work, turn)
        run.turns_played += 1
        if play.failure is not None:
            run.turns_failed.append(number)


async def _undo(run: _Run, index: int, event: UndoEvent) -> None:
    for _ in range(event.count):
        work = partial(run.target.undo, run.session_id)
        await run.play("undo", index, run.view.turn_number, work)
        run.undos += 1


async def _compact(run: _Run, index: int, event: CompactEvent) -> None:
    work = partial(run.target.compact, run.session_id, event.retention_turns)
    await run.play("compact", index, run.view.turn_number, work)


async def _restore(run: _Run, index: int, event: RestoreEvent) -> None:
    work = partial(run.target.restore, run.session_id)
    await run.play("restore", index, run.view.turn_number, work)


async def _suggest(run: _Run, index: int, event: SuggestEvent) -> None:
    work = partial(run.target.suggestions, run.session_id)
    await run.play("suggest", index, run.view.turn_number, work)


async def _openings(run: _Run, index: int, event: OpeningsEvent) -> None:
    work = partial(run.target.openings, run.session_id)
    await run.play("openings", index, run.view.turn_number, work)


async def _recall(run: _Run, index: int, event: RecallProbe) -> None:
    run.probes.append(recall(event, index, run.evidence, run.run_id))


async def _routing(run: _Run, index: int, event: RoutingProbe) -> None:
    run.probes.append(routing(event, index, run.evidence, run.run_id))


async def _boundary(run: _Run, index: int, event: BoundaryProbe) -> None:
    run.probes.append(boundary(event, index, run.evidence, run.run_id))


async def _interview(run: _Run, index: int, event: InterviewProbe) -> None:
    sid = run.session_id
    before = await run.target.session_digest(sid)
    work = partial(run.target.interview, sid, event.character, event.question)
    play, _ = await run.play("interview", index, run.view.turn_number, work)
    after = await run.target.session_digest(sid)
    run.probes.append(
        interview(
            event,
            index,
            run.evidence,
            run.run_id,
            turn_number=play.turn_number,
            new_lines=calls(play.lines),
            digests=(before, after),
            failure=play.failure,
        )
    )


HANDLERS: dict[str, Handler] = {
    "turn": _turn,
    "undo": _undo,
    "compact": _compact,
    "restore": _restore,
    "suggest": _suggest,
    "openings": _openings,
    "recall": _recall,
    "interview": _interview,
    "routing": _routing,
    "boundary": _boundary,
}
"""Event kind -> what playing it does."""


@dataclass(frozen=True)
class RunLabels:
    """Where a run belongs: its id and, in a campaign, its arm and repeat."""

    run_id: str | None = None
    """None: `<script>__<session id>`."""
    campaign: str | None = None
    arm: str | None = None
    repeat: int = 0


async def run_script(
    target: Target,
    prepared: Prepared,
    out_dir: Path,
    labels: RunLabels = RunLabels(),
    observe: PlayObserver | None = None,
) -> RunOutcome:
    """Play `prepared` on `target`; the outcome is returned, not written (see `ResultsFile`).

    A turn the model fails, or the kernel refuses, is counted and the script goes on; any
    other refusal of the target ends the run with status `error`.
    """
    started_at, started = utc_now(), time.perf_counter()
    script = prepared.script
    t0 = time.perf_counter()
    view = await target.create_session(script.scenario, script.controlled)
    kernel_s = time.perf_counter() - t0
    evidence = Evidence(view.id, prepared.scenario, prepared.characters, view.controlled_id)
    run = _Run(
        target,
        prepared,
        labels.run_id or f"{script.id}__{view.id}",
        view,
        evidence,
        observe,
        kernel_s=kernel_s,
    )
    error: str | None = None
    try:
        await evidence.refresh(target, view)
        for index, event in enumerate(script.events):
            await HANDLERS[event.kind](run, index, event)
    except TargetError as exc:
        error = f"{exc.status}: {exc.message}"
    await _leave_snapshot(target, run, out_dir)
    outcome = RunOutcome(_run_result(run, labels, started_at, started, error), run.probes)
    return outcome


async def _leave_snapshot(target: Target, run: _Run, out_dir: Path) -> None:
    """`final.json` and the exports (`harness.export`) beside the journal, and the journal
    itself when the kernel is remote (whose exports are the history alone: the server does
    not serve the stored state)."""
    sid = run.session_id
    journal = journal_path(out_dir, sid)
    if not journal.exists():
        journal.parent.mkdir(parents=True, exist_ok=True)
        data = b"".join(
            line.__pydantic_serializer__.to_json(line) + b"\n" for line in run.evidence.lines
        )
        replace_file(journal, data)
    state = await target.state(sid)
    snapshot = SessionSnapshot(
        session_id=sid,
        view=run.view,
        state=state,
        history=run.evidence.history,
        config=run.prepared.resolved.public,
    )
    replace_file(journal.parent / SNAPSHOT_NAME, snapshot.model_dump_json().encode())
    live = await target.history_since(sid, -1)  # the store's history, as `export_session`
    if state is not None:
        compacted = await target.compacted(sid)
        write_exports(journal.parent, state, live, compacted, durable=False)
    else:
        write_history(journal.parent, sid, live, durable=False)


def replace_file(path: Path, data: bytes) -> None:
    """Write `path` through a temporary file and a rename, without waiting for the disk.

    A reader sees the old file or the new one. Not synced: these files are derived from the
    journal and the store, and the run counts as finished only once its results line (synced)
    is written after them. Syncing them took about a quarter of a run's harness time
    (`benchmarks.harness` under cProfile).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def _run_result(
    run: _Run, labels: RunLabels, started_at: Any, started: float, error: str | None
) -> RunResult:
    prepared = run.prepared
    attempts = calls(run.evidence.lines)
    wall = time.perf_counter() - started
    return RunResult(
        run_id=run.run_id,
        campaign=labels.campaign,
        arm=labels.arm,
        script=prepared.script.id,
        script_sha256=prepared.script_sha256,
        repeat=labels.repeat,
        seed=prepared.resolved.config.settings_for().seed,
        language=prepared.script.language,
        scenario=prepared.script.scenario,
        controlled=run.evidence.controlled,
        session_id=run.session_id,
        journal=f"sessions/{run.session_id}/journal.jsonl",
        target=run.target.kind,
        provider=prepared.resolved.provider,
        model=prepared.resolved.model,
        config_sha256=prepared.resolved.sha256,
        started_at=started_at,
        ended_at=utc_now(),
        status="error" if error else "completed",
        error=error,
        turns_played=run.turns_played,
        turns_failed=run.turns_failed,
        undos=run.undos,
        probes=len(run.probes),
        probes_passed=sum(p.passed for p in run.probes),
        invariant_failures=sum(not p.passed for p in run.probes if p.probe == "invariants"),
        calls=sum(1 for c in attempts if c.attempt_number == 1),
        attempts=len(attempts),
        failed_attempts=sum(1 for c in attempts if c.error is not None),
        prompt_tokens=_usage_sum(attempts, "prompt_tokens"),
        completion_tokens=_usage_sum(attempts, "completion_tokens"),
        model_ms=sum(c.duration_ms for c in attempts),
        wall_ms=wall * 1000,
        harness_ms=max(0.0, wall - run.kernel_s) * 1000,
    )


def _usage_sum(attempts: list[LlmCallLine], key: str) -> int | None:
    values = [c.usage[key] for c in attempts if c.usage and isinstance(c.usage.get(key), int)]
    return sum(values) if values else None
