"""The prefilter and the per-message cache change no result (property tests, negative controls).

The plain evaluation runs every pattern on every message with a cache that keeps nothing;
the normal one skips a pattern on a text holding none of its triggers and serves repeated
messages from `MESSAGE_CACHE`. Both must give the same violations on every prompt.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tavern import contract
from tavern.contract import RULES, MessageCache, Violation, check_prompt, check_text
from tavern.contract import _lexical as lexical
from tavern.records import ChatMessage

from .corpus_stats import CORPUS, Case, load

ALL_CASES = [c for path in sorted(CORPUS.glob("*.jsonl")) for c in load(path.stem)]
CASTS: list[Callable[[Case], list[str]]] = [
    lambda c: c.cast,
    lambda c: list(reversed(c.cast)),
    lambda c: [],
]


@contextmanager
def prefilter(may_match: Callable[[lexical.Pattern, frozenset[str]], bool]) -> Iterator[None]:
    """Evaluate with another prefilter (the cache emptied before and after)."""
    real = lexical.Pattern.may_match
    contract.clear_caches()
    lexical.Pattern.may_match = may_match  # type: ignore[method-assign]
    try:
        yield
    finally:
        lexical.Pattern.may_match = real  # type: ignore[method-assign]
        contract.clear_caches()


def _always(pattern: lexical.Pattern, words: frozenset[str]) -> bool:
    return True


def plain(messages: list[ChatMessage], cast: list[str]) -> list[Violation]:
    """Every pattern on every message, nothing cached."""
    with prefilter(_always):
        return check_prompt(messages, cast, cache=MessageCache(maxsize=0))


def disagreements(cases: list[Case]) -> list[str]:
    """Ids of cases where the normal evaluation (cached, twice) differs from the plain one."""
    expected = {
        (c.id, i): plain(c.messages, cast(c)) for c in cases for i, cast in enumerate(CASTS)
    }
    bad = []
    for _ in range(2):  # the second pass is served from the cache
        for c in cases:
            for i, cast in enumerate(CASTS):
                if check_prompt(c.messages, cast(c)) != expected[(c.id, i)]:
                    bad.append(f"{c.id}:{i}")
    return bad


def test_the_corpus_is_all_there() -> None:
    assert len(ALL_CASES) >= 700
    assert sum(bool(check_prompt(c.messages, c.cast)) for c in ALL_CASES) >= 400


def test_prefilter_and_cache_change_nothing_over_the_whole_corpus() -> None:
    contract.clear_caches()
    assert disagreements(ALL_CASES) == []


def test_negative_control_a_lossy_prefilter_is_caught() -> None:
    """Plant an unsound prefilter (skip patterns triggered by "jogador"): the comparison fails."""
    real = lexical.Pattern.may_match

    def lossy(pattern: lexical.Pattern, words: frozenset[str]) -> bool:
        return "jogador" not in pattern.triggers and real(pattern, words)

    expected = [plain(c.messages, c.cast) for c in ALL_CASES]
    with prefilter(lossy):
        got = [check_prompt(c.messages, c.cast) for c in ALL_CASES]
    assert got != expected


class _CastBlindCache(MessageCache):
    """Planted fault: results keyed by content only, whatever the cast."""

    def get(self, what, content, cast, compute):  # type: ignore[no-untyped-def]
        return super().get(what, content, (), lambda c, _: compute(c, cast))


def test_negative_control_a_cache_keyed_without_the_cast_is_caught() -> None:
    blind = _CastBlindCache()
    bad = [
        c.id
        for c in ALL_CASES
        for cast in (c.cast, [])
        if check_prompt(c.messages, cast, cache=blind) != plain(c.messages, cast)
    ]
    assert bad


def test_the_cache_is_bounded_and_drops_the_oldest() -> None:
    cache = MessageCache(maxsize=3)
    for text in "abcd":
        cache.get("x", text, (), lambda c, _: c.upper())
    assert [key[1] for key in cache.entries] == ["b", "c", "d"]
    cache.get("x", "b", (), lambda c, _: "stale")  # a hit refreshes "b"
    cache.get("x", "e", (), lambda c, _: c)
    assert [key[1] for key in cache.entries] == ["d", "b", "e"]


def _texts() -> list[str]:
    return [m.content for c in ALL_CASES for m in c.messages] + FRAGMENTS


def _unsound_matches(pattern: lexical.Pattern, text: str) -> list[str]:
    """Matches of `pattern` in `text` holding no trigger as one of the text's folded words."""
    folded = lexical.fold(text)
    words = [(w.span(), w.group()) for w in lexical.WORD.finditer(folded)]
    return [
        m.group()
        for m in pattern.regex.finditer(folded if pattern.folded else text)
        if not any(m.start() <= a and b <= m.end() and w in pattern.triggers for (a, b), w in words)
    ]


def test_every_match_holds_one_of_its_triggers_as_a_word() -> None:
    """The prefilter's premise, checked on every match the corpus and fragments give."""
    checked = 0
    for rule in RULES:
        if rule.kind == "lexical":
            for pattern in lexical.patterns(rule.name):
                for text in _texts():
                    assert _unsound_matches(pattern, text) == [], pattern.source
                    checked += bool(pattern.regex.search(lexical.fold(text)))
    assert checked >= 300


def test_negative_control_a_match_without_its_trigger_is_caught() -> None:
    words = lexical.classes_of(lexical.lexicon_for("en"))
    # The trigger slot is optional here, and a suffix glued to it: matches need not hold one.
    for template in (r"\bthe\s+(?:{!human_nouns}\s+)?player\b", r"\b{!human_nouns}oid\b"):
        unsound = lexical.compile_template(template, words)
        assert _unsound_matches(unsound, "The player meets the humanoid.")


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="aAİıſSΣσςK\u212aü’' \n", max_size=30))
def test_fold_keeps_every_offset(text: str) -> None:
    folded = lexical.fold(text)
    assert len(folded) == len(text)
    # One character for each: its lower case (a final sigma as the whole text lowers it).
    same = {("’", "'"), ("Σ", "ς")}
    assert all(f == t.lower()[0] or (t, f) in same for f, t in zip(folded, text, strict=True))


def test_negative_control_lower_moves_offsets() -> None:
    assert len("Mara İlse".lower()) != len("Mara İlse") == len(lexical.fold("Mara İlse"))


# Fragments that exercise every rule, case folding and the structural shapes; Hypothesis
# joins them into prompts of several messages.
FRAGMENTS = [
    "the player", "THE PLAYER", "the pLayer of the troupe", "a lute player", "NPC", "npc",
    "PCs", "the user", "end users", "the USER’s avatar", "o jogador", "O JOGADOR",
    "o jogador de cartas", "ao usuário", "à USUÁRIA", "controlled by the human",
    "controlado pelo humano", "CONTROLADA PELO HUMANO", "you are not the one typing",
    "não é o jogador", "the user types", "user input", "mensagem do usuário", "você joga como",
    "quem está digitando", "DİGİTANDO", "human-controlled", "person at the keyboard", "(you)",
    "[PC]", "<player>", "(você)", "C1", "C2", "C12", "C1 = Mara", "Rui (C2)", "You are Mara. ",
    "Present: Mara, Rui", "Present: Mara, Rui, Tomas", "- Mara: a", "- Rui: b", "- Tomas: c",
    "- Mara ★: x", "Mara (you): y", "Rui — mood: calm", "Tomas: mood: calm", "## Mara",
    "wait for the player", "player's turn", "not a player-character", "ninguém no teclado",
    "a user of magic", "the operator of the ferry", "human", "Human", "pessoa real",
    "no human controls", "the human's message", "personagem controlada por um humano",
]  # fmt: skip
_separators = st.sampled_from([" ", "\n", ", ", ". ", "; ", ": ", "\n- ", " | "])
_text = st.lists(
    st.tuples(st.sampled_from(FRAGMENTS), _separators, st.text(string.ascii_letters, max_size=6)),
    max_size=25,
).map(lambda parts: "".join(f + s + w for f, s, w in parts))


@settings(max_examples=100, deadline=None)
@given(
    texts=st.lists(_text, min_size=1, max_size=3),
    cast=st.permutations(["Mara", "Rui", "Tomas", "Lio"]).map(lambda c: c[: 3 + len(c[0]) % 2]),
)
def test_normal_equals_plain_on_generated_prompts(texts: list[str], cast: list[str]) -> None:
    messages = [ChatMessage(role="user", content=t) for t in texts]
    expected = plain(messages, cast)
    assert check_prompt(messages, cast) == expected == check_prompt(messages, cast)
    for t in texts:
        assert check_text(t, "", cast) == [
            Violation(v.rule, v.span, v.excerpt, -1)
            for v in plain([ChatMessage(role="user", content=t)], cast)
            if v.rule.startswith("lexical") or v.rule in contract.TEXT_RULES
        ]


@pytest.mark.parametrize("rule", [r.name for r in RULES if r.kind == "lexical"])
def test_every_pattern_has_triggers_and_compiles_in_both_languages(rule: str) -> None:
    found = lexical.patterns(rule)
    assert all(p.triggers for p in found)
    assert set(lexical.TEMPLATES[rule]) == {"en", "pt-BR"}
