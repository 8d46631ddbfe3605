"""Duplicates: an event that tells again what was told.

Clamp `event_loop`: an event's text that says one of its clauses again ends before the
repetition. A clause is a run of words between commas, semicolons or sentence ends; two
clauses are the same when their sentence keys are (`tavern.text.sentence_key`: case,
punctuation, articles and fillers such as "now" and "again" aside), a leading conjunction
aside too. From the first clause of `MIN_CLAUSE_WORDS` words or more that repeats an
earlier one, the text is cut. A run of two to six words said again right after itself
("until dawn until dawn") is said once first.

    "The trapdoor is sealed with a page. The trapdoor is sealed with a page, and the
    trapdoor is sealed with a page." -> "The trapdoor is sealed with a page."
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tavern.physics.dropping import rewrite_events
from tavern.records import ClampChange, DirectorDecision
from tavern.text import Lexicon, lexicon_for, sentence_key, words

if TYPE_CHECKING:
    from tavern.physics.clamps import ClampContext

MIN_CLAUSE_WORDS = 4
"""Shorter repeats are said in earnest ("No, no, no!", "Open it, open it.")."""
_CLAUSE = re.compile(r"[^,;.!?…]+[,;.!?…]*")
STUTTER = re.compile(r"\b(\w+(?:[ \t]+\w+){1,5}?)(?:[ \t]+\1\b)+", re.IGNORECASE)
"""A run of two to six words (the shortest that repeats), then one or more copies of it."""


def _linked(clause: str, lexicon: Lexicon) -> str:
    """The clause without a leading conjunction ("and walk" -> "walk")."""
    first, _, rest = clause.strip().partition(" ")
    return rest if first.casefold() in lexicon.conjunctions else clause


def before_repeated_clause(text: str, lexicon: Lexicon) -> str:
    """`text` up to its first long clause that repeats an earlier one (see the module).

    >>> en = lexicon_for("en")
    >>> before_repeated_clause("open the box on the table, open the box on the table again", en)
    'open the box on the table'
    >>> before_repeated_clause("No, no, no!", en)
    'No, no, no!'
    >>> before_repeated_clause("A porta range, e a porta range de novo.", lexicon_for("pt-BR"))
    'A porta range'
    """
    text = STUTTER.sub(r"\1", text)
    seen: set[str] = set()
    for match in _CLAUSE.finditer(text):
        clause = _linked(match.group(), lexicon)
        key = sentence_key(clause, lexicon)
        if key in seen and len(words(clause)) >= MIN_CLAUSE_WORDS:
            return text[: match.start()].rstrip().rstrip(",;")
        seen.add(key)
    return text


def cut_event_loops(
    d: DirectorDecision, ctx: ClampContext
) -> tuple[DirectorDecision, list[ClampChange]]:
    """Cut each event's text before its first repeated clause."""
    lexicon = lexicon_for(ctx.language)
    return rewrite_events(d, "event_loop", lambda ev: before_repeated_clause(ev.text, lexicon))
