"""The texts this layer adds to every prompt obey the prompt contract (agency lock)."""

from __future__ import annotations

import pytest

from tavern.contract import check_text
from tavern.llm.call_policy import LANGUAGE_POLICY, PUNCTUATION_POLICY, policy_text
from tavern.llm.deepseek import SCHEMA_INSTRUCTION

ADDED_TEXTS = [
    *LANGUAGE_POLICY.values(),
    *PUNCTUATION_POLICY.values(),
    policy_text("en"),
    policy_text("pt-BR"),
    SCHEMA_INSTRUCTION,
]


@pytest.mark.parametrize("text", ADDED_TEXTS)
def test_added_text_is_contract_clean(text: str) -> None:
    assert check_text(text, "llm:call_policy") == []


def test_negative_control_a_planted_operator_word_is_caught() -> None:
    assert check_text(policy_text("en") + " Never speak for the player.", "llm:call_policy")
