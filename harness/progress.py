"""Progress of long work: a campaign's runs, and the plays of `tavern-harness run`.

Both count what is done out of what is planned, model calls and tokens so far, and the
elapsed time. On a terminal each is a `rich` progress bar (with an estimate); elsewhere (a
log, a pipe) one plain line per step, so a killed process's output still says how far it
got: per finished run for a campaign, per play (a turn, an undo, an interview...) for `run`.

Example:
    >>> import io
    >>> out = io.StringIO()
    >>> with RunProgress(total=2, stream=out) as progress:
    ...     progress.step("soak", "turn 1", calls=3, tokens=0)
    >>> out.getvalue().split(" (")[0]
    '[1/2] soak turn 1: 3 calls, 0 tokens'
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable
from types import TracebackType
from typing import Self, TextIO

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

from harness.evidence import Evidence, Play, calls
from harness.records.results import RunResult
from harness.records.script import Script
from tavern.records import LlmCallLine


def run_tokens(run: RunResult) -> int:
    """Tokens the provider reported for a run (0 when it reported none, as the fake does)."""
    return (run.prompt_tokens or 0) + (run.completion_tokens or 0)


def _bar(console: Console) -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[calls]} calls"),
        TextColumn("{task.fields[tokens]} tokens"),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
        console=console,
    )


class _Progress:
    """What both progresses share: the counts, and a bar on a terminal or plain lines."""

    def __init__(
        self,
        title: str,
        total: int,
        done: int = 0,
        stream: TextIO | None = None,
        terminal: bool | None = None,
    ) -> None:
        self.title = title
        self.total = total
        self.done = done
        self.calls = 0
        self.tokens = 0
        self.started = time.monotonic()
        self.console = Console(file=stream or sys.stdout, force_terminal=terminal)
        self._bar: Progress | None = None
        self._task: TaskID | None = None

    def __enter__(self) -> Self:
        if self.console.is_terminal:
            self._bar = _bar(self.console)
            self._bar.start()
            self._task = self._bar.add_task(
                self.title, total=self.total, completed=self.done, calls=0, tokens=0
            )
        return self

    def _count(self, *, calls: int, tokens: int) -> str | None:
        """Count one step: advance the bar and return None, or return the elapsed time for
        the plain line the caller prints (`_print`)."""
        self.done += 1
        self.total = max(self.total, self.done)  # a step the planned total did not know
        self.calls += calls
        self.tokens += tokens
        if self._bar is not None and self._task is not None:
            self._bar.update(
                self._task, total=self.total, advance=1, calls=self.calls, tokens=self.tokens
            )
            return None
        return f"{time.monotonic() - self.started:.1f} s so far"

    def _print(self, line: str) -> None:
        self.console.print(line, highlight=False, soft_wrap=True, markup=False)

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._bar is not None:
            self._bar.stop()


class CampaignProgress(_Progress):
    """Progress of one campaign invocation: `total` cells, `done` of them finished before.

    `terminal` forces the bar (True) or the plain lines (False); None asks the stream.
    """

    def finished(self, run: RunResult) -> None:
        """Count one finished run."""
        tokens = run_tokens(run)
        elapsed = self._count(calls=run.calls, tokens=tokens)
        if elapsed is not None:
            self._print(
                f"[{self.done}/{self.total}] {run.run_id}: {run.probes_passed}/{run.probes} "
                f"probes, {run.calls} calls, {tokens} tokens ({self.calls} calls, "
                f"{self.tokens} tokens, {elapsed})"
            )


def planned_plays(script: Script) -> int:
    """How many calls to the kernel `script` makes: each turn (times its `repeat`), undo
    (times its `count`), compaction, restore, suggestion, openings and interview. Probes that
    only read make none.

    >>> from harness.loading import load_script
    >>> planned_plays(load_script("long-session").script)
    40
    """
    total = 0
    for event in script.events:
        if event.kind in ("compact", "restore", "suggest", "openings", "interview"):
            total += 1
        total += getattr(event, "repeat", 0) if event.kind == "turn" else 0
        total += getattr(event, "count", 0) if event.kind == "undo" else 0
    return total


def play_tokens(lines: Iterable[LlmCallLine]) -> int:
    """Tokens the provider reported for these attempts (0 when none, as the fake does)."""
    total = 0
    for call in lines:
        for key in ("prompt_tokens", "completion_tokens"):
            value = (call.usage or {}).get(key)
            total += value if isinstance(value, int) else 0
    return total


class RunProgress(_Progress):
    """Progress of `tavern-harness run`: `total` plays over every script, one step per play.

    Use `observe` as the run's `PlayObserver` (it calls `step`). `terminal` as for
    `CampaignProgress`.
    """

    def __init__(
        self, total: int, stream: TextIO | None = None, terminal: bool | None = None
    ) -> None:
        super().__init__("run", total, stream=stream, terminal=terminal)
        self.script = ""

    def start_script(self, script_id: str) -> None:
        """Name the script whose plays come next."""
        self.script = script_id
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, description=script_id)

    def observe(self, play: Play, evidence: Evidence) -> None:
        """A `PlayObserver`: count the play and the calls it journaled."""
        attempts = calls(play.lines)
        first = sum(1 for c in attempts if c.attempt_number == 1)
        labels = {"turn": f"turn {play.turn_number}", "undo": f"undo of turn {play.turn_number}"}
        label = labels.get(play.kind, play.kind)
        self.step(self.script, label, calls=first, tokens=play_tokens(attempts))

    def step(self, script: str, label: str, *, calls: int, tokens: int) -> None:
        """Count one play of `script` with its calls and tokens."""
        elapsed = self._count(calls=calls, tokens=tokens)
        if elapsed is not None:
            self._print(
                f"[{self.done}/{self.total}] {script} {label}: {self.calls} calls, "
                f"{self.tokens} tokens ({elapsed})"
            )
