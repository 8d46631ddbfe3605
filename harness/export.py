"""A session's history, ledgers and cast, exported from the store beside its journal.

The journal holds the model calls; the store holds what they made: the history records
with their audiences (events, speech, whispers, thoughts, narration), each ledger's memory
lines and learned names. Exported next to the journal, canon and boundary questions become
SQL over the same views (`harness.analysis.connect`).

    sessions/<id>/journal.jsonl   the kernel's journal
    sessions/<id>/history.jsonl   one history record a line, with `session_id`
    sessions/<id>/memory.jsonl    one ledger memory line a line (`MemoryLine`)
    sessions/<id>/session.jsonl   one `SessionExport` line: cast, identities, summaries
    sessions/<id>/compacted.jsonl the records live compactions hold in their checkpoints,
                                  as `history.jsonl` (what was said stays what was said)

`export_partition` writes the same tables, and the journal too, as Parquet files in a
campaign partition (`<root>/campaign=C/arm=A/run=R/`), which DuckDB reads in place;
`export_campaign` does either for every finished run of a campaign directory.
`harness.run` writes the JSONL exports of every session it plays; `campaign run|resume`
writes each finished run's partition under the campaign directory's `partitions/`
(`sync_partitions`).

Example:
    >>> from pathlib import Path
    >>> sorted(EXPORT_NAMES)
    ['compacted', 'history', 'memory', 'session']
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterable
from pathlib import Path

import duckdb

from harness.analysis_records import CastEntry, IdentityEntryRow, MemoryLine, SessionExport
from harness.loader import EXPORT_TABLES, PARTITIONS_NAME, load
from harness.records.results import RunResult
from harness.results import RESULTS_NAME, read_results
from tavern.records import HistoryRecord, SessionState, utc_now
from tavern.store import SessionStore, journal_path, session_dir
from tavern.store.atomic import write_atomic

EXPORT_NAMES = tuple(EXPORT_TABLES)
_PARTITION_VALUE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")


def session_export(state: SessionState) -> SessionExport:
    """The `session.jsonl` line of a session state."""
    return SessionExport(
        session_id=state.id,
        scenario_id=state.scenario_id,
        title=state.title,
        language=state.language,
        controlled_id=state.controlled_id,
        turn_number=state.turn_number,
        tick=state.clock.tick,
        exported_at=utc_now(),
        characters=[
            CastEntry(
                slot=slot,
                name=ch.body.display_name,
                appearance=ch.body.appearance,
                description_ref=ch.body.description_ref,
                controlled=slot == state.controlled_id,
            )
            for slot, ch in state.cast.items()
        ],
        identities=[
            IdentityEntryRow(
                viewer=viewer,
                other=other,
                name=entry.name,
                learned_from_seq=entry.learned_from_seq,
                description_ref=entry.description_ref,
            )
            for viewer, ledger in state.ledgers.items()
            for other, entry in ledger.identities.items()
        ],
        memory_summaries={o: ledger.memory_summary for o, ledger in state.ledgers.items()},
        story_summary=state.story_summary,
    )


def memory_lines(state: SessionState) -> list[MemoryLine]:
    """Every ledger's memory lines, oldest first."""
    return [
        MemoryLine(session_id=state.id, owner=owner, position=i, text=text)
        for owner, ledger in state.ledgers.items()
        for i, text in enumerate(ledger.memory)
    ]


def _history_lines(session_id: str, records: Iterable[HistoryRecord]) -> bytes:
    out = []
    for record in records:
        row = {"session_id": session_id, **record.model_dump(mode="json")}
        out.append(json.dumps(row, ensure_ascii=False))
    return ("\n".join(out) + "\n").encode() if out else b""


def _jsonl(lines: Iterable[MemoryLine | SessionExport]) -> bytes:
    return b"".join(line.model_dump_json().encode() + b"\n" for line in lines)


def export_session(
    data_dir: Path | str, session_id: str, store: SessionStore | None = None
) -> Path:
    """Write a session's `history`, `memory`, `session` and `compacted` JSONL beside its
    journal.

    Exporting again after more turns rewrites them.

    Args:
        data_dir: The Tavern data directory holding the session.
        session_id: The session.
        store: An open store of `data_dir` (default: one opened and closed here).

    Returns:
        The session's directory.
    """
    owned = store is None
    store = store or SessionStore(data_dir)
    try:
        state = store.load(session_id)
        records = store.history(session_id)
        compacted = [r for cp in store.checkpoints(session_id) for r in cp.records]
    finally:
        if owned:
            store.close()
    return write_exports(session_dir(data_dir, session_id), state, records, compacted)


def write_exports(
    folder: Path,
    state: SessionState,
    records: Iterable[HistoryRecord],
    compacted: Iterable[HistoryRecord] | None = None,
    *,
    durable: bool = True,
) -> Path:
    """Write `history`, `memory` and `session` JSONL for `state` and its `records` in `folder`,
    and, when given, `compacted` (the records its live compaction checkpoints hold, read by
    the boundary sweep: a whisper compacted away is still a secret; None leaves the file as
    it is, for a caller that cannot read the checkpoints).

    Each file is replaced atomically; `durable` also syncs it to disk (a harness run does
    not: its exports are derived from the store, and its results line, synced, comes after).

    Returns:
        `folder`.
    """
    write_history(folder, state.id, records, durable=durable)
    _replace(folder / "memory.jsonl", _jsonl(memory_lines(state)), durable)
    _replace(folder / "session.jsonl", _jsonl([session_export(state)]), durable)
    if compacted is not None:
        _replace(folder / "compacted.jsonl", _history_lines(state.id, compacted), durable)
    return folder


def write_history(
    folder: Path, session_id: str, records: Iterable[HistoryRecord], *, durable: bool = True
) -> Path:
    """Write `history.jsonl` alone (what a run over HTTP can export: the server serves the
    history, not the stored state), replaced atomically (`durable`: and synced).

    Returns:
        `folder`.
    """
    folder.mkdir(parents=True, exist_ok=True)
    _replace(folder / "history.jsonl", _history_lines(session_id, records), durable)
    return folder


def _replace(path: Path, data: bytes, durable: bool) -> None:
    if durable:
        write_atomic(path, data)
        return
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def partition_dir(root: Path | str, campaign: str, arm: str, run: str) -> Path:
    """`<root>/campaign=C/arm=A/run=R`, each value checked to be one safe path segment.

    >>> partition_dir("out", "ab", "arm-b", "r1").as_posix()
    'out/campaign=ab/arm=arm-b/run=r1'
    """
    for key, value in (("campaign", campaign), ("arm", arm), ("run", run)):
        if not _PARTITION_VALUE.match(value):
            raise ValueError(f"{key} {value!r} is not a safe partition value")
    return Path(root) / f"campaign={campaign}" / f"arm={arm}" / f"run={run}"


def export_partition(
    data_dir: Path | str,
    session_id: str,
    root: Path | str,
    *,
    campaign: str,
    arm: str,
    run: str,
    store: SessionStore | None = None,
    refresh: bool = True,
) -> Path:
    """Write one run's journal and exports as Parquet in its campaign partition.

    The journal is read by the analysis loader (typed, torn lines counted and left out) and
    written with its `line_no`; the exports are written from the store first (`refresh`;
    False reads the JSONL exports already beside the journal, as a finished run left them).
    DuckDB then reads `<root>/**/journal.parquet` in place, locally or from object storage.
    Each file is replaced atomically, the journal last: a partition with its
    `journal.parquet` is complete.

    Returns:
        The partition directory.
    """
    if refresh:
        export_session(data_dir, session_id, store)
    target = partition_dir(root, campaign, arm, run)
    target.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect()
    try:
        load(con, journal_path(data_dir, session_id))
        tables = {**EXPORT_TABLES, "journal": "journal_lines"}
        dropped = "file, campaign, arm, run"
        for name, table in tables.items():
            out = target / f"{name}.parquet"
            tmp = str(out.with_suffix(".parquet.tmp")).replace("'", "''")
            con.execute(
                f"COPY (SELECT * EXCLUDE ({dropped}) FROM {table}) TO '{tmp}' (FORMAT parquet)"
            )
            Path(out.with_suffix(".parquet.tmp")).replace(out)
    finally:
        con.close()
    return target


def run_partition(root: Path | str, run: RunResult) -> Path:
    """A finished run's partition: `campaign=C/arm=A/run=<script>__r<repeat>` under `root`
    (the key that pairs one script and seed across arms; a run without a campaign or arm
    goes under `campaign=runs`, `arm=none`)."""
    return partition_dir(root, **_partition_key(run))


def _partition_key(run: RunResult) -> dict[str, str]:
    return {
        "campaign": run.campaign or "runs",
        "arm": run.arm or "none",
        "run": f"{run.script}__r{run.repeat}",
    }


def export_run(
    data_dir: Path | str,
    run: RunResult,
    root: Path | str,
    *,
    store: SessionStore | None = None,
    refresh: bool = True,
) -> Path:
    """`export_partition` of a finished run, in its `run_partition`."""
    key = _partition_key(run)
    return export_partition(data_dir, run.session_id, root, **key, store=store, refresh=refresh)


def sync_partitions(directory: Path | str, root: Path | str | None = None) -> list[Path]:
    """Make a campaign directory's partitions match its finished runs: export each finished
    run whose partition is missing or incomplete (a process killed between its results
    line and its partition), and delete partitions of runs the results file does not list.
    Resume-safe: run again, it writes nothing new.

    Args:
        directory: The campaign directory.
        root: Where the partitions go (default: `directory/partitions`).

    Returns:
        The partitions written.
    """
    directory = Path(directory)
    root = Path(root) if root is not None else directory / PARTITIONS_NAME
    path = directory / RESULTS_NAME
    finished = read_results(path).runs if path.exists() else []
    expected = {run_partition(root, run): run for run in finished}
    for stale in sorted(root.glob("campaign=*/arm=*/run=*")):
        if stale not in expected:
            shutil.rmtree(stale)
    todo = [run for folder, run in expected.items() if not (folder / "journal.parquet").exists()]
    return [export_run(directory, run, root, refresh=False) for run in todo]


def export_campaign(directory: Path | str, root: Path | str | None = None) -> list[Path]:
    """Export every finished run of a campaign directory (or any harness data dir): its
    results file's runs, each session's exports beside its journal, and with `root`, each
    run as a Parquet partition `<root>/campaign=C/arm=A/run=<script>__r<repeat>/` (the key
    that pairs one script and seed across arms; runs without a campaign or arm go under
    `campaign=runs`, `arm=none`).

    Returns:
        The session directories written, or the partition directories with `root`.
    """
    directory = Path(directory)
    finished = read_results(directory / RESULTS_NAME).runs
    store = SessionStore(directory)
    out = []
    try:
        for run in finished:
            if root is None:
                out.append(export_session(directory, run.session_id, store))
            else:
                out.append(export_run(directory, run, root, store=store))
    finally:
        store.close()
    return out
