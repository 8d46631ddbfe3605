"""Records survive JSON and the store unchanged (Hypothesis)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from store_strategies import (
    any_history_record,
    journal_lines,
    session_states,
    turn_records,
)

from tavern.records import HISTORY_RECORD_ADAPTER, JOURNAL_LINE_ADAPTER, SessionState
from tavern.store import JournalWriter, SessionStore, journal_path, read_journal

FIXTURE_OK = settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@settings(max_examples=30, deadline=None)
@given(session_states())
def test_session_state_json_round_trip(state: SessionState) -> None:
    assert SessionState.model_validate_json(state.model_dump_json()) == state


@settings(max_examples=50, deadline=None)
@given(any_history_record)
def test_history_record_json_round_trip(record: Any) -> None:
    again = HISTORY_RECORD_ADAPTER.validate_json(HISTORY_RECORD_ADAPTER.dump_json(record))
    assert again == record
    assert type(again) is type(record)


@settings(max_examples=50, deadline=None)
@given(journal_lines)
def test_journal_line_json_round_trip(line: Any) -> None:
    again = JOURNAL_LINE_ADAPTER.validate_json(JOURNAL_LINE_ADAPTER.dump_json(line))
    assert again == line
    assert type(again) is type(line)


@FIXTURE_OK
@given(data=st.data())
def test_state_and_history_round_trip_through_the_store(
    tmp_path: Path, data: st.DataObject
) -> None:
    state = data.draw(session_states())
    opening = data.draw(turn_records(0, 0))
    with SessionStore(tmp_path, synchronous="OFF") as store:
        if store.exists(state.id):
            store.delete(state.id)
        store.create(state, opening)
        assert store.load(state.id) == state
        assert store.history(state.id) == opening
        turns = data.draw(st.integers(1, 3))
        current = state
        expected = list(opening)
        for turn in range(1, turns + 1):
            records = data.draw(turn_records(store.next_seq(state.id), turn))
            new_state = data.draw(session_states(session_id=state.id))
            current = store.commit_turn(state.id, turn, records, new_state, current.revision)
            expected += records
            assert current == new_state.model_copy(update={"turn_number": turn, "revision": turn})
        assert store.load(state.id) == current
        assert store.history(state.id) == expected
        store.delete(state.id)


@FIXTURE_OK
@given(lines=st.lists(journal_lines, min_size=1, max_size=5))
def test_journal_lines_round_trip_through_the_file(tmp_path: Path, lines: list[Any]) -> None:
    writer = JournalWriter(tmp_path, durable=False)
    session_id = "journal-rt"
    path = journal_path(tmp_path, session_id)
    path.unlink(missing_ok=True)
    fixed = [line.model_copy(update={"session_id": session_id}) for line in lines]
    for line in fixed:
        writer.append(session_id, line)
    assert read_journal(path) == fixed
