"""A scan tried only at a pattern's possible starts equals the plain `finditer` scan.

`_self_names_in` tries `_SELF` where one of `_SELF_OPENINGS` occurs (case-folded). Generated
texts full of near misses must give the same answers as scanning every position; the
negative control drops one opening and shows the property catching it.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.contract import _structural as structural
from tavern.contract import clear_caches

PIECES = [
    "(you)", "[ PC ]", "<Player>", "{eu}", "( você )", "(", "[", "you", "You are ", "YOU'RE ",
    "Você é ", "VOCÊ É ", "tu és ", "Tu es ", "Mara", "Rui", " ", "\n", "x", "(human", "Lio)",
]  # fmt: skip
NAMES = ("Mara", "Rui", "Lio")
texts = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)


def _plain_selves(content: str) -> frozenset[str]:
    return frozenset(
        n
        for m in structural._SELF.finditer(content)
        for n in NAMES
        if content.startswith(n, m.end())
    )


@settings(max_examples=400)
@given(texts)
def test_anchored_self_scan_equals_the_plain_scan(content: str) -> None:
    clear_caches()
    assert structural._self_names_in(content, NAMES) == _plain_selves(content)


def test_negative_control_a_missing_opening_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(structural, "_SELF_OPENINGS", ("you are", "you're", "voc"))
    clear_caches()
    content = "Tu és Mara."
    assert structural._self_names_in(content, NAMES) != _plain_selves(content)
