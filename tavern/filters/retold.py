"""Rule `retold`: a text does not tell again what its reader or listener already has.

The second rule of the repetition family (`loop` is the first), on the one sentence key
(`text.sentence_key`). A narration's reader has the last `RETOLD_NARRATIONS` narrations,
the events since and the stage. A narration sentence goes when its key is one of theirs (or
an unfinished last sentence begins one); when it tells one of their predicates
(`MIN_PREDICATE_WORDS`) under another subject and no event of this beat says it; when it
holds `RECITAL_WORDS` words in a row of the stage or an appearance that no event of this
beat holds; when it recites standing facts (`FACT_RUN_WORDS` in a row, in a list of facts
or told before); or when it tells a fact's predicate of something else. Facts the beat
added are news. Replies are judged against what their speaker perceived (`filters.heard`).

Example (an earlier narration: "The coffin lies open in the hall."): "The coffin lies open
in the hall. A door bangs upstairs." -> "A door bangs upstairs."
"""

from __future__ import annotations

from collections.abc import Sequence

from tavern.filters.context import FilterContext, Target
from tavern.filters.heard import said_back
from tavern.filters.rule import BOTH, EVERY, TextRule
from tavern.records import EventRecord, NarrationRecord
from tavern.text import (
    Lexicon,
    kept_sentences,
    sentence_key,
    sentence_spans,
    word_runs,
    words,
    words_key,
)

RETOLD_NARRATIONS = 8
"""Earlier narrations whose sentences a new one may not tell again."""
MIN_SENTENCE_WORDS = 4
"""Shorter sentences recur in earnest ("The bell tolls.")."""
MIN_PREDICATE_WORDS = 6
"""Shorter predicates recur in earnest ("nods slowly", "looks at the door")."""
RECITAL_WORDS = 8
"""Words in a row of the stage or an appearance that make a recital; shorter borrowings
("the open coffin under candles") are the prompt doing its job."""
FACT_RUN_WORDS = 8
MIN_FACT_WORDS = 5
"""A shorter fact ("The door is locked.") is too common a phrase to tell a copy by."""
MIN_TAIL_WORDS = 5
"""A shorter predicate ("is on the table") is said of many things in earnest."""

PLACING = {
    "en": frozenset("sits sit lies lie stands stand hangs hang rests rest holds hold".split()),
    "pt-BR": frozenset("fica ficam jaz repousa repousam pende pendem guarda guardam".split()),
}
"""Verbs that join a fact's subject to what it tells of it besides being ("The box sits
locked ...")."""

Run = tuple[str, ...]


def told_texts(ctx: FilterContext) -> list[str]:
    """The last `RETOLD_NARRATIONS` narrations of the window, and the events of the beats
    since the oldest of them (slot ids read as names)."""
    told: list[str] = []
    narrations = 0
    for record in reversed(ctx.history):
        if isinstance(record, EventRecord):
            told.append(ctx.named(record.text))
        elif isinstance(record, NarrationRecord):
            told.append(record.text)
            narrations += 1
            if narrations == RETOLD_NARRATIONS:
                break
    return told[::-1]


def _predicate(key: str, subjects: list[list[str]], lex: Lexicon) -> str | None:
    said = key.split()
    for subject in subjects:
        if said[: len(subject)] == subject:
            said = said[len(subject) :]
            break
    else:
        if said and said[0] in lex.pronouns:
            said = said[1:]
    return " ".join(said) if len(said) >= MIN_PREDICATE_WORDS else None


def predicate(sentence: str, subjects: list[list[str]], lex: Lexicon) -> str | None:
    """The sentence's key after a leading subject (one of `subjects`, longest first, or a
    pronoun), or None when it has fewer than `MIN_PREDICATE_WORDS` words.

    >>> from tavern.text import lexicon_for
    >>> en = lexicon_for("en")
    >>> subjects = [["ilse", "brandt"], ["ilse"]]
    >>> predicate("She sees a tall window with a small lamp on it.", subjects, en) == (
    ...     predicate("Ilse Brandt sees a tall window with a small lamp on it", subjects, en))
    True
    """
    return _predicate(sentence_key(sentence, lex), subjects, lex)


def _told(
    texts: Sequence[str], subjects: list[list[str]], lex: Lexicon
) -> tuple[set[str], set[str]]:
    """The keys (of `MIN_SENTENCE_WORDS` words or more) and the predicates of the sentences
    of `texts`, each sentence's words read once."""
    keys: set[str] = set()
    predicates: set[str] = set()
    for text in texts:
        for a, b in sentence_spans(text):
            said = words(text[a:b])
            key = words_key(said, lex)
            if len(said) >= MIN_SENTENCE_WORDS:
                keys.add(key)
            found = _predicate(key, subjects, lex)
            if found is not None:
                predicates.add(found)
    return keys, predicates


def _subjects(ctx: FilterContext) -> list[list[str]]:
    forms = {tuple(words(name)) for name in ctx.names}
    forms |= {form[:1] for form in forms if form}
    return sorted((list(f) for f in forms if f), key=len, reverse=True)


def _begins_told(sentence: str, told: set[str], lex: Lexicon) -> bool:
    """Whether an unfinished `sentence`'s words begin a told key."""
    said = words(sentence)
    if said and any(article.startswith(said[-1]) for article in lex.articles):
        said.pop()  # "... in th": the key has no article to begin
    plain = sentence_key(" ".join(said), lex)
    return bool(plain) and any(key.startswith(plain) for key in told)


def _runs(texts: Sequence[str], length: int) -> set[Run]:
    return {run for text in texts for run in word_runs(words(text), length)}


def _fact_words(text: str, lex: Lexicon) -> list[str]:
    return [w for w in words(text) if w not in lex.fillers]


def _fact_runs(facts: Sequence[str], lex: Lexicon) -> dict[Run, int]:
    """Each run of each fact -> the fact's index."""
    found: dict[Run, int] = {}
    for index, fact in enumerate(facts):
        said = _fact_words(fact, lex)
        if len(said) >= MIN_FACT_WORDS:
            for run in word_runs(said, min(FACT_RUN_WORDS, len(said))):
                found.setdefault(run, index)
    return found


def _facts_in(text: str, runs: dict[Run, int], lex: Lexicon) -> set[int]:
    said = _fact_words(text, lex)
    return {runs[r] for n in {len(r) for r in runs} for r in word_runs(said, n) if r in runs}


def _fact_tails(facts: Sequence[str], lex: Lexicon) -> list[tuple[str, frozenset[str]]]:
    """Per fact with a predicate of `MIN_TAIL_WORDS` words after its verb, not of place: those
    words (space separated, between spaces) and the words of its subject."""
    found = []
    for fact in facts:
        said = _fact_words(fact, lex)
        verbs = lex.perceiving | PLACING[lex.language]
        verb = next((i for i, w in enumerate(said) if i and w in verbs), None)
        if verb is None or len(said) - verb - 1 < MIN_TAIL_WORDS:
            continue
        if said[verb + 1] in lex.prepositions:
            continue
        subject = frozenset(w for w in said[:verb] if w not in lex.stop_words)
        if subject:
            found.append((f" {' '.join(said[verb + 1 :])} ", subject))
    return found


def _misattributed(sentence: str, tails: list[tuple[str, frozenset[str]]], events: list[str],
                   lex: Lexicon) -> bool:  # fmt: skip
    said = _fact_words(sentence, lex)
    plain = f" {' '.join(said)} "
    spoken = [f" {' '.join(_fact_words(e, lex))} " for e in events]
    return any(
        tail in plain
        and subject.isdisjoint(said)
        and not any(tail in e and subject.isdisjoint(e.split()) for e in spoken)
        for tail, subject in tails
    )


def _narration(text: str, ctx: FilterContext) -> str:
    lex = ctx.lexicon
    spans = sentence_spans(text)
    events = ctx.beat_events()
    subjects = _subjects(ctx)
    keys, told_predicates = _told(told_texts(ctx), subjects, lex)
    told_predicates -= _told(events, subjects, lex)[1]
    staged = [*ctx.stage, *(c.body.appearance for c in ctx.cast.values())]
    recited = _runs(staged, RECITAL_WORDS) - _runs(events, RECITAL_WORDS)
    tails = _fact_tails(ctx.facts, lex)
    unfinished = text.rstrip()[-1:] not in ".!?…\"'”’)]"
    gone = []
    for i, (a, b) in enumerate(spans):
        said = words(text[a:b])
        key = words_key(said, lex)
        gone.append(
            (len(said) >= MIN_SENTENCE_WORDS and key in keys)
            or (unfinished and i == len(spans) - 1 and _begins_told(text[a:b], keys, lex))
            or _predicate(key, subjects, lex) in told_predicates
            or not recited.isdisjoint(word_runs(said, RECITAL_WORDS))
            or _misattributed(text[a:b], tails, events, lex)
        )
    return _without_fact_recitals(text, spans, gone, ctx, events)


def _without_fact_recitals(
    text: str, spans: list[tuple[int, int]], gone: list[bool], ctx: FilterContext, events: list[str]
) -> str:
    lex = ctx.lexicon
    runs = _fact_runs(ctx.facts, lex)
    held: list[set[int]] = [
        set() if g else _facts_in(text[a:b], runs, lex)
        for (a, b), g in zip(spans, gone, strict=True)
    ]
    if any(held):  # most narrations tell no fact: the window is not read
        free = set().union(*(_facts_in(e, runs, lex) for e in events))
        held = [facts - free for facts in held]
        told = set().union(*(_facts_in(n, runs, lex) for n in ctx.narrations()))
        listed = len(set().union(*held)) >= 2
        for i, facts in enumerate(held):
            if facts and (listed or facts & told):
                gone[i] = True
            else:
                told |= facts
    return text if not any(gone) else kept_sentences(text, spans, gone)


def _repair(text: str, target: Target, ctx: FilterContext) -> str:
    if target == "narration":
        return _narration(text, ctx)
    return said_back(text, target, ctx)


RULE = TextRule("retold", EVERY, BOTH, _repair)
