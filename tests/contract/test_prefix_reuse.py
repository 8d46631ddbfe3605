"""The prefilter's reuse of a recent text's literal positions is exact (property test).

Texts share long prefixes as consecutive prompts of a role do; each literal lookup must
equal a plain substring test on that text. The negative control plants the obvious wrong
shortcut (trusting the earlier text's answer without looking at the new tail) and shows
the same property failing.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.contract import _prefilter, clear_caches
from tavern.contract._prefilter import fold

ALPHABET = "abcAB ßſ\n"
LITERALS = ["ab", "ba", "a b", "cc", "ss", "aaa", "b\na", "abcab"]


def _texts(prefix: str, tails: list[str]) -> list[str]:
    padded = prefix * (1 + _prefilter.MIN_SHARED // max(1, len(prefix)))
    return [padded + tail for tail in tails]


@settings(max_examples=300, deadline=None)
@given(
    st.text(ALPHABET, min_size=1, max_size=40),
    st.lists(st.text(ALPHABET, max_size=60), min_size=2, max_size=5),
)
def test_first_occurrences_equal_a_plain_search(prefix: str, tails: list[str]) -> None:
    clear_caches()
    for text in _texts(prefix, tails):
        probe = _prefilter._probe(text)
        for literal in LITERALS:
            assert probe.first(False, literal) == text.find(literal)
            assert probe.first(True, fold(literal)) == fold(text).find(fold(literal))


def test_reuse_happens_for_a_shared_prefix() -> None:
    clear_caches()
    first, second = _texts("the cellar ", ["ab tail", "new tail ab"])
    _prefilter._probe(first).first(False, "ab")
    assert _prefilter._probe(second).shared[False] >= _prefilter.MIN_SHARED


def test_negative_control_trusting_the_old_answer_is_caught() -> None:
    clear_caches()
    first, second = _texts("the cellar ", ["no hit here", "player"])
    old = _prefilter._probe(first)
    assert old.first(True, "player") == -1
    stale = _prefilter._probe(second).base[True].get("player")  # the planted shortcut
    assert stale == -1 and fold(second).find("player") != -1
