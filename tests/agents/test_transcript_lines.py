"""The prose transcript's lines: an event recorded without a reader text (and a system line)
is masked with today's words, every other line is shown as it was fixed when recorded, a
thought shows no line. The negative control leaves the masking out, and is caught."""

from __future__ import annotations

from typing import Any

import pytest

from tavern.agents import prose
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


def _lines() -> list[tuple[int, str]]:
    pool = [record(0, 5, 0), record(1, 4, 0), record(2, 2, 0), record(3, 7, 0), record(4, 0, 0)]
    return prose._transcript_lines(pool, namer, frozenset({"quillbrook"}))


EXPECTED = [
    (0, "(event) The [...] ledger."),  # no reader text: masked with today's words
    (1, "(event) The quillbrook ledger."),  # its reader text, fixed when recorded
    (3, "The quillbrook ledger."),  # narration; the thought (seq 2) shows no line
    (4, "(Maren Holt speaks.)"),
]


def test_only_lines_without_a_fixed_reader_text_are_masked_now() -> None:
    assert _lines() == EXPECTED


def test_negative_control_a_masked_line_left_unmasked_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(prose, "redact", lambda text, hidden: text)
    assert _lines() != EXPECTED
