"""`tavern-harness replay-call JOURNAL --agent A --turn N`: fire one journaled call again.

    tavern-harness replay-call run/sessions/s2026.../journal.jsonl --agent character:C2 \\
        --turn 3 --replace "wet" "dry" --times 3 --provider local

The answers are journaled to `<out>/replay-calls.jsonl` and printed beside the recorded one.
Exit status: 0, or 2 for bad input (no such call, an edit that matches nothing).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

from harness.cli._common import add_override_arguments, overrides_from
from harness.config import resolve_config
from harness.replay_call import CallNotFound, edit_messages, fire, pick_call, side_by_side
from tavern.records import LlmCallLine
from tavern.store import read_journal

OUT_NAME = "replay-calls.jsonl"


def register(parser: argparse.ArgumentParser) -> None:
    """Add the `replay-call` arguments."""
    parser.add_argument("journal", type=Path, help="a journal.jsonl, or its session directory")
    parser.add_argument("--agent", required=True, help="e.g. director, prose, character:C2")
    parser.add_argument("--turn", type=int, required=True, help="the call's turn number")
    parser.add_argument("--occurrence", type=int, default=1, help="n-th such call (default 1)")
    parser.add_argument(
        "--replace",
        nargs=2,
        action="append",
        default=[],
        metavar=("OLD", "NEW"),
        help="replace text in the messages (repeatable)",
    )
    parser.add_argument("--append", help="text appended to a message")
    parser.add_argument("--message", type=int, default=-1, help="message --append edits")
    parser.add_argument("--times", type=int, default=1, help="how many times to fire (K)")
    add_override_arguments(parser)
    parser.add_argument("--out", type=Path, help=f"folder of {OUT_NAME} (default: a temp dir)")
    parser.set_defaults(handler=_replay_call, parser=parser)


def _replay_call(args: argparse.Namespace) -> int:
    parser: argparse.ArgumentParser = args.parser
    if args.times < 1:
        parser.error("--times must be at least 1")
    path = args.journal / "journal.jsonl" if args.journal.is_dir() else args.journal
    if not path.is_file():
        parser.error(f"{args.journal}: no journal there")
    try:
        picked = pick_call(read_journal(path), args.agent, args.turn, args.occurrence)
        messages = edit_messages(
            picked.request.messages,
            replace=[tuple(pair) for pair in args.replace],
            append=args.append,
            message=args.message,
        )
        resolved = resolve_config(overrides_from(args, parser), "en")
    except (CallNotFound, ValueError, KeyError) as exc:
        print(f"tavern-harness replay-call: {exc}", file=sys.stderr)
        return 2
    out = args.out or Path(tempfile.mkdtemp(prefix="tavern-replay-call-"))
    out.mkdir(parents=True, exist_ok=True)
    journal = out / OUT_NAME

    def sink(line: LlmCallLine) -> None:
        with journal.open("ab") as handle:
            handle.write(line.__pydantic_serializer__.to_json(line) + b"\n")

    answers = asyncio.run(
        fire(picked, messages, resolved, times=args.times, sink=sink, seed=args.seed)
    )
    print(
        f"{picked.agent}, turn {picked.turn_number}, fired {args.times} times at "
        f"{resolved.provider}/{resolved.model}; journaled to {journal}"
    )
    print(side_by_side(picked, answers))
    return 0
