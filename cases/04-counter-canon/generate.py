"""Regenerate this case's data: the counter-canon benchmark, once, on the embedded model.

    .venv/bin/pip install -e '.[dev,local]' && .venv/bin/tavern model install
    .venv/bin/python cases/04-counter-canon/generate.py                 # plays, then copies
    .venv/bin/python cases/04-counter-canon/generate.py --from DIR      # copies a played dir

Plays the bundled `contracanone` script once on the `local` provider through
`tavern-harness canon run` (its data dir is a new temporary folder unless `--from` names one
already played), then keeps the small part: `data/canon.jsonl` (one `CanonReport` per run:
counts per family, findings, what could not be read) and `data/runs.jsonl` (the runs'
`RunResult` lines: turns, calls, tokens, time). The journals stay in the data dir. About an
hour on two shared cores.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from harness.canon import CANON_NAME
from harness.cli import main as harness
from harness.results import RESULTS_NAME, read_results

HERE = Path(__file__).parent
DATA = HERE / "data"


def keep(data_dir: Path) -> None:
    """Copy the canon reports and the run lines of `data_dir` into `data/`."""
    DATA.mkdir(exist_ok=True)
    shutil.copyfile(data_dir / CANON_NAME, DATA / CANON_NAME)
    runs = read_results(data_dir / RESULTS_NAME).runs
    text = "".join(run.model_dump_json() + "\n" for run in runs if run.script == "contracanone")
    (DATA / "runs.jsonl").write_text(text, encoding="utf-8")


def run() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--from", dest="source", type=Path, help="a data dir already played")
    args = parser.parse_args()
    data_dir = args.source
    if data_dir is None:
        data_dir = Path(tempfile.mkdtemp(prefix="tavern-case04-"))
        code = harness(["canon", "run", "--provider", "local", "--data-dir", str(data_dir)])
        if code != 0:
            return code
    else:
        harness(["canon", "eval", str(data_dir)])
    keep(data_dir)
    print(f"kept {DATA / CANON_NAME} and {DATA / 'runs.jsonl'} (journals in {data_dir})")
    return 0


if __name__ == "__main__":
    sys.exit(run())
