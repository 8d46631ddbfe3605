"""Lexical rules: operator vocabulary, generated from each language's word classes.

A pattern is a template over the classes of `tavern.text.Lexicon`: `{control_verbs} by the
{!human_nouns}` becomes one regex per language, so a synonym added to a class reaches every
pattern that names the class, in English and Brazilian Portuguese alike. In-fiction uses of the
same words must not fire, and the templates get there by shape, not by lists of instruments:
a determiner right before "player" / "jogador" fires, while a qualified noun ("a lute player",
"the card players") does not, nor one followed by an exclusion ("the players of the troupe",
"o jogador de xadrez", `operator_exclusions`). "Human" names a people in most worlds
(`human_nouns`): it fires only in an operator role ("controlled by the human"), never alone.

Patterns run on `fold(text)` (lower case, one character per character, so spans are the
text's own). Each template marks one class with `!`, its trigger words: every match holds one
of them as a whole word, so a pattern runs only on a text whose words include one
(`Pattern.may_match`, the contract's one prefilter). Acronyms (PC, NPC) are case-sensitive
and run on the text itself; their triggers are its folded words too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from tavern.contract._cache import MessageCache
from tavern.contract._types import Rule, Violation
from tavern.records import ChatMessage
from tavern.text import Lexicon, lexicon_for


def fold(text: str) -> str:
    """`text` in lower case with straight apostrophes, one character for each character, so
    a span of the fold is the same span of the text.

    Example:
        >>> fold("The USER’s İnput")
        "the user's input"
    """
    low = text.lower()
    if len(low) != len(text):  # "İ" lowers to two characters: keep the first, "i"
        low = "".join(ch.lower()[0] for ch in text)
    return low.replace("’", "'")


_SLOT = re.compile(r"\{(!?)([a-z_|]+)\}")


def _alternation(words: Iterable[str]) -> str:
    """A regex matching any of `words`, longest first; a hyphen matches a hyphen or a space."""
    ordered = sorted(set(words), key=lambda w: (-len(w), w))
    return "(?:" + "|".join(re.escape(w).replace(r"\-", "[- ]") for w in ordered) + ")"


WORD = re.compile(r"\w+")
"""A word, as the prefilter reads a text (what `\\b` bounds in a pattern)."""


def _trigger(word: str) -> str:
    """The word every match of `word`'s alternative holds: its longest hyphen-free part."""
    part = max(word.split("-"), key=len)
    assert WORD.fullmatch(part), f"a trigger must be one word: {word!r}"
    return part


def text_words(content: str) -> tuple[str, frozenset[str]]:
    """`fold(content)` and its words: what every lexical pattern reads."""
    folded = fold(content)
    return folded, frozenset(WORD.findall(folded))


@dataclass(frozen=True)
class Pattern:
    """One compiled template: the regex, the words a match must hold one of, its source."""

    regex: re.Pattern[str]
    triggers: frozenset[str]
    source: str
    folded: bool = True
    """Runs on `fold(text)` (the default) or, for case-sensitive acronyms, on the text."""

    def may_match(self, words: frozenset[str]) -> bool:
        """False only when the text's folded `words` hold none of the triggers."""
        return not self.triggers.isdisjoint(words)


Classes = Callable[[str], frozenset[str]]


def classes_of(lex: Lexicon) -> Classes:
    """The word classes a template may name: the lexicon's own, and a few derived ones."""
    derived: dict[str, frozenset[str]] = {
        "gerunds": frozenset(
            w
            for w in lex.typing_verbs
            | lex.writing_verbs
            | lex.controlling_verbs
            | lex.playing_verbs
            | lex.choosing_verbs
            | lex.describing_verbs
            if w.endswith(("ing", "ndo"))
        ),
        "playing_present": frozenset(
            w for w in lex.playing_verbs if not w.endswith(("ed", "ou", "ava"))
        ),
        "acts": lex.typing_verbs
        | lex.writing_verbs
        | lex.controlling_verbs
        | lex.playing_verbs
        | lex.choosing_verbs
        | lex.describing_verbs
        | lex.speaking,
    }

    def words(name: str) -> frozenset[str]:
        if name in derived:
            return derived[name]
        value = getattr(lex, name)
        assert isinstance(value, frozenset), name
        return value

    return words


def compile_template(template: str, words: Classes) -> Pattern:
    """A template's regex and triggers: each `{class}` (or `{a|b}`, the union) becomes an
    alternation of its words; the `{!class}` slot gives the triggers.

    Example:
        >>> p = compile_template(r"\\b{control_verbs}\\s+by\\s+the\\s+{!human_nouns}\\b",
        ...                      classes_of(lexicon_for("en")))
        >>> bool(p.regex.search("mara is controlled by the human.")), sorted(p.triggers)
        (True, ['human'])
    """
    triggers: set[str] = set()

    def expand(m: re.Match[str]) -> str:
        union = frozenset().union(*(words(n) for n in m.group(2).split("|")))
        if m.group(1):
            triggers.update(_trigger(w) for w in union)
        return _alternation(union)

    source = _SLOT.sub(expand, template)
    assert triggers, f"no trigger slot in {template!r}"
    return Pattern(re.compile(source), frozenset(triggers), template)


def acronyms(pattern: str, triggers: Iterable[str]) -> Pattern:
    """A case-sensitive pattern on the text itself (PC, NPC), with its declared triggers
    (folded words: the text's "NPC" is the fold's "npc")."""
    return Pattern(re.compile(pattern), frozenset(triggers), pattern, folded=False)


# Templates, per family and language. Slots name `Lexicon` classes (see `classes_of`); the
# rest is regex: function words, and the shape that tells an operator from a character.
_KEEP = r"(?!\s+{operator_exclusions}\b)"
"""Not followed by an exclusion: "the players of the troupe", "o jogador de xadrez"."""
_OP = r"{!operator_nouns}\b" + _KEEP
_OP_NP = r"{operator_determiners}\s+(?:{operator_qualifiers}\s+)?" + _OP
_HUMAN = r"{!human_nouns}\b(?!\s+(?!{stop_words}\b)\w)"
"""The word "human" ending its phrase (before a stop word, a mark, or the end): "the human
king" is a person of the story."""
_OP_OR_HUMAN = f"(?:{_OP}|{_HUMAN})"
_AT_EN = r"(?:at|behind|in\s+front\s+of)\s+(?:a|the|their|your)\s+"
_AT_PT = r"(?:no|ao|atr[aá]s\s+do|diante\s+do|em\s+frente\s+ao)\s+"
_BY_PT = r"(?:pel[oa]s?|por\s+(?:uma?|algum|alguma))\s+"
_NOT_EN = r"(?:\b{negations}|n't)\s+"
_NOT_PT = r"\b{negations}\s+"
_BEING_EN = r"(?:(?:being|been)\s+)?(?:(?:a|an|the)\s+{avatar_nouns}\s+)?"
_BEING_PT = r"(?:(?:[eé]|est[aá]|foi|era)\s+)?(?:sendo\s+)?(?:(?:um|uma|o|a)\s+{avatar_nouns}\s+)?"

TEMPLATES: dict[str, dict[str, list[str]]] = {
    "lexical_noun": {
        "en": [
            r"\b" + _OP_NP,
            r"\b{operator_qualifiers}[- ]" + _OP,
            r"\b(?:real[- ]world|real[- ]life)\s+{!person_nouns|operator_nouns}\b",
            r"'s\s+" + _OP,
            r"\b{!operator_nouns}[- ]{avatar_nouns}\b",
            r"\b(?:non|single|multi)[- ]?{!operator_nouns}\b",
        ],
        "pt-BR": [
            r"\b" + _OP_NP,
            r"\b{!avatar_nouns}\s+jog[aá]ve(?:l|is)\b",
            r"\b{!person_nouns}\s+{operator_qualifiers}\b",
        ],
    },
    "lexical_role": {
        "en": [
            r"\b{control_verbs}\s+by\s+" + _OP_NP,
            r"\b{control_verbs}\s+by\s+(?:the\s+|an?\s+(?=human\s+being\b))" + _HUMAN,
            r"\b{avatar_nouns}\s+(?:{auxiliaries}\s+)?{control_verbs}\s+by\s+(?:an?|the)\s+"
            + _HUMAN,
            r"\b{control_verbs}\s+by\s+(?:an?|the|some)\s+{operator_qualifiers}\s+"
            r"{!person_nouns|human_nouns}\b",
            r"\b{!operator_nouns}-{control_verbs}\b",
            r"\b{!human_nouns}-{role_verbs}\b",
            r"\b{!operator_nouns}'s\s+{avatar_nouns}\b",
            r"\b{imperatives}\s+for\s+(?:the|our|your)\s+" + _OP_OR_HUMAN,
            r"\b{input_nouns}\s+(?:from|at|on|via)\s+(?:the|a|their|your)\s+{!interface_nouns}\b",
            r"\b(?:{person_nouns}|{operator_nouns}|{human_nouns}|one|anyone|whoever|who)\s+"
            r"(?:(?:is|sits|sitting|seated)\s+)?" + _AT_EN + r"{!interface_nouns}\b",
            r"\b(?:whoever|the\s+one|the\s+person|someone)\s+(?:who\s+)?(?:is\s+)?"
            r"{!typing_verbs}\b",
            r"\b{human_nouns}\s+{!operator_nouns|person_nouns}\b",
        ],
        "pt-BR": [
            r"\b{control_verbs}\s+" + _BY_PT + r"(?:{operator_qualifiers}\s+)?" + _OP,
            r"\b{control_verbs}\s+(?:pel[oa]s?\s+|por\s+um\s+ser\s+)" + _HUMAN,
            r"\b{avatar_nouns}\s+(?:{auxiliaries}\s+)?{control_verbs}\s+(?:pel[oa]s?|por\s+uma?)\s+"
            + _HUMAN,
            r"\b{control_verbs}\s+" + _BY_PT + r"{!person_nouns}\s+{operator_qualifiers}\b",
            r"\b{avatar_nouns}\s+d[oa]s?\s+" + _OP_OR_HUMAN,
            r"\b{imperatives}\s+" + _BY_PT + _OP_OR_HUMAN,
            r"\b{input_nouns}\s+(?:d[oa]s?|n[oa]s?|pel[oa]s?|via)\s+{!interface_nouns}\b",
            r"\b(?:{person_nouns}|{operator_nouns}|quem|ningu[eé]m)\s+(?:(?:est[aá]|estiver|"
            r"sentad[oa])\s+)*" + _AT_PT + r"{!interface_nouns}\b",
            r"\bquem\s+(?:est[aá]\s+|estiver\s+)?{!typing_verbs}\b",
            r"\b{operator_nouns}\s+{!human_nouns}\b",
        ],
    },
    "lexical_negated": {
        "en": [
            _NOT_EN + r"the\s+one\s+{!gerunds}\b",
            _NOT_EN + _BEING_EN + r"{control_verbs}\s+by\s+" + _OP_NP,
            _NOT_EN + _BEING_EN + r"{control_verbs}\s+by\s+the\s+" + _HUMAN,
            r"\bby\s+(?:anyone|someone|no\s+one|nobody)\s+{!operator_qualifiers}\b",
            r"\bnot\s+(?:a|an|the)\s+{!operator_nouns}[- ]{avatar_nouns}\b",
            r"\b(?:nobody|no\s+(?:one|{person_nouns}))\s+" + _AT_EN + r"{!interface_nouns}\b",
            r"\b(?:not|never|no\s+longer|n't)\s+(?:the|your|our)\s+" + _OP,
            r"\bno\s+(?:{operator_qualifiers}\s+)?{!operator_nouns|human_nouns}\s+"
            r"(?:{auxiliaries}\s+)?(?:{controlling_verbs}|{playing_verbs}|{typing_verbs})\b",
            r"\b{second_person}(?:\s+{auxiliaries})?(?:n't|\s+not|\s+never)\s+"
            r"{!controlling_verbs|playing_verbs}\s+(?:{operator_determiners}\s+)?{avatar_nouns}\b",
        ],
        "pt-BR": [
            _NOT_PT + r"(?:[eé]\s+quem\s+(?:est[aá]\s+)?|est[aá]\s+)"
            r"{!typing_verbs|controlling_verbs}\b",
            _NOT_PT
            + _BEING_PT
            + r"{control_verbs}\s+"
            + _BY_PT
            + r"(?:{operator_qualifiers}\s+)?"
            + _OP,
            _NOT_PT + _BEING_PT + r"{control_verbs}\s+pel[oa]s?\s+" + _HUMAN,
            r"\bpor\s+ningu[eé]m\s+{!operator_qualifiers}\b",
            r"\b(?:ningu[eé]m|nenhuma?\s+{person_nouns})\s+" + _AT_PT + r"{!interface_nouns}\b",
            r"\bnenhum[a]?\s+{!operator_nouns|human_nouns}\s+(?:{auxiliaries}\s+)?"
            r"(?:{controlling_verbs}|{playing_verbs}|{typing_verbs})\b",
            _NOT_PT + r"(?:[eé]|era|foi|ser[aá])\s+" + _OP_NP,
            r"\b{second_person}\s+{negations}\s+{!controlling_verbs|playing_verbs}\s+"
            r"(?:{operator_determiners}\s+)?{avatar_nouns}\b",
        ],
    },
    "lexical_verb": {
        "en": [
            r"\b{waiting_verbs}\s+(?:for\s+)?(?:{operator_determiners}\s+)?{!operator_nouns}'s\b",
            r"\b{!operator_nouns}'s\s+(?:next\s+|last\s+|latest\s+|own\s+)?{input_nouns}\b",
            r"\b{!human_nouns}(?:'s\s+(?:next\s+|last\s+|latest\s+)?|\s+){message_nouns}\b",
            r"\b" + _OP_NP + r"\s+(?:{auxiliaries}\s+)*(?:(?:going\s+to|also|then|now|just)\s+)?"
            r"{acts}\b",
            r"\b{!operator_nouns}\s+{message_nouns}\b",
            r"\b{operator_determiners}\s+{!operator_nouns}\s+{input_nouns}\b",
            r"\b{typing_verbs|writing_verbs|choosing_verbs}\s+by\s+(?:the|a|an|our|your)\s+"
            r"(?:{operator_qualifiers}\s+)?" + _OP,
            r"\b{typing_verbs}\s+by\s+the\s+" + _HUMAN,
            r"\byou\s+(?:(?:are|will|now|also|get\s+to)\s+)*{!playing_present}\s+as\b",
            r"\b{waiting_verbs}\s+(?:for\s+)?(?:the\s+)?(?:{operator_qualifiers}\s+)?"
            r"{!operator_nouns}\b(?!')" + _KEEP,
        ],
        "pt-BR": [
            r"\b" + _OP_NP + r"\s+(?:{auxiliaries}\s+)?{acts}\b",
            r"\b{input_nouns}\s+d[oa]s?\s+(?:{operator_qualifiers}\s+)?" + _OP,
            r"\b{!human_nouns}\s+{message_nouns}\b|\b{message_nouns}\s+d[oa]s?\s+" + _HUMAN,
            r"\b{typing_verbs|writing_verbs|choosing_verbs}\s+" + _BY_PT + _OP,
            r"\b{typing_verbs}\s+pel[oa]s?\s+" + _HUMAN,
            r"\b{second_person}\s+(?:{auxiliaries}\s+)?{!playing_present}\s+como\b",
            r"\b{waiting_verbs}\s+(?:{operator_determiners}\s+)?(?:{operator_qualifiers}\s+)?"
            r"{!operator_nouns}\b" + _KEEP,
        ],
    },
}

_PC = ["pc", "pcs", "npc", "npcs"]
ACRONYMS: dict[str, list[Pattern]] = {
    "lexical_noun": [acronyms(r"\bN?PCs?\b", _PC)],
    "lexical_negated": [acronyms(r"\b(?i:not)\s+(?i:a|an|the)\s+N?PCs?\b", _PC)],
}
"""Case-sensitive patterns: "pc" in lower case is a word of another kind."""


def patterns(rule: str) -> list[Pattern]:
    """Every pattern of a lexical rule, in all languages (a prompt's language is not known)."""
    found = [
        compile_template(template, classes_of(lexicon_for(language)))
        for language, templates in TEMPLATES[rule].items()
        for template in templates
    ]
    return found + ACRONYMS.get(rule, [])


Match = tuple[int, int]


def scan(found: Sequence[Pattern], content: str, cache: MessageCache) -> tuple[Match, ...]:
    """Spans of every match of `found` in `content`, each pattern run only where it may match.

    Example:
        >>> scan(patterns("lexical_noun"), "A lute player hums; the player waits.", MessageCache())
        ((20, 30),)
    """
    folded, words = cache.get("words", content, (), lambda c, _: text_words(c))
    return tuple(
        m.span()
        for pattern in found
        if pattern.may_match(words)
        for m in pattern.regex.finditer(folded if pattern.folded else content)
    )


def _lexical(name: str, doc: str) -> Rule:
    found = patterns(name)

    def detect(
        messages: Sequence[ChatMessage], cast_names: Sequence[str], cache: MessageCache
    ) -> list[Violation]:
        return [
            Violation(name, (start, end), message.content[start:end], index)
            for index, message in enumerate(messages)
            for start, end in cache.get(
                name, message.content, (), lambda c, _: scan(found, c, cache)
            )
        ]

    return Rule(name=name, kind="lexical", detect=detect, doc=doc)


LEXICAL_RULES = [
    _lexical("lexical_noun", "operator nouns: the player, the user, NPC, o jogador"),
    _lexical("lexical_role", "role forms: controlled by the human, controlado pelo humano"),
    _lexical("lexical_negated", "negations: you are not the one typing, não é o jogador"),
    _lexical("lexical_verb", "operator verbs: the user types, entrada do usuário"),
]
