"""Journals load into frames and DuckDB views; the leak sweep catches a planted leak."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness import analysis
from harness.analysis import Column, _check_paths, connect, leaks_df, llm_calls_df, turns_df
from tavern.records import (
    ChatMessage,
    CommitLine,
    LlmCallLine,
    LlmRequestBody,
    PromptCache,
    UndoLine,
    utc_now,
)
from tavern.store import (
    JournalWriter,
    Library,
    SessionStore,
    journal_path,
    materialize_session,
    read_journal,
)


def _call(session: str, turn: int, agent: str, prompt: str, hit: int | None) -> LlmCallLine:
    return LlmCallLine(
        ts=utc_now(),
        session_id=session,
        turn_number=turn,
        agent=agent,
        provider="fake",
        model="parrot",
        source="fake",
        request=LlmRequestBody(messages=[ChatMessage(role="system", content=prompt)]),
        response="{}",
        usage={"prompt_tokens": 100, "completion_tokens": 10},
        prompt_cache=PromptCache(hit_tokens=hit, miss_tokens=None if hit is None else 100 - hit),
        duration_ms=5.0,
        attempt_number=1,
        prompt_chars=len(prompt),
        prompt_estimated_tokens=len(prompt) // 4,
    )


def _commit(session: str, turn: int) -> CommitLine:
    return CommitLine(
        ts=utc_now(),
        session_id=session,
        turn_number=turn,
        revision=turn,
        record_count=3,
        tick=turn,
        control_returned=True,
    )


@pytest.fixture
def journals(tavern_data_dir: Path) -> Path:
    writer = JournalWriter(tavern_data_dir, durable=False)
    for session in ("sess-a", "sess-b"):
        for turn in (1, 2):
            writer.append(session, _call(session, turn, "director", "Mara waits.", 80))
            writer.append(session, _call(session, turn, "character:C2", "Mara waits.", None))
            writer.append(session, _commit(session, turn))
    writer.append(
        "sess-b",
        UndoLine(
            ts=utc_now(),
            session_id="sess-b",
            turn_number=2,
            revision=3,
            removed_turn=2,
            removed_records=3,
        ),
    )
    return journal_path(tavern_data_dir, "sess-a").parent.parent


def test_frames_share_join_keys(journals: Path) -> None:
    calls = llm_calls_df(journals)
    turns = turns_df(journals)
    assert len(calls) == 8 and len(turns) == 4
    assert set(calls["role"]) == {"director", "character"}
    assert turns.loc[turns["session_id"] == "sess-b", "undone"].tolist() == [False, True]
    joined = calls.merge(turns, on=["session_id", "turn_number"])
    assert len(joined) == 8


def test_a_stopped_answer_is_marked_in_the_frame(tavern_data_dir: Path) -> None:
    writer = JournalWriter(tavern_data_dir, durable=False)
    writer.append("sess-s", _call("sess-s", 1, "director", "Mara waits.", 80))
    stopped = _call("sess-s", 1, "prose", "Mara waits.", 80).model_copy(
        update={"stopped_early": True}
    )
    writer.append("sess-s", stopped)
    calls = llm_calls_df(journal_path(tavern_data_dir, "sess-s"))
    assert calls[["agent", "stopped_early"]].values.tolist() == [
        ["director", False],
        ["prose", True],
    ]


def test_duckdb_views(journals: Path) -> None:
    con = connect(journals)
    cache = con.execute("SELECT role, hit_tokens, hit_ratio FROM cache ORDER BY role").fetchall()
    # Null counters (provider reported nothing) are excluded, never counted as zero.
    assert [(r, h) for r, h, _ in cache] == [("director", 160), ("director", 160)]
    assert all(ratio == pytest.approx(0.8) for *_, ratio in cache)
    usage = con.execute("SELECT sum(attempts) FROM usage").fetchone()
    assert usage == (8,)
    assert con.execute("SELECT count(*) FROM leaks").fetchone() == (0,)


def test_leak_sweep_catches_planted_leak(tavern_data_dir: Path) -> None:
    writer = JournalWriter(tavern_data_dir, durable=False)
    writer.append("sess-c", _call("sess-c", 1, "director", "Mara waits at the bar.", None))
    writer.append(
        "sess-c",
        _call("sess-c", 1, "character:C2", "Mara is controlled by the human player.", None),
    )
    leaks = leaks_df(journal_path(tavern_data_dir, "sess-c"), ["Mara"])
    assert len(leaks) >= 1
    assert set(leaks["agent"]) == {"character:C2"}


def test_column_paths_are_checked_against_the_schema() -> None:
    with pytest.raises(ValueError, match="not in LlmCallLine"):
        _check_paths([Column("oops", "prompt_cache.hit_tokenz")], LlmCallLine)


def test_structural_leaks_need_the_cast_names(tavern_data_dir: Path) -> None:
    # One character block lacks a field the others have: invisible to a word search.
    prompt = (
        "Mara\nAppearance: tall, red apron\nMood: calm\nSecrets: owes the guild money\n\n"
        "Rui\nAppearance: broad, burnt hands\nMood: tense\nSecrets: a deserter\n\n"
        "Tomas\nAppearance: thin, patched coat\nMood: wary\n"
    )
    writer = JournalWriter(tavern_data_dir, durable=False)
    writer.append("sess-d", _call("sess-d", 1, "director", prompt, None))
    path = journal_path(tavern_data_dir, "sess-d")
    assert leaks_df(path).empty
    leaks = leaks_df(path, ["Mara", "Rui", "Tomas"])
    assert set(leaks["rule"]) == {"structural_missing_field"}
    con = connect(path, ["Mara", "Rui", "Tomas"])
    assert con.execute("SELECT count(*) FROM leaks").fetchone() == (len(leaks),)


def _forked_data_dir(data_dir: Path) -> Path:
    """sess-a plays two turns, is forked (the store copies its journal) as sess-f, which plays
    one turn of its own."""
    library = Library(data_dir)
    state = materialize_session(library.get_scenario("the-toll-house"), library, "sess-a")
    store = SessionStore(data_dir, synchronous="OFF")
    store.create(state)
    writer = JournalWriter(data_dir, durable=False)
    for turn in (1, 2):
        writer.append("sess-a", _call("sess-a", turn, "director", "Mara waits.", 80))
        writer.append("sess-a", _commit("sess-a", turn))
    store.fork("sess-a", "sess-f")
    writer.append("sess-f", _call("sess-f", 3, "director", "Mara waits.", 80))
    writer.append("sess-f", _commit("sess-f", 3))
    store.close()
    return data_dir


def test_a_forks_inherited_lines_count_once(tavern_data_dir: Path) -> None:
    data_dir = _forked_data_dir(tavern_data_dir)
    files = sorted(data_dir.rglob("*.jsonl"))
    raw = [line for path in files for line in read_journal(path)]
    # The scenario really holds copies: the plain concatenation counts sess-a twice.
    assert [line.session_id for line in raw].count("sess-a") == 8
    calls = llm_calls_df(data_dir)
    assert calls.groupby("session_id").size().to_dict() == {"sess-a": 2, "sess-f": 1}
    assert turns_df(data_dir)["session_id"].tolist().count("sess-a") == 2
    usage = connect(data_dir).execute("SELECT session_id, attempts FROM usage").fetchall()
    assert sorted(usage) == [("sess-a", 2), ("sess-f", 1)]
    # The fork read alone still shows what it inherited, under the source's id.
    fork_only = llm_calls_df(journal_path(data_dir, "sess-f"))
    assert fork_only["session_id"].tolist() == ["sess-a", "sess-a", "sess-f"]


def test_equal_lines_within_one_journal_are_kept(tavern_data_dir: Path) -> None:
    """A double write inside one journal is a bug analysis must show, not hide."""
    writer = JournalWriter(tavern_data_dir, durable=False)
    line = _call("sess-a", 1, "director", "Mara waits.", 80)
    writer.append("sess-a", line)
    writer.append("sess-a", line)
    assert len(llm_calls_df(tavern_data_dir)) == 2


def test_negative_control_without_dropping_copies_the_source_counts_twice(
    tavern_data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data_dir = _forked_data_dir(tavern_data_dir)

    def every_line(paths: Any) -> list[Any]:  # planted: the plain concatenation
        return [line for path in sorted(data_dir.rglob("*.jsonl")) for line in read_journal(path)]

    monkeypatch.setattr(analysis, "read_lines", every_line)
    calls = analysis.llm_calls_df(data_dir)
    assert calls.groupby("session_id").size().to_dict() == {"sess-a": 4, "sess-f": 1}
