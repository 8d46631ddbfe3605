"""The editable price table the `cost` view reads: per provider and model, per million
tokens, each row dated.

`harness/prices.json` is the default (validated against `PriceTable`, with a `$schema` key so
editors check it); pass another file to `harness.analysis.connect(prices=...)` to price a
campaign at other rates. A model missing from the table leaves its calls unpriced
(`cost.priced` is false), never priced at zero.

Example:
    >>> table = read_prices()
    >>> row = next(p for p in table.prices if p.provider == "deepseek")
    >>> row.as_of.year >= 2026, row.currency
    (True, 'USD')
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from harness.analysis_records import PriceTable

DEFAULT_PRICES = Path(__file__).with_name("prices.json")
"""The bundled table (package data beside this module)."""

_COLUMNS = (
    "provider", "model", "currency", "input_per_mtok", "cached_input_per_mtok",
    "output_per_mtok", "as_of", "source",
)  # fmt: skip


def read_prices(path: Path | str | None = None) -> PriceTable:
    """The price table at `path` (default: the bundled `harness/prices.json`).

    Raises:
        pydantic.ValidationError: the file does not match `PriceTable`.
    """
    text = Path(path or DEFAULT_PRICES).read_text(encoding="utf-8")
    return PriceTable.model_validate_json(text)


def create_price_table(con: duckdb.DuckDBPyConnection, table: PriceTable) -> None:
    """Create (or replace) the `prices` table the `cost` view joins."""
    con.execute(
        """CREATE OR REPLACE TABLE prices (
            provider VARCHAR, model VARCHAR, currency VARCHAR, input_per_mtok DOUBLE,
            cached_input_per_mtok DOUBLE, output_per_mtok DOUBLE, as_of DATE, source VARCHAR)"""
    )
    rows = [tuple(getattr(p, c) for c in _COLUMNS) for p in table.prices]
    if rows:
        con.executemany(f"INSERT INTO prices VALUES ({', '.join('?' * len(_COLUMNS))})", rows)
