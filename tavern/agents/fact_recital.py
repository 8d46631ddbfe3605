"""Narration that recites the standing facts of the scene as a list, or tells one again.

The reader does not see the scene's facts on screen, so the renderer telling a fact once is
the prompt doing its job. Live, the embedded model instead copied its prompt's fact list:
toll-house #35 (seed 49) narrated "The toll box sits locked on the counting table, the lamp
has perhaps two hours of oil." after the outcome of turn 7, and turns 2 and 8 recited all
three facts twice over in one narration ("... The river is too high to cross until dawn, and
the toll box sits locked on the counting table, and the lamp has perhaps two hours of oil.").

A sentence goes when it holds runs of two facts or more (a list recital), or a run of a fact
that an earlier narration of the window, or an earlier sentence of this one, already told.
The list may also run over sentences, one fact each: when a narration tells two facts or
more, every sentence telling one goes. Live (vintners-wake #38, seed 54, turn 8), the whole
narration of the beat in which the human asked "Who are you, exactly?" was the prompt's
three facts in its order, one sentence each.
A run is `FACT_RUN_WORDS` words in a row of a fact (the whole fact when shorter, down to
`MIN_FACT_WORDS`), compared without the state adverbs ("is now shut" tells "is shut").
Facts the beat itself added are news and free to be told, and so is a run that one of this
beat's events holds (the narration then tells the event).

A fact told of something else goes too (`without_misattributed`): live (toll-house #61, seed
75, turns 4 and 5), the renderer narrated "The toll house is too high to cross until dawn."
and "Ilse Brandt fails, leaving the toll house too high to cross until dawn.", the river's
fact with another subject. A sentence that holds a fact's predicate after its verb
(`MIN_TAIL_WORDS` words or more: "too high to cross until dawn") and no word of the fact's
subject ("river") tells the fact of the wrong thing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from itertools import filterfalse

from tavern.agents.repetition import sentence_spans

FACT_RUN_WORDS = 8
"""As `recital.RECITAL_WORDS`: longer borrowings than this are copies, not telling."""
MIN_FACT_WORDS = 5
"""A shorter fact ("The door is locked.") is too common a phrase to tell a copy by."""
_LETTER = re.compile(r"[^\W\d_]")
_NOT_LETTERS = {
    code: " "
    for code in (*range(0x500), *range(0x2000, 0x2070), 0x3000, 0x3001, 0x3002, 0xFF0C)
    if not _LETTER.fullmatch(chr(code))
}
"""The characters up to Cyrillic, general punctuation and CJK marks that `[^\\W\\d_]`
does not match, read as spaces: its words in ~a fifth of the regex's time (8 against 36 us
for a narration), which was most of this rule's cost. A rarer mark stays inside its word and
can only hide a copy."""

Run = tuple[str, ...]

STATE_ADVERBS = frozenset(("now", "still", "already", "again", "yet"))
"""Words that add no state to a restated fact."""


def _words(text: str) -> list[str]:
    words = text.casefold().translate(_NOT_LETTERS).split()
    return list(filterfalse(STATE_ADVERBS.__contains__, words))


def _runs(words: list[str], length: int) -> set[Run]:
    return {tuple(words[i : i + length]) for i in range(len(words) - length + 1)}


@lru_cache(maxsize=64)
def _fact_runs(facts: tuple[str, ...]) -> dict[Run, int]:
    """Each run of each fact -> the fact's index (`FACT_RUN_WORDS` words, or the whole fact)."""
    found: dict[Run, int] = {}
    for index, fact in enumerate(facts):
        words = _words(fact)
        if len(words) >= MIN_FACT_WORDS:
            for run in _runs(words, min(FACT_RUN_WORDS, len(words))):
                found.setdefault(run, index)
    return found


@lru_cache(maxsize=64)
def _vocabulary(facts: tuple[str, ...]) -> frozenset[str]:
    return frozenset(w for fact in facts for w in _words(fact))


def _facts_in(text: str, runs: dict[Run, int], lengths: frozenset[int]) -> set[int]:
    words = _words(text)
    return {runs[r] for n in lengths for r in _runs(words, n) if r in runs}


def _may_hold_a_run(text: str, vocabulary: frozenset[str], shortest: int) -> bool:
    """Whether `text` has `shortest` words in a row that facts use: no run without it. One
    pass over the words, where building every run of a narration cost ~50 us a beat (a
    `shortest` of 0 or less: whether it has a word)."""
    words = _words(text)
    # One byte a word (1: facts use it), so the streak is a C-level substring search.
    used = bytes(map(vocabulary.__contains__, words))
    return bool(words) and b"\x01" * shortest in used


def drop_fact_recitals(
    text: str, facts: Sequence[str], narrated: Sequence[str], allowed: Sequence[str] = ()
) -> str:
    """`text` without its sentences reciting `facts` (see the module): `narrated` are the
    earlier narrations of the window, `allowed` this beat's event texts.

    >>> facts = ["The toll box sits locked on the counting table.",
    ...          "The lamp has perhaps two hours of oil."]
    >>> drop_fact_recitals("Maren fails. The toll box sits locked on the counting table, the"
    ...                    " lamp has perhaps two hours of oil.", facts, [])
    'Maren fails.'
    >>> drop_fact_recitals("The lamp has perhaps two hours of oil.", facts, [])
    'The lamp has perhaps two hours of oil.'
    >>> drop_fact_recitals("The toll box sits locked on the counting table. Rain. The lamp"
    ...                    " has perhaps two hours of oil.", facts, [])
    'Rain.'
    >>> drop_fact_recitals("The lamp has perhaps two hours of oil left.", facts,
    ...                    ["Rain. The lamp has perhaps two hours of oil."])
    ''
    """
    text = without_misattributed(text, facts, allowed)
    runs = _fact_runs(tuple(facts))
    if not runs or not text:
        return text
    lengths = frozenset(map(len, runs))
    if not _may_hold_a_run(text, _vocabulary(tuple(facts)), min(lengths)):
        return text  # most narrations: no fact told, no sentence split
    free = set().union(*(_facts_in(t, runs, lengths) for t in allowed)) if allowed else set()
    told = set().union(*(_facts_in(t, runs, lengths) for t in narrated)) if narrated else set()
    spans = sentence_spans(text)
    found = [_facts_in(text[a:b], runs, lengths) - free for a, b in spans]
    listed = len(set().union(*found)) >= 2
    kept = []
    for span, held in zip(spans, found, strict=True):
        if (held and listed) or held & told:
            continue
        told |= held
        kept.append(span)
    if len(kept) == len(spans):
        return text
    return "".join(text[a:b] for a, b in kept).strip()


PREDICATE_VERBS = frozenset(
    "is are was were sits sit lies lie stands stand hangs hang rests rest remains remain has"
    " have holds hold".split()
)
"""The verbs that join a fact's subject to what it tells of it ("The lamp has ...")."""
MIN_TAIL_WORDS = 5
"""A shorter predicate ("is on the table") is said of many things in earnest, and so is one
that tells only where the thing is ("in the notary's satchel": `_PREPOSITIONS`)."""
_PREPOSITIONS = frozenset("of to in on at from by with under beside behind inside".split())
_NOT_SUBJECT = frozenset(("the", "a", "an", "its", "his", "her", "their")) | _PREPOSITIONS


@lru_cache(maxsize=64)
def _fact_tails(facts: tuple[str, ...]) -> tuple[tuple[str, frozenset[str]], ...]:
    """Per fact with a predicate of `MIN_TAIL_WORDS` words after its verb, not of place:
    those words (space separated, between spaces) and the words of its subject."""
    found = []
    for fact in facts:
        words = _words(fact)
        verb = next((i for i, w in enumerate(words) if i and w in PREDICATE_VERBS), None)
        if (
            verb is None
            or len(words) - verb - 1 < MIN_TAIL_WORDS
            or words[verb + 1] in _PREPOSITIONS
        ):
            continue
        subject = frozenset(w for w in words[:verb] if w not in _NOT_SUBJECT)
        if subject:
            found.append((f" {' '.join(words[verb + 1 :])} ", subject))
    return tuple(found)


def without_misattributed(text: str, facts: Sequence[str], allowed: Sequence[str] = ()) -> str:
    """`text` without its sentences telling a fact's predicate of something else (see the
    module); a sentence that one of `allowed` (this beat's event texts) also says stays.

    >>> facts = ["The river is too high to cross until dawn."]
    >>> without_misattributed("Rain. The toll house is too high to cross until dawn.", facts)
    'Rain.'
    >>> without_misattributed("The river is now too high to cross until dawn.", facts)
    'The river is now too high to cross until dawn.'
    """
    tails = _fact_tails(tuple(facts))
    if not tails or not text:
        return text
    plain = f" {' '.join(_words(text))} "
    held = [(tail, subject) for tail, subject in tails if tail in plain]
    if not held:
        return text  # most narrations: one join and a substring test per fact
    said = [f" {' '.join(_words(t))} " for t in allowed]
    kept = []
    for a, b in sentence_spans(text):
        words = _words(text[a:b])
        sentence = f" {' '.join(words)} "
        wrong = any(
            tail in sentence
            and subject.isdisjoint(words)
            and not any(tail in e and subject.isdisjoint(e.split()) for e in said)
            for tail, subject in held
        )
        if not wrong:
            kept.append((a, b))
    return "".join(text[a:b] for a, b in kept).strip()
