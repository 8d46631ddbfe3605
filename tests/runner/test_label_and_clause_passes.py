"""`echo._label_ends` computes its starts as two ranges around the first label verb, and
`loops.clause_key` drops idle words with a C-level filter; both as they were stay here as the
references. Hypothesis compares old and new on generated word lists and clauses, a realistic
case on live lines; the negative controls plant an off-by-one and a kept idle word."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tavern.runner import echo, loops
from tavern.runner.echo import DESCRIBED_LABEL_WORDS, LABEL_VERBS, LABEL_WORDS
from tavern.runner.loops import IDLE_WORDS

WORDS = ["ilse", "brandt", "said", "thought", "the", "woman", "who", "are", "you", "and",
         "again", "then", "now", "walk", "to", "window", "whispered", "attempted"]  # fmt: skip


def label_ends_as_they_were(words: list[str], *, short_labels: bool) -> list[int]:
    return [
        i
        for i in range(min(DESCRIBED_LABEL_WORDS, len(words) - 1) + 1)
        if i == 0 or (short_labels and i <= LABEL_WORDS) or not LABEL_VERBS.isdisjoint(words[:i])
    ]


def clause_key_as_it_was(clause: str) -> tuple[str, ...]:
    return tuple(w for w in loops._linked_words(clause) if w not in IDLE_WORDS)


@settings(max_examples=400, deadline=None)
@given(words=st.lists(st.sampled_from(WORDS), max_size=20), short_labels=st.booleans())
@example(words=["the", "woman", "in", "black", "said", "who", "are", "you"], short_labels=False)
def test_label_ends_equal_them_as_they_were(words: list[str], short_labels: bool) -> None:
    got = echo._label_ends(words, short_labels=short_labels)
    assert got == label_ends_as_they_were(words, short_labels=short_labels)


@settings(max_examples=300, deadline=None)
@given(words=st.lists(st.sampled_from(WORDS), max_size=12), stop=st.sampled_from(["", ",", "."]))
def test_clause_key_equals_it_as_it_was(words: list[str], stop: str) -> None:
    clause = " " + " ".join(words) + stop
    assert loops.clause_key(clause) == clause_key_as_it_was(clause)


def test_both_equal_them_as_they_were_on_live_lines() -> None:
    for line in (
        "You thought who are you exactly my friend",
        "The woman in the black veil said I know what you did",
        "Ilse Brandt whispered the key is under the mat",
        "Yes who are you",
        "",
    ):
        words = line.lower().split()
        for short_labels in (False, True):
            expected = label_ends_as_they_were(words, short_labels=short_labels)
            assert echo._label_ends(words, short_labels=short_labels) == expected
        assert loops.clause_key(line) == clause_key_as_it_was(line)


def test_negative_control_starts_one_late_after_the_verb_are_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = echo._label_ends

    def late(words: list[str], *, short_labels: bool) -> list[int]:
        found = real(words, short_labels=short_labels)
        return found[:-1] if len(found) > LABEL_WORDS + 1 else found

    monkeypatch.setattr(echo, "_label_ends", late)
    with pytest.raises(AssertionError):
        test_label_ends_equal_them_as_they_were()


def test_negative_control_a_kept_idle_word_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loops, "IDLE_WORDS", IDLE_WORDS - {"now"})
    with pytest.raises(AssertionError):
        test_clause_key_equals_it_as_it_was()
