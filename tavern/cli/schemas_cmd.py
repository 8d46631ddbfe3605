"""`tavern schemas export|check`."""

from __future__ import annotations

import argparse
from pathlib import Path

from tavern.schemas import check_schemas, export_schemas

DEFAULT_DIR = Path("data_schemas")


def register(parser: argparse.ArgumentParser) -> None:
    """Add the `schemas` subcommands."""
    sub = parser.add_subparsers(dest="action", required=True)
    export = sub.add_parser("export", help="write data_schemas/ from the records")
    export.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    export.set_defaults(handler=_export)
    check = sub.add_parser("check", help="exit 1 if data_schemas/ drifted from the records")
    check.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    check.set_defaults(handler=_check)


def _export(args: argparse.Namespace) -> int:
    written = export_schemas(args.dir)
    print(f"wrote {len(written)} schemas to {args.dir}")
    return 0


def _check(args: argparse.Namespace) -> int:
    problems = check_schemas(args.dir)
    for problem in problems:
        print(problem)
    if problems:
        print("data_schemas/ is out of date: run `tavern schemas export`")
        return 1
    print(f"{args.dir}: in sync")
    return 0
