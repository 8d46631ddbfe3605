"""Clamp `prompt_label`: an event copying the labels of the Director's own history lines.

The Director's window renders each record behind a head and a label (`agents.director`
builds them from the constants here): "[#12 t3] PRIVATE THOUGHT of Agnese Corvo (C1)
(interiority, nobody else perceives it) | ...". Live (the-vintners-wake soak #19, seed 33,
turn 4), the embedded Director answered a thought-only beat with the event "PRIVATE THOUGHT
of Agnese Corvo (interiority, nobody else perceives it)": the label without the thought. The
thought guard redacts a thought's words, not the label, so the hall witnessed that she had a
private thought, and the human's screen showed it.

An event whose text holds the thought label, the interiority note or a line head goes
whole: nothing in it happened in the world. The label is matched as written (upper case):
"a private thought" in ordinary words stays.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tavern.physics.dropping import drop_events
from tavern.records import ClampChange, DirectorDecision, PerceptionEvent

if TYPE_CHECKING:
    from tavern.physics.clamps import ClampContext

THOUGHT_LABEL = "PRIVATE THOUGHT"
"""What the Director's window calls a private thought (and its instructions)."""
INTERIORITY = "(interiority, nobody else perceives it)"
"""The note after a thought's label in the Director's window."""


def line_head(seq: int, tick: int) -> str:
    """The head of a Director history line: its record's seq and story tick.

    >>> line_head(12, 3)
    '[#12 t3]'
    """
    return f"[#{seq} t{tick}]"


_LABEL = re.compile(re.escape(THOUGHT_LABEL) + r"|\[#\d+ t\d+\]")
"""The thought label as written, and a line head ("[#12 t3]")."""
_NOTE = re.compile(r"\binteriority\b", re.IGNORECASE)


def copies_a_label(text: str) -> bool:
    """Whether an event text holds a label of the Director's history lines.

    >>> copies_a_label("PRIVATE THOUGHT of Agnese Corvo (interiority, nobody else perceives it)")
    True
    >>> copies_a_label("[#14 t2] The bell tolls.")
    True
    >>> copies_a_label("She keeps a private thought to herself.")
    False
    """
    return bool(_LABEL.search(text) or _NOTE.search(text))


def drop_label_copies(
    d: DirectorDecision, ctx: ClampContext
) -> tuple[DirectorDecision, list[ClampChange]]:
    """Remove the events that copy a label of the Director's history lines."""
    del ctx

    def goes(ev: PerceptionEvent) -> bool:
        return copies_a_label(ev.text)

    return drop_events(d, "prompt_label", goes)
