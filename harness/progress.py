"""Campaign progress: cells done, model calls, tokens, elapsed time and an estimate.

On a terminal it is a `rich` progress bar; elsewhere (a log, a pipe) one plain line per
finished run, so a killed campaign's output still says how far it got.
"""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import TextIO

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from harness.records.results import RunResult


def run_tokens(run: RunResult) -> int:
    """Tokens the provider reported for a run (0 when it reported none, as the fake does)."""
    return (run.prompt_tokens or 0) + (run.completion_tokens or 0)


class CampaignProgress:
    """Progress of one campaign invocation: `total` cells, `done` of them finished before."""

    def __init__(self, title: str, total: int, done: int, stream: TextIO | None = None) -> None:
        self.title = title
        self.total = total
        self.done = done
        self.calls = 0
        self.tokens = 0
        self.started = time.monotonic()
        self.console = Console(file=stream or sys.stdout)
        self._bar: Progress | None = None
        self._task: TaskID | None = None

    def __enter__(self) -> CampaignProgress:
        if self.console.is_terminal:
            self._bar = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[calls]} calls"),
                TextColumn("{task.fields[tokens]} tokens"),
                TimeElapsedColumn(),
                TextColumn("eta"),
                TimeRemainingColumn(),
                console=self.console,
            )
            self._bar.start()
            self._task = self._bar.add_task(
                self.title, total=self.total, completed=self.done, calls=0, tokens=0
            )
        return self

    def finished(self, run: RunResult) -> None:
        """Count one finished run."""
        self.done += 1
        self.calls += run.calls
        self.tokens += run_tokens(run)
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, advance=1, calls=self.calls, tokens=self.tokens)
            return
        elapsed = time.monotonic() - self.started
        self.console.print(
            f"[{self.done}/{self.total}] {run.run_id}: {run.probes_passed}/{run.probes} probes, "
            f"{run.calls} calls, {run_tokens(run)} tokens ({self.calls} calls, "
            f"{self.tokens} tokens, {elapsed:.1f} s so far)",
            highlight=False,
            soft_wrap=True,
        )

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._bar is not None:
            self._bar.stop()
