"""`tavern-harness`: run scripts, campaigns and replays. One module per subcommand.

    tavern-harness run whisper-secrecy zones-cellar --provider fake
    tavern-harness run soak --provider local --report --verbose
    tavern-harness campaign run experiments/fake-modes.toml
    tavern-harness replay .tavern-data/sessions/SESSION_ID
    tavern-harness canon run --provider local --data-dir runs/canon

Exit status: 0 when everything ran and every probe passed, 1 when a probe or a turn failed,
2 for bad input (nothing ran).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

SUBCOMMANDS: dict[str, str] = {
    "run": "play scripts in-process or against a running `tavern serve`",
    "campaign": "run, resume or inspect a campaign (arms x scripts x repeats)",
    "replay": "replay a recorded session and compare every prompt, answer and the final state",
    "replay-call": "fire one journaled call again, edited, K times, at any provider",
    "canon": "the counter-canon benchmark: play a ledger's script, count slips per family",
}
"""Subcommand -> one-line help; each lives in `harness.cli.<name>_cmd`."""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = argparse.ArgumentParser(
        prog="tavern-harness", description=(__doc__ or "").splitlines()[0]
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, help_text in SUBCOMMANDS.items():
        module = importlib.import_module(f"harness.cli.{name.replace('-', '_')}_cmd")
        module.register(subparsers.add_parser(name, help=help_text, description=help_text))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `tavern-harness` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    code: int = args.handler(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
