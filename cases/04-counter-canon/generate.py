"""Regenerate this case's data: the counter-canon benchmark, once, on the embedded model.

    .venv/bin/pip install -e '.[dev,local]' && .venv/bin/tavern model install
    .venv/bin/python cases/04-counter-canon/generate.py                 # plays, then copies
    .venv/bin/python cases/04-counter-canon/generate.py --from DIR...   # evaluates played dirs

Plays the bundled `contracanone` script once on the `local` provider through
`tavern-harness canon run` (its data dir is a new temporary folder unless `--from` names one
already played), then keeps the small part: `data/canon.jsonl` (one `CanonReport` per run:
counts per family, findings, what could not be read) and `data/runs.jsonl` (the runs'
`RunResult` lines: turns, calls, tokens, time). The journals stay in the data dir. About an
hour on two shared cores.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from harness.canon import CANON_NAME
from harness.cli import main as harness
from harness.results import RESULTS_NAME, read_results

HERE = Path(__file__).parent
DATA = HERE / "data"


def keep(data_dirs: list[Path]) -> None:
    """Copy the canon reports and the run lines of `data_dirs` into `data/`, in order."""
    DATA.mkdir(exist_ok=True)
    reports = "".join((d / CANON_NAME).read_text(encoding="utf-8") for d in data_dirs)
    (DATA / CANON_NAME).write_text(reports, encoding="utf-8")
    runs = [r for d in data_dirs for r in read_results(d / RESULTS_NAME).runs]
    text = "".join(run.model_dump_json() + "\n" for run in runs if run.script == "contracanone")
    (DATA / "runs.jsonl").write_text(text, encoding="utf-8")


def run() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--from", dest="sources", type=Path, nargs="+", help="data dirs already played"
    )
    args = parser.parse_args()
    data_dirs = args.sources
    if data_dirs is None:
        data_dirs = [Path(tempfile.mkdtemp(prefix="tavern-case04-"))]
        code = harness(["canon", "run", "--provider", "local", "--data-dir", str(data_dirs[0])])
        if code != 0:
            return code
    else:
        for data_dir in data_dirs:
            code = harness(["canon", "eval", str(data_dir)])
            if code != 0:
                return code  # nothing copied: a failed evaluation leaves no fresh canon.jsonl
    keep(data_dirs)
    print(f"kept {DATA / CANON_NAME} and {DATA / 'runs.jsonl'} (journals in {data_dirs})")
    return 0


if __name__ == "__main__":
    sys.exit(run())
