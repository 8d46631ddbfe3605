"""`contract.alternation.matches_any` answers exactly what `pattern.search` answers.

The search is split by top-level branch and each branch is prefiltered by its literals, so
the property is tried on the patterns it serves (the out-of-world filters) and on the
contract's own lexical patterns joined into one, over texts made of those patterns' own
phrases, in every case, between ordinary words and sentence marks.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.contract import _lexical, alternation
from tavern.contract.alternation import matches_any, top_branches
from tavern.filters import out_of_world

LEXICAL = re.compile(
    "|".join(f"(?:{p})" for p in (*_lexical.NOUN, *_lexical.ROLE, *_lexical.VERB)), re.I
)
PATTERNS = [*out_of_world.NARRATION.values(), LEXICAL]

PHRASES = [
    "as an AI", "language model", "I am just a digital assistant", "cannot assist with that",
    "role-play", "roleplay", "como uma IA", "sou apenas um personagem", "não posso ajudar com isso",
    "enough context or information to respond", "Sorry, but I can't help with that.",
    "provide more context", "align with my personality", "How can I assist you today?",
    "help you with any other tasks", "I am not a human, so", "the narrator", "o narrador",
    "I hope this helps", "feel free to", "here's the narration", "what can I do for",
    "the player", "the user types", "controlled by the human", "o jogador", "you play as",
    "I", "eu sou", "Eu estou", "Maren", "helps", "with", "the lamp", "rain falls", "not",
    "assistant", "human", "model", "\n", ".", "!", "?", "…", ",", "'", "’s",
]  # fmt: skip
CASED = st.tuples(st.sampled_from(PHRASES), st.sampled_from([str.upper, str.title, str.lower]))
TEXTS = st.lists(CASED.map(lambda pair: pair[1](pair[0])), max_size=8).flatmap(
    lambda words: st.sampled_from([" ", "", "  "]).map(lambda sep: sep.join(words))
)


def _agrees(pattern: re.Pattern[str], text: str) -> bool:
    return matches_any(pattern, text) == (pattern.search(text) is not None)


@settings(max_examples=300)
@given(st.sampled_from(PATTERNS), TEXTS)
def test_matches_any_answers_what_search_answers(pattern: re.Pattern[str], text: str) -> None:
    assert _agrees(pattern, text)


@pytest.mark.parametrize("pattern", PATTERNS)
def test_the_branches_join_back_into_the_pattern(pattern: re.Pattern[str]) -> None:
    branches = top_branches(pattern.pattern)
    assert "|".join(branches) == pattern.pattern
    assert len(branches) >= 20
    for branch in branches:
        re.compile(branch, pattern.flags)  # each is a whole regex of its own


def test_bars_inside_groups_classes_and_escapes_stay_in_their_branch() -> None:
    assert top_branches(r"a(?:b|c)|[|\]]x|\|y|[]|]z|[^]|]w") == [
        "a(?:b|c)",
        r"[|\]]x",
        r"\|y",
        "[]|]z",
        "[^]|]w",
    ]


def test_a_branch_with_a_lookbehind_still_sees_the_whole_text() -> None:
    pattern = re.compile(r"\bzzz\b|(?<=\. )I\b")
    assert matches_any(pattern, "Rain. I go.")
    assert not matches_any(pattern, "Rain, I go.")


def test_negative_control_a_wrong_requirement_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """A prefilter that skips a branch that could match is what the property would show."""
    text = "How can I assist you today?"
    assert _agrees(out_of_world.SPEECH["en"], text)
    planted = frozenset({"never-in-any-text"})
    monkeypatch.setattr(alternation, "required_literals", lambda regex: (True, (planted,)))
    alternation._branches.cache_clear()
    try:
        assert not _agrees(out_of_world.SPEECH["en"], text)
    finally:
        alternation._branches.cache_clear()


def _disagreements(pattern: re.Pattern[str]) -> list[str]:
    texts = [case(p) for p in PHRASES for case in (str.upper, str.title, str.lower)]
    texts += [f"{a} {b}" for a in PHRASES for b in PHRASES]
    return [t for t in texts if not _agrees(pattern, t)]


def test_the_literal_index_agrees_on_every_phrase_pair() -> None:
    for pattern in PATTERNS:
        assert _disagreements(pattern) == []


@pytest.mark.parametrize("sabotage", ["first literal only", "raw text for folded literals"])
def test_negative_control_a_wrong_literal_index_is_caught(
    monkeypatch: pytest.MonkeyPatch, sabotage: str
) -> None:
    """The index is what decides which branches are tried: one that forgets a literal of a
    first requirement, or looks for folded literals in the unfolded text, skips branches
    that match, and the phrase pairs show it."""
    original = alternation._Branches.__init__

    def first_only(self: alternation._Branches, pattern: re.Pattern[str]) -> None:
        original(self, pattern)
        for by_literal in self.index.values():
            kept: dict[str, list[int]] = {}
            for literal, branches in sorted(by_literal.items()):
                fresh = [b for b in branches if all(b not in k for k in kept.values())]
                if fresh:
                    kept[literal] = fresh
            by_literal.clear()
            by_literal.update(kept)

    if sabotage == "first literal only":
        monkeypatch.setattr(alternation._Branches, "__init__", first_only)
    else:
        monkeypatch.setattr(alternation, "_fold", lambda text: text)
    alternation._branches.cache_clear()
    try:
        assert any(_disagreements(p) for p in PATTERNS)
    finally:
        alternation._branches.cache_clear()
