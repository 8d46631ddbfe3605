"""Events the masks left nothing to tell.

Clamp `redacted_event`: an event the guards masked and left with no salient word but the
cast's names goes ("[...] [...]", "Maren does not [...]."); so does a masked sentence beside
a clean one ("The box stays locked. Teodor works on the [...]'s [...]." keeps its first
sentence). An event whose every sentence holds a mask and says something keeps them ("Maren
hands over the [...]."). It reads no words of a language: it declares all.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING

from tavern.physics.dropping import rewrite_events
from tavern.physics.redaction import MASK, salient_tokens, tokens_of
from tavern.records import ClampChange, DirectorDecision
from tavern.text import sentences, without_sentences

if TYPE_CHECKING:
    from tavern.physics.clamps import ClampContext


def emptied_by_masks(text: str, names: AbstractSet[str] = frozenset()) -> bool:
    """Whether `text` was masked and has no salient word left but the cast's `names`.

    >>> emptied_by_masks("[...] [...]"), emptied_by_masks("He [...] it.")
    (True, True)
    >>> emptied_by_masks("Maren hands over the [...]."), emptied_by_masks("It holds.")
    (False, False)
    >>> emptied_by_masks("Maren does not [...].", frozenset({"maren"}))
    True
    """
    return MASK in text and salient_tokens(text) <= names


def without_masked_sentences(text: str) -> str:
    """`text` without its sentences that hold a mask, if one of its sentences holds none.

    >>> without_masked_sentences("The box stays locked. Teodor works on the [...]'s [...].")
    'The box stays locked.'
    >>> without_masked_sentences("Maren hands over the [...]. Teodor takes the [...].")
    'Maren hands over the [...]. Teodor takes the [...].'
    """
    if MASK not in text or all(MASK in sentence for sentence in sentences(text)):
        return text
    return without_sentences(text, lambda sentence: MASK in sentence)


def drop_emptied_events(
    d: DirectorDecision, ctx: ClampContext
) -> tuple[DirectorDecision, list[ClampChange]]:
    """Drop each event the masks emptied, and each masked sentence beside a clean one."""
    if not any(MASK in ev.text for ev in d.events):
        return d, []
    cast = ctx.cast or {}
    names = tokens_of([*cast, *(c.body.display_name for c in cast.values())])
    return rewrite_events(
        d,
        "redacted_event",
        lambda ev: "" if emptied_by_masks(ev.text, names) else without_masked_sentences(ev.text),
    )
