"""Narration that recites the stage's description or a character's appearance.

The renderer's prompt holds the stage's description and the cast's appearances so that it
can tell events in place and people as they look. Live, the embedded 0.5B model copied them
out instead, on beats with little to tell: vintners-wake soak #15 (seed 31), turns 3, 4, 5, 7
and 8 opened with "In the vintner's house on the hill, a stone house: a long hall with the
open coffin under candles, a narrow balcony above it, ...", the location and the description
word for word, and turn 4 with the human's own character's appearance, "A small, upright
woman in layered black silk and a black lace veil, a cane of dark vinewood in her gloved
hand." The reader has the stage on screen already; a beat with nothing to tell gets no words.

A sentence holding `RECITAL_WORDS` words in a row of those texts is dropped, unless the run
is also in an event of this beat (the narration then tells the event, in its words). Shorter
borrowings ("the open coffin under candles", "in her gloved hand") are the prompt doing its
job.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from tavern.agents.repetition import sentence_spans
from tavern.physics.copied import Run, holds_run, without_sentences_holding, word_runs

RECITAL_WORDS = 8
"""Words in a row that make a recital. Over the 16 narrations of two soaks (toll-house #10,
vintners-wake #15), each of the 6 sentences with such a run copied a description or an
appearance whole; the longest run in a sentence that told something else was 7 words, the
location inside "Ilse Brandt and Maren Holt walk by the toll house at the river crossing,
looking at ..."."""


@lru_cache(maxsize=32)
def _runs(texts: tuple[str, ...]) -> frozenset[Run]:
    return frozenset(run for text in texts for run in word_runs(text, RECITAL_WORDS))


def drop_recitals(text: str, recited: Sequence[str], allowed: Sequence[str] = ()) -> str:
    """`text` without its sentences reciting `recited` (see the module); a run also found in
    `allowed` (this beat's event texts) is no recital.

    >>> hall = "A long hall with the open coffin under candles and a narrow balcony above it."
    >>> drop_recitals("Rain. A long hall with the open coffin under candles waits.", [hall])
    'Rain.'
    >>> drop_recitals("Candles gutter over the open coffin under the balcony.", [hall])
    'Candles gutter over the open coffin under the balcony.'
    """
    runs = _runs(tuple(recited))
    if not runs or not holds_run(text, runs, RECITAL_WORDS):
        return text  # most narrations: one pass, no sentence split
    if allowed:
        runs = runs - _runs(tuple(allowed))
    return without_sentences_holding(text, runs, RECITAL_WORDS, sentence_spans)
