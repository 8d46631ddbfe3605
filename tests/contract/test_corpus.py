"""The contract against its benchmark corpus: recall, false positives, and a mutation check."""

from __future__ import annotations

import pytest

from tavern.contract import RULES, check_prompt, check_text

from .corpus_stats import load, score

PLANTED = load("planted")
CLEAN = load("clean")
GEN_PLANTED = load("gen_tune_planted")
GEN_CLEAN = load("gen_tune_clean")
LEXICAL = [r.name for r in RULES if r.kind == "lexical"]
MIN_RECALL = 0.95
MIN_RULE_RECALL = 0.8
MAX_FP_RATE = 0.05
RULE_NAMES = [r.name for r in RULES]


def passes(s_recall: float, s_fp: float, rule_recalls: list[float]) -> bool:
    return (
        s_recall >= MIN_RECALL
        and s_fp <= MAX_FP_RATE
        and all(r >= MIN_RULE_RECALL for r in rule_recalls)
    )


def test_corpus_is_big_enough_and_covers_every_rule_in_both_languages() -> None:
    assert len(PLANTED) >= 60
    assert len(CLEAN) >= 60
    for rule in RULE_NAMES:
        langs = {c.lang for c in PLANTED if c.rule == rule}
        assert langs == {"en", "pt-BR"}, rule
    assert {c.lang for c in CLEAN} == {"en", "pt-BR"}
    assert sum("in-fiction" in c.note or "ficção" in c.note for c in CLEAN) >= 2


def test_corpus_recall_and_false_positives() -> None:
    s = score(PLANTED, CLEAN)
    assert s.misses == []
    assert s.fp_ids == []
    assert passes(s.recall, s.fp_rate, [s.rule_recall(r) for r in RULE_NAMES])


@pytest.mark.parametrize("rule", RULE_NAMES)
def test_each_rule_alone_catches_its_planted_cases(rule: str) -> None:
    only = [r for r in RULES if r.name == rule]
    mine = [c for c in PLANTED if c.rule == rule]
    assert len(mine) >= 6
    for case in mine:
        found = check_prompt(case.messages, case.cast, rules=only)
        assert found, case.id
        for v in found:
            content = case.messages[v.message_index].content
            assert content[v.span[0] : v.span[1]] == v.excerpt


@pytest.mark.parametrize("rule", RULE_NAMES)
def test_mutation_removing_a_rule_fails_the_corpus(rule: str) -> None:
    mutated = [r for r in RULES if r.name != rule]
    s = score(PLANTED, CLEAN, rules=mutated)
    assert not passes(s.recall, s.fp_rate, [s.rule_recall(r) for r in RULE_NAMES])


HUMAN_IN_FICTION = {
    "gt-en-16-0",  # Wait for the human before moving the scene along.
    "gt-en-17-1",  # Continue the story from the human message below.
    "gt-en-17-2",  # Continue the story from the human reply below.
    "gt-en-20-1",  # Respond to the human's message as the narrator.
    "gt-en-20-3",  # Respond to the human's turn as the narrator.
    "gt-pt-BR-19-0",  # As ações de Caio foram escritas pelo humano.
    "gt-pt-BR-19-2",  # As ações de Caio foram enviadas pelo humano.
    "gt-pt-BR-19-3",  # As ações de Bento foram escritas pelo humano.
}
"""Tuning cases left uncaught on purpose (see the test below)."""


def test_generated_tuning_split_recall_and_no_false_positive() -> None:
    """The generated tuning split: every family in both languages, and not one false positive.

    Its misses are deliberate: "human" with everyday nouns, messages, waiting or writing verbs
    ("the human's turn", "wait for the human", "escritas pelo humano") reads as fiction in
    worlds that have humans.
    """
    s = score(GEN_PLANTED, GEN_CLEAN)
    assert s.fp_ids == []
    assert set(s.misses) <= HUMAN_IN_FICTION
    assert s.recall >= 0.94
    for lang in ("en", "pt-BR"):
        for rule in LEXICAL:
            mine = [c for c in GEN_PLANTED if c.lang == lang and c.rule == rule]
            assert score(mine, []).recall >= 0.75, (lang, rule)


@pytest.mark.parametrize("rule", LEXICAL)
def test_mutation_removing_a_lexical_rule_fails_the_generated_split(rule: str) -> None:
    s = score(GEN_PLANTED, GEN_CLEAN, rules=[r for r in RULES if r.name != rule])
    assert s.recall < 0.95


def test_check_text_for_sheets_and_warnings() -> None:
    found = check_text("Mara is the player character, controlled by the human.", "sheet:mara")
    assert {v.rule for v in found} == {"lexical_noun", "lexical_role"}
    assert all(v.message_index == -1 for v in found)
    assert found[0].as_warning("sheet:mara").where == "sheet:mara"
    assert check_text("A lute player hums by the fire.", "sheet:mara") == []
    assert [v.rule for v in check_text("The scene starts with C2 asleep.")] == ["structural_raw_id"]
    # Structural comparisons need a prompt; a sheet's free text never trips them.
    assert check_text("- Mara ★: x\n- Rui: y\n- Tomas: z", "", ["Mara", "Rui", "Tomas"]) == []


def test_controlled_character_swap_does_not_change_verdict() -> None:
    # A clean roster stays clean whichever slot a caller would consider "special".
    for case in CLEAN:
        assert check_prompt(case.messages, list(reversed(case.cast))) == []


def test_round_one_stays_fixed() -> None:
    """Round one was written blind, then tuned on: it now guards against regressions.

    Its misses are deliberate: "the human writes" (a people in fantasy worlds) and a bare
    sentence-opening "Players ..." (too common in fiction to refuse prompts over).
    """
    s = score(load("round1_planted"), load("round1_clean"))
    assert s.recall >= 0.8
    assert s.fp_rate <= 0.05


def test_round_two_stays_fixed() -> None:
    """Round two was written blind, then tuned on (misses: meta talk of "the model" and a
    trailing "(do not voice)" note, both left alone to keep fiction prompts passing)."""
    s = score(load("round2_planted"), load("round2_clean"))
    assert s.recall >= 0.9
    assert s.fp_rate <= 0.05


def test_round_three_and_the_held_out_split_are_scored_not_tuned() -> None:
    """Round three and the generated held-out split are measurements (benchmarks/contract.py),
    never tuned on: no threshold here, they only have to load."""
    for planted_name, clean_name in (
        ("round3_planted", "round3_clean"),
        ("gen_heldout_planted", "gen_heldout_clean"),
    ):
        planted, clean = load(planted_name), load(clean_name)
        assert len(planted) >= 20 and len(clean) >= 20
        assert {c.rule for c in planted} <= set(RULE_NAMES)
