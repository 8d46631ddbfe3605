"""The text filters' shortcuts answer exactly what the plain code they stand for answers.

Each shortcut (a literal prefilter, a cached part, a C-level pass) is tried against the
straightforward code it replaced, kept here as the reference, over texts made of the phrases
the filter looks for, in every case, between ordinary words and sentence marks; and each
property is shown to catch a planted bug (a negative control).
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.agents import prompt_echo, repetition, stutter
from tavern.contract import alternation
from tavern.contract.alternation import matches_any

PHRASES = [
    "Location:", "Facts:", "Present:", "(event)", "Event:", "event", "## Scene", "##", "#",
    "[...]", "[..]", "sound", "Sounds", "sight", "is", "are", "remains", "stayed", "still",
    "now", "sealed", "open", "of the trapdoor", "Maren Holt", "in the hall", "The Vintner's",
    "Wake", "Teodor", "the lamp", "rain falls", "\n", ".", "!", "?", ";", ",", "'", "’s",
]  # fmt: skip
CASED = st.tuples(st.sampled_from(PHRASES), st.sampled_from([str.upper, str.title, str.lower]))
TEXTS = st.lists(st.one_of(st.sampled_from(PHRASES), CASED.map(lambda p: p[1](p[0]))), max_size=10)
JOINED = TEXTS.flatmap(lambda words: st.sampled_from([" ", "", "  "]).map(lambda s: s.join(words)))


def _labels_agree(pattern: re.Pattern[str], text: str) -> bool:
    return matches_any(pattern, text) == (pattern.search(text) is not None)


@settings(max_examples=300)
@given(st.sampled_from([prompt_echo.PROMPT_LABEL, prompt_echo.LINK_STAGING]), JOINED)
def test_the_prompt_patterns_split_by_branch_answer_what_search_answers(
    pattern: re.Pattern[str], text: str
) -> None:
    assert _labels_agree(pattern, text)


def _holds_words_reference(text: str, parts: tuple[str, ...]) -> bool:
    """`prompt_echo._holds_words` as it was: the text's words read every time."""
    wanted = [joined for part in parts if (joined := " ".join(prompt_echo._words(part)))]
    if not wanted:
        return False
    plain = " ".join(prompt_echo._words(text))
    return any(joined in plain for joined in wanted)


PARTS = st.lists(
    st.sampled_from(
        ["Maren Holt in the hall", "The Vintner's Wake", "in the hall", "hall", "", "...",
         "Ilse Brandt in the loft", "all", "rain"]
    ),
    max_size=3,
).map(tuple)  # fmt: skip


def _holds_agree(text: str, parts: tuple[str, ...]) -> bool:
    return prompt_echo._holds_words(text, text.casefold(), parts) == _holds_words_reference(
        text, parts
    )


@settings(max_examples=300)
@given(JOINED, PARTS)
def test_holds_words_answers_what_the_plain_word_walk_answers(
    text: str, parts: tuple[str, ...]
) -> None:
    assert _holds_agree(text, parts)


def test_negative_control_a_prefilter_missing_a_word_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A prefilter asking for a word the part does not have (its words run together) would
    say a staging copy is absent: the check sees it."""
    text, parts = "Rain. Maren Holt in the hall.", ("Maren Holt in the hall",)
    assert _holds_agree(text, parts)
    planted = {parts: (("maren holt in the hall", ("marenholt",)),)}
    monkeypatch.setattr(prompt_echo, "_parts_words", planted.__getitem__)
    assert not _holds_agree(text, parts)


def test_negative_control_a_wrong_branch_requirement_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A branch skipped where it could match is what the pattern property would show."""
    text = "Rain. Present: Maren Holt in the hall."
    assert _labels_agree(prompt_echo.PROMPT_LABEL, text)
    planted = frozenset({"never-in-any-text"})
    monkeypatch.setattr(alternation, "required_literals", lambda regex: (True, (planted,)))
    alternation._branches.cache_clear()
    try:
        assert not _labels_agree(prompt_echo.PROMPT_LABEL, text)
    finally:
        alternation._branches.cache_clear()


OLD_SENTENCE_STOP = re.compile(r"(?<![\[.])[.!?…]+[\"'”’)\]]*(?=\s|$)")
"""`repetition._SENTENCE_STOP` as it was: the look back first, tried at every position."""
STOP_TEXTS = st.text(alphabet=".!?…[]\"'”’)( \n\tab", max_size=24) | JOINED


def _stops_agree(pattern: re.Pattern[str], text: str) -> bool:
    return pattern.split(text) == OLD_SENTENCE_STOP.split(text) and [
        m.span() for m in pattern.finditer(text)
    ] == [m.span() for m in OLD_SENTENCE_STOP.finditer(text)]


@settings(max_examples=500)
@given(STOP_TEXTS)
def test_sentence_stops_are_found_where_the_look_back_first_found_them(text: str) -> None:
    assert _stops_agree(repetition._SENTENCE_STOP, text)


def test_negative_control_a_stop_without_its_look_back_is_caught() -> None:
    text = "Teodor tries to [...] the box. Rain."
    assert _stops_agree(repetition._SENTENCE_STOP, text)
    planted = re.compile(repetition._SENTENCE_STOP.pattern.replace(r"(?<![\[.][.!?…])", ""))
    assert not _stops_agree(planted, text)


def _may_stutter_reference(text: str) -> bool:
    """`stutter.may_stutter` as it was: every pair walked."""
    words = [word.lower() for word in re.findall(r"\w+", text)]
    last: dict[tuple[str, str], int] = {}
    for i, pair in enumerate(zip(words, words[1:], strict=False)):
        before = last.get(pair)
        if before is not None and i - before <= 6:
            return True
        last[pair] = i
    return False


STUTTER_TEXTS = st.lists(
    st.sampled_from(["until", "Dawn", "dawn", "the", "door", ",", ".", "a", "b", "\n"]),
    max_size=20,
).map(" ".join)


@settings(max_examples=500)
@given(STUTTER_TEXTS | JOINED)
def test_may_stutter_answers_what_the_pair_walk_answers(text: str) -> None:
    assert stutter.may_stutter(text) == _may_stutter_reference(text)


def test_negative_control_a_stutter_window_too_narrow_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = "They cross until dawn until dawn."
    assert stutter.may_stutter(text) == _may_stutter_reference(text) is True
    monkeypatch.setattr(stutter, "MAX_RUN", 1)
    assert stutter.may_stutter(text) != _may_stutter_reference(text)
