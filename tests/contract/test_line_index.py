"""The line index of watched literals equals a plain search, and the lexical rules are unchanged.

`_line_index` fills a probe's first indexes for the watched literals (every lexical pattern's
first required set) from per-line lookups, and a lexical scan tries only the patterns whose
first set the index holds or does not cover (`_lexical.first_set_index`). The properties, on
generated texts sharing prefixes as a role's prompts do and on prompts captured from a
`benchmarks.kernel` session: each watched literal's index equals `find` on the (folded) text,
and each lexical rule reports what the code before the index reported (`_old_detect`, a copy
of it with plain searches for its lookups). The negative controls plant the faults a line
index invites: reusing a base occurrence that straddles the shared prefix's end, watching a
literal that spans a line break, skipping a pattern whose first set the index does not
cover, and searching a literal only when a literal it does not hold is present.
"""

from __future__ import annotations

import asyncio
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tavern.contract as contract
from tavern.contract import _lexical, _line_index, _prefilter, clear_caches
from tavern.contract._prefilter import MIN_SHARED, Requirement, fold, required_literals
from tavern.contract._types import Violation
from tavern.records import ChatMessage

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:  # benchmarks/ is a top-level folder, not an installed package
    sys.path.insert(0, str(REPO))

import benchmarks.kernel as kernel  # noqa: E402

# -- the code before the line index, kept as the reference ------------------------------------


def _old_may_match(ignorecase: bool, needs: tuple[Requirement, ...], text: str) -> bool:
    """`_prefilter.may_match` before the index, its probe lookups written as the plain
    searches `test_prefix_reuse` shows them equal to."""
    haystack = fold(text) if ignorecase else text
    for need in needs:
        for literal in need:
            if haystack.find(literal) != -1:
                break
        else:
            return False
    return True


Guarded = list[tuple[re.Pattern[str], bool, tuple[Requirement, ...]]]


def _guarded(patterns: Sequence[str]) -> Guarded:
    """The (regex, ignorecase, needs) of a lexical rule, as `_lexical._lexical` builds them."""
    found = []
    for p in patterns:
        regex = re.compile(p, re.UNICODE if "N?PC" in p else re.IGNORECASE | re.UNICODE)
        ignorecase, needs = required_literals(regex)
        found.append((regex, ignorecase, _lexical.cheapest_first(ignorecase, needs)))
    return found


def _old_detect(name: str, guarded: Guarded, messages: Sequence[ChatMessage]) -> list[Violation]:
    """A lexical rule's `detect` before the index: every pattern guarded by `may_match` alone
    (a pattern's scan equals `finditer`: `test_reusing_scanner`)."""
    return [
        Violation(name, (m.start(), m.end()), m.group(), index)
        for index, message in enumerate(messages)
        for regex, ignorecase, needs in guarded
        if _old_may_match(ignorecase, needs, message.content)
        for m in regex.finditer(message.content)
    ]


SOURCES = [_lexical.NOUN, _lexical.ROLE, _lexical.NEGATED, _lexical.VERB]
OLD_RULES = [
    (rule, _guarded(patterns))
    for rule, patterns in zip(_lexical.LEXICAL_RULES, SOURCES, strict=True)
]

# -- generated texts ----------------------------------------------------------------------------

PIECES = [
    "the player", "keyboard", "key", "board", "\n", "\r\n", " ", "real", " person", "someone",
    "PLAYER", "Jogador", "usuário", "o jogador", "ſ", "İ", "Σ", "not the one typing", "pel",
    "[#12 t3] speech by Mara (C1) | the cellar key\n", "## Now\nFacts:\n", "word ",
    "persona", "personagem", "play", "playing", "digita", "digitando", "real person",
]  # fmt: skip
texts = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)


def _family(head: str, tails: list[str]) -> list[str]:
    """Texts sharing a head of at least `MIN_SHARED` characters, as a role's prompts do."""
    padded = (head or "x") * (1 + MIN_SHARED // max(1, len(head or "x")))
    return [padded + tail for tail in tails]


def _index_is_plain(text: str) -> bool:
    """Every watched literal's first index in the probe of `text` equals a plain search."""
    probe = _prefilter._probe(text)
    for ignorecase in (False, True):
        made = probe.firsts.get(ignorecase)
        if made is None:
            continue
        haystack = fold(text) if ignorecase else text
        watched, firsts = made
        for literal in watched:
            at = haystack.find(literal)
            if probe.found[ignorecase][literal] != at or firsts.get(literal, -1) != at:
                return False
    return True


def _rules_unchanged(messages: Sequence[ChatMessage]) -> bool:
    """Each lexical rule reports what it reported before the index (in the same order)."""
    return all(
        rule.detect(messages, ()) == _old_detect(rule.name, guarded, messages)
        for rule, guarded in OLD_RULES
    )


@settings(max_examples=300, deadline=None)
@given(texts, st.lists(texts, min_size=1, max_size=5))
def test_index_equals_a_plain_search(head: str, tails: list[str]) -> None:
    clear_caches()
    for text in [head, *_family(head, tails)]:
        assert _index_is_plain(text)


@settings(max_examples=200, deadline=None)
@given(texts, st.lists(texts, min_size=1, max_size=4))
def test_lexical_rules_equal_the_old_code(head: str, tails: list[str]) -> None:
    clear_caches()
    for text in [head, *_family(head, tails)]:
        assert _rules_unchanged([ChatMessage(role="user", content=text)])


def test_the_index_is_used() -> None:
    clear_caches()
    first, second = _family("the cellar door\n", ["no hit", "the player waits\n"])
    _prefilter._probe(first)
    probe = _prefilter._probe(second)
    watched, firsts = probe.firsts[True]
    assert "keyboard" in watched and "player" in firsts and "keyboard" not in firsts
    assert probe.shared[True] >= MIN_SHARED


# -- prompts of a kernel session ------------------------------------------------------------------


@pytest.fixture(scope="module")
def kernel_prompts(tmp_path_factory: pytest.TempPathFactory) -> list[list[ChatMessage]]:
    """Every prompt the contract checked in 30 turns of a 30-turn benchmark session, in order."""
    runner, _ = kernel._runner(tmp_path_factory.mktemp("kernel"), durable=False)
    session = kernel.build_session(runner, runner.store, 30)
    checked: list[list[ChatMessage]] = []
    plain = contract.check_prompt

    def recording(messages: Sequence[ChatMessage], *args: Any, **kwargs: Any) -> list[Violation]:
        checked.append(list(messages))
        return plain(messages, *args, **kwargs)

    contract.check_prompt = recording
    try:
        for i in range(30):
            asyncio.run(runner.play_turn(session, kernel.INPUTS[i % len(kernel.INPUTS)]))
    finally:
        contract.check_prompt = plain
    return checked


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.data())
def test_kernel_prompts_equal_the_old_code(
    kernel_prompts: list[list[ChatMessage]], data: st.DataObject
) -> None:
    assert len(kernel_prompts) > 60
    start = data.draw(st.integers(0, len(kernel_prompts) - 30), label="start")
    clear_caches()
    for messages in kernel_prompts[start : start + 30]:
        assert all(_index_is_plain(m.content) for m in messages)
        assert _rules_unchanged(messages)


# -- negative controls -------------------------------------------------------------------------


def test_negative_control_reusing_an_occurrence_across_the_prefix_end_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def starts_within(
        haystack: str, ignorecase: bool, base: _line_index.Indexed | None, shared: int
    ) -> _line_index.Indexed | None:
        watched = _line_index.WATCHED[ignorecase]
        if base is None or len(watched) < _line_index.INDEXED_MIN:
            return _line_index.index(haystack, ignorecase, base, shared)
        firsts = {s: at for s, at in base[1].items() if at < shared}  # planted: not `ends`
        start = haystack.rfind("\n", 0, shared) + 1
        _line_index.add_first_hits(haystack, start, ignorecase, firsts)
        return watched, firsts

    # The base holds "player" across the end of the shared prefix ("play" is shared); the
    # text goes on "playground" and has its "player" later.
    first, second = _family("the cellar door\n", ["the player", "the playground player"])
    clear_caches()
    assert _index_is_plain(first) and _index_is_plain(second)
    monkeypatch.setattr(_prefilter, "index", starts_within)
    clear_caches()
    assert _index_is_plain(first)
    assert not _index_is_plain(second)


def test_negative_control_a_literal_spanning_a_line_break_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spanning = "key\nboard"
    monkeypatch.setitem(
        _line_index.WATCHED, True, _line_index.WATCHED[True] | {spanning}
    )  # planted: `watch` refuses it
    clear_caches()
    text = "the key\nboard of the old organ"
    assert not _index_is_plain(text)
    assert _prefilter._probe(text).found[True][spanning] == -1 != text.find(spanning)


def test_negative_control_skipping_an_uncovered_first_set_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def covers_all(
        firsts: Sequence[tuple[bool, Requirement]], ignorecase: bool, watched: frozenset[str]
    ) -> _lexical.FirstSetIndex:
        by_literal: dict[str, list[int]] = {}
        for i, (case, first) in enumerate(firsts):
            for literal in first if case == ignorecase else ():  # planted: no `first <= watched`
                by_literal.setdefault(literal, []).append(i)
        return [], by_literal

    # lexical_negated's "não é o jogador" pattern opens with the unwatched set {"n"}.
    messages = [ChatMessage(role="user", content="Ela não é o jogador, diz a carta.")]
    clear_caches()
    assert _rules_unchanged(messages)
    monkeypatch.setattr(_lexical, "first_set_index", covers_all)
    clear_caches()
    assert not _rules_unchanged(messages)


def test_negative_control_a_wrong_inner_literal_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    roots, derived = _line_index._SEARCH_ORDER[True]
    planted = [(s, "user" if s == "player" else held) for s, held in derived]  # "user" not held
    assert ("player", "play") in derived
    text = "the player waits by the door"
    clear_caches()
    assert _index_is_plain(text)
    monkeypatch.setitem(_line_index._SEARCH_ORDER, True, (roots, planted))
    clear_caches()
    assert not _index_is_plain(text)
