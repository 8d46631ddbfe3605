"""Clamp `redacted_event`: an event the guards left with nothing to tell.

The thought and whisper guards mask a secret word wherever the Director copied it, and keep
the rest of the event. When the rest holds no salient word (only masks, function words and
punctuation: "[...] [...]", "He [...] it."), the event tells its witnesses nothing but that
something hidden happened, and shows the reader a line of masks. The hostile fake found it:
once its texts carried the tokens of a prompt's tail, all 8 events the adversary Director got
committed in an eight-beat run were "[...]", and 7 of 9 of the canary-copying one's. Such an
event goes; an event without any mask is never judged here, however few words it has ("It
holds.").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tavern.physics.dropping import drop_events
from tavern.physics.redaction import MASK, salient_tokens
from tavern.records import ClampChange, DirectorDecision

if TYPE_CHECKING:
    from tavern.physics.clamps import ClampContext


def emptied_by_masks(text: str) -> bool:
    """Whether `text` was masked and has no salient word left.

    >>> emptied_by_masks("[...] [...]"), emptied_by_masks("He [...] it.")
    (True, True)
    >>> emptied_by_masks("Maren hands over the [...]."), emptied_by_masks("It holds.")
    (False, False)
    """
    return MASK in text and not salient_tokens(text)


def drop_emptied_events(
    d: DirectorDecision, ctx: ClampContext
) -> tuple[DirectorDecision, list[ClampChange]]:
    """Drop each event the guards emptied (`emptied_by_masks`)."""
    del ctx
    return drop_events(d, "redacted_event", lambda ev: emptied_by_masks(ev.text))
