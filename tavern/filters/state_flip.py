"""Rule `state_flip`: a narration may not open or shut a standing thing no event did.

The stage's facts give some things a state ("The toll box sits locked on the counting
table."). The renderer tells what the beat's events confirmed, so a sentence of its own that
turns such a thing over, against the facts and every event told so far (this beat's
included, in order), goes: the box the story turns on must not stand open for no reason
anyone could act on. The reader of states is the clamp `fact_flip`'s
(`physics.fact_state`), given the words of the session's language.

Example (facts: "The toll box sits locked on the counting table."): "Rain falls. The toll
box is open." -> "Rain falls."; kept when an event said "Maren opens the toll box.".
"""

from __future__ import annotations

from tavern.filters.context import FilterContext, Target
from tavern.filters.rule import BOTH, TextRule
from tavern.physics.fact_state import ENGLISH, PORTUGUESE, States
from tavern.records import EventRecord
from tavern.text import without_sentences, words

VOCABULARIES = {"en": ENGLISH, "pt-BR": PORTUGUESE}


def _repair(text: str, target: Target, ctx: FilterContext) -> str:
    vocabulary = VOCABULARIES[ctx.language]
    if vocabulary.states.keys().isdisjoint(words(text)):
        return text  # most narrations: no state told
    states = States(ctx.facts, vocabulary)
    for record in (*ctx.history, *ctx.beat):
        if isinstance(record, EventRecord):
            states.tell(record.text)
    return without_sentences(text, lambda sentence: bool(states.flips(sentence)))


RULE = TextRule("state_flip", frozenset(("narration",)), BOTH, _repair)
