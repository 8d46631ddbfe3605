"""The `tavern` command. Each subcommand lives in its own module with a `register` function."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# Module name under tavern.cli -> one-line help. Modules are imported only when listed here,
# so a subcommand's heavy imports never slow the others.
SUBCOMMANDS: dict[str, str] = {
    "schemas": "export or check the JSON Schemas in data_schemas/",
    "model": "install and inspect the embedded local model",
    "probe": "measure provider behaviour (prompt-cache probe)",
    "serve": "start the HTTP server and web UI",
    "play": "play a scenario in the terminal",
}


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser with every registered subcommand."""
    parser = argparse.ArgumentParser(prog="tavern", description=__doc__)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, help_text in SUBCOMMANDS.items():
        module = importlib.import_module(f"tavern.cli.{name}_cmd")
        module.register(subparsers.add_parser(name, help=help_text, description=help_text))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `tavern` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    code: int = args.handler(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
