"""The lexical prefilter checks first the required set that costs fewest new lookups.

`cheapest_first` only reorders a pattern's required sets, and `may_match` requires every
set, so the verdict cannot change. The property compares `may_match` with the order the
rules use against the order `required_literals` gives, on generated texts. The negative
control plants a reorder that loses a set and shows the same comparison failing.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.contract import _lexical, clear_caches
from tavern.contract._prefilter import Requirement, may_match, required_literals

from .test_fast_path import FRAGMENTS


def _patterns() -> list[re.Pattern[str]]:
    flags = re.IGNORECASE | re.UNICODE
    sources = [*_lexical.NOUN, *_lexical.ROLE, *_lexical.NEGATED, *_lexical.VERB]
    return [re.compile(p, re.UNICODE if "N?PC" in p else flags) for p in sources]


def _orders() -> list[tuple[bool, tuple[Requirement, ...], tuple[Requirement, ...]]]:
    """(ignorecase, the rules' order, the plain order) for every lexical pattern."""
    _lexical._LOOKED_UP_FIRST.clear()
    orders = []
    for regex in _patterns():
        ignorecase, needs = required_literals(regex)
        orders.append((ignorecase, _lexical.cheapest_first(ignorecase, needs), needs))
    return orders


ORDERS = _orders()
texts = st.lists(st.sampled_from([*FRAGMENTS, " ", "\n", "keyboard", "typing", "usuário"])).map(
    " ".join
)


def test_each_order_holds_the_same_sets() -> None:
    for _, ours, plain in ORDERS:
        assert sorted(map(sorted, ours)) == sorted(map(sorted, plain))


@settings(max_examples=300, deadline=None)
@given(texts)
def test_verdicts_equal_the_plain_order(text: str) -> None:
    clear_caches()
    for ignorecase, ours, plain in ORDERS:
        assert may_match(ignorecase, ours, text) == may_match(ignorecase, plain, text)


def test_fewer_literals_are_looked_up_first() -> None:
    def first_literals(index: int) -> set[tuple[bool, str]]:
        return {(order[0], s) for order in ORDERS for s in order[index][0]}

    assert len(first_literals(1)) < len(first_literals(2))


def test_negative_control_a_reorder_losing_a_set_is_caught() -> None:
    # Planted: the reorder keeps only the first set, so a text meeting it alone passes.
    lossy = [(ic, ours[:1], plain) for ic, ours, plain in ORDERS]
    text = "the human at the keyboard"
    clear_caches()
    differ = [may_match(ic, ours, text) != may_match(ic, plain, text) for ic, ours, plain in lossy]
    assert any(differ)
