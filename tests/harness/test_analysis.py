"""Journals load into frames and DuckDB views; the leak sweep catches a planted leak."""

from __future__ import annotations

from pathlib import Path

import pytest

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
from tavern.store import JournalWriter, journal_path


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
