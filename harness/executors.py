"""Executors: where a campaign's cells run. A cell is one run of one script under one arm's
config; its outcome comes back to the caller, which alone writes the results file.

`LocalExecutor` runs cells as asyncio tasks in this process, at most `concurrency` at a time,
over one shared store (a pool of workers pulling from the cell iterator, so memory does not
grow with the number of cells). `harness.dask_executor.DaskExecutor` runs them as tasks of a
Dask cluster. Both call `run_cell`.

Example::

    async for outcome in LocalExecutor(campaign_dir, concurrency=4).run(cells):
        results.append(outcome.probes, outcome.run)
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncGenerator, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from harness.config import resolve_config
from harness.loading import load_script
from harness.records.script import ConfigOverrides
from harness.run import Prepared, RunLabels, RunOutcome, prepare, run_script
from harness.targets.in_process import InProcessTarget, LibraryCatalog
from tavern.store import JournalWriter, Library, SessionStore


@dataclass(frozen=True)
class Cell:
    """One planned run: everything a worker needs, as plain data."""

    run_id: str
    campaign: str
    arm: str
    script: str
    """A bundled script id or an absolute path."""
    repeat: int
    overrides: ConfigOverrides
    """Script, campaign defaults, arm and seed, merged."""

    @property
    def labels(self) -> RunLabels:
        """The run's labels in the results."""
        return RunLabels(self.run_id, self.campaign, self.arm, self.repeat)


class Executor(Protocol):
    """Runs cells and yields each outcome as it finishes, in any order."""

    def run(self, cells: Iterable[Cell]) -> AsyncGenerator[RunOutcome, None]:
        """The outcomes of `cells`; closing the generator abandons the cells in flight."""
        ...


async def prepare_cell(cell: Cell, library: Library) -> Prepared:
    """Load, resolve and check the cell's script against `library`."""
    loaded = load_script(cell.script)
    resolved = resolve_config(cell.overrides, loaded.script.language)
    return await prepare(loaded, LibraryCatalog(library), resolved)


async def run_cell(
    cell: Cell,
    data_dir: Path,
    store: SessionStore,
    library: Library,
    journal: JournalWriter,
    prepared: Prepared | None = None,
) -> RunOutcome:
    """Play one cell in this process over `data_dir` (the campaign's directory)."""
    prepared = prepared or await prepare_cell(cell, library)
    resolved = prepared.resolved
    target = InProcessTarget.open(
        data_dir, resolved.config, resolved.limits, store=store, library=library, journal=journal
    )
    try:
        return await run_script(target, prepared, data_dir, cell.labels)
    finally:
        await target.aclose()


def run_cell_blocking(cell: Cell, data_dir: str) -> RunOutcome:
    """`run_cell` on its own store and event loop: what a worker of another engine runs."""
    path = Path(data_dir)
    store = SessionStore(path)
    try:
        return asyncio.run(run_cell(cell, path, store, Library(path), JournalWriter(path)))
    finally:
        store.close()


class LocalExecutor:
    """Cells as asyncio tasks in this process, `concurrency` at a time."""

    def __init__(self, data_dir: Path, concurrency: int = 1) -> None:
        self.data_dir = data_dir
        self.concurrency = max(1, concurrency)
        self._checked: dict[str, Prepared] = {}
        """Script reference -> the script checked against its scenario: every repeat and
        arm reuses it, with its own resolved config (one entry per script, not per cell)."""

    async def _prepared_for(self, cell: Cell, library: Library) -> Prepared:
        checked = self._checked.get(cell.script)
        if checked is None:
            checked = self._checked[cell.script] = await prepare_cell(cell, library)
        resolved = resolve_config(cell.overrides, checked.script.language)
        return dataclasses.replace(checked, resolved=resolved)

    async def run(self, cells: Iterable[Cell]) -> AsyncGenerator[RunOutcome, None]:
        """Run the cells; yield outcomes as they finish."""
        store = SessionStore(self.data_dir)
        library = Library(self.data_dir)
        journal = JournalWriter(self.data_dir)
        pending: Iterator[Cell] = iter(cells)
        finished: asyncio.Queue[RunOutcome | BaseException | None] = asyncio.Queue()

        async def worker() -> None:
            try:
                for cell in pending:  # each worker pulls the next cell when it is free
                    prepared = await self._prepared_for(cell, library)
                    outcome = await run_cell(cell, self.data_dir, store, library, journal, prepared)
                    await finished.put(outcome)
            except BaseException as exc:  # surfaced to the caller, then re-raised there
                await finished.put(exc)
                raise
            finally:
                await finished.put(None)

        workers = [asyncio.create_task(worker()) for _ in range(self.concurrency)]
        try:
            running = len(workers)
            while running:
                item = await finished.get()
                if item is None:
                    running -= 1
                elif isinstance(item, BaseException):
                    raise item
                else:
                    yield item
        finally:
            for task in workers:
                task.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            store.close()
