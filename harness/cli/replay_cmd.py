"""`tavern-harness replay SESSION_DIR`: replay a recorded session and compare it, byte for byte.

    tavern-harness replay .tavern-data/sessions/s2026...            # in-process
    tavern-harness replay run/sessions/s2026... --url http://127.0.0.1:8765

The replayed session (its journal and `final.json`) goes to `--out` (a temp dir by default);
it can serve as a recording in turn. Exit status: 0 byte-equal, 1 diverged, 2 bad input.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from harness.loading import InputError
from harness.replay import run_replay
from harness.targets import TargetError


def register(parser: argparse.ArgumentParser) -> None:
    """Add the `replay` arguments."""
    parser.add_argument("session_dir", type=Path, help="a session directory (journal.jsonl)")
    parser.add_argument("--url", help="replay through a running `tavern serve`")
    parser.add_argument("--out", type=Path, help="where the replayed session goes")
    parser.set_defaults(handler=_replay)


def _replay(args: argparse.Namespace) -> int:
    out = args.out or Path(tempfile.mkdtemp(prefix="tavern-replay-"))
    try:
        report = run_replay(args.session_dir, out, args.url)
    except InputError as exc:
        print(f"tavern-harness replay: {exc}", file=sys.stderr)
        return 2
    except TargetError as exc:
        print(f"tavern-harness replay: {exc.status}: {exc.message}", file=sys.stderr)
        return 2
    where = "over HTTP" if args.url else "in-process"
    print(f"replayed {args.session_dir} {where} as session {report.session_id} in {out}")
    for error in report.errors:
        print(f"  ERROR: {error}")
    if report.divergence is not None:
        print(f"  DIVERGED at {report.divergence.describe()}")
    if report.state_divergence is not None:
        print(f"  final state DIVERGED: {report.state_divergence}")
    if report.equal:
        print(f"  byte-equal: all {report.calls} prompts and answers, and the final state")
        return 0
    return 1
