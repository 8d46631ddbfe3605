"""Journals as DuckDB views and pandas frames: the analysis entry point.

`connect(paths)` loads every journal and session export under `paths` with DuckDB's own
readers (`harness.loader`), adds the price table and an empty token-count table, creates the
views (`harness.views`) and runs the contract and boundary sweeps into `leaks`. The `*_df`
functions are the same views as pandas frames; all share the join keys `session_id` and
`turn_number` (and `campaign`, `arm`, `run` for partitioned campaign runs).

Example:
    >>> con = connect([])
    >>> con.execute("SELECT count(*) FROM calls").fetchone()
    (0,)
    >>> llm_calls_df([]).columns[:3].tolist()
    ['session_id', 'turn_number', 'ts']
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import duckdb
import pandas as pd

from harness.analysis_records import PriceTable
from harness.loader import JournalPaths, has_table, load
from harness.prices import create_price_table, read_prices
from harness.sweeps import create_leaks
from harness.tokens import create_token_table
from harness.views import create_views

CastNames = Sequence[str] | Mapping[str, Sequence[str]]
"""Display names for the contract's structural rules: one list for every session, or per
session id. Sessions with an export get theirs from it by default."""


def connect(
    paths: JournalPaths,
    cast_names: CastNames | None = None,
    *,
    canaries: Sequence[str] = (),
    prices: Path | str | PriceTable | None = None,
    sweep: bool = True,
    database: str = ":memory:",
    setup: Sequence[str] = (),
) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection with every table and view over the journals under `paths`.

    Args:
        paths: Journal files, directories searched for journals and exports, or URLs/globs
            of journal partitions (`s3://bucket/campaign/**/journal.parquet`, with DuckDB's
            `httpfs` loaded by `setup`: the harness README).
        cast_names: Names for the contract sweep (default: from each session's export).
        canaries: Words the boundary sweep looks for besides canary-looking ones.
        prices: Another price table, or its file (default: `harness/prices.json`).
        sweep: Run the contract and boundary sweeps into the `leaks` view (about a
            millisecond a prompt); without them there is no `leaks` view.
        database: DuckDB database file, or in memory. A file keeps the loaded tables (and
            the sweeps' results): opened again on the same, unchanged journals, it skips
            the load and the sweeps.
        setup: SQL run before the load, e.g. `["LOAD httpfs", "CREATE SECRET (...)"]` to
            read partitions from object storage.
    """
    con = duckdb.connect(database)
    for statement in setup:
        con.execute(statement)
    loaded = load(con, paths, reuse=database != ":memory:")
    create_token_table(con)
    create_price_table(con, prices if isinstance(prices, PriceTable) else read_prices(prices))
    create_views(con)
    if sweep:
        names = _names_by_session(con, cast_names)
        params = json.dumps([names, list(canaries)], sort_keys=True)
        if loaded or _swept_with(con) != params:
            create_leaks(con, names, canaries)
            con.execute("CREATE OR REPLACE TABLE sweep_params AS SELECT ? AS params", [params])
        create_views(con, swept=True)
    return con


def _swept_with(con: duckdb.DuckDBPyConnection) -> str | None:
    if not has_table(con, "sweep_params"):
        return None
    row = con.execute("SELECT params FROM sweep_params").fetchone()
    return str(row[0]) if row else None


def _names_by_session(
    con: duckdb.DuckDBPyConnection, cast_names: CastNames | None
) -> dict[str, list[str]] | None:
    if cast_names is None:
        return None
    if isinstance(cast_names, Mapping):
        return {sid: list(names) for sid, names in cast_names.items()}
    sessions = con.execute("SELECT DISTINCT session_id FROM journal_lines").fetchall()
    return {str(sid): list(cast_names) for (sid,) in sessions}


def llm_calls_df(paths: JournalPaths) -> pd.DataFrame:
    """The `calls` view as a frame: one row per LLM attempt."""
    with connect(paths, sweep=False) as con:
        return con.execute("SELECT * EXCLUDE (messages) FROM calls ORDER BY file, line_no").df()


def turns_df(paths: JournalPaths) -> pd.DataFrame:
    """The `turns` view as a frame: one row per commit line (`kept`: the story as it stands)."""
    with connect(paths, sweep=False) as con:
        return con.execute("SELECT * FROM turns ORDER BY session_id, committed_ts").df()


def leaks_df(paths: JournalPaths, cast_names: CastNames | None = None) -> pd.DataFrame:
    """The `leaks` view as a frame: one row per contract or boundary violation."""
    with connect(paths, cast_names) as con:
        return con.execute("SELECT * FROM leaks ORDER BY file, line_no, rule").df()
