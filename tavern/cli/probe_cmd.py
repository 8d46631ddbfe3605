"""`tavern probe` (being built; see the issue tracker)."""

from __future__ import annotations

import argparse


def register(parser: argparse.ArgumentParser) -> None:
    """Add the `probe` subcommand."""
    parser.set_defaults(handler=_not_ready)


def _not_ready(args: argparse.Namespace) -> int:
    print("tavern probe: not available in this build yet")
    return 2
