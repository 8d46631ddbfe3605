"""`harness.loader`: journals and exports into DuckDB by DuckDB's readers, typed from the
records; bad lines counted and skipped; a fork's inherited lines counted once."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import pytest
from analysis_planted import Planted, at, role_prompt
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.columns import duck_type, table_spec
from harness.export import export_partition, export_session
from harness.loader import JOURNAL_SPEC, load
from tavern.records import (
    JOURNAL_LINE_ADAPTER,
    Audience,
    ChatMessage,
    ClampChange,
    CommitLine,
    FilterCut,
    LlmCallLine,
    LlmRequestBody,
    PromptCache,
    SystemRecord,
    TurnInput,
    TurnInputLine,
    UndoLine,
)
from tavern.store import Library, SessionStore, journal_path, materialize_session, read_journal


def _con(paths: object) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    load(con, paths)  # type: ignore[arg-type]
    return con


def test_every_field_of_every_kind_is_a_column() -> None:
    schema = JOURNAL_LINE_ADAPTER.json_schema()
    for name, model in schema["$defs"].items():
        if not name.endswith("Line"):
            continue
        for field, node in model["properties"].items():
            assert JOURNAL_SPEC.columns[field] == duck_type(node, schema["$defs"]), field


def test_a_union_giving_one_field_two_types_is_refused() -> None:
    schema = {
        "oneOf": [
            {"properties": {"kind": {"const": "a"}, "x": {"type": "integer"}}},
            {"properties": {"kind": {"const": "b"}, "x": {"type": "string"}}},
        ]
    }
    with pytest.raises(ValueError, match="'x' is BIGINT and VARCHAR"):
        table_spec(schema)


_TEXT = st.text(st.characters(blacklist_categories=["Cs"]), max_size=30)
_TS = st.datetimes(
    min_value=datetime(2000, 1, 1),  # noqa: DTZ001 (naive bounds, zoned by `timezones`)
    max_value=datetime(2100, 1, 1),  # noqa: DTZ001
    timezones=st.just(UTC),
)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=6,
)
_BASE = {"ts": _TS, "session_id": _TEXT, "turn_number": st.integers(0, 10**6)}
_LINES = st.one_of(
    st.builds(
        LlmCallLine,
        **_BASE,
        agent=_TEXT, provider=_TEXT, model=_TEXT,
        source=st.sampled_from(["live", "replay", "fake"]),
        request=st.builds(
            LlmRequestBody,
            messages=st.lists(st.builds(ChatMessage, role=st.sampled_from(["system", "user"]),
                                        content=_TEXT), max_size=3),
            max_tokens=st.none() | st.integers(1, 10**5),
            response_format=st.none() | st.dictionaries(_TEXT, _JSON, max_size=2),
            temperature=st.none() | st.floats(0, 2),
        ),
        response=st.none() | _TEXT,
        usage=st.none() | st.dictionaries(_TEXT, _JSON, max_size=3),
        prompt_cache=st.builds(PromptCache, hit_tokens=st.none() | st.integers(0, 10**6),
                               miss_tokens=st.none() | st.integers(0, 10**6)),
        stopped_early=st.booleans(), error=st.none() | _TEXT, error_type=st.none() | _TEXT,
        duration_ms=st.floats(0, 10**7), attempt_number=st.integers(1, 5),
        prompt_chars=st.integers(0, 10**6), prompt_estimated_tokens=st.integers(0, 10**6),
    ),
    st.builds(
        CommitLine,
        **_BASE,
        revision=st.integers(0, 100), record_count=st.integers(0, 9), tick=st.integers(0, 99),
        control_returned=st.booleans(),
        clamp_changes=st.lists(st.builds(ClampChange, rule=_TEXT, path=_TEXT, before=_JSON,
                                         after=_JSON), max_size=2),
        filter_cuts=st.lists(st.builds(FilterCut, rule=_TEXT, target=_TEXT, language=_TEXT,
                                       before=_TEXT, after=_TEXT), max_size=2),
    ),
    st.builds(TurnInputLine, **_BASE, input=st.builds(TurnInput, speech=_TEXT.filter(str.strip))),
    st.builds(UndoLine, **_BASE, revision=st.integers(0, 9), removed_turn=st.integers(0, 9),
              removed_records=st.integers(0, 9)),
)  # fmt: skip


def _as_line(data: dict[str, Any]) -> Any:
    """A loaded row read back as the kernel's journal line (its own fields only)."""
    own = {k: v for k, v in data.items() if k in JOURNAL_SPEC.fields[data["kind"]]}
    if isinstance(own.get("usage"), str):
        own["usage"] = json.loads(own["usage"])
    request = own.get("request")
    if isinstance(request, dict):
        for key in ("response_format", "provider_options"):
            if isinstance(request.get(key), str):
                request[key] = json.loads(request[key])
    for change in own.get("clamp_changes") or []:
        for key in ("before", "after"):
            change[key] = None if change[key] is None else json.loads(change[key])
    return JOURNAL_LINE_ADAPTER.validate_python(own)


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(_LINES, min_size=1, max_size=4))
def test_generated_lines_round_trip(tmp_path: Path, lines: list[Any]) -> None:
    path = tmp_path / "journal.jsonl"
    path.write_bytes(b"".join(JOURNAL_LINE_ADAPTER.dump_json(x) + b"\n" for x in lines))
    con = _con(path)
    assert con.execute("SELECT lines, loaded, skipped FROM journal_files").fetchone() == (
        len(lines),
        len(lines),
        0,
    )
    columns = list(JOURNAL_SPEC.columns)
    quoted = ", ".join(f'"{c}"' for c in columns)
    rows = con.execute(f"SELECT {quoted} FROM journal_lines ORDER BY line_no").fetchall()
    assert [_as_line(dict(zip(columns, r, strict=True))) for r in rows] == lines


def test_bad_lines_are_skipped_and_counted(tavern_data_dir: Path) -> None:
    run = Planted(tavern_data_dir)
    run.call(1, "director", end_ms=10)
    path = journal_path(tavern_data_dir, "sess-a")
    good = path.read_text()
    foreign = json.loads(good)
    planted = [
        "not json at all",
        json.dumps({**foreign, "schema_version": 2}),  # another version
        json.dumps({**foreign, "kind": "probe_result"}),  # no known kind
        json.dumps({k: v for k, v in foreign.items() if k != "agent"}),  # a required field gone
        json.dumps({**foreign, "turn_number": "seven"}),  # a wrong type reads as missing
    ]
    path.write_text(good + "\n".join(planted) + "\n" + good + good.strip()[:40])  # torn tail
    con = _con(tavern_data_dir)
    assert con.execute(
        "SELECT lines, loaded, skipped, inherited FROM journal_files"
    ).fetchone() == (8, 2, 6, 0)
    assert con.execute("SELECT count(*) FROM journal_lines").fetchone() == (2,)


def test_a_line_with_bytes_that_are_not_utf8_is_skipped_and_counted(
    tavern_data_dir: Path,
) -> None:
    """The bad bytes sit inside a string of an otherwise valid line: decoded with them
    replaced, it would parse and load; it must not, and its neighbours keep their numbers."""
    run = Planted(tavern_data_dir)
    run.call(1, "director", end_ms=10)
    path = journal_path(tavern_data_dir, "sess-a")
    good = path.read_bytes()
    mangled = good.replace(b'"director"', b'"dir\xff\xfector"', 1)
    assert mangled != good and mangled.decode("utf-8", "replace").count("director") == 0
    path.write_bytes(good + mangled + good)
    con = _con(tavern_data_dir)
    assert con.execute(
        "SELECT lines, loaded, skipped, inherited FROM journal_files"
    ).fetchone() == (3, 2, 1, 0)
    rows = con.execute("SELECT line_no, agent FROM journal_lines ORDER BY line_no").fetchall()
    assert rows == [(1, "director"), (3, "director")]
    # The same line without the bad bytes loads: the skip is the bytes, not the line.
    path.write_bytes(good + good.replace(b'"director"', b'"dirctor"', 1) + good)
    assert _con(tavern_data_dir).execute("SELECT count(*) FROM journal_lines").fetchone() == (3,)


def _forked_data_dir(data_dir: Path) -> Path:
    """sess-a plays two turns, is forked (the store copies its journal) as sess-f, which plays
    one turn of its own."""
    library = Library(data_dir)
    state = materialize_session(library.get_scenario("the-toll-house"), library, "sess-a")
    store = SessionStore(data_dir, synchronous="OFF")
    store.create(state)
    source = Planted(data_dir, "sess-a")
    for turn in (1, 2):
        source.call(turn, "director", end_ms=turn * 100)
        source.commit(turn, turn * 100 + 5)
    store.fork("sess-a", "sess-f")
    fork = Planted(data_dir, "sess-f")
    fork.call(3, "director", end_ms=300)
    fork.commit(3, 305)
    store.close()
    return data_dir


def test_a_forks_inherited_lines_count_once(tavern_data_dir: Path) -> None:
    data_dir = _forked_data_dir(tavern_data_dir)
    raw = [line for path in sorted(data_dir.rglob("*.jsonl")) for line in read_journal(path)]
    # Planted: the plain concatenation really counts sess-a's lines twice.
    assert [line.session_id for line in raw].count("sess-a") == 8
    con = _con(data_dir)
    per_session = con.execute(
        "SELECT session_id, count(*) FROM journal_lines WHERE kind = 'llm_call' "
        "GROUP BY session_id ORDER BY session_id"
    ).fetchall()
    assert per_session == [("sess-a", 2), ("sess-f", 1)]
    inherited = con.execute("SELECT sum(inherited), sum(skipped) FROM journal_files").fetchone()
    assert inherited == (4, 0)
    # The fork read alone still shows what it inherited, under the source's id.
    alone = _con(journal_path(data_dir, "sess-f"))
    calls = alone.execute(
        "SELECT session_id FROM journal_lines WHERE kind = 'llm_call' ORDER BY line_no"
    ).fetchall()
    assert [sid for (sid,) in calls] == ["sess-a", "sess-a", "sess-f"]


def test_equal_lines_within_one_journal_are_kept(tavern_data_dir: Path) -> None:
    """A double write inside one journal is a bug analysis must show, not hide."""
    run = Planted(tavern_data_dir)
    line = run.call(1, "director", end_ms=10)
    run.write(line)
    con = _con(tavern_data_dir)
    assert con.execute("SELECT count(*) FROM journal_lines").fetchone() == (2,)


def test_line_order_within_each_file_is_the_append_order(tavern_data_dir: Path) -> None:
    for sid in ("sess-b", "sess-a"):
        run = Planted(tavern_data_dir, sid)
        for i in range(300):  # out of time order on purpose: only the append order counts
            run.call(i % 7, "director", end_ms=(i * 37) % 1000, duration_ms=float(i))
    con = _con(tavern_data_dir)
    for sid in ("sess-a", "sess-b"):
        got = con.execute(
            "SELECT duration_ms FROM journal_lines WHERE session_id = ? ORDER BY line_no", [sid]
        ).fetchall()
        assert [int(d) for (d,) in got] == list(range(300))


def test_exports_and_partitions_read_the_same(tavern_data_dir: Path, tmp_path: Path) -> None:
    library = Library(tavern_data_dir)
    state = materialize_session(library.get_scenario("the-toll-house"), library, "sess-a")
    store = SessionStore(tavern_data_dir, synchronous="OFF")
    opening = SystemRecord(
        seq=0, turn_number=0, speaker="World", author="kernel", marker="session_start",
        audience=Audience(origin="public"), text="The Toll House",
    )  # fmt: skip
    store.create(state, [opening])
    run = Planted(tavern_data_dir)
    run.turn_input(1, 0, speech="Evening.")
    run.call(1, "director", end_ms=50, messages=role_prompt())
    run.commit(1, 60)
    export_session(tavern_data_dir, "sess-a", store)
    root = tmp_path / "campaigns"
    export_partition(tavern_data_dir, "sess-a", root, campaign="ab", arm="b", run="r1", store=store)
    store.close()
    plain = _con(tavern_data_dir)
    parted = _con(str(root / "**" / "journal.parquet"))
    for table in ("journal_lines", "history", "memory", "sessions"):
        query = f"SELECT * EXCLUDE (file, campaign, arm, run) FROM {table} ORDER BY ALL"
        if table == "journal_lines":
            query = query.replace("ORDER BY ALL", "ORDER BY line_no")
        assert plain.execute(query).fetchall() == parted.execute(query).fetchall(), table
    assert parted.execute("SELECT DISTINCT campaign, arm, run FROM journal_lines").fetchall() == [
        ("ab", "b", "r1")
    ]
    assert plain.execute("SELECT count(*) FROM sessions").fetchone() == (1,)
    assert plain.execute("SELECT DISTINCT kind FROM history").fetchall() == [("system",)]


def test_a_partition_value_must_be_one_safe_segment(tmp_path: Path) -> None:
    from harness.export import partition_dir

    with pytest.raises(ValueError, match="arm"):
        partition_dir(tmp_path, "ab", "../escape", "r1")


def test_a_glob_without_a_connection_is_refused() -> None:
    from harness.loader import find

    with pytest.raises(ValueError, match="needs a DuckDB connection"):
        find("s3://bucket/c/**/journal.parquet")


def test_a_journal_line_of_each_kind_loads(tavern_data_dir: Path) -> None:
    run = Planted(tavern_data_dir)
    run.turn_input(1, 0)
    run.call(1, "director", end_ms=5)
    run.commit(1, 9)
    run.undo(1, 12)
    con = _con(tavern_data_dir)
    kinds = con.execute("SELECT kind FROM journal_lines ORDER BY line_no").fetchall()
    assert [k for (k,) in kinds] == ["turn_input", "llm_call", "commit", "undo"]
    assert con.execute("SELECT source FROM journal_lines WHERE kind = 'llm_call'").fetchone() == (
        "fake",
    )
    # A default fills only the kinds that have the field.
    assert con.execute("SELECT count(source) FROM journal_lines").fetchone() == (1,)
    assert at(5).year == 2026


def test_a_partition_older_than_a_field_reads_the_fields_default(
    tavern_data_dir: Path, tmp_path: Path
) -> None:
    run = Planted(tavern_data_dir)
    run.commit(1, 10)
    con = _con(tavern_data_dir)
    old = tmp_path / "campaign=c" / "arm=a" / "run=r1" / "journal.parquet"
    old.parent.mkdir(parents=True)
    # Planted: a partition written before `CommitLine.filter_cuts` existed.
    con.execute(
        f"COPY (SELECT * EXCLUDE (file, campaign, arm, run, filter_cuts) FROM journal_lines) "
        f"TO '{old}' (FORMAT parquet)"
    )
    parted = _con(old)
    assert parted.execute("SELECT kind, filter_cuts FROM journal_lines").fetchall() == [
        ("commit", None)
    ]
