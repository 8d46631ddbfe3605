"""`tavern play` (being built; see the issue tracker)."""

from __future__ import annotations

import argparse


def register(parser: argparse.ArgumentParser) -> None:
    """Add the `play` subcommand."""
    parser.set_defaults(handler=_not_ready)


def _not_ready(args: argparse.Namespace) -> int:
    print("tavern play: not available in this build yet")
    return 2
