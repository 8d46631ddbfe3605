"""`follow_up.without_borrowed` picks the window's attempts and events with C-level filters
and builds its word runs by zipping tails; the function as it was stays here as the
reference. Hypothesis compares old and new on generated windows (attempts by the actor and
by others, events within and beyond `EVENT_TURNS`, answers made of their words); a realistic
case replays live answers; the negative control plants a run one word short."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.physics.awaiting import about_words as content_words
from tavern.physics.awaiting import shares_a_word
from tavern.records import ActionRecord, Audience, EventRecord, HistoryRecord, PerceptionEvent
from tavern.runner import follow_up
from tavern.runner.follow_up import (
    COPY_RUN_WORDS,
    EVENT_TURNS,
    MIN_COPY_WORDS,
    WHOLE_MIN_WORDS,
    act_key,
)
from tavern.text import sentence_spans

HALL = Audience(origin="public", perceivers=["C1", "C2", "C3"])
NAMES = {"C1": "Ilse Brandt", "C2": "Maren Holt", "C3": "Teodor Vask"}
WORDS = "reaches for the door walks slowly to nearest window and looks outside sign books".split()


def runs_as_they_were(words: tuple[str, ...]) -> set[tuple[str, ...]]:
    n = COPY_RUN_WORDS
    return {words[i : i + n] for i in range(len(words) - n + 1)}


def borrowed_as_it_was(
    text: str,
    attempt: ActionRecord,
    history: list[HistoryRecord],
    actor_name: str,
    decided: Sequence[PerceptionEvent] = (),
    public: Sequence[str] = (),
) -> str:
    """The reference: `without_borrowed` before its filters and zipped runs."""
    _runs = runs_as_they_were
    own = act_key(attempt.text)
    turn = history[-1].turn_number if history else 0
    attempts: set[tuple[str, ...]] = set()
    others: set[tuple[str, ...]] = set()
    told = [e.text for e in decided]
    for r in history:
        if isinstance(r, ActionRecord) and r is not attempt:
            attempts.add(act_key(r.text))
            if r.speaker != attempt.speaker:
                others.add(act_key(r.text))
        elif isinstance(r, EventRecord) and r.turn_number > turn - EVENT_TURNS:
            told.append(r.text)
    attempts.discard(own)
    runs = [_runs(key) for key in attempts] + [_runs(act_key(t)) for t in told]
    other_runs = set().union(*runs) - _runs(own)
    if other_runs and public:
        other_runs -= set().union(*(_runs(act_key(t)) for t in public))
    if not (attempts or other_runs):
        return text
    wholes = [
        f" {' '.join(k)} "
        for k in attempts
        if len(k) >= MIN_COPY_WORDS or (len(k) >= WHOLE_MIN_WORDS and k in others)
    ]
    own_words = content_words(attempt.text)
    kept = []
    for start, end in sentence_spans(text):
        sentence = text[start:end]
        key = act_key(sentence, actor_name)
        if (len(key) >= MIN_COPY_WORDS and key in attempts) or _runs(key) & other_runs:
            continue
        spaced = f" {' '.join(key)} "
        if any(w in spaced for w in wholes) and not shares_a_word(
            content_words(sentence) - content_words(actor_name), own_words
        ):
            continue
        kept.append(sentence.strip())
    return " ".join(kept)


def _record(seq: int, turn: int, speaker: str, words: list[int], event: bool) -> HistoryRecord:
    text = " ".join(WORDS[w] for w in words) or "waits"
    common: dict[str, Any] = {"seq": seq, "turn_number": turn, "speaker": speaker,
                              "audience": HALL, "text": text}  # fmt: skip
    if event:
        return EventRecord(**common, author="director", event_kind="action_outcome",
                           actor_id=speaker)  # fmt: skip
    return ActionRecord(**common, author="human")


def _agree(history: list[HistoryRecord], pick: int, answer: str, public: list[str]) -> None:
    attempts = [r for r in history if isinstance(r, ActionRecord)]
    if not attempts:
        return
    attempt = attempts[pick % len(attempts)]
    name = NAMES[attempt.speaker]
    decided = [follow_up.outcome_event(attempts[0], answer)] if pick % 2 else []
    args = (answer, attempt, history, name, decided, public)
    assert follow_up.without_borrowed(*args) == borrowed_as_it_was(*args)


records = st.tuples(
    st.integers(0, 20),  # turns before the last
    st.sampled_from(list(NAMES)),
    st.lists(st.integers(0, len(WORDS) - 1), max_size=10),
    st.booleans(),
)


@settings(max_examples=200, deadline=None)
@given(
    made=st.lists(records, min_size=1, max_size=14),
    pick=st.integers(0, 20),
    answer=st.lists(st.lists(st.integers(0, len(WORDS) - 1), max_size=10), max_size=3),
    public=st.lists(st.lists(st.integers(0, len(WORDS) - 1), max_size=9), max_size=2),
)
def test_without_borrowed_equals_it_as_it_was(
    made: list[tuple[int, str, list[int], bool]],
    pick: int,
    answer: list[list[int]],
    public: list[list[int]],
) -> None:
    history = [_record(i, 30 - back, s, w, e) for i, (back, s, w, e) in enumerate(made)]
    history.sort(key=lambda r: r.turn_number)
    text = " ".join(NAMES["C1"] + " " + " ".join(WORDS[w] for w in words) + "." for words in answer)
    _agree(history, pick, text, [" ".join(WORDS[w] for w in p) for p in public])


def test_without_borrowed_equals_it_as_it_was_on_live_answers() -> None:
    """Toll-house #14 and #16, vintners-wake #19: attempts copied whole, in part, by run."""
    window = [
        _record(1, 3, "C1", [4, 5, 6, 2, 7, 8, 9, 10, 11], False),  # walks slowly ... outside
        _record(2, 3, "C3", [12, 2, 13], False),
        _record(3, 5, "C2", [0, 1, 2, 3], False),
        _record(4, 6, "C1", [4, 6, 2, 7, 8, 9, 10, 11], True),
        _record(5, 9, "C1", [0, 1, 2, 3], False),
    ]
    for answer in (
        "Ilse Brandt tries to sign the books tonight.",
        "Ilse Brandt walks to the nearest window and looks outside. Rain falls.",
        "Ilse Brandt reaches for the door, but it is locked.",
        "Teodor Vask turns to the nearest window and looks away.",  # six words of an event
    ):
        for pick in range(3):
            _agree(window, pick, answer, [])


def test_negative_control_runs_one_word_short_are_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(follow_up, "COPY_RUN_WORDS", COPY_RUN_WORDS - 1)  # the new code's only
    with pytest.raises(AssertionError):
        test_without_borrowed_equals_it_as_it_was_on_live_answers()


@settings(max_examples=200, deadline=None)
@given(words=st.lists(st.sampled_from(WORDS[:6]), max_size=16).map(tuple))
def test_runs_equal_the_runs_as_they_were(words: tuple[str, ...]) -> None:
    assert follow_up._runs(words) == runs_as_they_were(words)


def test_negative_control_runs_dropping_the_last_one_are_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = follow_up._runs
    monkeypatch.setattr(follow_up, "_runs", lambda words: real(words[:-1]))
    with pytest.raises(AssertionError):
        test_runs_equal_the_runs_as_they_were()
