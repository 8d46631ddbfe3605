"""`runner.echo`'s shortcuts answer what its plain record walks answered.

The echo rules look for a reply's words among a window's records. Most replies echo nothing,
so each rule first asks whether any key it wants is among the window's remembered keys at all
(one C-level pass), and walks the records only when one is; an attempt's tails are stemmed
word by word once. The straightforward code each shortcut replaced is kept here as the
reference, and the properties compare them over windows and replies made of a few shared
lines, labels and attempts; each property is shown to catch a planted bug.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.physics.outcomes import act_stem
from tavern.physics.perception import perceives
from tavern.records import (
    ActionRecord,
    Audience,
    EventRecord,
    HistoryRecord,
    NarrationRecord,
    SpeechRecord,
    ThoughtRecord,
)
from tavern.runner import echo

LINES = [
    "Good evening to you all.", "What brings everyone here tonight?",
    "I think we should open it now.", "walks slowly to the nearest window and looks outside",
    "reaches for the latch of the window", "The bell tolls twice in the hall.", "Yes.",
    "Sit down, child.", "the bell tolls twice in the hall",
]  # fmt: skip
LABELS = [
    "", "Ilse Brandt said: ", "You thought: ", "I'm trying to ", "Yes, ", "The woman in the black "
    "veil said ", "so I ", "I ",
]  # fmt: skip
SAID = st.lists(st.tuples(st.sampled_from(LABELS), st.sampled_from(LINES)), min_size=1, max_size=3)
TEXT = SAID.map(lambda parts: " ".join(label + line for label, line in parts))
SLOTS = ["C1", "C2", "C3"]
KINDS = [SpeechRecord, ActionRecord, EventRecord, ThoughtRecord, NarrationRecord]


@st.composite
def windows(draw: Any) -> list[HistoryRecord]:
    records: list[HistoryRecord] = []
    for seq in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(KINDS))
        fields: dict[str, Any] = {
            "seq": seq,
            "turn_number": 1 + seq // 3,
            "speaker": draw(st.sampled_from(SLOTS)),
            "author": "character",
            "audience": Audience(
                origin="public", perceivers=draw(st.lists(st.sampled_from(SLOTS), unique=True))
            ),
            "text": draw(TEXT),
        }
        if kind is EventRecord:
            fields |= {"author": "director", "event_kind": "action_outcome"}
        records.append(kind(**fields))
    return records


def _line_key(text: str, least: int = echo.MIN_ECHO_WORDS) -> str:
    words = [w for w in (w.strip(echo._PUNCTUATION) for w in text.lower().split()) if w]
    return " ".join(words) if len(words) >= least else ""


def _unlabelled(key: str, *, short_labels: bool) -> frozenset[str]:
    words = key.split()
    return frozenset(
        " ".join(words[i:])
        for i in range(min(echo.DESCRIBED_LABEL_WORDS, len(words) - 1) + 1)
        if i == 0
        or (short_labels and i <= echo.LABEL_WORDS)
        or not echo.LABEL_VERBS.isdisjoint(words[:i])
    )


def _attempt_key(text: str) -> str:
    return " ".join(map(act_stem, _line_key(text).split()))


def _attempt_tails(key: str) -> frozenset[str]:
    return frozenset(filter(None, map(_attempt_key, _unlabelled(key, short_labels=True))))


def _keys(text: str) -> frozenset[str]:
    return frozenset(k for k in map(_line_key, [text, *echo.sentence_texts(text)]) if k)


def _echoed(speech: str, records: Sequence[HistoryRecord], viewer: str) -> frozenset[str]:
    mine = {key: _unlabelled(key, short_labels=False) for key in _keys(speech)}
    acted = {key: _attempt_tails(key) for key in mine}
    wanted = frozenset().union(*mine.values())
    wanted_acts = frozenset().union(*acted.values())
    found: set[str] = set()
    if wanted:
        for record in records:
            if record.__class__ is SpeechRecord:
                keys, tails_of = _keys(record.text), mine
                hit = not wanted.isdisjoint(keys)
            elif record.__class__ is ActionRecord:
                keys, tails_of = frozenset((_attempt_key(record.text),)), acted
                hit = not wanted_acts.isdisjoint(keys)
            else:
                continue
            if hit and perceives(record, viewer) == "content":
                found |= {key for key, tails in tails_of.items() if not tails.isdisjoint(keys)}
    return frozenset(found)


def _echoed_thought(thought: str, records: Sequence[HistoryRecord], viewer: str) -> bool:
    mine = _line_key(thought)
    if not mine:
        return False
    tails = _unlabelled(mine, short_labels=True)
    return any(
        isinstance(record, SpeechRecord | EventRecord | ActionRecord | ThoughtRecord)
        and _line_key(record.text) in tails
        and perceives(record, viewer) == "content"
        for record in records
    )


def _without_told_events(intent: str, records: Sequence[HistoryRecord], viewer: str) -> str:
    spans = echo.sentence_spans(intent)
    keys = [_line_key(intent[start:end]) for start, end in spans]
    if not any(keys):
        return intent
    told: set[str] = set()
    for record in records:
        if record.__class__ is EventRecord:
            copied = frozenset(keys).intersection(_keys(record.text))
            if copied and perceives(record, viewer) == "content":
                told |= copied
    kept = [intent[a:b] for (a, b), key in zip(spans, keys, strict=True) if key not in told]
    return intent if len(kept) == len(spans) else "".join(kept).strip()


def _agree(text: str, records: list[HistoryRecord], viewer: str) -> bool:
    return (
        echo.line_key(text) == _line_key(text)
        and echo._attempt_tails(_line_key(text)) == _attempt_tails(_line_key(text))
        and echo.echoed(text, records, viewer) == _echoed(text, records, viewer)
        and echo.echoed_thought(text, records, viewer) == _echoed_thought(text, records, viewer)
        and echo.without_told_events(text, records, viewer)
        == _without_told_events(text, records, viewer)
    )


@settings(max_examples=300)
@given(TEXT, windows(), st.sampled_from(SLOTS))
def test_the_shortcuts_answer_what_the_record_walks_answer(
    text: str, records: list[HistoryRecord], viewer: str
) -> None:
    assert _agree(text, records, viewer)


def _heard(kind: type[HistoryRecord], text: str, **more: Any) -> HistoryRecord:
    audience = Audience(origin="public", perceivers=["C1", "C2"])
    return kind(
        seq=1, turn_number=1, speaker="C1", author="human", audience=audience, text=text, **more
    )


EVENT = "world_event"
EXAMPLES = [
    ("Ilse Brandt said: Good evening to you all.", _heard(SpeechRecord, LINES[0])),
    ("I'm trying to reach for the latch of the window.", _heard(ActionRecord, LINES[4])),
    ("Yes. The bell tolls twice in the hall.", _heard(EventRecord, LINES[5], event_kind=EVENT)),
]  # fmt: skip


@pytest.mark.parametrize(("text", "record"), EXAMPLES)
def test_negative_control_a_fast_path_that_finds_nothing_is_caught(
    monkeypatch: pytest.MonkeyPatch, text: str, record: HistoryRecord
) -> None:
    assert _agree(text, [record], "C2")
    monkeypatch.setattr(echo, "_none_held", lambda wanted, keys: True)
    monkeypatch.setattr(echo, "_LINE", lambda heard: "")
    assert not _agree(text, [record], "C2")


def test_negative_control_tails_stemmed_from_the_wrong_word_are_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text, record = EXAMPLES[1]
    monkeypatch.setattr(echo, "_label_ends", lambda words, short_labels: [0])
    assert not _agree(text, [record], "C2")
