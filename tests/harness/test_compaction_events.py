"""The script events `compact` and `restore`, played in-process and over HTTP, with the
compaction invariant checked after each; its negative controls plant a compaction that
leaves records live and a journal line that miscounts."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
from harness_kit import failed, failed_checks, play

from harness.config import resolve_config
from harness.loading import LoadedScript
from harness.records.script import Script
from harness.run import RunOutcome, prepare, run_script
from harness.targets.http import HttpTarget
from harness.targets.in_process import InProcessTarget
from tavern.records import CompactLine
from tavern.records.config import AppConfig
from tavern.store import SessionStore
from tavern.store._sqlite import insert_records

SCRIPT = {
    "schema_version": 1,
    "id": "compaction-round-trip",
    "title": "Compact twice, play on, restore both",
    "scenario": "the-toll-house",
    "events": [
        {"kind": "turn", "speech": "The ferry leaves at dawn.", "repeat": 3},
        {"kind": "compact", "retention_turns": 2},
        {"kind": "turn", "speech": "Who keeps the ledger?", "repeat": 2},
        {"kind": "compact", "retention_turns": 1},
        {"kind": "turn", "speech": "Then we wait."},
        {"kind": "undo"},
        {"kind": "restore"},
        {"kind": "restore"},
        {"kind": "turn", "speech": "Dawn, then."},
    ],
}


def _loaded() -> LoadedScript:
    return LoadedScript(Script.model_validate(SCRIPT), "test")


def _compaction_probes(outcome: RunOutcome) -> list[bool]:
    return [c.passed for p in outcome.probes for c in p.checks if c.name == "compaction"]


def test_compact_and_restore_events_pass_their_invariant_in_process(tavern_data_dir: Path) -> None:
    outcome = play(_loaded(), tavern_data_dir)
    assert outcome.run.error is None and failed(outcome) == {}
    assert _compaction_probes(outcome) == [True] * 4


def test_the_same_events_over_http(tavern_data_dir: Path) -> None:
    from tavern.app.main import create_app
    from tavern.app.state import AppServices
    from tavern.app.wiring import close_runner, runner_factory
    from tavern.store import Library

    library, store = Library(tavern_data_dir), SessionStore(tavern_data_dir)
    services = AppServices(
        data_dir=tavern_data_dir,
        library=library,
        sessions=store,
        runner_factory=runner_factory(library, store),
        close_runner=close_runner,
    )
    app = create_app(services, AppConfig(active_provider="fake"))
    loaded = _loaded()

    async def go() -> RunOutcome:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as c:
            target = HttpTarget("http://127.0.0.1:8765", client=c)
            resolved = resolve_config(loaded.script.config, loaded.script.language)
            prepared = await prepare(loaded, target, resolved)
            return await run_script(target, prepared, tavern_data_dir / "out")

    outcome = asyncio.run(go())
    assert outcome.run.error is None and failed(outcome) == {}
    assert _compaction_probes(outcome) == [True] * 4


def _leaky(target: InProcessTarget) -> None:
    """A compaction that stores its checkpoint and leaves the evicted records live."""
    store = target.runner.store
    real = store.compact

    def compact(session_id: str, checkpoint: Any, expected_revision: int) -> Any:
        stored = real(session_id, checkpoint, expected_revision)
        with store._transaction() as db:
            insert_records(db, session_id, checkpoint.records)
        return stored

    store.compact = compact  # type: ignore[method-assign]


def test_negative_control_records_left_live_fail_the_invariant(tavern_data_dir: Path) -> None:
    outcome = play(_loaded(), tavern_data_dir, hook=_leaky)
    checks = failed_checks(outcome, "compaction")
    assert checks and checks[0].label == "compaction_disagrees"
    assert "live records at or below cutoff" in (checks[0].detail or "")


def _miscounting(target: InProcessTarget) -> None:
    """A journal whose compact lines count one record more than were evicted."""
    journal = target.runner.journal
    real = journal.append

    def append(session_id: str, line: Any) -> None:
        if isinstance(line, CompactLine):
            line = line.model_copy(update={"evicted_records": line.evicted_records + 1})
        real(session_id, line)

    journal.append = append  # type: ignore[method-assign]


def test_negative_control_a_miscounting_line_fails_the_invariant(tavern_data_dir: Path) -> None:
    outcome = play(_loaded(), tavern_data_dir, hook=_miscounting)
    checks = failed_checks(outcome, "compaction")
    assert len(checks) == 2 and all("evicted" in (c.detail or "") for c in checks)
