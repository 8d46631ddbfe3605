"""`tavern-harness canon`: the counter-canon benchmark, a monitor of canon slips per family.

    tavern-harness canon run --provider local --repeats 1 --data-dir runs/canon
    tavern-harness canon eval runs/canon                  # runs already played

`run` plays the ledger's script (`contracanone` by default) `--repeats` times in-process, as
`tavern-harness run` would, then evaluates every run of that script in the data dir. Both
write one `CanonReport` line per run to `<data dir>/canon.jsonl` (rewritten whole) and print
the counts per family per run. The exit status says only whether everything could be read
and played (0), or the input was bad (2): slips are counted, never a failure.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from harness.canon import CANON_NAME, counts_table, evaluate_dir, load_ledger
from harness.cli._common import add_override_arguments, overrides_from
from harness.cli.run_cmd import play_scripts, prepare_scripts
from harness.loading import InputError
from harness.records.canon import CanonReport
from harness.run import replace_file


def register(parser: argparse.ArgumentParser) -> None:
    """Add the `canon run` and `canon eval` arguments."""
    sub = parser.add_subparsers(dest="canon_command", metavar="ACTION", required=True)
    run = sub.add_parser("run", help="play the ledger's script, then count slips per family")
    run.add_argument("--ledger", default="contracanone", help="bundled ledger id or path")
    run.add_argument("--repeats", type=int, default=1, help="runs to play (default 1)")
    run.add_argument(
        "--data-dir", type=Path, help="sessions, results.jsonl, canon.jsonl (default: a temp dir)"
    )
    run.add_argument("-v", "--verbose", action="store_true", help="print every turn")
    add_override_arguments(run)
    run.set_defaults(handler=_run, parser=run)
    evaluate = sub.add_parser("eval", help="count slips per family in runs already played")
    evaluate.add_argument("data_dir", type=Path, metavar="DATA_DIR", help="holds results.jsonl")
    evaluate.add_argument("--ledger", default="contracanone", help="bundled ledger id or path")
    evaluate.add_argument("--findings", action="store_true", help="print every finding")
    evaluate.set_defaults(handler=_eval, parser=evaluate)


def write_reports(data_dir: Path, reports: list[CanonReport]) -> Path:
    """`canon.jsonl` in `data_dir`: one report line per run, replacing any earlier file."""
    path = data_dir / CANON_NAME
    replace_file(path, b"".join(r.model_dump_json().encode() + b"\n" for r in reports))
    return path


def _report(data_dir: Path, ledger_ref: str, findings: bool) -> int:
    ledger = load_ledger(ledger_ref)
    reports = evaluate_dir(ledger, data_dir)
    if not reports:
        print(f"no finished run of script {ledger.script!r} in {data_dir}", file=sys.stderr)
        return 2
    path = write_reports(data_dir, reports)
    print(counts_table(reports))
    for report in reports:
        if report.unmeasured:
            print(f"{report.run_id}: unmeasured {', '.join(report.unmeasured)}")
        if findings:
            for f in report.findings:
                print(f"{report.run_id} t{f.turn} {f.family} {f.rule} {f.check}: {f.detail}")
    print(f"canon: {path}")
    return 0


def _eval(args: argparse.Namespace) -> int:
    try:
        return _report(args.data_dir, args.ledger, args.findings)
    except (InputError, FileNotFoundError) as exc:
        print(f"tavern-harness canon eval: {exc}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace) -> int:
    parser: argparse.ArgumentParser = args.parser
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    cli = overrides_from(args, parser)
    try:
        ledger = load_ledger(args.ledger)
        play_args = argparse.Namespace(
            scripts=[ledger.script] * args.repeats,
            url=None,
            scenario=None,
            data_dir=args.data_dir,
            verbose=args.verbose,
            report=False,
        )
        prepared = prepare_scripts(play_args, cli)
    except InputError as exc:
        print(f"tavern-harness canon run: {exc}", file=sys.stderr)
        return 2
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="tavern-canon-"))
    data_dir.mkdir(parents=True, exist_ok=True)
    play_scripts(play_args, prepared, data_dir)
    return _report(data_dir, args.ledger, findings=False)
