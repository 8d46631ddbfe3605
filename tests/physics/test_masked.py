"""Clamp `redacted_event` (`physics.masked`): properties; its incidents are rows of
`cases/redacted_event.jsonl` (spoken words past their hearers are the perception guard's:
`cases/perception_guard.jsonl`, `tests/runner/test_perceived_tokens.py`)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tavern.physics.masked import emptied_by_masks, without_masked_sentences
from tavern.physics.redaction import MASK

CLEAN = st.sampled_from(["The door holds.", "Rain falls on the roof.", "Maren nods."])
MASKED = st.sampled_from([f"He takes the {MASK}.", f"Tomas reads the {MASK}'s {MASK}."])


@given(st.lists(st.tuples(st.booleans(), CLEAN, MASKED), min_size=1, max_size=6))
def test_masked_sentences_go_exactly_when_a_clean_one_stays(
    plan: list[tuple[bool, str, str]],
) -> None:
    told = [clean if is_clean else masked for is_clean, clean, masked in plan]
    text = " ".join(told)
    kept = [s for s in told if MASK not in s]
    assert without_masked_sentences(text) == (" ".join(kept) if kept else text)


WORDS = st.sampled_from(["the", "it", "of", "he", "lantern", "Maren", "4471", "bolt", MASK])


@given(st.lists(WORDS, min_size=1, max_size=8))
def test_an_event_goes_only_when_masked_and_without_a_salient_word(words: list[str]) -> None:
    salient = {"lantern", "Maren", "4471", "bolt"} & set(words)
    assert emptied_by_masks(" ".join(words)) == (MASK in words and not salient)
