"""Messages with too few character blocks to compare skip building them (property test).

The three block-comparing rules (odd tag, label form, missing field) need `MIN_BLOCKS`
blocks or more, so `_headers` returns none for a message with fewer. The property: those
rules give what the plain evaluation (`reference.py`, which always builds every block) gives.
The negative control moves the cut one block too high and shows the property failing.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.contract import RULES, _structural, check_prompt, clear_caches
from tavern.records import ChatMessage

from .reference import reference_check_prompt

CAST = ["Mara", "Rui", "Tomas", "Lio"]
BLOCK_RULES = [
    r
    for r in RULES
    if r.name in ("structural_odd_tag", "structural_label_form", "structural_missing_field")
]
LINES = [
    "- Mara: calm. Mood: wary", "- Rui: loud. Mood: calm", "- Tomas (you): x. Mood: odd",
    "- Lio: quiet", "## Rui", "Mara ★: y", "Rui — Goals: z", "Tomas: Secrets: s; Goals: g",
    "Present: Mara, Rui, Tomas", "plain prose line", "Lio, Mara and Rui talk", "",
]  # fmt: skip
messages = st.lists(st.lists(st.sampled_from(LINES), max_size=8).map("\n".join), max_size=3)


def _same(texts: list[str]) -> bool:
    prompt = [ChatMessage(role="user", content=t) for t in texts]
    names = [r.name for r in BLOCK_RULES]
    return check_prompt(prompt, CAST, rules=BLOCK_RULES) == reference_check_prompt(
        prompt, CAST, only=names
    )


@settings(max_examples=300, deadline=None)
@given(messages)
def test_block_rules_equal_the_plain_evaluation(texts: list[str]) -> None:
    clear_caches()
    assert _same(texts)


def test_too_few_blocks_are_not_built() -> None:
    clear_caches()
    two = "- Mara: a. Mood: x\n- Rui: b. Mood: y\n"
    assert _structural._headers(two, CAST) == ()
    assert len(_structural._headers(two + "- Tomas (you): c\n", CAST)) == 3


def test_negative_control_a_cut_one_block_too_high_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Planted: messages of exactly MIN_BLOCKS blocks are skipped too.
    monkeypatch.setattr(_structural, "_FEWEST_COMPARED", _structural.MIN_BLOCKS + 1)
    clear_caches()
    three = "- Mara: a\n- Rui: b\n- Tomas (you): c\n"
    caught = not _same([three])
    monkeypatch.undo()
    clear_caches()
    assert caught and _same([three])
