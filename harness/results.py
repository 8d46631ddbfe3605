"""The results file: `ProbeResult` lines then one `RunResult` line per finished run.

A run's lines are written together, in one write, and synced; its `RunResult` line comes
last, so a run without it did not finish. `ResultsFile.recover` cuts whatever follows the
last `RunResult` line (a half-written block, a torn line), so a resumed campaign appends
to a file holding finished runs only. Lines are never rewritten.

Example::

    results = ResultsFile(out_dir / "results.jsonl")
    done = results.recover()              # run ids already finished
    results.append(outcome.probes, outcome.run)
    runs, probes = read_results(results.path)
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.records.results import RESULT_LINE_ADAPTER, ProbeResult, RunResult

RESULTS_NAME = "results.jsonl"


class ResultsFile:
    """An append-only results file; safe to append to from several threads."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def recover(self) -> set[str]:
        """Cut anything after the last `RunResult` line; return the finished run ids."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return set()
        done: set[str] = set()
        keep = position = 0
        for raw in data.split(b"\n")[:-1]:  # the part after the last newline is torn
            position += len(raw) + 1
            try:
                line = json.loads(raw)
            except ValueError:
                break  # a line cut by a crash; nothing after it was finished
            if isinstance(line, dict) and line.get("kind") == "run":
                done.add(str(line.get("run_id")))
                keep = position
        if keep < len(data):
            with open(self.path, "r+b") as handle:
                handle.truncate(keep)
                os.fsync(handle.fileno())
        return done

    def append(self, probes: Sequence[ProbeResult], run: RunResult) -> None:
        """Write one run's probe lines and its run line, in one write, and sync them."""
        data = b"".join(_encoded(p) for p in probes) + _encoded(run)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                view = memoryview(data)
                written = 0
                while written < len(data):
                    written += os.write(fd, view[written:])
                os.fsync(fd)
            finally:
                os.close(fd)


def _encoded(line: ProbeResult | RunResult) -> bytes:
    return line.model_dump_json().encode() + b"\n"


@dataclass
class Results:
    """A results file read back: finished runs and their probes."""

    runs: list[RunResult]
    probes: list[ProbeResult]
    dropped: int
    """Lines left out: after the last run line, or of a run without its run line."""


def read_results(path: Path) -> Results:
    """Every finished run of a results file and its probe lines, in file order.

    Raises:
        ValueError: a complete line that is not a result line (naming the line).
    """
    runs: list[RunResult] = []
    pending: list[ProbeResult] = []
    probes: list[ProbeResult] = []
    dropped = 0
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.endswith(b"\n"):
                dropped += 1
                break
            try:
                line = RESULT_LINE_ADAPTER.validate_json(raw)
            except ValueError as exc:
                raise ValueError(f"{path}:{number}: not a result line: {exc}") from None
            if isinstance(line, RunResult):
                mine = [p for p in pending if p.run_id == line.run_id]
                dropped += len(pending) - len(mine)
                probes += mine
                pending = []
                runs.append(line)
            else:
                pending.append(line)
    return Results(runs, probes, dropped + len(pending))
