"""Clamp `unfinished_sentence`: an event text whose last sentence breaks off.

A last sentence that ends, with no closing mark, on a word no finished sentence ends on (the
language's `dangling` words: an article, a possessive, a coordinating conjunction, a
preposition that is never a particle) is cut, back to its last whole clause; an event that
is only such a sentence goes. A text without a closing mark that ends on any other word ("C1
walks to the window") is finished: the Director often writes events so. One that ends on a
comma, a semicolon or a colon broke off where its next clause began, and loses the mark.
Cut too is a last sentence of `MAX_FRAGMENT_WORDS` words or fewer, unclosed, opening on a
subordinator with no clause after it ("Despite his efforts", "Embora ele tente").

Example: "He sees a window. He then hears a voice from the" -> "He sees a window."
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tavern.physics.acts import sentence_spans
from tavern.physics.dropping import rewrite_events
from tavern.records import ClampChange, DirectorDecision
from tavern.text import Lexicon, fold, lexicon_for

if TYPE_CHECKING:
    from tavern.physics.clamps import ClampContext

_EN = lexicon_for("en")
MAX_FRAGMENT_WORDS = 4
"""A longer unclosed clause after an opener may be a whole event written without a comma
("When the bell tolls the door opens"), and stays."""
_LAST_WORD = re.compile(r"([^\W\d_]+)\W*$")
_CLOSED = re.compile(r"[.!?…\"'”’)\]]\s*$")
_CLAUSE_BREAK = re.compile(r"(\s*[;,:]\s*)")
_OPEN_CLAUSE = re.compile(r"[;,:]$")
"""A text ending on a clause mark broke off where its next clause began."""


def without_unfinished_end(text: str, lex: Lexicon = _EN) -> str:
    """`text` without a last sentence, or its last clause, that breaks off (see the module;
    "" when that is all of it).

    >>> without_unfinished_end("He sees a window. He then hears a voice from the")
    'He sees a window.'
    >>> without_unfinished_end("Agnese Corvo looks around; the coffin lies open in the")
    'Agnese Corvo looks around'
    >>> without_unfinished_end("A voice from the"), without_unfinished_end("C1 walks to the door")
    ('', 'C1 walks to the door')
    >>> without_unfinished_end("Agnese Corvo reaches for the door. Despite his efforts")
    'Agnese Corvo reaches for the door.'
    >>> without_unfinished_end("Dorotea Sand opens the coffin. The coffin lies open,")
    'Dorotea Sand opens the coffin. The coffin lies open'
    >>> without_unfinished_end("Ela ouve uma voz vinda da", lexicon_for("pt-BR"))
    ''
    """
    stripped = text.rstrip()
    if not stripped or _CLOSED.search(stripped):
        return text
    last = _LAST_WORD.search(stripped)
    dangling = _OPEN_CLAUSE.search(stripped) is not None or (
        last is not None and fold(last.group(1)) in lex.dangling
    )
    start = sentence_spans(stripped)[-1][0]
    if _fragment(stripped[start:], lex):
        return stripped[:start].rstrip()
    if not dangling:
        return text
    clauses = _CLAUSE_BREAK.split(stripped[start:])
    if len(clauses) > 1:  # the sentence stands without its broken last clause
        return without_unfinished_end(stripped[:start] + "".join(clauses[:-2]).rstrip(), lex)
    return stripped[:start].rstrip()


def _fragment(sentence: str, lex: Lexicon) -> bool:
    """A subordinator's clause alone: "Despite his efforts"."""
    said = sentence.split()
    return (
        0 < len(said) <= MAX_FRAGMENT_WORDS
        and fold(said[0]) in lex.subordinators
        and not _CLAUSE_BREAK.search(sentence)
    )


def drop_unfinished_ends(
    d: DirectorDecision, ctx: ClampContext
) -> tuple[DirectorDecision, list[ClampChange]]:
    """Cut an event's broken-off last sentence; an event that is only one goes."""
    lex = lexicon_for(ctx.language)
    return rewrite_events(d, "unfinished_sentence", lambda ev: without_unfinished_end(ev.text, lex))
