"""Clamp `redacted_event`: an event the guards left with nothing to tell.

The thought and whisper guards mask a secret word wherever the Director copied it, and keep
the rest of the event. When the rest holds no salient word (only masks, function words and
punctuation: "[...] [...]", "He [...] it."), the event tells its witnesses nothing but that
something hidden happened, and shows the reader a line of masks. The hostile fake found it:
once its texts carried the tokens of a prompt's tail, all 8 events the adversary Director got
committed in an eight-beat run were "[...]", and 7 of 9 of the canary-copying one's. Such an
event goes; an event without any mask is never judged here, however few words it has ("It
holds.").

A masked sentence beside clean ones goes too: "Teodor Vask is still working on the [...]'s
[...]." stood in an event of three sentences shown to the human (toll-house soak #38, seed
52, turn 5), a line of masks in the middle of the story that tells only that a word is
hidden. Names do not count as something told: live (toll-house #64, seed 78, turn 5), the
follow-up outcome "Ilse Brandt does not work." lost "work" to the thought guard (it stood only
in another character's thought) and "Ilse Brandt does not [...]." was committed, telling a
reader that something about her is hidden and nothing else. An event whose every sentence
holds a mask keeps them ("Maren hands over the [...]." still tells that she handed something
over) unless it is emptied.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING

from tavern.physics.acts import sentence_spans
from tavern.physics.dropping import rewrite_events
from tavern.physics.redaction import MASK, salient_tokens, tokens_of
from tavern.records import ClampChange, DirectorDecision

if TYPE_CHECKING:
    from tavern.physics.clamps import ClampContext


def emptied_by_masks(text: str, names: AbstractSet[str] = frozenset()) -> bool:
    """Whether `text` was masked and has no salient word left but the cast's `names` (as
    `salient_tokens` gives them: see `name_tokens`).

    >>> emptied_by_masks("[...] [...]"), emptied_by_masks("He [...] it.")
    (True, True)
    >>> emptied_by_masks("Maren hands over the [...]."), emptied_by_masks("It holds.")
    (False, False)
    >>> emptied_by_masks("Maren does not [...].", frozenset({"maren"}))
    True
    """
    return MASK in text and salient_tokens(text) <= names


def name_tokens(ctx: ClampContext) -> frozenset[str]:
    """The salient tokens of the cast's slot ids and display names."""
    cast = ctx.cast or {}
    return frozenset(tokens_of([*cast, *(c.body.display_name for c in cast.values())]))


def without_masked_sentences(text: str) -> str:
    """`text` without its sentences that hold a mask, if one of its sentences holds none.

    >>> without_masked_sentences("The box stays locked. Teodor works on the [...]'s [...].")
    'The box stays locked.'
    >>> without_masked_sentences("Maren hands over the [...]. Teodor takes the [...].")
    'Maren hands over the [...]. Teodor takes the [...].'
    """
    if MASK not in text:
        return text
    sentences = [text[start:end] for start, end in sentence_spans(text)]
    clean = [sentence for sentence in sentences if MASK not in sentence]
    if not clean or len(clean) == len(sentences):
        return text
    return "".join(clean).strip()


def drop_emptied_events(
    d: DirectorDecision, ctx: ClampContext
) -> tuple[DirectorDecision, list[ClampChange]]:
    """Drop each event the guards emptied (`emptied_by_masks`), and each masked sentence of
    an event that has a clean one (`without_masked_sentences`)."""
    if not any(MASK in ev.text for ev in d.events):
        return d, []
    names = name_tokens(ctx)
    return rewrite_events(
        d,
        "redacted_event",
        lambda ev: "" if emptied_by_masks(ev.text, names) else without_masked_sentences(ev.text),
    )
