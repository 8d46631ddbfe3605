"""`physics.continued.Continued`: the list found is one the new list truly starts with, and
the most recent such; a value extended from it equals the value derived afresh.

The Director's window (`director._shown_lines`) uses it and has its own old == new property
test; the negative control here plants a predicate that takes any shorter list as continued,
and the extension property catches it.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.physics import continued
from tavern.physics.continued import Continued

lists = st.lists(st.lists(st.sampled_from("abcd"), max_size=6), min_size=1, max_size=12)


def _joined(memo: Continued[str, str], items: list[str]) -> str:
    found = memo.find(items)
    value, tail = (found[0], items[found[1] :]) if found else ("", items)
    return memo.put(list(items), value + "".join(tail))


@settings(max_examples=300, deadline=None)
@given(lists, st.integers(1, 4))
def test_found_lists_are_prefixes_and_values_extend_exactly(
    sequence: list[list[str]], kept: int
) -> None:
    memo: Continued[str, str] = Continued(kept)
    remembered: list[list[str]] = []
    for items in sequence:
        prefixes = [old for old in remembered if items[: len(old)] == old]
        found = memo.find(items)
        if found is None:
            assert not prefixes
        else:
            assert found[1] == len(prefixes[-1])  # the most recent continued list
            remembered.remove(prefixes[-1])
        memo.put(list(items), "".join(items))
        remembered = [*remembered, items][-kept:]
        if len(items) == 5:  # now and then, start cold
            memo.clear()
            remembered = []


@settings(max_examples=200, deadline=None)
@given(lists)
def test_an_extended_value_equals_a_fresh_one(sequence: list[list[str]]) -> None:
    memo: Continued[str, str] = Continued(3)
    for items in sequence:
        assert _joined(memo, items) == "".join(items)


def test_negative_control_any_shorter_list_taken_as_continued_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def by_length(items: list[str], old: list[str]) -> bool:
        return len(old) <= len(items)

    monkeypatch.setattr(continued, "continues", by_length)
    memo: Continued[str, str] = Continued(3)
    with pytest.raises(AssertionError):
        for items in (["Rain drums.", "Ilse sits."], ["The door opens.", "Ilse sits.", "x"]):
            assert _joined(memo, items) == "".join(items)
