"""Lexical rules: operator vocabulary in English and Brazilian Portuguese.

In-fiction uses of the same words must not fire. The rules get there by shape, not by
word lists of instruments: a bare determiner + "player(s)" / "jogador(es)" fires, while a
qualified noun ("a lute player", "the card players", "o jogador de cartas", "the players of the
troupe") does not, because the qualifier sits between the determiner and the noun or follows
as an "of"/"de" phrase. Accepted risk, documented: a story that later calls its lute player
"the player" on its own is flagged; prompts are written by our code and can always qualify.
"Human" alone is never flagged (fantasy worlds have humans); only operator roles are.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from tavern.contract._line_index import watch
from tavern.contract._prefilter import (
    CACHE_SIZE,
    CACHES,
    Requirement,
    indexed,
    may_match,
    required_literals,
    shared_base,
)
from tavern.contract._reuse import ReusingScanner
from tavern.contract._types import Rule, Violation
from tavern.records import ChatMessage

_F = re.IGNORECASE | re.UNICODE
_DET_EN = r"(?:the|a|an|our|your|this|that|human|real|current|active)"
_DET_PT = (
    r"(?:o|a|os|as|um|uma|do|da|dos|das|ao|à|aos|pelo|pela|pelos|pelas|seu|sua|nosso|nossa|"
    r"este|esta|esse|essa|humano|humana|real)"
)
_OP_EN = r"(?:human|player|user|person|operator|real person|someone real)"
_OP_PT = r"(?:humano|humana|jogador|jogadora|usu[aá]rio|usu[aá]ria|pessoa real|operador)"

NOUN = [
    r"\breal[- ](?:world|life)\s+(?:participant|person|player|user)s?\b",
    r"\bparticipantes?\s+rea(?:l|is)\b|\bpessoa\s+de\s+verdade\b",
    r"'s\s+players?\b(?!\s+(?:of|at|in|on)\b)",
    rf"\b{_DET_EN}\s+players?\b(?!\s+(?:of|at|in|on|with|from)\b)",
    r"\bplayer[- ]characters?\b|\bnon[- ]player\b|\bplayer'?s\s+character\b",
    r"\bN?PCs?\b",
    r"\b(?:the|a|an|our|your|this|end)\s+users?\b(?!\s+(?:of|fee|fees|toll|tax)\b)",
    r"\b(?:the|a)\s+(?:human\s+)?operator\b(?!\s+(?:of|at|on)\b)",
    r"\bthe\s+human\s+(?:behind|at|in\s+control)\b",
    rf"\b{_DET_PT}\s+jogador(?:a|es|as)?\b"
    r"(?!\s+(?:de|do|da|dos|das|mais|na|no|nas|nos|em|com)\b)",
    r"\bpersonage(?:m|ns)\s+(?:do|da|dos)\s+jogador(?:a|es)?\b|\bpersonagem\s+jog[aá]vel\b",
    rf"\b{_DET_PT}\s+usu[aá]ri(?:o|a|os|as)\b(?!\s+(?:de|do|da)\b)",
    r"\b(?:o|a)\s+operador(?:a)?\b(?!\s+(?:de|do|da)\b)",
]
ROLE = [
    r"\b(?:speak|act|decide|write|talk|answer)\s+for\s+the\s+(?:human|user|player)\b",
    r"\b(?:fale|falar|aja|agir|decida|decidir|escreva|escrever|responda|responder)\s+"
    r"(?:pelo|pela)\s+(?:humano|humana|usu[aá]ri[oa]|jogador(?:a)?)\b",
    r"\b(?:input|text|lines?|words?)\s+(?:from|at|on)\s+the\s+keyboard\b",
    r"\b(?:entrada|texto|falas?)\s+(?:do|no|pelo)\s+teclado\b",
    rf"\b(?:controlled|played|driven|operated|voiced|run|commanded|steered|puppeted|directed)"
    rf"\s+by\s+(?:the|a|an)\s+{_OP_EN}\b",
    r"\b(?:user|player|human)'s\s+(?:avatar|character|persona|proxy|stand-in)\b",
    r"\b(?:avatar|personagem|persona)\s+(?:do|da)\s+(?:usu[aá]ri[oa]|jogador(?:a)?|humano)\b",
    r"\b(?:human|player|user)[- ](?:controlled|driven|played|operated)\b",
    r"\b(?:person|human|one|someone|anyone|nobody|no\s+one)\s+(?:at|behind)\s+(?:a|the)\s+"
    r"(?:keyboard|screen)\b",
    r"\b(?:whoever|the one|the person)\s+(?:is\s+)?typing\b",
    r"\bhuman\s+(?:player|user|operator|participant|controller)s?\b",
    rf"\bcontrolad[oa]s?\s+(?:pel[oa]s?|por\s+uma?)\s+{_OP_PT}\b",
    rf"\b(?:jogad|interpretad|conduzid|operad|comandad|dirigid|manipulad)[oa]s?\s+(?:pel[oa]s?|por\s+uma?)\s+{_OP_PT}\b",
    r"\b(?:pessoa|algu[eé]m|ningu[eé]m|quem\s+est[aá])\s+(?:no|ao|atr[aá]s\s+do|diante\s+do|"
    r"em\s+frente\s+ao)\s+teclado\b",
    r"\bquem\s+(?:est[aá]\s+)?digitando\b|\bquem\s+digita\b",
    r"\b(?:jogador|usu[aá]rio)\s+humano\b",
]
NEGATED = [
    r"(?:\bnot|n't)\s+the\s+one\s+(?:typing|controlling|playing|writing|deciding)\b",
    r"\bn[aã]o\s+(?:est[aá]|[eé]\s+quem\s+est[aá])\s+(?:controlando|jogando\s+com|digitando|"
    r"conduzindo)\b",
    r"\bnot\s+(?:a|an|the)\s+(?:PC|NPC|player[- ]character)\b",
    r"\bby\s+(?:anyone|someone|no\s+one|nobody)\s+real\b|\bpor\s+ningu[eé]m\s+real\b",
    r"\b(?:nobody|no\s+one)\s+(?:at|behind)\s+(?:a|the)\s+(?:keyboard|screen)\b",
    r"\bningu[eé]m\s+(?:no|ao|atr[aá]s\s+do)\s+teclado\b",
    r"\b(?:not|never|no\s+longer)\s+(?:the\s+one\s+)?(?:typing|the\s+(?:player|user))\b",
    rf"\b(?:not|never|isn't|aren't)\s+(?:being\s+)?(?:controlled|played|driven)\s+by\s+"
    rf"(?:the|a|an|any)\s+{_OP_EN}\b",
    r"\bno\s+(?:human|player|user)\s+(?:controls|plays|types|is\s+(?:typing|playing))\b",
    r"\b(?:you|they|he|she)\s+(?:do|does|did)\s*(?:n't|\s+not)\s+(?:control|play)\s+"
    r"(?:this|that|the|your|any)\s+character\b",
    r"\bnot\s+(?:a\s+)?(?:player|user|human)[- ](?:controlled|character)\b",
    r"\bn[aã]o\s+(?:[eé]\s+)?(?:quem\s+)?(?:est[aá]\s+)?digitando\b",
    rf"\bn[aã]o\s+(?:[eé]|est[aá])\s+(?:sendo\s+)?(?:controlad|jogad)[oa]s?\s+"
    rf"(?:pel[oa]s?|por\s+uma?)\s+{_OP_PT}\b",
    r"\bnenhum\s+(?:humano|jogador|usu[aá]rio)\s+(?:controla|joga|digita)\b",
    r"\bn[aã]o\s+[eé]\s+(?:o|a)\s+(?:jogador|jogadora|usu[aá]ri[oa])\b",
    r"\bvoc[eê]\s+n[aã]o\s+(?:controla|joga\s+com)\s+(?:este|esse|o|a)\s+personagem\b",
]
VERB = [
    r"\b(?:await|wait\s+for)\s+the\s+(?:user|player|human)'s\b",
    r"\b(?:user|player)'s\s+(?:next\s+)?(?:message|input|reply|turn|answer|move)\b",
    r"\b(?:the|your|our)\s+(?:user|player)\s+(?:types?|typed|writes?|wrote|decides?|chooses?|"
    r"controls?|inputs?|submits?|speaks?|spoke|repl(?:y|ies|ied)|respond(?:s|ed)?|"
    r"will\s+(?:type|decide|choose|reply|respond|speak|act))\b",
    r"\b(?:user|player)\s+(?:has|had|have)\s+(?:spoken|written|typed|replied|answered|decided|"
    r"acted|chosen)\b",
    r"\b(?:user|player)\s+(?:input|message|prompt|turn|reply)s?\b",
    r"\b(?:typed|entered|submitted|written)\s+by\s+(?:the|a)\s+(?:user|player|human)\b",
    r"\byou\s+(?:play|are\s+playing)\s+as\b",
    r"\bwait(?:ing)?\s+for\s+(?:the\s+)?(?:user|player|human)\b",
    r"\b(?:o|a)\s+(?:usu[aá]ri[oa]|jogador(?:a)?)\s+(?:digita|digitou|digitar|escreve|escreveu|"
    r"escrever|decide|decidir|escolhe|escolher|controla|envia|fala|falar|falou|responde|"
    r"responder|vai\s+(?:digitar|decidir|escolher|responder|falar))\b",
    r"\b(?:entrada|mensagem|turno|resposta|vez)\s+(?:do|da)\s+(?:usu[aá]ri[oa]|jogador(?:a)?)\b",
    r"\b(?:digitad|escrit|enviad)[oa]s?\s+pel[oa]\s+(?:usu[aá]ri[oa]|jogador(?:a)?|humano)\b",
    r"\bvoc[eê]\s+(?:joga|est[aá]\s+jogando)\s+como\b",
    r"\baguard(?:e|a|ando)\s+(?:o|a)\s+(?:usu[aá]ri[oa]|jogador(?:a)?|humano)\b",
]


Match = tuple[int, int, str]

_LOOKED_UP_FIRST: set[tuple[bool, str]] = set()
"""Literals that an earlier pattern's first required set holds."""


def cheapest_first(ignorecase: bool, needs: tuple[Requirement, ...]) -> tuple[Requirement, ...]:
    """`needs` with the set to check first moved to the front: among the sets of rare
    literals (4+ characters), the one adding the fewest literals that no earlier pattern
    checks first. A text's lookups are cached, so a literal shared by many patterns costs
    one search; on a clean text nearly every pattern stops at its first set. Exact in any
    order: `may_match` requires every set.
    """
    rare = [need for need in needs if min(map(len, need)) >= 4] or list(needs)
    first = min(rare, key=lambda need: len({(ignorecase, s) for s in need} - _LOOKED_UP_FIRST))
    _LOOKED_UP_FIRST.update((ignorecase, s) for s in first)
    return (first, *(need for need in needs if need is not first))


FirstSetIndex = tuple[list[int], dict[str, list[int]]]
"""(patterns always tried, watched literal -> the patterns whose first set holds it)."""


def first_set_index(
    firsts: Sequence[tuple[bool, Requirement]], ignorecase: bool, watched: frozenset[str]
) -> FirstSetIndex:
    """For the patterns of one case mode, given each one's (ignorecase, first set): those to
    try on every text (a first set not all watched, which a line index cannot settle), and
    for each watched literal, the patterns whose first set holds it. A text's line index then
    names the only other patterns that can match: those whose first set it holds.

    >>> first_set_index([(True, frozenset({"player"})), (True, frozenset({"n"}))], True,
    ...                 frozenset({"player", "keyboard"}))
    ([1], {'player': [0]})
    """
    always: list[int] = []
    by_literal: dict[str, list[int]] = {}
    for i, (case, first) in enumerate(firsts):
        if case != ignorecase:
            continue
        if first <= watched:
            for literal in sorted(first):
                by_literal.setdefault(literal, []).append(i)
        else:
            always.append(i)
    return always, by_literal


def _lexical(name: str, patterns: Sequence[str], doc: str) -> Rule:
    compiled = [re.compile(p, _F) for p in patterns]
    # Acronyms (PC/NPC) must be upper case: "pc" inside prose is something else.
    strict = {i for i, p in enumerate(patterns) if "N?PC" in p}
    compiled = [
        re.compile(p, re.UNICODE) if i in strict else c
        for i, (p, c) in enumerate(zip(patterns, compiled, strict=True))
    ]
    # Each pattern runs only on texts holding a literal it needs (see _prefilter); results
    # are the pattern's own matches, so the prefilter can only save time, never change them.
    # A pattern that runs scans a prompt extending a recent one from where they differ.
    guarded = [
        (ReusingScanner(regex, base_of=shared_base), ignorecase, cheapest_first(ignorecase, needs))
        for regex in compiled
        for ignorecase, needs in [required_literals(regex)]
    ]

    firsts = [(ignorecase, needs[0]) for _, ignorecase, needs in guarded]
    modes = sorted({ignorecase for ignorecase, _ in firsts})

    @lru_cache(maxsize=4)
    def first_sets(ignorecase: bool, watched: frozenset[str]) -> FirstSetIndex:
        return first_set_index(firsts, ignorecase, watched)

    def candidates(content: str) -> list[int]:
        # The patterns that may match: a pattern whose first set is all watched and none of
        # it in the text's line index cannot (`may_match` would stop at that set).
        index = indexed(content)
        chosen: set[int] = set()
        for ignorecase in modes:
            made = index.get(ignorecase)
            if made is None:
                chosen.update(i for i, (case, _) in enumerate(firsts) if case == ignorecase)
                continue
            always, by_literal = first_sets(ignorecase, made[0])
            chosen.update(always)
            for literal in made[1]:
                chosen.update(by_literal.get(literal, ()))
        return sorted(chosen)

    @lru_cache(maxsize=CACHE_SIZE)
    def scan(content: str) -> tuple[Match, ...]:
        # Keyed by content: the system message repeats verbatim on every call of a role.
        return tuple(
            (start, end, groups[0])
            for i in candidates(content)
            for scanner, ignorecase, needs in [guarded[i]]
            if may_match(ignorecase, needs, content)
            for start, end, groups in scanner.scan(content)
        )

    CACHES.extend([scan, first_sets, *(scanner for scanner, _, _ in guarded)])
    for _, ignorecase, needs in guarded:
        watch(ignorecase, needs[0])  # nearly every text is searched for the first set

    def detect(messages: Sequence[ChatMessage], cast_names: Sequence[str]) -> list[Violation]:
        return [
            Violation(name, (start, end), excerpt, index)
            for index, message in enumerate(messages)
            for start, end, excerpt in scan(message.content)
        ]

    return Rule(name=name, kind="lexical", detect=detect, doc=doc)


LEXICAL_RULES = [
    _lexical("lexical_noun", NOUN, "operator nouns: the player, the user, NPC, o jogador"),
    _lexical("lexical_role", ROLE, "role forms: controlled by the human, controlado pelo humano"),
    _lexical("lexical_negated", NEGATED, "negations: you are not the one typing, não é o jogador"),
    _lexical("lexical_verb", VERB, "operator verbs: the user types, entrada do usuário"),
]
