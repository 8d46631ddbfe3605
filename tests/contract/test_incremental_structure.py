"""Per-text work reused over a shared prefix equals the work done afresh (property tests).

Three pieces of the contract reuse a recent text's results up to where two texts differ:
the folded text of a probe, the line split with its named lines, and the long-whitespace
check. Each must equal a fresh computation on the new text. Each negative control plants
the off-by-one a careless reuse would make and shows the same comparison failing.
"""

from __future__ import annotations

import bisect

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.contract import _named_lines, _prefilter, _structural, clear_caches
from tavern.contract._prefilter import MIN_SHARED, fold
from tavern.contract._reuse import WS_LIMIT, maybe_long_run

from .reference import _odd_one as _odd_one_plain

NAMES = ("Mara", "Rui", "Ana Sol")
PIECES = [
    "Mara", "Rui", "Ana Sol", "Ana", "Present: ", "\n", "\r", "\r\n", "\x0c", "\u2028", " ",
    "word ", "Σ", "ς", "σ", "İ", "ſ", "ab", ", ", " and ", " " * (WS_LIMIT + 3), "\t",
]  # fmt: skip
texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


def _family(head: str, tails: list[str]) -> list[str]:
    """Texts sharing a head of at least `MIN_SHARED` characters, as a role's prompts do."""
    padded = (head or "x") * (1 + MIN_SHARED // max(1, len(head or "x")))
    return [padded + tail for tail in tails]


def _fresh_lines(text: str) -> tuple[list[str], list[int], list[int]]:
    clear_caches()
    return _named_lines._lines(text, NAMES)


@settings(max_examples=200, deadline=None)
@given(texts, st.lists(texts, min_size=2, max_size=4))
def test_reused_lines_equal_a_fresh_split(head: str, tails: list[str]) -> None:
    family = _family(head, tails)
    clear_caches()
    reused = [_named_lines._lines(text, NAMES) for text in family]
    assert reused == [_fresh_lines(text) for text in family]


@settings(max_examples=200, deadline=None)
@given(texts, st.lists(texts, min_size=2, max_size=4))
def test_reused_fold_equals_a_fresh_fold(head: str, tails: list[str]) -> None:
    clear_caches()
    for text in _family(head, tails):
        assert _prefilter.folded(text) == fold(text)


@settings(max_examples=200, deadline=None)
@given(texts, st.lists(texts, min_size=2, max_size=4), st.integers(0, 3 * WS_LIMIT))
def test_long_run_check_from_a_base_equals_a_full_check(
    head: str, tails: list[str], back: int
) -> None:
    clear_caches()
    base, *others = _family(head, tails)
    maybe_long_run(base)
    for text in others:
        shared = _prefilter.common_prefix(base, text)
        clear_caches()
        whole = maybe_long_run(text)
        clear_caches()
        maybe_long_run(base)
        # Any length up to the true shared length is a valid claim.
        assert maybe_long_run(text, base, max(0, shared - back)) == whole


def test_reuse_happens() -> None:
    clear_caches()
    first, second = _family("Mara: word\n", ["Rui: a\n", "Rui: b\n"])
    _named_lines._lines(first, NAMES)
    _prefilter._probe(first)
    assert _prefilter.shared_base(second)[0] == first
    assert _named_lines._lines(second, NAMES) == _fresh_lines(second)


def test_negative_control_keeping_the_line_across_the_cut_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Planted: keep one line more than the shared prefix vouches for.
    monkeypatch.setattr(_named_lines, "bisect_left", lambda a, x: bisect.bisect_left(a, x) + 1)
    # The shared prefix ends inside a "\r\n" line break that the second text lacks.
    first, second = _family("word\r", ["\nMara\n", "Rui\n"])
    clear_caches()
    _prefilter._probe(first)
    _named_lines._lines(first, NAMES)
    reused = _named_lines._lines(second, NAMES)
    monkeypatch.undo()
    assert reused != _fresh_lines(second)


def test_negative_control_a_context_dependent_fold_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Planted: plain `lower`, whose final sigma depends on the next character.
    monkeypatch.setattr(_prefilter, "fold", str.lower)
    first, second = _family("word ", ["ΑΣ", "ΑΣΑ"])
    clear_caches()
    _prefilter._probe(first)
    assert _prefilter.folded(second) != second.lower()


def test_negative_control_a_block_too_far_misses_the_run() -> None:
    base = "x" * 2048
    text = base[:2000] + " " * WS_LIMIT + "y"
    clear_caches()
    assert maybe_long_run(base) is False
    assert maybe_long_run(text, base, 2000) is True
    clear_caches()
    maybe_long_run(base)
    # Planted: a shared length one block beyond the truth skips the block the run covers.
    assert maybe_long_run(text, base, 2000 + WS_LIMIT // 2 + WS_LIMIT) is False


@settings(max_examples=200, deadline=None)
@given(texts, st.lists(texts, min_size=2, max_size=4))
def test_reused_per_line_results_equal_fresh_ones(head: str, tails: list[str]) -> None:
    family = _family(head, tails)
    clear_caches()
    for per_line in (_structural._line_header, _structural._list_line):
        reused = [_named_lines._named_hits(text, NAMES, per_line) for text in family]
        fresh = []
        for text in family:
            clear_caches()
            fresh.append(_named_lines._named_hits(text, NAMES, per_line))
        assert reused == fresh


def test_negative_control_reusing_a_line_past_the_cut_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The shared prefix ends inside the line "Mara: x" / "Marab": a header in the first
    # text only, so its result must not be reused. Planted: keep one line more.
    first, second = _family("Rui: word\n", ["Mara: x\n", "Marab\n"])
    clear_caches()
    _prefilter._probe(first)
    _named_lines._named_hits(first, NAMES, _structural._line_header)
    _named_lines._lines(second, NAMES)  # split honestly (and cached) before the fault
    kept = _named_lines._kept
    monkeypatch.setattr(_named_lines, "_kept", lambda offsets, shared: kept(offsets, shared) + 1)
    reused = _named_lines._named_hits(second, NAMES, _structural._line_header)
    monkeypatch.undo()
    clear_caches()
    assert reused != _named_lines._named_hits(second, NAMES, _structural._line_header)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c", ("a", ""), True, False]), max_size=7))
def test_odd_one_equals_its_definition(values: list[object]) -> None:
    assert _structural._odd_one(values) == _odd_one_plain(values)


def test_negative_control_an_odd_one_ignoring_the_first_value_is_caught() -> None:
    # Planted: only values unlike the first are ever reported, so a first value that is the
    # odd one goes unseen.
    def later_only(values: list[object]) -> int | None:
        differ = [i for i, v in enumerate(values) if v != values[0]]
        return differ[0] if len(differ) == 1 else None

    values: list[object] = ["x", "y", "y"]
    assert later_only(values) != _odd_one_plain(values) == _structural._odd_one(values) == 0
