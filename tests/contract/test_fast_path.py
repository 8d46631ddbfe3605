"""The optimized contract returns exactly what a straightforward evaluation returns.

`reference.py` runs every pattern over every message with nothing skipped or cached; the
fast path prefilters patterns by the literals they need and caches per message content.
These tests are the negative control that the optimization dropped nothing.
"""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tavern import contract
from tavern.contract import RULES, check_prompt, check_text
from tavern.contract import _lexical as lexical
from tavern.contract._prefilter import fold, required_literals
from tavern.records import ChatMessage

from .corpus_stats import CORPUS, Case, load
from .reference import reference_check_prompt, reference_check_text

ALL_CASES = [c for path in sorted(CORPUS.glob("*.jsonl")) for c in load(path.stem)]


def _same_everywhere(cases: list[Case]) -> list[str]:
    """Ids of cases where the fast path and the reference disagree (any rule subset)."""
    bad = []
    for case in cases:
        for cast in (case.cast, list(reversed(case.cast)), []):
            if check_prompt(case.messages, cast) != reference_check_prompt(case.messages, cast):
                bad.append(case.id)
        for rule in RULES:
            fast = check_prompt(case.messages, case.cast, rules=[rule])
            if fast != reference_check_prompt(case.messages, case.cast, only=[rule.name]):
                bad.append(f"{case.id}:{rule.name}")
        for m in case.messages:
            if check_text(m.content, "", case.cast) != reference_check_text(m.content, case.cast):
                bad.append(f"{case.id}:text")
    return bad


def test_corpus_is_all_there() -> None:
    assert len(ALL_CASES) >= 290
    assert sum(bool(reference_check_prompt(c.messages, c.cast)) for c in ALL_CASES) >= 140


def test_fast_path_equals_reference_over_the_whole_corpus() -> None:
    assert _same_everywhere(ALL_CASES) == []


def test_repeated_calls_hit_the_cache_and_stay_equal() -> None:
    # The second pass is served from the per-content caches; it must not drift.
    first = [check_prompt(c.messages, c.cast) for c in ALL_CASES]
    second = [check_prompt(c.messages, c.cast) for c in ALL_CASES]
    assert first == second
    assert first == [reference_check_prompt(c.messages, c.cast) for c in ALL_CASES]


def test_negative_control_a_lossy_prefilter_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant an unsound prefilter (drop patterns needing "jogador"): the comparison fails."""
    real = lexical.may_match

    def lossy(ignorecase: bool, needs: tuple[frozenset[str], ...], text: str) -> bool:
        if any("jogador" in need for need in needs):
            return False
        return real(ignorecase, needs, text)

    contract.clear_caches()
    monkeypatch.setattr(lexical, "may_match", lossy)
    try:
        assert _same_everywhere(ALL_CASES) != []
    finally:
        contract.clear_caches()


# Fragments that exercise every rule, the case folding (İ, ı, ſ, upper case) and the
# structural shapes; Hypothesis joins them into prompts of several messages.
FRAGMENTS = [
    "the player", "THE PLAYER", "the pLayer of the troupe", "a lute player", "NPC", "npc",
    "PCs", "the user", "end users", "the uſer", "o jogador", "O JOGADOR", "o jogador de cartas",
    "ao usuário", "à USUÁRIA", "controlled by the human", "controlado pelo humano",
    "CONTROLADA PELO HUMANO", "you are not the one typing", "não é o jogador",
    "the user types", "user input", "mensagem do usuário", "você joga como", "quem está digitando",
    "DİGİTANDO", "dıgitando", "human-controlled", "person at the keyboard", "(you)", "[PC]",
    "<player>", "(você)", "C1", "C2", "C12", "C1 = Mara", "Rui (C2)", "You are Mara. ",
    "Present: Mara, Rui", "Present: Mara, Rui, Tomas", "- Mara: a", "- Rui: b", "- Tomas: c",
    "- Mara ★: x", "Mara (you): y", "Rui — mood: calm", "Tomas: mood: calm", "## Mara",
    "wait for the player", "player's turn", "not a player-character", "ninguém no teclado",
    "a user of magic", "the operator of the ferry", "human", "Human", "pessoa real",
    "C1 is C2 = Rui", "Mara Mara (C3)", "Rui  [C4]", "C12: Tomas", "XC1", "C1C2", "C3 é Lio",
    "Lio(C1)", "RuiC2", "(C5)",
]  # fmt: skip
_separators = st.sampled_from([" ", "\n", ", ", ". ", "; ", ": ", "\n- ", " | "])
_text = st.lists(
    st.tuples(st.sampled_from(FRAGMENTS), _separators, st.text(string.ascii_letters, max_size=6)),
    max_size=25,
).map(lambda parts: "".join(f + s + w for f, s, w in parts))


@settings(max_examples=150, deadline=None)
@given(
    texts=st.lists(_text, min_size=1, max_size=3),
    cast=st.permutations(["Mara", "Rui", "Tomas", "Lio"]).map(lambda c: c[: 3 + len(c[0]) % 2]),
)
def test_fast_path_equals_reference_on_generated_prompts(texts: list[str], cast: list[str]) -> None:
    messages = [ChatMessage(role="user", content=t) for t in texts]
    assert check_prompt(messages, cast) == reference_check_prompt(messages, cast)
    for t in texts:
        assert check_text(t, "", cast) == reference_check_text(t, cast)


def test_reference_module_is_a_separate_evaluation() -> None:
    # Guard against the reference silently delegating to the fast path it checks.
    source = (Path(__file__).parent / "reference.py").read_text(encoding="utf-8")
    assert "check_prompt(" not in source.replace("reference_check_prompt(", "")
    assert "may_match" not in source and "lru_cache" not in source


def _guarded_patterns() -> list[re.Pattern[str]]:
    flags = re.IGNORECASE | re.UNICODE
    patterns = [*lexical.NOUN, *lexical.ROLE, *lexical.NEGATED, *lexical.VERB]
    return [re.compile(p, re.UNICODE if "N?PC" in p else flags) for p in patterns]


def _texts() -> list[str]:
    return [m.content for c in ALL_CASES for m in c.messages] + FRAGMENTS


def test_every_match_holds_a_literal_of_each_required_set() -> None:
    """The derivation itself: each required set is met inside every match, not just the text."""
    checked = 0
    for regex in _guarded_patterns():
        ignorecase, needs = required_literals(regex)
        assert needs, regex.pattern  # every lexical pattern is prefiltered
        for text in _texts():
            for m in regex.finditer(text):
                span = fold(m.group()) if ignorecase else m.group()
                assert all(any(s in span for s in need) for need in needs), (regex, m)
                checked += 1
    assert checked >= 150


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="aAáÁeéêEÊiIİıoOsSſuUlLrRgGdDjJyYpPcCnNtT ' -\n", max_size=40))
def test_fold_treats_case_variants_as_the_engine_does(text: str) -> None:
    # Whatever the engine matches case-insensitively, fold() makes equal.
    for literal in ("jogador", "usuario", "player", "digitando", "is", "persona"):
        regex = re.compile(re.escape(literal), re.IGNORECASE | re.UNICODE)
        for m in regex.finditer(text):
            assert fold(m.group()) == fold(literal)
