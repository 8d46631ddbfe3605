"""Clamp `unfinished_sentence`: an event text whose last sentence breaks off.

Live (vintners-wake #35, seed 50, turn 2), the follow-up's outcome of "walks slowly to the
nearest window and looks outside" ended "... He then hears a voice from the", and every
witness remembered the broken sentence. A last sentence that ends, with no closing mark, on
a word no English sentence ends on (an article, a preposition, a conjunction, a possessive:
`DANGLING`) is cut; an event that is only such a sentence goes. A text without a closing
mark that ends on any other word ("C1 walks to the window") is finished: the Director often
writes events so. One that ends on a comma, a semicolon or a colon broke off where its next
clause began, and loses the mark (`_OPEN_CLAUSE`). Cut too is a last sentence of
`MAX_FRAGMENT_WORDS` words or fewer, unclosed, that opens on a subordinating word and holds no
clause after it ("Despite his efforts": vintners-wake #35's rerun, seed 50, turn 5, after
"Agnese Corvo attempts to reach the door and reaches for the door.").
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tavern.physics.acts import sentence_spans
from tavern.physics.dropping import rewrite_events
from tavern.records import ClampChange, DirectorDecision

if TYPE_CHECKING:
    from tavern.physics.clamps import ClampContext

DANGLING = frozenset(
    "the a an his their its my your our of into onto upon toward towards and or but nor than"
    " because o os as um uma de da das dos e ou mas com para pelo pela seu sua".split()
)
"""Words a sentence cannot end on (English and Brazilian Portuguese): articles, possessives,
conjunctions, and prepositions that are never a verb's particle ("lets him in", "walks on",
"comes to" and "looks at her" end sentences, so "in", "on", "to" and "her" are not here)."""
OPENERS = frozenset(
    "despite although though because while when if unless after before since until whereas"
    " embora porque enquanto quando se apesar".split()
)
"""Words that open a clause needing another: alone, such a clause breaks off."""
_OPENER = re.compile(r"\b(?:" + "|".join(sorted(OPENERS)) + r")\b", re.IGNORECASE)
MAX_FRAGMENT_WORDS = 4
"""A longer unclosed clause after an opener may be a whole event written without a comma
("When the bell tolls the door opens"), and stays."""
_LAST_WORD = re.compile(r"([^\W\d_]+)\W*$")
_CLOSED = re.compile(r"[.!?…\"'”’)\]]\s*$")
_CLAUSE_BREAK = re.compile(r"(\s*[;,:]\s*)")
_OPEN_CLAUSE = re.compile(r"[;,:]$")
"""A text that ends on a clause mark broke off where its next clause began: live
(vintners-wake #59, seed 75, turn 7) the follow-up's outcome ended "... The coffin lies open,"
and was committed so. The sentence stands without the mark."""


def without_unfinished_end(text: str) -> str:
    """`text` without a last sentence, or its last clause, that breaks off on a `DANGLING`
    word ("" when that is all of it).

    >>> without_unfinished_end("He sees a window. He then hears a voice from the")
    'He sees a window.'
    >>> without_unfinished_end("Agnese Corvo looks around; the coffin lies open in the")
    'Agnese Corvo looks around'
    >>> without_unfinished_end("A voice from the"), without_unfinished_end("C1 walks to the door")
    ('', 'C1 walks to the door')
    >>> without_unfinished_end("Agnese Corvo reaches for the door. Despite his efforts")
    'Agnese Corvo reaches for the door.'
    >>> without_unfinished_end("The bolt holds against the"), without_unfinished_end("Let in")
    ('', 'Let in')
    >>> without_unfinished_end("Dorotea Sand opens the coffin. The coffin lies open,")
    'Dorotea Sand opens the coffin. The coffin lies open'
    """
    stripped = text.rstrip()
    if not stripped or _CLOSED.search(stripped):
        return text
    last = _LAST_WORD.search(stripped)
    dangling = _OPEN_CLAUSE.search(stripped) is not None or (
        last is not None and last.group(1).casefold() in DANGLING
    )
    if not dangling and not _OPENER.search(stripped):
        return text  # most unclosed events: no sentence split
    start = sentence_spans(stripped)[-1][0]
    if _fragment(stripped[start:]):
        return stripped[:start].rstrip()
    if not dangling:
        return text
    clauses = _CLAUSE_BREAK.split(stripped[start:])
    if len(clauses) > 1:  # the sentence stands without its broken last clause
        return without_unfinished_end(stripped[:start] + "".join(clauses[:-2]).rstrip())
    return stripped[:start].rstrip()


def _fragment(sentence: str) -> bool:
    """An opener's clause alone: "Despite his efforts"."""
    words = sentence.split()
    return (
        0 < len(words) <= MAX_FRAGMENT_WORDS
        and words[0].casefold() in OPENERS
        and not _CLAUSE_BREAK.search(sentence)
    )


def drop_unfinished_ends(
    d: DirectorDecision, ctx: ClampContext
) -> tuple[DirectorDecision, list[ClampChange]]:
    """Each event text without its broken-off last sentence; an event that is only one goes."""
    del ctx
    return rewrite_events(d, "unfinished_sentence", lambda ev: without_unfinished_end(ev.text))
