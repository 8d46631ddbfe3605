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
from tavern.physics import acts, mind_copy

PHRASES = [
    "Location:", "Facts:", "Present:", "(event)", "Event:", "event", "## Scene", "##", "#",
    "[...]", "[..]", "sound", "Sounds", "sight", "is", "are", "remains", "stayed", "still",
    "now", "sealed", "open", "of the trapdoor", "Maren Holt", "in the hall", "The Vintner's",
    "Wake", "Teodor", "the lamp", "rain falls", "\n", ".", "!", "?", ";", ",", "'", "’s",
]  # fmt: skip
CASED = st.tuples(st.sampled_from(PHRASES), st.sampled_from([str.upper, str.title, str.lower]))
TEXTS = st.lists(st.one_of(st.sampled_from(PHRASES), CASED.map(lambda p: p[1](p[0]))), max_size=10)
JOINED = TEXTS.flatmap(lambda words: st.sampled_from([" ", "", "  "]).map(lambda s: s.join(words)))


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


def _word_runs_reference(text: str, length: int) -> set[tuple[str, ...]]:
    """`mind_copy.word_runs` as it was: a slice per start."""
    words = mind_copy._WORD.findall(text.casefold())
    return {tuple(words[i : i + length]) for i in range(len(words) - length + 1)}


@settings(max_examples=300)
@given(JOINED, st.integers(-2, 9))
def test_word_runs_are_the_runs_slicing_gives(text: str, length: int) -> None:
    assert mind_copy.word_runs(text, length) == _word_runs_reference(text, length)


def test_negative_control_a_run_lost_at_the_end_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "Maren Holt in the hall. Rain falls."
    assert mind_copy.word_runs(text, 3) == _word_runs_reference(text, 3)
    monkeypatch.setattr(mind_copy, "_casefold_words", lambda text: tuple(text.split()[:-1]))
    assert mind_copy.word_runs(text, 3) != _word_runs_reference(text, 3)


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


RUN_SOURCES = st.lists(st.sampled_from(PHRASES + ["The Vintner's Wake in the hall"]), max_size=6)


def _runs_agree(text: str, source: str, length: int) -> bool:
    runs = frozenset(_word_runs_reference(source, length))
    reference = not runs.isdisjoint(_word_runs_reference(text, length))
    return mind_copy.holds_run(text, runs, length) == reference


@settings(max_examples=300)
@given(JOINED, RUN_SOURCES.map(" ".join), st.integers(-1, 6))
def test_holds_run_answers_whether_a_run_of_the_text_is_one_of_the_runs(
    text: str, source: str, length: int
) -> None:
    assert _runs_agree(text, source, length)


def test_negative_control_a_run_at_the_end_missed_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text, source = "Rain falls in the hall.", "Maren Holt in the hall"
    assert _runs_agree(text, source, 3)
    monkeypatch.setattr(mind_copy, "_casefold_words", lambda text: tuple(text.split()[:-1]))
    assert not _runs_agree(text, source, 3)


def test_cached_sentence_spans_are_a_fresh_list_each_time() -> None:
    text = "Rain falls. She says, 'Go home now. It is late.' The lamp dies."
    spans = acts.sentence_spans(text)
    spans.append((0, 0))
    assert acts.sentence_spans(text) == spans[:-1] == [(0, 12), (12, 49), (49, 63)]


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
