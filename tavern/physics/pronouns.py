"""A narration's "He" or "She" for a cast member is the one the member's sheet gives.

Live, the renderer called two of the women the human played "he": "Agnese Corvo walks slowly
to the nearest window and looks outside. He hears a crackle in the window ..." (vintners-wake
soak #49, seed 65, turn 2) and "Ilse Brandt walks slowly to the nearest window and looks
outside. He looks at the window ..." (toll-house #55, seed 69, turn 2). A reader takes the
wrong pronoun for someone else in the room, or for a narrator who does not know whom they
play.

A sentence that opens with "He" or "She" right after a sentence naming exactly one cast member
(by name or description, `physics.acts.Names`) gets that member's pronoun when their sheet
tells it (the first word of its appearance, then of its description, that is one of
`FEMALE` or `MALE`: "A girl of about fifteen ...", "A stout man ..."). The sentence before must
hold no other person of the written pronoun ("... waves to the ferryman. He waves back." keeps
its "He"): the rule changes only a pronoun that can name no one else. A "himself" or
"herself" in a sentence whose subject is one cast member, naming no one else, is that
member's too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache

from tavern.physics.acts import Names, named, read_act, sentence_spans, words_of
from tavern.records import Character

FEMALE = frozenset(
    "woman women girl girls lady widow wife mother daughter sister nun maid aunt grandmother"
    " abbess queen duchess".split()
)
MALE = frozenset(
    "man men boy boys gentleman husband father son brother friar monk priest uncle grandfather"
    " lord king duke".split()
)
_PRONOUN = {"he": "she", "she": "he"}
_OPENING = re.compile(r"[.!?]\S*\s+(?:[Hh]e|[Ss]he)\b")
_REFLEXIVE = re.compile(r"\b(?:him|her)self\b", re.IGNORECASE)
_REFLEXIVE_OF = {"he": "himself", "she": "herself"}
_SUBJECT_PRONOUNS = frozenset(("he", "she", "they"))


@lru_cache(maxsize=64)
def sheet_pronoun(appearance: str, description: str) -> str | None:
    """ "she" or "he" as the sheet's first word of `FEMALE` or `MALE` says, or None.

    >>> sheet_pronoun("A girl of about fifteen in an oversized oilskin.", "")
    'she'
    >>> sheet_pronoun("A stout man in a patched friar's habit.", ""), sheet_pronoun("Tall.", "")
    ('he', None)
    """
    for word in words_of(f"{appearance} {description}"):
        if word in FEMALE:
            return "she"
        if word in MALE:
            return "he"
    return None


def _pronoun_of(member: Character) -> str | None:
    return sheet_pronoun(member.body.appearance, member.body.description_ref)


def _persons_of(words: list[str], pronoun: str) -> bool:
    """Whether `words` hold a person the written `pronoun` may name ("ferryman", "woman")."""
    kinds = MALE if pronoun == "he" else FEMALE
    ends = ("man", "men") if pronoun == "he" else ("woman", "women")
    return any(w in kinds or w.endswith(ends) for w in words)


def with_sheet_pronouns(text: str, cast: Mapping[str, Character]) -> str:
    """`text` with each sentence-opening "He"/"She" that can only name the one cast member
    the sentence before names set to that member's `sheet_pronoun` (see the module).

    >>> from tavern.records import Body, Mind
    >>> ilse = Body(display_name="Ilse Brandt", appearance="A girl.", description_ref="x")
    >>> cast = {"C1": Character(id="ilse", mind=Mind(), body=ilse)}
    >>> with_sheet_pronouns("Ilse Brandt looks out. He sees rain.", cast)
    'Ilse Brandt looks out. She sees rain.'
    """
    if _REFLEXIVE.search(text):
        text = _with_sheet_reflexives(text, cast)
    if not _OPENING.search(text):
        return text  # most narrations: no sentence after the first opens with either
    names = Names.of(cast)
    spans = sentence_spans(text)
    fixes: list[tuple[int, int, str]] = []
    for (a, b), (c, _) in zip(spans, spans[1:], strict=False):
        opening = text[c:].lstrip()
        first = opening.split(None, 1)[0] if opening else ""
        written = first.casefold()
        if written not in _PRONOUN:
            continue
        before = words_of(text[a:b])
        slots = set(named(before, names))
        if len(slots) != 1:
            continue
        wanted = _pronoun_of(cast[next(iter(slots))])
        if wanted is None or wanted == written or _persons_of(before, written):
            continue
        start = len(text) - len(opening)
        fixes.append(
            (start, start + len(first), wanted.capitalize() if first[0].isupper() else wanted)
        )
    for start, end, word in reversed(fixes):
        text = text[:start] + word + text[end:]
    return text


def _with_sheet_reflexives(text: str, cast: Mapping[str, Character]) -> str:
    """`text` with "himself"/"herself" in a sentence whose subject is one cast member
    (`read_act`) set to that member's: a reflexive names its own clause's subject. Live
    (vintners-wake #52, seed 68, turn 6), "Agnese Corvo whispers something to himself.". A
    sentence naming someone else, or holding a subject pronoun or another person of the
    written reflexive, may have a clause of another subject, and keeps its reflexive."""
    names = Names.of(cast)
    out, before = [], None
    for a, b in sentence_spans(text):
        sentence = text[a:b]
        act, before = read_act(sentence, names, before)
        found = _REFLEXIVE.search(sentence)
        if act is not None and len(act.subjects) == 1 and found:
            words = words_of(sentence)
            written = "he" if found[0].casefold() == "himself" else "she"
            wanted = _pronoun_of(cast[act.subjects[0]])
            if (
                wanted is not None
                and wanted != written
                and set(named(words, names)) <= set(act.subjects)
                and not _SUBJECT_PRONOUNS.intersection(words)
                and not _persons_of(words, written)
            ):
                sentence = _REFLEXIVE.sub(_REFLEXIVE_OF[wanted], sentence)
        out.append(sentence)
    return "".join(out)
