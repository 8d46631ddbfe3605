"""Clamp `mind_copy`: a sentence of the Director's that recites a character's private mind.

The Director reads every present character's mind (personality, secrets, goals) so that it
can decide what physically happens; it must not publish them. Live, the embedded 0.5B
Director copied the human's own character's secret into a public event witnessed by the two
others, and the narrator told it to the reader (toll-house soak #5, turn 8, 29aa1e6): Ilse
Brandt's sheet says "She found a brass seal ring in the bottom of her father's ferry an hour
ago and has it in her pocket."; the event said "... She finds a brass seal ring in the bottom
of her father's ferry an hour ago and has it in her pocket."

A sentence of an event or of an added scene fact goes when it holds `MIN_RUN` or more words
in a row of a mind text (case and punctuation aside) that no public text holds: the stage,
the cast's names and appearances, or a record of the recent history (a secret someone said
aloud is no longer only in a mind). An event or fact left with no sentence goes whole. The
rule is about recital, not revelation: the Director may still decide that a ring falls out of
a pocket, in its own words.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from functools import lru_cache
from typing import TYPE_CHECKING

from tavern.physics.acts import sentence_spans, without_sentences
from tavern.physics.cast_refs import COPY_WINDOW
from tavern.physics.guards import cast_public_texts, scene_texts
from tavern.records import Character, ClampChange, DirectorDecision, HistoryRecord

if TYPE_CHECKING:
    from tavern.physics.clamps import ClampContext

MIN_RUN = 6
"""Six words in a row: shorter runs ("in the middle of the") recur in any prose."""

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+")

Run = tuple[str, ...]


def drop_mind_copies(
    d: DirectorDecision, ctx: ClampContext
) -> tuple[DirectorDecision, list[ClampChange]]:
    """Remove the sentences of events and added facts that recite a private mind text."""
    if ctx.cast is None or not (d.events or d.scene.add_facts):
        return d, []
    private = _mind_runs(_mind_texts(ctx.cast))
    texts = [ev.text for ev in d.events] + list(d.scene.add_facts)
    copied = {run for text in texts for run in _runs(text)} & private
    if not copied:
        return d, []  # the usual case: nothing recited, the history is never read
    copied -= _public_runs(ctx, copied)
    if not copied:
        return d, []
    changes: list[ClampChange] = []
    events = []
    for i, ev in enumerate(d.events):
        kept = _without_recital(ev.text, copied)
        if kept != ev.text:
            changes.append(
                ClampChange(
                    rule="mind_copy",
                    path=f"events[{i}]" if kept is None else f"events[{i}].text",
                    before=ev.model_dump() if kept is None else ev.text,
                    after=kept,
                )
            )
        if kept is not None:
            events.append(ev if kept == ev.text else ev.model_copy(update={"text": kept}))
    facts = []
    for i, fact in enumerate(d.scene.add_facts):
        kept = _without_recital(fact, copied)
        if kept != fact:
            changes.append(
                ClampChange(rule="mind_copy", path=f"scene.add_facts[{i}]", before=fact, after=kept)
            )
        if kept is not None:
            facts.append(kept)
    scene = d.scene.model_copy(update={"add_facts": facts})
    return d.model_copy(update={"events": events, "scene": scene}), changes


def _without_recital(text: str, copied: set[Run]) -> str | None:
    """`text` without its sentences holding a copied run; None when no sentence is left."""
    if copied.isdisjoint(_runs(text)):
        return text
    sentences = _SENTENCE_BREAK.split(text.strip())
    kept = [s for s in sentences if copied.isdisjoint(_runs(s))]
    if len(kept) == len(sentences):
        return text  # the run spans a sentence break: no one sentence recites it
    return " ".join(kept) or None


def _mind_texts(cast: Mapping[str, Character]) -> tuple[str, ...]:
    return tuple(
        t for c in cast.values() for t in (c.mind.personality, *c.mind.secrets, *c.mind.goals)
    )


@lru_cache(maxsize=16)  # a session's cast changes seldom; a server holds a few sessions
def _mind_runs(texts: tuple[str, ...]) -> frozenset[Run]:
    return frozenset(run for text in texts for run in _runs(text))


def _public_runs(ctx: ClampContext, wanted: set[Run]) -> set[Run]:
    """The runs of `wanted` that some public text holds."""
    public: Iterable[str] = (
        *scene_texts(ctx.scene),
        *ctx.public_texts,
        *cast_public_texts(ctx.cast or {}),
        *_record_texts(ctx.history[-COPY_WINDOW:]),
    )
    return {run for text in public for run in _runs(text)} & wanted


_PERCEIVED = frozenset(("speech", "action", "event"))


def _record_texts(records: Sequence[HistoryRecord]) -> list[str]:
    """Texts of records a character perceived: a thought is as private as the mind, and a
    narration reaches only the reader."""
    return [r.text for r in records if r.kind in _PERCEIVED]


def word_runs(text: str, length: int) -> set[Run]:
    """Every `length` words in a row of `text`, lower-cased.

    >>> sorted(word_runs("The bolt holds fast.", 3))
    [('bolt', 'holds', 'fast'), ('the', 'bolt', 'holds')]
    """
    return set(_runs_of(text, length))


def holds_run(text: str, runs: AbstractSet[Run], length: int) -> bool:
    """Whether `text` holds one of `runs` (each `length` words, as `word_runs` makes them):
    `not runs.isdisjoint(word_runs(text, length))`, without building the set of the text's
    runs (each filter only asks whether one is there).

    >>> holds_run("Rain. The bolt holds fast.", word_runs("bolt holds fast", 3), 3)
    True
    """
    return not runs.isdisjoint(_runs_of(text, length))


def _runs_of(text: str, length: int) -> Iterable[Run]:
    """The runs of `word_runs`, one per start, unsorted and not yet a set."""
    words = _casefold_words(text)
    if length < 1:  # slicing's answer for a length no caller asks (zip would differ)
        return (tuple(words[i : i + length]) for i in range(len(words) - length + 1))
    # zip stops at its shortest argument, the slice from `length - 1`: the runs slicing
    # would give, one per start, built in C.
    return zip(*(words[k:] for k in range(length)), strict=False)


@lru_cache(maxsize=64)
def _casefold_words(text: str) -> tuple[str, ...]:
    """The words of `text`, casefolded. Cached: the runner reads a narration's or a reply's
    runs of several lengths, one filter after another."""
    return tuple(_WORD.findall(text.casefold()))


def without_sentences_holding(
    text: str,
    runs: AbstractSet[Run],
    length: int,
    spans_of: Callable[[str], list[tuple[int, int]]] = sentence_spans,
) -> str:
    """`text` without its sentences holding one of `runs` (each `length` words, as
    `word_runs` makes them); `text` itself, after one pass, when it holds none.

    >>> without_sentences_holding("Rain. The bolt holds fast.", word_runs("bolt holds fast", 3), 3)
    'Rain.'
    """
    if not runs or not holds_run(text, runs, length):
        return text
    return without_sentences(text, lambda sentence: holds_run(sentence, runs, length), spans_of)


def _runs(text: str) -> set[Run]:
    return word_runs(text, MIN_RUN)
