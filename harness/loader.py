"""Journals and session exports into DuckDB tables, read by DuckDB itself.

`load(con, paths)` finds, under each path, the journals (`journal.jsonl`, or `journal.parquet`
in a campaign partition) and the session exports beside them (`history`, `memory`,
`session`, `compacted`, as `.jsonl` or `.parquet`), and reads them in place with DuckDB:
JSON lines are split by DuckDB and cast by its JSON reader to the record's STRUCT type,
Parquet is read by name; the column types are generated from the records
(`harness.columns`). No Python loop touches a line, and nothing is copied through pandas.

Bad input is counted, never fatal: a torn last line, a line that is not JSON (or not valid
UTF-8), a line of another `schema_version` or of no known kind, or one missing a required
field is left out, and `journal_files.skipped` says how many per file.

A forked session's journal begins with a verbatim copy of its source's lines. A line equal
to one read from an earlier file (in path order) is that copy and is left out
(`journal_files.inherited`), so a data directory holding forks counts every call once;
equal lines within one file are kept (a double write analysis must show).

Tables made:

| table | one row per |
|---|---|
| `journal_lines` | journal line of any kind, typed; `file`, `line_no`, `campaign`, `arm`, `run` |
| `journal_files` | journal file: `lines`, `loaded`, `skipped`, `inherited` |
| `history` | exported history record, with `session_id` |
| `memory` | exported ledger memory line |
| `sessions` | exported session (cast, identities, memory and story summaries) |
| `compacted_history` | exported record held by a live compaction's checkpoint (as `history`) |
| `results` | line of a harness results file: a probe's or a finished run's (`kind`) |

Example:
    >>> import duckdb
    >>> con = duckdb.connect()
    >>> load(con, [])
    True
    >>> con.execute("SELECT count(*) FROM journal_lines").fetchone()
    (0,)
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from harness.analysis_records import MemoryLine, SessionExport
from harness.columns import TableSpec, quote, table_spec
from harness.records.results import RESULT_LINE_ADAPTER, RESULTS_SCHEMA_VERSION
from harness.results import RESULTS_NAME
from tavern.records import HISTORY_RECORD_ADAPTER, JOURNAL_LINE_ADAPTER, JOURNAL_SCHEMA_VERSION
from tavern.store.journal import JOURNAL_NAME

JournalPaths = str | Path | Sequence[str | Path]

JOURNAL_SPEC = table_spec(JOURNAL_LINE_ADAPTER.json_schema())
"""The journal line union as columns (the one definition: `tavern.records.journal`)."""
HISTORY_SPEC = table_spec(HISTORY_RECORD_ADAPTER.json_schema())
"""History records as columns (`tavern.records.history`), plus `session_id` on export."""
MEMORY_SPEC = table_spec(MemoryLine.model_json_schema())
SESSION_SPEC = table_spec(SessionExport.model_json_schema())

_EXPORTED_HISTORY = TableSpec(
    {"session_id": "VARCHAR", **HISTORY_SPEC.columns},
    {k: v | {"session_id"} for k, v in HISTORY_SPEC.fields.items()},
    {k: v | {"session_id"} for k, v in HISTORY_SPEC.required.items()},
    HISTORY_SPEC.defaults,
    {},
)
EXPORTS: dict[str, TableSpec] = {
    "history": _EXPORTED_HISTORY,
    "memory": MEMORY_SPEC,
    "session": SESSION_SPEC,
    "compacted": _EXPORTED_HISTORY,
}
"""Export name (file stem beside a journal) -> its table's columns."""
EXPORT_TABLES = {
    "history": "history",
    "memory": "memory",
    "session": "sessions",
    "compacted": "compacted_history",
}
RESULTS_SPEC = table_spec(RESULT_LINE_ADAPTER.json_schema())
"""The harness's results files (`results.jsonl`: probe and run lines) as columns."""


@dataclass(frozen=True)
class Found:
    """The files found under some paths, by what they hold."""

    journals_json: list[str]
    journals_parquet: list[str]
    exports: dict[str, list[str]]
    results: list[str]
    """The harness's results files (`results.jsonl`) under a searched directory."""


def is_remote(path: str | Path) -> bool:
    """A URL or glob DuckDB resolves itself (`s3://...`, `https://...`, `dir/**/x.parquet`).

    >>> is_remote("s3://bucket/c/**/journal.parquet"), is_remote("sessions/a/journal.jsonl")
    (True, False)
    """
    text = str(path)
    return "://" in text or any(c in text for c in "*?[")


PARTITIONS_NAME = "partitions"
"""A campaign directory's Parquet partitions of its runs, beside its `manifest.json`: a copy
of its `sessions/`, which a search of the campaign directory leaves out (pass the folder
itself to read the partitions)."""


def _partition_copies(path: Path) -> list[Path]:
    """The `partitions/` folders of the campaign directories under `path`."""
    return [m.parent / PARTITIONS_NAME for m in path.rglob("manifest.json")]


def find(paths: JournalPaths, con: duckdb.DuckDBPyConnection | None = None) -> Found:
    """The journals and exports under `paths`, in path order.

    A directory is searched recursively for journals and the exports beside them; a file
    is read whatever its name (a `.parquet` file as a journal partition). A URL or glob of
    journal files (`s3://bucket/c/**/journal.parquet`) is expanded by DuckDB's `glob` on
    `con` (so object storage works once `httpfs` is loaded), and the same glob with each
    export's name finds the exports. A directory's `results.jsonl` files (the harness's
    probe and run lines) are found too; a campaign directory's `partitions/` (a copy of
    its sessions) is not.
    """
    if isinstance(paths, str | Path):
        paths = [paths]
    json_files: list[str] = []
    parquet_files: list[str] = []
    exports: dict[str, list[str]] = {name: [] for name in EXPORTS}
    results: list[str] = []
    for item in paths:
        if is_remote(item):
            if con is None:
                raise ValueError(f"{item}: a URL or glob needs a DuckDB connection to expand")
            pattern = str(item)
            for text in _glob(con, pattern):
                (parquet_files if text.endswith(".parquet") else json_files).append(text)
            for name in EXPORTS:
                exports[name].extend(_glob(con, pattern.replace("journal.", f"{name}.")))
            continue
        path = Path(item)
        if path.is_dir():
            copies = _partition_copies(path)

            def walk(pattern: str, path: Path = path, copies: list[Path] = copies) -> list[Path]:
                return [
                    p
                    for p in sorted(path.rglob(pattern))
                    if not any(p.is_relative_to(c) for c in copies)
                ]

            for found in walk("journal.*"):
                if found.name == JOURNAL_NAME:
                    json_files.append(str(found))
                elif found.name == "journal.parquet":
                    parquet_files.append(str(found))
            for name in EXPORTS:
                for suffix in (".jsonl", ".parquet"):
                    exports[name].extend(str(p) for p in walk(name + suffix))
            results.extend(str(p) for p in walk(RESULTS_NAME))
        elif path.suffix == ".parquet":
            parquet_files.append(str(path))
        else:
            json_files.append(str(path))
            for name in EXPORTS:
                for suffix in (".jsonl", ".parquet"):
                    beside = path.with_name(name + suffix)
                    if beside.exists():
                        exports[name].append(str(beside))
    return Found(json_files, parquet_files, exports, results)


def _glob(con: duckdb.DuckDBPyConnection, pattern: str) -> list[str]:
    rows = con.execute("SELECT file FROM glob(?) ORDER BY file", [pattern]).fetchall()
    return [str(row[0]) for row in rows]


def rows_as_dicts(
    con: duckdb.DuckDBPyConnection, table: str, spec: TableSpec, order: str = "file"
) -> list[dict[str, Any]]:
    """The rows of a loaded table as dicts of the spec's columns, JSON columns parsed back:
    what a record's `model_validate` takes (after dropping fields of other kinds)."""
    columns = list(spec.columns)
    rows = con.execute(
        f"SELECT {', '.join(quote(c) for c in columns)} FROM {table} ORDER BY {order}"
    ).fetchall()
    json_columns = [c for c, t in spec.columns.items() if t == "JSON"]
    out = []
    for row in rows:
        data = dict(zip(columns, row, strict=True))
        for column in json_columns:
            if isinstance(data[column], str):
                data[column] = json.loads(data[column])
        out.append(data)
    return out


def _sql_str(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _file_list(files: Sequence[str]) -> str:
    return "[" + ", ".join(_sql_str(f) for f in files) + "]"


def _partition(key: str) -> str:
    return f"nullif(regexp_extract(file, '(?:^|/){key}=([^/]+)', 1), '') AS {key}"


def _struct_type(spec: TableSpec) -> str:
    return "STRUCT(" + ", ".join(f"{quote(c)} {t}" for c, t in spec.columns.items()) + ")"


def _read_parquet(files: Sequence[str]) -> str:
    return (
        f"read_parquet({_file_list(files)}, filename='file', file_row_number=true, "
        "union_by_name=true, hive_partitioning=false)"
    )


def _json_lines(files: Sequence[str], spec: TableSpec) -> str:
    """A query of every line of the JSON-lines `files`: `file`, `line_no` (1-based, counted
    in the file itself), `line_hash`, `clean`, and the spec's columns (all NULL for a line
    that is not a JSON object of the record's shape).

    Each file is read whole by `read_blob` and split at its newlines, so a line's number
    is its own, not a position in DuckDB's scan: the read, the split and the cast to the
    record's STRUCT type run in parallel over files and rows with no order to keep, and no
    copy of the text is kept. (DuckDB's `read_json` with the same columns costs about 1.5 ms
    of CPU a file before its first line, 37 us per column: 14,500 journals of a campaign
    would pay 20 s for it; `read_ndjson_objects` numbers lines only by an insertion order
    that, kept over two threads, cost half again in CPU.) A file that is not valid
    UTF-8 is decoded twice, bad bytes replaced and dropped: the lines where the two differ
    are the ones holding bad bytes, and are not `clean`.
    """
    return f"""
        WITH f AS (
            SELECT filename AS file, try(decode(content)) AS strict,
                   coalesce(strict, decode(content, 'replace')) AS text,
                   CASE WHEN strict IS NULL
                        THEN string_split(decode(content, 'ignore'), chr(10)) END AS dropped
            FROM read_blob({_file_list(files)})
        ), l AS (
            SELECT file, unnest(string_split(text, chr(10))) AS line,
                   unnest(generate_series(1, len(string_split(text, chr(10))))) AS line_no,
                   dropped
            FROM f
        )
        SELECT file, line_no, hash(line) AS line_hash,
               dropped IS NULL OR dropped[line_no] = line AS clean,
               unnest(TRY_CAST(TRY_CAST(line AS JSON) AS {_struct_type(spec)}))
        FROM l WHERE line <> ''"""


def _read_rows(
    con: duckdb.DuckDBPyConnection,
    table: str,
    json_files: Sequence[str],
    parquet_files: Sequence[str],
    spec: TableSpec,
    valid: str,
) -> None:
    """Create table `table`: one row per line read, with the spec's columns (defaults
    applied), `file`, `line_no`, the campaign partition keys the spec lacks, and `file_seq`
    (the file's position in the load), `line_hash` and `valid` for the caller to count and
    prune.

    JSON lines are read, split, cast and written in one statement with no insertion order
    kept (`_json_lines`); the file-level columns come from a table of the file names, joined
    in the same statement. Parquet partitions are appended by name.
    """
    files = [*json_files, *parquet_files]
    keys = [k for k in ("campaign", "arm", "run") if k not in spec.columns]
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE {table}_files AS
        SELECT {", ".join(["file", "file_seq", *(_partition(k) for k in keys)])}
        FROM (SELECT unnest(?::VARCHAR[]) AS file,
                     unnest(generate_series(1, len(?::VARCHAR[]))) AS file_seq)""",
        [files, files],
    )
    nulls = ", ".join(f"CAST(NULL AS {t}) AS {quote(c)}" for c, t in spec.columns.items())
    partition = "".join(f"f.{k}, " for k in keys)
    source = (
        _json_lines(json_files, spec)
        if json_files
        else "SELECT '' AS file, NULL::BIGINT AS line_no, 0::UBIGINT AS line_hash, "
        f"true AS clean, {nulls} WHERE false"
    )
    kept = con.execute("SELECT current_setting('preserve_insertion_order')").fetchone()
    con.execute("SET preserve_insertion_order = false")
    try:
        con.execute(
            f"""CREATE OR REPLACE TABLE {table} AS
            SELECT {spec.select_list()}, t.file, t.line_no, {partition}
                   f.file_seq, t.line_hash, coalesce(t.clean AND {valid}, false) AS valid
            FROM ({source}) t JOIN {table}_files f USING (file)"""
        )
        if parquet_files:
            # A partition written before a field was added lacks its column: NULL (then the
            # field's default) stands in, as a missing key does in a JSON line.
            present = {
                str(row[0])
                for row in con.execute(
                    f"DESCRIBE SELECT * FROM {_read_parquet(parquet_files)}"
                ).fetchall()
            }
            typed = ", ".join(
                quote(c) if c in present else f"CAST(NULL AS {t}) AS {quote(c)}"
                for c, t in spec.columns.items()
            )
            columns = ", ".join(quote(c) for c in spec.columns)
            line_no = "line_no" if "line_no" in present else "NULL::BIGINT"
            con.execute(
                f"""INSERT INTO {table} BY NAME
                SELECT {spec.select_list()}, t.file, t.line_no, {partition}
                       f.file_seq, t.line_hash, coalesce({valid}, false) AS valid
                FROM (SELECT *, hash({columns}) AS line_hash
                      FROM (SELECT file, coalesce({line_no}, file_row_number + 1) AS line_no,
                                   {typed}
                            FROM {_read_parquet(parquet_files)})) t
                JOIN {table}_files f USING (file)"""
            )
    finally:
        restored = "true" if kept is None or kept[0] else "false"
        con.execute(f"SET preserve_insertion_order = {restored}")
    con.execute(f"DROP TABLE IF EXISTS {table}_files")


def load(con: duckdb.DuckDBPyConnection, paths: JournalPaths, *, reuse: bool = False) -> bool:
    """Read the journals and exports under `paths` into `con` (tables in the module doc).

    With `reuse`, tables `con` already holds are kept when they were loaded from the same
    files (same paths, sizes and modification times, recorded in `load_sources`): a
    database file made by an earlier load opens in the time it takes to list the files.
    A file that is not local (a URL) is never taken as unchanged.

    Returns:
        True when the tables were (re)loaded, False when they were reused.
    """
    con.execute("SET TimeZone = 'UTC'")
    shown = con.execute("SELECT current_setting('enable_progress_bar')").fetchone()
    if shown and shown[0]:  # a terminal's bar would interleave with the caller's output
        con.execute("SET enable_progress_bar = false")
    found = find(paths, con)
    sources = _sources(found)
    if reuse and sources is not None and _loaded_from(con) == sources:
        return False
    _load_journals(con, found)
    for name, spec in EXPORTS.items():
        _load_export(con, EXPORT_TABLES[name], found.exports[name], spec)
    valid = f"(schema_version = {RESULTS_SCHEMA_VERSION} AND {RESULTS_SPEC.valid_sql()})"
    _read_rows(con, "results", found.results, [], RESULTS_SPEC, valid)
    con.execute("DELETE FROM results WHERE NOT valid")
    for column in ("valid", "line_hash", "file_seq"):
        con.execute(f"ALTER TABLE results DROP COLUMN {column}")
    # One statement: `executemany` inserts row by row (22 s for 14,493 journals).
    listed = sorted(sources or ())
    con.execute(
        """CREATE OR REPLACE TABLE load_sources AS
        SELECT unnest(?::VARCHAR[]) AS file, unnest(?::BIGINT[]) AS size,
               unnest(?::BIGINT[]) AS mtime_ns""",
        [[f for f, _, _ in listed], [s for _, s, _ in listed], [m for _, _, m in listed]],
    )
    return True


Source = tuple[str, int, int]
"""(path, size, mtime_ns) of a file a load read."""


def _sources(found: Found) -> set[Source] | None:
    """What the files under a load are now, or None when one of them is not local."""
    files = [*found.journals_json, *found.journals_parquet, *found.results]
    files += [f for names in found.exports.values() for f in names]
    out = set()
    for name in files:
        if is_remote(name):
            return None
        stat = Path(name).stat()
        out.add((name, stat.st_size, stat.st_mtime_ns))
    return out


def has_table(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    """Whether `con` holds table `name` (a database an older loader made may not).

    >>> con = duckdb.connect()
    >>> has_table(con, "load_sources")
    False
    """
    found = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE table_name = ?", [name]
    ).fetchone()
    return bool(found and found[0])


def _loaded_from(con: duckdb.DuckDBPyConnection) -> set[Source] | None:
    if not has_table(con, "load_sources"):
        return None
    rows = con.execute("SELECT file, size, mtime_ns FROM load_sources").fetchall()
    return {(str(f), int(s), int(m)) for f, s, m in rows}


def _load_journals(con: duckdb.DuckDBPyConnection, found: Found) -> None:
    spec = JOURNAL_SPEC
    valid = f"(schema_version = {JOURNAL_SCHEMA_VERSION} AND {spec.valid_sql()})"
    _read_rows(con, "journal_lines", found.journals_json, found.journals_parquet, spec, valid)
    # A valid line equal to one of an earlier file (a fork's copy of its source) is inherited.
    con.execute(
        """CREATE OR REPLACE TEMP TABLE journal_first AS
        SELECT line_hash, session_id, ts, min(file_seq) AS first_seq
        FROM journal_lines WHERE valid GROUP BY ALL"""
    )
    con.execute(
        """CREATE OR REPLACE TABLE journal_files AS
        SELECT file, count(*) AS lines,
               count(*) FILTER (WHERE j.valid AND j.file_seq = f.first_seq) AS loaded,
               count(*) FILTER (WHERE NOT j.valid) AS skipped,
               lines - loaded - skipped AS inherited
        FROM journal_lines j LEFT JOIN journal_first f USING (line_hash, session_id, ts)
        GROUP BY file ORDER BY file"""
    )
    con.execute(
        """DELETE FROM journal_lines j USING journal_first f
        WHERE j.line_hash = f.line_hash AND j.session_id = f.session_id AND j.ts = f.ts
          AND j.file_seq > f.first_seq"""
    )
    con.execute("DELETE FROM journal_lines WHERE NOT valid")
    for column in ("valid", "line_hash", "file_seq"):
        con.execute(f"ALTER TABLE journal_lines DROP COLUMN {column}")
    con.execute("DROP TABLE journal_first")


def _load_export(
    con: duckdb.DuckDBPyConnection, table: str, files: list[str], spec: TableSpec
) -> None:
    json_files = [f for f in files if not f.endswith(".parquet")]
    parquet_files = [f for f in files if f.endswith(".parquet")]
    _read_rows(con, table, json_files, parquet_files, spec, spec.valid_sql())
    con.execute(f"DELETE FROM {table} WHERE NOT valid")
    for column in ("valid", "line_hash", "file_seq", "line_no"):
        con.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
