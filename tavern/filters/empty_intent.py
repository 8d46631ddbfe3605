"""Rule `empty_intent`: an attempt that names no act is no attempt.

An action_intent becomes a record the next Director must adjudicate. An intent that names
nothing a body does goes: speaking, an outcome, a placeholder ("take action"), a lone verb
needing an object or of perceiving or thinking, not knowing what to do, saying there is
none, what the speaker is, a trait word or the words of its own sheet. Of an intent naming
an act, the sentences naming none go. Word classes are the language's (`Lexicon`).

Example: "try to talk" -> ""; "walks to Maren" stays.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from tavern.filters.context import FilterContext, Target
from tavern.filters.rule import BOTH, TextRule
from tavern.text import Lexicon, kept_sentences, sentence_spans, words

SMALL = {
    "en": frozenset(
        "to try tries trying attempt attempts attempting do does doing something anything"
        " nothing with about a an the and or again more some none null".split()
    ),
    "pt-BR": frozenset(
        "a o as os um uma de do da para com sobre e ou tenta tentar tentando fazer faz algo"
        " alguma coisa nada mais de novo outra vez nenhum nenhuma".split()
    ),
}
"""Words an intent may hold around a verb of speaking and still name no act."""
ANYONE = {
    "en": frozenset("someone somebody anyone anybody everyone everybody".split()),
    "pt-BR": frozenset("alguém alguem ninguém ninguem todos todas qualquer".split()),
}
PLACEHOLDERS = {
    "en": frozenset("action actions act acts acting take takes taking".split()),
    "pt-BR": frozenset("ação ações acao acoes agir age agiu ato atos tomar toma".split()),
}
"""Words that stand in for an act ("take action")."""
DEMONSTRATIVES = {
    "en": frozenset("this that it these those".split()),
    "pt-BR": frozenset("isso isto aquilo este esta esse essa".split()),
}
"""Alone, they point at an act without naming one ("try this"); beside a verb, they act."""
NEEDS_OBJECT = {
    "en": frozenset(
        "follow follows open opens visit visits take takes give gives grab grabs bring brings"
        " carry carries use uses put puts place places hand hands pick picks touch touches close"
        " closes lock locks unlock unlocks push pushes pull pulls sign signs find finds check"
        " checks examine examines inspect inspects show shows hold holds".split()
    ),
    "pt-BR": frozenset(
        "segue seguir abre abrir visita visitar pega pegar dá da dar traz trazer carrega"
        " carregar usa usar põe poe pôr por coloca colocar entrega entregar toca tocar fecha"
        " fechar tranca trancar destranca destrancar empurra empurrar puxa puxar assina"
        " assinar encontra encontrar verifica verificar examina examinar inspeciona"
        " inspecionar mostra mostrar segura segurar".split()
    ),
}
"""Verbs that say nothing done when they stand alone: what is opened, whom followed?"""
PERSONS = {
    "en": frozenset(
        "i i'm me my you you're your he he's him his she she's her they they're them we us what"
        " who whom is am are was were".split()
    ),
    "pt-BR": frozenset(
        "eu me meu minha você voce seu sua ele ela eles elas nós nos o que quem é está sou"
        " estou".split()
    ),
}
"""Who speaks or is spoken of, in words naming no one in particular ("what I'm saying")."""
NOT_KNOWING = {
    "en": re.compile(r"\bi (?:do not|don'?t|don’t) (?:know|understand)\b|\bwhat you mean\b"),
    "pt-BR": re.compile(r"\b(?:eu )?n[aã]o (?:sei|entendo)\b|\bo que (?:você|voce) quer dizer\b"),
}
NOTHING_AT_ALL = {
    "en": re.compile(
        r"^\W*(?:nothing|none|no (?:action|act|attempt)|not (?:stated|given|specified)|n/a)"
        r"(?:\W+(?:new|else|special|more|much|yet|now|for|at|all|in|particular|to|do|of|note"
        r"|here))*\W*$"
    ),
    "pt-BR": re.compile(
        r"^\W*(?:nada|nenhuma? (?:ação|acao|tentativa)|não (?:informad[oa]|especificad[oa])|n/a)"
        r"(?:\W+(?:de|novo|mais|a|fazer|agora|por|enquanto|aqui|especial))*\W*$"
    ),
}
SELF_STATE = {
    "en": re.compile(
        r"^\W*i(?:'m|’m| am)\s+(?!(?:trying|going|about|off|now|still|slowly|quietly)\b)"
        r"(?![a-z]+ing\b)"
    ),
    "pt-BR": re.compile(r"^\W*(?:eu )?sou\s"),
}
"""An intent opening "I am" with no act after it: a state of the speaker, not an attempt."""
_LIST_ITEM = re.compile(r"[,;.]")


def traits(personality: str) -> frozenset[str]:
    """The one-word items of a personality's lists, folded.

    >>> sorted(traits("Courteous, precise, and lonely; counts twice. Quick to bless."))
    ['courteous', 'lonely', 'precise']
    """
    items = (words(item) for item in _LIST_ITEM.split(personality))
    return frozenset(
        said[-1] for said in items if len(said) == 1 or (len(said) == 2 and said[0] in ("and", "e"))
    )


def names_no_act(
    intent: str, lex: Lexicon, names: Collection[str] = (), own_traits: Collection[str] = ()
) -> bool:
    """Whether `intent` names no act (see the module); `names`: the cast's display names.

    >>> from tavern.text import lexicon_for
    >>> en, pt = lexicon_for("en"), lexicon_for("pt-BR")
    >>> names_no_act("try to talk", en), names_no_act("talks to Maren", en, ["Maren Holt"])
    (True, True)
    >>> names_no_act("walks to Maren", en, ["Maren Holt"]), names_no_act("knocks to be let in", en)
    (False, False)
    >>> names_no_act("fails", en), names_no_act("take action", en), names_no_act("try to open", en)
    (True, True, True)
    >>> names_no_act("try this", en), names_no_act("open it", en), names_no_act("walk", en)
    (True, False, False)
    >>> names_no_act("falar com Maren", pt, ["Maren Holt"]), names_no_act("abre a porta", pt)
    (True, False)
    """
    language = lex.language
    folded = intent.casefold()
    if (
        NOT_KNOWING[language].search(folded)
        or NOTHING_AT_ALL[language].match(folded)
        or SELF_STATE[language].match(folded)
    ):
        return True
    every = words(intent)
    said = [w for w in every if w not in SMALL[language]]
    if not said and not every:
        return False
    lone = len(said) == 1 and (
        said[0] in NEEDS_OBJECT[language]
        or said[0] in lex.perceiving
        or said[0] in lex.thinking
        or said[0] in own_traits
    )
    outcomes, placeholders = lex.outcomes, PLACEHOLDERS[language] | lex.outcomes
    if lone or placeholders.issuperset(said) or DEMONSTRATIVES[language].issuperset(said):
        return True
    name_words = {w for name in names for w in words(name)}
    unnamed = [w for w in said if w not in name_words]
    if unnamed and outcomes.issuperset(unnamed):
        return True  # "Lio Mendez succeeds."
    rest = [w for w in unnamed if w not in ANYONE[language]]
    spoken = [w for w in rest if w in lex.speaking]
    hearing = lex.perceiving | lex.speaking | PERSONS[language]
    if spoken and not lex.perceiving.isdisjoint(rest) and hearing.issuperset(rest):
        return True  # "To listen to what I'm saying": perceiving someone speak
    return len(spoken) == len(rest) or (
        bool(spoken) and all(w in lex.speaking or w in placeholders for w in rest)
    )


def recites_sheet(intent: str, sheet_text: str, small: Collection[str]) -> bool:
    """Whether every word of three letters or more of `intent` (`small` words aside) opens a
    word of `sheet_text` or is opened by one, and there are two such words.

    >>> look = "A grey-haired woman, a leather satchel, reading glasses on a chain."
    >>> small = SMALL["en"]
    >>> recites_sheet("read glasses on a chain", look, small)
    True
    >>> recites_sheet("adjusts her glasses", look, small)
    False
    """
    said = [w for w in words(intent) if len(w) >= 3 and w not in small]
    sheet = [w for w in words(sheet_text) if len(w) >= 3 and w not in small]
    return len(said) >= 2 and all(
        any(a.startswith(w) or w.startswith(a) for a in sheet) for w in said
    )


def _repair(text: str, target: Target, ctx: FilterContext) -> str:
    lex, speaker = ctx.lexicon, ctx.speaker
    own_traits = traits(speaker.personality) if speaker else frozenset()
    sheet = (speaker.appearance, speaker.personality) if speaker else ()
    names = ctx.names
    small = SMALL[lex.language]
    if names_no_act(text, lex, names, own_traits) or any(
        recites_sheet(text, s, small) for s in sheet
    ):
        return ""
    spans = sentence_spans(text)
    if len(spans) < 2:
        return text
    gone = [names_no_act(text[a:b], lex, names, own_traits) for a, b in spans]
    return text if not any(gone) else kept_sentences(text, spans, gone)


RULE = TextRule("empty_intent", frozenset(("action_intent",)), BOTH, _repair)
