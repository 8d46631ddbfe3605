"""Masks: spoken words kept within their hearers, and events the masks left nothing to tell.

Clamp `speech_guard`: words spoken aloud are bounded by the zone graph (the cellar does not
hear the hall), so the Director may not carry them further in an event or on the stage. The
tokens of a recent spoken line are masked in an event whose witnesses are not all among that
line's hearers (an event with no witness reaches the renderer, so every hearer set is
exceeded), and in the stage texts everyone present sees (facts, a new location, zone labels,
moods) unless everyone present heard it. Words the stage, the world or the cast sheets carry
in the open are never masked. Whispers are the whisper guard's (`physics.visible`).

Clamp `redacted_event`: an event the guards masked and left with no salient word but the
cast's names goes ("[...] [...]", "Maren does not [...]."); so does a masked sentence beside
a clean one ("The box stays locked. Teodor works on the [...]'s [...]." keeps its first
sentence). An event whose every sentence holds a mask and says something keeps them ("Maren
hands over the [...]."). Both rules read no words of a language: they declare all.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING

from tavern.physics.dropping import rewrite_events
from tavern.physics.guards import cast_public_texts, scene_texts
from tavern.physics.redaction import MASK, salient_tokens, tokens_of
from tavern.physics.visible import redact_visible
from tavern.records import ClampChange, DirectorDecision, SpeechRecord
from tavern.text import sentences, without_sentences

if TYPE_CHECKING:
    from tavern.physics.clamps import ClampContext


def heard_words(ctx: ClampContext) -> dict[frozenset[str], frozenset[str]]:
    """Each hearer set of a recent line spoken aloud, and the tokens those lines carried
    that no public text holds (the stage, the world, the cast's names and bodies).

    Example:
        >>> from tavern.physics.clamps import ClampContext
        >>> from tavern.records import Audience, Scene
        >>> said = SpeechRecord(seq=1, turn_number=1, speaker="C1", author="human",
        ...     text="The key is under the cask.",
        ...     audience=Audience(origin="zone", perceivers=["C1", "C2"]))
        >>> ctx = ClampContext(scene=Scene(location="the cask room", present=["C1", "C2"]),
        ...     history=[said])
        >>> [(sorted(hearers), sorted(words)) for hearers, words in heard_words(ctx).items()]
        [(['C1', 'C2'], ['key'])]
    """
    public = tokens_of([*scene_texts(ctx.scene), ctx.world, *cast_public_texts(ctx.cast or {})])
    heard: dict[frozenset[str], set[str]] = {}
    for record in ctx.history:
        if isinstance(record, SpeechRecord) and record.audience.origin != "whisper":
            tokens = salient_tokens(record.text) - public
            if tokens:
                heard.setdefault(frozenset(record.audience.perceivers), set()).update(tokens)
    return {hearers: frozenset(tokens) for hearers, tokens in heard.items()}


def speech_guard(
    d: DirectorDecision, ctx: ClampContext
) -> tuple[DirectorDecision, list[ClampChange]]:
    """Mask spoken words wherever the decision would carry them past their hearers."""
    heard = heard_words(ctx)
    if not heard:
        return d, []
    present = set(ctx.present)
    everywhere = frozenset().union(*(t for who, t in heard.items() if not present <= who))

    def hidden_in_event(i: int) -> frozenset[str]:
        witnesses = set(d.events[i].witness_ids)
        return frozenset().union(
            *(t for who, t in heard.items() if not witnesses or not witnesses <= who)
        )

    return redact_visible(d, "speech_guard", hidden_in_event, everywhere)


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
