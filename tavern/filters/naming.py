"""Rules `respelt_name` and `sheet_pronoun`: a narration names the cast as its sheets do.

`respelt_name`: a cast name written one letter off is spelt right (`physics.respelt`, as
the clamp `misspelt_name` does for events): "Ilsse Brandt nods." -> "Ilse Brandt nods.".
`sheet_pronoun`: "He"/"She" ("Ele"/"Ela") opening the sentence right after one naming
exactly one cast member gets that member's pronoun when its sheet tells it (the first
gendered word of its appearance, then its description); in Portuguese a noun of the written
pronoun's gender before keeps it; English "himself"/"herself" is set the same way. Example:
"Ilse Brandt looks out. He sees rain." -> "Ilse Brandt looks out. She sees rain."
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from tavern.filters.context import FilterContext, Target
from tavern.filters.rule import BOTH, TextRule
from tavern.physics.acts import Names, named, read_act, words_of
from tavern.physics.references import respelt_names
from tavern.records import Character
from tavern.text import sentence_spans

NARRATION: frozenset[Target] = frozenset(("narration",))

FEMALE = frozenset(
    "woman women girl girls lady widow wife mother daughter sister nun maid aunt grandmother"
    " abbess queen duchess mulher mulheres moça moca menina senhora viúva viuva esposa mãe"
    " filha irmã freira tia avó rainha duquesa".split()
)
MALE = frozenset(
    "man men boy boys gentleman husband father son brother friar monk priest uncle grandfather"
    " lord king duke homem homens rapaz menino senhor viúvo marido pai filho irmão frade monge"
    " padre tio avô rei duque".split()
)
_OTHER = {"he": "she", "she": "he", "ele": "ela", "ela": "ele"}
_FEMININE = frozenset(("she", "ela"))
_REFLEXIVE = re.compile(r"\b(?:him|her)self\b", re.IGNORECASE)
_SUBJECT_PRONOUNS = frozenset(("he", "she", "they"))


def sheet_pronoun(appearance: str, description: str, language: str) -> str | None:
    """The pronoun of `language` ("he"/"she", "ele"/"ela") that the sheet's first word of
    `FEMALE` or `MALE` says, or None.

    >>> sheet_pronoun("A girl of about fifteen.", "", "en"), sheet_pronoun("Um homem.", "", "pt-BR")
    ('she', 'ele')
    >>> sheet_pronoun("Tall.", "", "en") is None
    True
    """
    for word in words_of(f"{appearance} {description}"):
        if word in FEMALE or word in MALE:
            female = word in FEMALE
            if language == "pt-BR":
                return "ela" if female else "ele"
            return "she" if female else "he"
    return None


_GENDERED = {
    "ele": frozenset("o os um uns do dos no nos ao aos pelo pelos num".split()),
    "ela": frozenset("a as uma umas da das na nas à às pela pelas numa".split()),
}
"""Portuguese articles of each gender: any noun after one may be what "Ele"/"Ela" names."""


def _persons_of(words: list[str], pronoun: str) -> bool:
    """Whether `words` hold a person the written `pronoun` may name ("ferryman"); in
    Portuguese, any noun of its gender ("o barqueiro")."""
    if pronoun in _GENDERED:
        return not _GENDERED[pronoun].isdisjoint(words)
    female = pronoun in _FEMININE
    kinds = FEMALE if female else MALE
    ends = ("woman", "women") if female else ("man", "men")
    return any(w in kinds or w.endswith(ends) for w in words)


def with_sheet_pronouns(text: str, cast: Mapping[str, Character], language: str) -> str:
    """`text` with each sentence-opening pronoun that can only name the one cast member the
    sentence before names set to that member's `sheet_pronoun` (see the module).

    >>> from tavern.records import Body, Mind
    >>> ilse = Body(display_name="Ilse Brandt", appearance="A girl.", description_ref="x")
    >>> cast = {"C1": Character(id="ilse", mind=Mind(), body=ilse)}
    >>> with_sheet_pronouns("Ilse Brandt looks out. He sees rain.", cast, "en")
    'Ilse Brandt looks out. She sees rain.'
    >>> with_sheet_pronouns("Ilse Brandt sorri. Ele vê a chuva.", cast, "pt-BR")
    'Ilse Brandt sorri. Ela vê a chuva.'
    """
    if language == "en" and _REFLEXIVE.search(text):
        text = _with_sheet_reflexives(text, cast)
    names = Names.of(cast)
    spans = sentence_spans(text)
    fixes: list[tuple[int, int, str]] = []
    for (a, b), (c, _) in zip(spans, spans[1:], strict=False):
        first = text[c:].split(None, 1)[0]
        written = first.casefold()
        if written not in _OTHER:
            continue
        before = words_of(text[a:b])
        slots = set(named(before, names))
        if len(slots) != 1:
            continue
        member = cast[next(iter(slots))]
        wanted = sheet_pronoun(member.body.appearance, member.body.description_ref, language)
        if wanted is None or wanted == written or _persons_of(before, written):
            continue
        fixes.append((c, c + len(first), wanted.capitalize() if first[0].isupper() else wanted))
    for start, end, word in reversed(fixes):
        text = text[:start] + word + text[end:]
    return text


def _with_sheet_reflexives(text: str, cast: Mapping[str, Character]) -> str:
    """`text` with "himself"/"herself" in a sentence whose subject is one cast member
    (`read_act`), naming no one else and no other person of the written reflexive, set to
    that member's: a reflexive names its own clause's subject."""
    names = Names.of(cast)
    out, before, at = [], None, 0
    for a, b in sentence_spans(text):
        sentence = text[a:b]
        act, before = read_act(sentence, names, before)
        found = _REFLEXIVE.search(sentence)
        if act is not None and len(act.subjects) == 1 and found:
            member = cast[act.subjects[0]]
            words = words_of(sentence)
            written = "he" if found[0].casefold() == "himself" else "she"
            wanted = sheet_pronoun(member.body.appearance, member.body.description_ref, "en")
            if (
                wanted is not None
                and wanted != written
                and set(named(words, names)) <= set(act.subjects)
                and not _SUBJECT_PRONOUNS.intersection(words)
                and not _persons_of(words, written)
            ):
                sentence = _REFLEXIVE.sub("himself" if wanted == "he" else "herself", sentence)
        out.append(text[at:a] + sentence)
        at = b
    return "".join(out) + text[at:]


def _respelt(text: str, target: Target, ctx: FilterContext) -> str:
    return respelt_names(text, ctx.names)


def _pronouns(text: str, target: Target, ctx: FilterContext) -> str:
    return with_sheet_pronouns(text, ctx.cast, ctx.language)


RESPELT = TextRule("respelt_name", NARRATION, BOTH, _respelt)
PRONOUN = TextRule("sheet_pronoun", NARRATION, BOTH, _pronouns)
