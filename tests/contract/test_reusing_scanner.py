"""`ReusingScanner.scan` equals `finditer` on texts that extend one another (property test).

Texts are built the way prompts grow: a shared beginning, then different endings, with
near-miss material for each pattern around the cut. The negative control plants a scanner
that trusts the old matches right up to the shared length (reach 0) and shows the property
failing.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.contract import _prefilter, clear_caches
from tavern.contract._lexical import NOUN, ROLE
from tavern.contract._prefilter import shared_base
from tavern.contract._raw_ids import _SLOT_TEXT, SLOT_ID
from tavern.contract._reuse import ReusingScanner, forward_reach
from tavern.contract._structural import _FIELD, MARKER_TAG

PATTERNS = [
    MARKER_TAG,
    _FIELD,
    SLOT_ID,
    _SLOT_TEXT,
    re.compile(NOUN[0], re.IGNORECASE),
    re.compile(ROLE[0], re.IGNORECASE),
    re.compile(r"\bkey(?=\s+ring)"),
]
PIECES = [
    "(you)", "( PC )", "<player>", "[", "(", " ", "  ", "\n", "\n\n", ":", "Where: ", "Looks:",
    "Mara", "C1", "C12", "XC2", " the ", "player", "user", "controlled by the ", "human",
    "key", " ring", "- ", "; ", "word", " " * 70,
]  # fmt: skip
texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


def _plain(regex: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    return [m.span() for m in regex.finditer(text)]


def _scans(scanner: ReusingScanner, head: str, tails: list[str]) -> list[tuple[str, list]]:
    padded = (head or "x") * (1 + _prefilter.MIN_SHARED // max(1, len(head or "x")))
    return [(padded + t, [s[:2] for s in scanner.scan(padded + t)]) for t in tails]


@settings(max_examples=200, deadline=None)
@given(texts, st.lists(texts, min_size=2, max_size=4), st.sampled_from(PATTERNS), st.booleans())
def test_reusing_scan_equals_finditer(
    head: str, tails: list[str], regex: re.Pattern[str], probed: bool
) -> None:
    clear_caches()
    scanner = ReusingScanner(regex, base_of=shared_base if probed else None)
    for text, spans in _scans(scanner, head, tails):
        assert spans == _plain(regex, text)


def test_every_contract_scan_pattern_has_a_bounded_reach() -> None:
    assert all(forward_reach(p) is not None for p in PATTERNS)


def test_negative_control_trusting_matches_up_to_the_shared_length_is_caught() -> None:
    scanner = ReusingScanner(MARKER_TAG)
    scanner.reach = 0  # planted: ignores that an attempt reads past its start
    head = "a " * 600 + "("
    first, second = _scans(scanner, head, [" none", "you)"])
    assert first[1] == _plain(MARKER_TAG, first[0])
    assert second[1] != _plain(MARKER_TAG, second[0])  # the tag across the cut is lost
    assert scanner.reused == 1
