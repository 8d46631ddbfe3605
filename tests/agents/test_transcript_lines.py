"""The prose transcript's lines come from C-level passes over remembered entries; the record
by record loop they replaced stays here as the reference. A property test compares the two on
generated windows (fixed lines, lines masked with today's words, empty lines, windows that
grow and move, hidden sets that change), a realistic case plays a short story's window; the
negative control plants a masked line shown unmasked."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.agents import prose
from tavern.physics.record_memo import RecordMemo
from tavern.physics.redaction import redact
from tavern.records import (
    ActionRecord,
    Audience,
    EventRecord,
    HistoryRecord,
    NarrationRecord,
    SpeechRecord,
    SystemRecord,
    ThoughtRecord,
)

HALL = Audience(origin="public", perceivers=["C1", "C2"])
WHISPER = Audience(origin="whisper", perceivers=["C1", "C2"])
NAMES = {"C1": "Ilse Brandt", "C2": "Maren Holt"}
WORDS = ["quillbrook", "seal", "ledger", "lantern", "falls", "door"]


def namer(slot: str) -> str:
    return NAMES.get(slot, slot)


def looped_lines(records: list[HistoryRecord], hidden: frozenset[str]) -> list[tuple[int, str]]:
    """The reference: `_transcript_lines` as it was, one record at a time."""

    def entry(record: HistoryRecord) -> tuple[str, bool]:
        fixed = isinstance(
            record, NarrationRecord | SpeechRecord | ActionRecord | ThoughtRecord
        ) or (isinstance(record, EventRecord) and record.reader_text is not None)
        return prose.reader_line(record, namer), not fixed

    entries = [entry(r) for r in records]
    return [
        (r.seq, text)
        for r, (line, masked_now) in zip(records, entries, strict=True)
        if (text := redact(line, hidden) if masked_now else line)
    ]


def record(seq: int, kind: int, word: int) -> HistoryRecord:
    text = f"The {WORDS[word]} {WORDS[(word + 2) % 6]}."
    common: dict[str, Any] = {"seq": seq, "turn_number": 1 + seq // 5, "audience": HALL}
    speaker = "C1" if seq % 2 else "C2"
    match kind:
        case 0:
            return SpeechRecord(**common, speaker=speaker, author="character", text=text)
        case 1:
            common["audience"] = WHISPER
            return SpeechRecord(**common, speaker=speaker, author="character", text=text)
        case 2:
            return ThoughtRecord(**common, speaker=speaker, author="character", text=text)
        case 3:
            return ActionRecord(**common, speaker=speaker, author="human", text=text)
        case 4 | 5:  # with and without a reader text: fixed, and masked with today's words
            reader = text if kind == 4 else None
            return EventRecord(**common, speaker=speaker, author="director", text=text,
                               event_kind="action_outcome", actor_id=speaker,
                               reader_text=reader)  # fmt: skip
        case 6:
            return EventRecord(**common, speaker=speaker, author="director", text=text,
                               event_kind="utterance", actor_id=None)  # fmt: skip
        case 7:
            return NarrationRecord(**common, speaker="Narrator", author="renderer", text=text)
        case _:  # a system line, empty or not (an empty one shows no line)
            return SystemRecord(**common, speaker="World", author="kernel", marker="m",
                                text=text if word % 2 else "")  # fmt: skip


windows = st.lists(
    st.tuples(
        st.integers(0, 30),  # window start in the pool
        st.integers(0, 30),  # length
        st.frozensets(st.sampled_from(WORDS), max_size=3),  # today's hidden words
    ),
    min_size=1,
    max_size=6,
)


def _check(pool: list[HistoryRecord], cases: list[tuple[int, int, frozenset[str]]]) -> None:
    key = prose._LINES.number(tuple(NAMES.items()))
    for start, length, hidden in cases:
        window = pool[start : start + length]
        assert prose._transcript_lines(window, key, namer, hidden) == looped_lines(window, hidden)


@settings(max_examples=200, deadline=None)
@given(kinds=st.lists(st.tuples(st.integers(0, 9), st.integers(0, 5)), max_size=40), cases=windows)
def test_transcript_lines_equal_the_record_by_record_loop(
    kinds: list[tuple[int, int]], cases: list[tuple[int, int, frozenset[str]]]
) -> None:
    pool = [record(i, kind, word) for i, (kind, word) in enumerate(kinds)]
    _check(pool, cases)


def test_transcript_lines_equal_the_loop_on_a_story_window() -> None:
    """Realistic: 230 records of a played story in its usual mix (speech, attempts,
    outcomes with reader texts, narration, an opening marker, a few old events), a window
    that grows by a beat and moves on, a hidden set that grows."""
    mix = [0, 0, 3, 4, 7, 0, 1, 4, 2, 7] * 23
    pool = [record(i, kind, i % 6) for i, kind in enumerate(mix)]
    pool[0] = record(0, 9, 1)
    pool[57] = record(57, 5, 2)
    cases = [(0, 200, frozenset()), (0, 207, frozenset({"seal"})),
             (10, 220, frozenset({"seal", "door"}))]  # fmt: skip
    _check(pool, cases)


def test_negative_control_a_masked_line_left_unmasked_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Planted: the remembered entry of a line masked now claims to be fixed."""
    real = prose._transcript_entry

    def claims_fixed(record: HistoryRecord, names: Any) -> Any:
        shown, _, seq, line = real(record, names)
        return shown, False, seq, line

    monkeypatch.setattr(prose, "_transcript_entry", claims_fixed)
    monkeypatch.setattr(prose, "_LINES", RecordMemo())
    pool = [record(0, 5, 0), record(1, 0, 1)]
    with pytest.raises(AssertionError):
        _check(pool, [(0, 2, frozenset({"quillbrook"}))])
