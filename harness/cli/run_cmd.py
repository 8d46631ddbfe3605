"""`tavern-harness run SCRIPT...`: play scripts once each and write their results.

In-process by default: a runner over `--data-dir` (a new temporary folder when omitted),
whose sessions, journals and `results.jsonl` stay there. With `--url`, the scripts play
against a running `tavern serve`; the journals are copied beside the results. Progress
(`harness.progress.RunProgress`): a bar on a terminal, a plain line per play elsewhere.
Every script is checked (format, scenario, characters, provider) before any plays.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from harness.cli._common import add_override_arguments, overrides_from, play_printer, print_run
from harness.config import ResolvedConfig, resolve_config
from harness.evidence import Evidence, Play
from harness.loading import InputError, LoadedScript, load_script
from harness.progress import RunProgress, planned_plays
from harness.records.results import RunResult, SessionSnapshot
from harness.records.script import ConfigOverrides
from harness.results import RESULTS_NAME, ResultsFile
from harness.run import SNAPSHOT_NAME, Prepared, RunOutcome, prepare, run_script
from harness.soak_report import report_calls, report_story
from harness.targets import Catalog, Target, TargetError
from harness.targets.in_process import InProcessTarget, LibraryCatalog
from tavern.records import LlmCallLine
from tavern.store import JournalWriter, Library, SessionStore, journal_path, read_journal


def register(parser: argparse.ArgumentParser) -> None:
    """Add the `run` arguments."""
    parser.add_argument("scripts", nargs="+", metavar="SCRIPT", help="bundled script id or path")
    add_override_arguments(parser)
    parser.add_argument("--url", help="a running `tavern serve`, e.g. http://127.0.0.1:8765")
    parser.add_argument(
        "--data-dir", type=Path, help="sessions, journals and results.jsonl (default: a temp dir)"
    )
    parser.add_argument("--scenario", help="play every script in this scenario instead")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every turn")
    parser.add_argument(
        "--report",
        action="store_true",
        help="after each run: calls by role and outcome, failed attempts, story counts",
    )
    parser.set_defaults(handler=_run, parser=parser)


@dataclass(frozen=True)
class _Planned:
    loaded: LoadedScript
    resolved: ResolvedConfig


def _plan(args: argparse.Namespace, cli: ConfigOverrides) -> list[_Planned]:
    """Load every script and resolve its config (raises InputError)."""
    planned = []
    for reference in args.scripts:
        loaded = load_script(reference)
        if args.scenario:
            script = loaded.script.model_copy(update={"scenario": args.scenario})
            loaded = LoadedScript(script, loaded.source)
        overrides = loaded.script.config.merged(cli)
        if args.url:
            from harness.targets.http import unsettable

            fixed = unsettable(overrides)
            if fixed:
                raise InputError.one(
                    loaded.source,
                    "config",
                    f"{', '.join(fixed)} cannot be set over HTTP (PUT /config sets the provider, "
                    "model, api_base and language); run in-process, or drop them",
                )
        try:
            resolved = resolve_config(overrides, loaded.script.language)
        except KeyError as exc:
            message = str(exc.args[0])
            raise InputError.one(loaded.source, "config.provider / --provider", message) from None
        except ValueError as exc:
            raise InputError.one(loaded.source, "config", str(exc)) from None
        planned.append(_Planned(loaded, resolved))
    return planned


def _catalog(args: argparse.Namespace) -> Catalog:
    if args.url:
        from harness.targets.http import HttpTarget

        return HttpTarget(args.url)
    # Reading the library writes nothing, so bad input leaves no data dir behind.
    return LibraryCatalog(Library(args.data_dir or Path(tempfile.gettempdir()) / "absent"))


async def _prepare_all(args: argparse.Namespace, planned: list[_Planned]) -> list[Prepared]:
    """Check every script against the target's library (and, over HTTP, its config)."""
    catalog = _catalog(args)
    try:
        prepared = [await prepare(p.loaded, catalog, p.resolved) for p in planned]
        if args.url:
            from harness.targets.http import HttpTarget

            for item in prepared:
                remote = HttpTarget(args.url, config=item.resolved)
                try:
                    await remote.check_config()
                finally:
                    await remote.aclose()
        return prepared
    except TargetError as exc:
        source = args.url or "the library"
        raise InputError.one(source, "config" if exc.status == 409 else "", str(exc)) from None
    finally:
        close = getattr(catalog, "aclose", None)
        if close is not None:
            await close()


async def _play_all(
    args: argparse.Namespace, prepared: list[Prepared], data_dir: Path, progress: RunProgress
) -> int:
    results = ResultsFile(data_dir / RESULTS_NAME)
    store = None if args.url else SessionStore(data_dir)
    library = Library(data_dir)
    journal = JournalWriter(data_dir)
    printer = play_printer() if args.verbose else None

    def observe(play: Play, evidence: Evidence) -> None:
        if printer is not None:
            printer(play, evidence)
        progress.observe(play, evidence)

    status = 0
    try:
        for item in prepared:
            progress.start_script(item.script.id)
            target = _target(args, item, data_dir, store, library, journal)
            try:
                outcome = await run_script(target, item, data_dir, observe=observe)
            except TargetError as exc:
                print(f"{item.script.id}: ERROR: {exc}")
                status = 1
                continue
            finally:
                await target.aclose()
            results.append(outcome.probes, outcome.run)
            print_run(outcome.run, outcome.probes)
            if args.report:
                _report(outcome, data_dir)
            status = max(status, _status(outcome.run))
    finally:
        if store is not None:
            store.close()
    print(f"results: {results.path}")
    return status


def _target(
    args: argparse.Namespace,
    item: Prepared,
    data_dir: Path,
    store: SessionStore | None,
    library: Library,
    journal: JournalWriter,
) -> Target:
    if args.url:
        from harness.targets.http import HttpTarget

        return HttpTarget(args.url, config=item.resolved)
    assert store is not None
    resolved = item.resolved
    return InProcessTarget.open(
        data_dir, resolved.config, resolved.limits, store=store, library=library, journal=journal
    )


def _report(outcome: RunOutcome, data_dir: Path) -> None:
    run = outcome.run
    path = journal_path(data_dir, run.session_id)
    lines = read_journal(path)
    snapshot = SessionSnapshot.model_validate_json((path.parent / SNAPSHOT_NAME).read_bytes())
    report_calls([line for line in lines if isinstance(line, LlmCallLine)], sys.stdout)
    report_story(snapshot.history, lines, run.controlled, sys.stdout)


def _status(run: RunResult) -> int:
    clean = run.status == "completed" and not run.turns_failed and run.probes_passed == run.probes
    return 0 if clean else 1


def _run(args: argparse.Namespace) -> int:
    parser: argparse.ArgumentParser = args.parser
    cli = overrides_from(args, parser)
    if args.data_dir is not None and args.data_dir.exists() and not args.data_dir.is_dir():
        parser.error(f"--data-dir {args.data_dir} is not a directory")
    try:
        prepared = prepare_scripts(args, cli)
    except InputError as exc:
        print(f"tavern-harness run: {exc}", file=sys.stderr)
        return 2
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="tavern-harness-"))
    data_dir.mkdir(parents=True, exist_ok=True)
    return play_scripts(args, prepared, data_dir)


def prepare_scripts(args: argparse.Namespace, cli: ConfigOverrides) -> list[Prepared]:
    """Every script `args` names, loaded, configured (`cli` on top) and prepared.

    Raises:
        InputError: a script, scenario or config that does not load.
    """
    return asyncio.run(_prepare_all(args, _plan(args, cli)))


def play_scripts(args: argparse.Namespace, prepared: list[Prepared], data_dir: Path) -> int:
    """Play every prepared script into `data_dir`, with a `RunProgress`; the exit status."""
    with RunProgress(sum(planned_plays(item.script) for item in prepared)) as progress:
        return asyncio.run(_play_all(args, prepared, data_dir, progress))
