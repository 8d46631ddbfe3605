"""The raw-id rule's possible ids, reused over a shared prefix, hold every slot id.

`_id_texts` may give any superset of the texts of a prompt's slot ids (the rule's early
answer is exact for any); it takes a recent text's set for the shared prefix and searches
only the rest. The old code (a full `finditer` of `_SLOT_TEXT`) is kept here as the
reference. The properties: the set holds every slot id, it equals the old set on a text
without a base, and the rule equals the plain evaluation. The negative control starts the
tail search at the shared length itself and shows an id across the cut going missing.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.contract import _prefilter, _raw_ids, check_prompt, clear_caches
from tavern.contract._prefilter import MIN_SHARED
from tavern.contract._raw_ids import _SLOT_TEXT, SLOT_ID
from tavern.records import ChatMessage

from .reference import reference_check_prompt

PIECES = ["C", "C1", "C2", "C12", "1", "2", " ", "x", "XC3", "(C4)", "C5 = Mara", "Mara (C6)", "\n"]
texts = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)
CAST = ["Mara", "Rui", "Tomas"]


def _old_id_texts(content: str) -> frozenset[str]:
    return frozenset(m.group() for m in _SLOT_TEXT.finditer(content))


def _family(head: str, tails: list[str]) -> list[str]:
    padded = (head or "x") * (1 + MIN_SHARED // max(1, len(head or "x")))
    return [padded + tail for tail in tails]


@settings(max_examples=300, deadline=None)
@given(texts, st.lists(texts, min_size=2, max_size=4))
def test_possible_ids_hold_every_slot_id(head: str, tails: list[str]) -> None:
    clear_caches()
    for text in _family(head, tails):
        _prefilter._probe(text)
        assert _raw_ids._id_texts(text) >= {m.group() for m in SLOT_ID.finditer(text)}
        prompt = [ChatMessage(role="user", content=text)]
        assert check_prompt(prompt, CAST) == reference_check_prompt(prompt, CAST)


@settings(max_examples=200, deadline=None)
@given(texts)
def test_without_a_base_the_set_is_the_old_one(text: str) -> None:
    clear_caches()
    assert _raw_ids._id_texts(text) == _old_id_texts(text)


def test_negative_control_a_tail_search_from_the_cut_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The shared prefix ends inside "C2": the first text continues "C1".
    first, second = _family("word ", ["C1 x", "C2 x"])
    monkeypatch.setattr(_raw_ids, "_ID_REACH", 0)  # planted: the id across the cut is skipped
    clear_caches()
    _raw_ids._id_texts(first)
    assert "C2" not in _raw_ids._id_texts(second)
    monkeypatch.undo()
    clear_caches()
    _raw_ids._id_texts(first)
    assert "C2" in _raw_ids._id_texts(second)
