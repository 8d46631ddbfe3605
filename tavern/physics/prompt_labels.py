"""The labels of the Director's history lines, and how a copy of them is known (the clamp
`prompt_label` in `physics.copied` drops such an event).

The Director's window renders each record behind a head and a label built from the
constants here ("[#12 t3] PRIVATE THOUGHT of Agnese Corvo (C1) (interiority, ...) | ...").
The thought guard redacts a thought's words, not its label, so an event copying a label
would tell every witness that someone had a private thought: it goes whole, as does one
that is only `TIME_PASSES`. The thought label is matched as written (upper case). A schema
word (`SCHEMA_WORD`, "world_event") is taken out alone, here and by the filter rule
`prompt_copy` (`without_schema_words`); a zone id with underscores stays.
"""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet

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


TIME_PASSES = "Time passes."
"""The time-skip line's text (the runner's system record of a skip)."""
_TIME_PASSES = re.compile(r"\W*time\s+passes\W*", re.IGNORECASE)

_LABEL = re.compile(re.escape(THOUGHT_LABEL) + r"|\[#\d+ t\d+\]")
"""The thought label as written, and a line head ("[#12 t3]")."""
_LINE_LABEL = re.compile(r"\b(?:whispers?|speech) by [A-Z]|\(perceived by\b")
"""A speech line's label ("whisper by Ilse Brandt (C1) to Maren Holt (C2)", "speech by
..."), before a capital (a name or an id), and an event line's "(perceived by". "She
whispers by the door" stays: a place, not a name."""
_NOTE = re.compile(r"\binteriority\b", re.IGNORECASE)
SCHEMA_WORD = re.compile(r"\s*\b[a-z]+(?:_[a-z]+)+\b")
"""An identifier of the answers' schemas ("world_event", "action_intent"), with the space
before it: no word of a story."""
_A_WORD = re.compile(r"[^\W_]")


def without_schema_words(text: str, keep: AbstractSet[str] = frozenset()) -> str:
    """`text` without its `SCHEMA_WORD`s other than those in `keep` (zone ids); "" when no
    word is left.

    >>> without_schema_words("Ilse Brandt tries the toll box world_event.")
    'Ilse Brandt tries the toll box.'
    >>> without_schema_words("talk_event"), without_schema_words("to river_bank", {"river_bank"})
    ('', 'to river_bank')
    """
    if "_" not in text:
        return text
    out = SCHEMA_WORD.sub(lambda m: m.group() if m.group().strip() in keep else "", text)
    out = out.strip()
    return out if _A_WORD.search(out) else ""


def copies_a_label(text: str) -> bool:
    """Whether an event text holds a label of the Director's history lines.

    >>> copies_a_label("PRIVATE THOUGHT of Agnese Corvo (interiority, nobody else perceives it)")
    True
    >>> copies_a_label("[#14 t2] The bell tolls.")
    True
    >>> copies_a_label("Ilse Brandt whispers by Ilse Brandt to Maren Holt (C2)")
    True
    >>> copies_a_label("She keeps a private thought to herself.")
    False
    >>> copies_a_label("Time passes."), copies_a_label("Time passes slowly for Maren.")
    (True, False)
    """
    return bool(
        _LABEL.search(text)
        or _NOTE.search(text)
        or _LINE_LABEL.search(text)
        or _TIME_PASSES.fullmatch(text)
    )
