"""Quotations: an apostrophe after the guards' mask is a possessive, not a quote mark."""

from __future__ import annotations

import re

import pytest

import tavern.physics.quotations as quotations_module
from tavern.physics.acts import sentence_spans
from tavern.physics.quotations import quotations

MASKED = "Teodor Vask is still working on the [...]'s [...]. Maren Holt is not involved in this."
"""Toll-house soak #38 (seed 52), turn 5, as the thought guard left the event's sentence."""


def test_a_masked_possessive_opens_no_quotation() -> None:
    assert quotations(MASKED) == []
    assert [MASKED[a:b].strip() for a, b in sentence_spans(MASKED)] == [
        "Teodor Vask is still working on the [...]'s [...].",
        "Maren Holt is not involved in this.",
    ]
    said = "Teodor's [...] lies still. He says, 'We wait for low water.' The tide turns."
    assert [q[2] for q in quotations(said)] == ["We wait for low water."]


def test_negative_control_an_opener_after_any_non_word_reads_the_rest_as_a_quotation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    loose = re.compile(quotations_module.QUOTATION.pattern.replace(r"(?<![\w\]])", r"(?<!\w)", 1))
    assert loose.pattern != quotations_module.QUOTATION.pattern
    monkeypatch.setattr(quotations_module, "QUOTATION", loose)
    assert quotations(MASKED) != []
    assert len(sentence_spans(MASKED)) == 1
