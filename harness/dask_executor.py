"""Cells as tasks of a Dask distributed cluster (`executor = "dask"` in a campaign file).

Each task runs `executors.run_cell_blocking`: the cell on its own store and event loop,
in the campaign directory, which every worker must reach at the same path (one machine, or a
shared filesystem). Outcomes come back to the caller, which alone writes the results file.
At most `concurrency` cells are submitted at a time, so a long campaign does not queue
thousands of futures. Without a scheduler address, an in-process `LocalCluster` (one worker,
`concurrency` threads) is started and closed around the run.

Dask rather than Ray: its wheels are pure Python (Ray's carry a 60+ MB native runtime that
CI would download on every fresh install), an in-process `LocalCluster` starts in about 0.3 s
on two cores (a Ray session starts several daemons), and `Client.submit` with
`as_completed` is all a campaign needs.

Example::

    async for outcome in DaskExecutor(directory, 4, "tcp://10.0.0.5:8786").run(cells):
        ...
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Iterable
from itertools import islice
from pathlib import Path
from typing import Any

from harness.executors import Cell, run_cell_blocking
from harness.run import RunOutcome


class DaskExecutor:
    """Cells on a Dask cluster: `scheduler` (an address) or a local in-process one."""

    def __init__(self, data_dir: Path, concurrency: int = 1, scheduler: str | None = None) -> None:
        self.data_dir = data_dir
        self.concurrency = max(1, concurrency)
        self.scheduler = scheduler

    async def run(self, cells: Iterable[Cell]) -> AsyncGenerator[RunOutcome, None]:
        """Submit the cells, `concurrency` at a time; yield outcomes as they finish."""
        try:
            from distributed import Client, LocalCluster, as_completed
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise RuntimeError(
                "the dask executor needs dask[distributed]: pip install 'tavern[distributed]'"
            ) from exc
        cluster: Any = None
        if self.scheduler is None:
            cluster = await LocalCluster(
                n_workers=1,
                threads_per_worker=self.concurrency,
                processes=False,
                dashboard_address=None,
                asynchronous=True,
            )
        client = await Client(cluster or self.scheduler, asynchronous=True)
        folder = str(self.data_dir)
        try:
            pending = iter(cells)

            def submit(cell: Cell) -> Any:
                return client.submit(
                    run_cell_blocking, cell, folder, key=f"cell-{cell.run_id}", pure=False
                )

            running = as_completed([submit(cell) for cell in islice(pending, self.concurrency)])
            async for future in running:
                outcome: RunOutcome = await future
                following = next(pending, None)
                if following is not None:
                    running.add(submit(following))
                yield outcome
        finally:
            await client.close()
            if cluster is not None:
                await cluster.close()
