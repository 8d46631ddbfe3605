"""A run of words said again right after itself is said once (`agents.stutter`), and the
fast path finds exactly what the pattern tried at every word finds."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tavern.agents import prose, stutter

LIVE_STUTTER = "The Toll House at Low Water is too high to cross until dawn until dawn."
"""Toll-house soak #29 (seed 43), turn 4: the whole narration."""


def test_the_live_stutter_is_said_once() -> None:
    assert stutter.without_stutter(LIVE_STUTTER) == (
        "The Toll House at Low Water is too high to cross until dawn."
    )
    assert "until dawn until dawn" not in prose.parse({"narration": LIVE_STUTTER})


def test_negative_control_without_the_stutter_rule_it_is_shown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(prose, "without_stutter", lambda text: text)
    assert "until dawn until dawn" in prose.parse({"narration": LIVE_STUTTER})


@pytest.mark.parametrize(
    "text",
    [
        "The door, the door! Knock knock.",
        "Very very slowly, she turns.",
        "Again and again the bell tolls.",
        "He had had enough of it.",
    ],
)
def test_earnest_repeats_stay(text: str) -> None:
    assert stutter.without_stutter(text) == text


WORDS = st.sampled_from(["the", "rain", "falls", "on", "roof", "until", "dawn", "door"])


# Distinct words: a run that is itself a repeat ("the the") may collapse to another period.
@given(st.lists(WORDS, min_size=2, max_size=6, unique=True).map(" ".join), st.integers(2, 4))
def test_any_run_said_again_right_after_itself_is_said_once(run: str, copies: int) -> None:
    said = stutter.without_stutter(" ".join([run] * copies))
    assert said.split() != (" ".join([run] * copies)).split()
    assert len(said.split()) <= len(run.split())


MIXED = st.sampled_from(["The", "the", "rain", "RAIN", "falls", "on", "dawn", "Dawn", "door"])
SEPARATORS = st.sampled_from([" ", "  ", "\t", ", ", ". ", "! ", " - ", "'"])
TEXTS = st.lists(st.tuples(MIXED, SEPARATORS), max_size=30).map(
    lambda parts: "".join(word + sep for word, sep in parts)
)


@given(TEXTS)
def test_the_fast_path_says_what_the_pattern_at_every_word_says(text: str) -> None:
    assert stutter.without_stutter(text) == stutter.STUTTER.sub(r"\1", text)


THREE_WORDS = "She waits to cross until dawn to cross until dawn."


def test_negative_control_a_shorter_reach_misses_a_stutter_the_pattern_finds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert stutter.without_stutter(THREE_WORDS) == "She waits to cross until dawn."
    monkeypatch.setattr(stutter, "MAX_RUN", 2)
    assert stutter.without_stutter(THREE_WORDS) == THREE_WORDS
    assert stutter.STUTTER.sub(r"\1", THREE_WORDS) != THREE_WORDS
