"""Word passes done in C (map, filter, compare passes) instead of Python loops: the stutter
prefilter and its start finder, the fact-recital words and run prefilter, the repetition
keys and plain words. Each loop as it was stays here as the reference; Hypothesis compares
old and new on generated texts (stutters, facts' words, punctuation, other scripts) and on
live narrations; each negative control plants a near variant that the property catches."""

from __future__ import annotations

from collections.abc import Callable
from operator import eq
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tavern.agents import fact_recital, repetition, stutter
from tavern.agents.repetition import ARTICLES, MIN_SENTENCE_WORDS, PUNCTUATION, SHORT
from tavern.agents.roll_call import STATE_ADVERBS

# -- the references: each function's loop as it was -------------------------------------


def may_stutter_walked(text: str) -> bool:
    words = list(map(str.lower, stutter._WORD.findall(text)))
    pairs = list(zip(words, words[1:], strict=False))
    if len(set(pairs)) == len(pairs):
        return False
    last: dict[tuple[str, str], int] = {}
    for i, pair in enumerate(pairs):
        before = last.get(pair)
        if before is not None and i - before <= stutter.MAX_RUN:
            return True
        last[pair] = i
    return False


def stutter_starts_walked(text: str) -> list[int]:
    found = list(stutter._WORD.finditer(text))
    words = [m.group().lower() for m in found]
    seen: dict[tuple[str, str], list[int]] = {}
    starts: set[int] = set()
    for i, pair in enumerate(zip(words, words[1:], strict=False)):
        earlier = seen.setdefault(pair, [])
        starts.update(found[j].start() for j in earlier if 2 <= i - j <= stutter.MAX_RUN)
        earlier.append(i)
    return sorted(starts)


def fact_words_listed(text: str) -> list[str]:
    words = text.casefold().translate(fact_recital._NOT_LETTERS).split()
    return [w for w in words if w not in STATE_ADVERBS]


def may_hold_a_run_walked(text: str, vocabulary: frozenset[str], shortest: int) -> bool:
    streak = 0
    for word in fact_words_listed(text):
        streak = streak + 1 if word in vocabulary else 0
        if streak >= shortest:
            return True
    return False


def plain_words_listed(text: str) -> list[str]:
    return [w for w in (w.strip(PUNCTUATION) for w in text.lower().split()) if w]


def key_listed(sentence: str) -> str:
    words = repetition._key_words(sentence)
    key = " ".join([w for w in words if w not in ARTICLES])
    return SHORT + key if key and len(words) < MIN_SENTENCE_WORDS else key


# -- generated and live texts ------------------------------------------------------------

WORDS = ["until", "dawn", "the", "door", "is", "now", "shut", "a", "lamp", "oil", "Dawn",
         "river", "too", "high", "to", "cross", "Ilse", "ſtill", "été", "дверь"]  # fmt: skip
SEPARATORS = [" ", " ", " ", "  ", ", ", ". ", "! ", "\t", " -- ", '"', "'s "]

texts = st.lists(st.tuples(st.sampled_from(WORDS), st.sampled_from(SEPARATORS)), max_size=40).map(
    lambda parts: "".join(w + s for w, s in parts)
)

LIVE = [
    "The Toll House at Low Water is too high to cross until dawn until dawn.",
    "Ilse Brandt reaches for the door. The door, the door! Knock knock.",
    "The river is now too high to cross until dawn, and the toll box sits locked on the"
    " counting table, and the lamp has perhaps two hours of oil.",
    "Rain drums on the shutters. Maren Holt sets down the ledger and looks at the door;"
    " the lamp gutters, the lamp gutters, and the toll box sits locked on the table.",
    "",
]
VOCABULARY = frozenset(fact_words_listed(" ".join(LIVE[2:4])))


def _same(new: Callable[..., Any], old: Callable[..., Any], *args: Any) -> None:
    assert new(*args) == old(*args)


@settings(max_examples=300, deadline=None)
@given(text=texts)
@example(text="a b c d e f a b")  # a pair recurring `MAX_RUN` words on
def test_stutter_passes_equal_the_walks(text: str) -> None:
    _same(stutter.may_stutter, may_stutter_walked, text)
    _same(stutter.stutter_starts, stutter_starts_walked, text)


@settings(max_examples=300, deadline=None)
@given(text=texts, shortest=st.integers(-1, 9))
def test_fact_recital_passes_equal_the_loops(text: str, shortest: int) -> None:
    _same(fact_recital._words, fact_words_listed, text)
    vocabulary = frozenset(fact_words_listed(text)[::2]) | VOCABULARY
    _same(fact_recital._may_hold_a_run, may_hold_a_run_walked, text, vocabulary, shortest)


@settings(max_examples=300, deadline=None)
@given(text=texts)
def test_repetition_passes_equal_the_loops(text: str) -> None:
    _same(repetition.plain_words.__wrapped__, plain_words_listed, text)
    _same(repetition._key, key_listed, text)


def test_every_pass_equals_its_loop_on_live_narrations() -> None:
    for text in LIVE:
        _same(stutter.may_stutter, may_stutter_walked, text)
        _same(stutter.stutter_starts, stutter_starts_walked, text)
        _same(fact_recital._words, fact_words_listed, text)
        for shortest in (0, 1, 5, 8):
            _same(fact_recital._may_hold_a_run, may_hold_a_run_walked, text, VOCABULARY, shortest)
        _same(repetition.plain_words.__wrapped__, plain_words_listed, text)
        for sentence in repetition.sentence_texts(text):
            _same(repetition._key, key_listed, sentence)


# -- negative controls: a near variant of each pass is caught ----------------------------


def test_negative_control_a_stutter_six_words_apart_missed_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Planted: the distance passes stop one short of `MAX_RUN`."""

    def may_stutter_short(text: str) -> bool:
        words = list(map(str.lower, stutter._WORD.findall(text)))
        pairs = list(zip(words, words[1:], strict=False))
        return any(any(map(eq, pairs, pairs[d:])) for d in range(1, stutter.MAX_RUN))

    monkeypatch.setattr(stutter, "may_stutter", may_stutter_short)
    with pytest.raises(AssertionError):
        test_stutter_passes_equal_the_walks()


def test_negative_control_a_streak_one_word_short_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = fact_recital._may_hold_a_run
    monkeypatch.setattr(fact_recital, "_may_hold_a_run", lambda t, v, n: real(t, v, n - 1))
    with pytest.raises(AssertionError):
        test_fact_recital_passes_equal_the_loops()


def test_negative_control_a_key_keeping_articles_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(repetition, "ARTICLES", frozenset(("a", "an")))
    with pytest.raises(AssertionError):
        test_repetition_passes_equal_the_loops()
