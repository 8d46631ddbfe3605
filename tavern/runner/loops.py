"""A Character field that says one of its clauses again ends before the repetition.

Live (toll-house soak #13, seed 31, turn 4), Maren Holt's intent was "walk slowly to the
nearest window and look outside, walk slowly to the nearest window and look outside again,
..." four times over: the embedded model looping inside a short field, which the prose
renderer's loop cut (`agents.repetition.cut_runaway`, a clause said three times in a row)
does not catch when the copies differ by an "again". It reached the human's screen and the
Director's window as one long attempt, and the echo rule could not see the human's attempt of
turn 2 in it.

A clause here is a run of words between commas, semicolons or sentence ends; two clauses are
the same when their words are, case, punctuation, articles, the idle adverbs of
`IDLE_WORDS` ("again", "now") and a leading "and" aside: vintners-wake soak
#27 (seed 41, turn 2) looped "The trapdoor is now unlocked, and the trapdoor is sealed. The
trapdoor is now closed. The trapdoor is now sealed. The trapdoor is now," to the length
limit. From the first clause of `MIN_CLAUSE_WORDS` or more words that repeats an earlier one,
the field is cut (with the separator before it). Short repeats are said in earnest ("No, no,
no!", "Open it, open it."), so they stay.

A run of two to six words said again right after itself ("until dawn until dawn") is said
once first (`agents.stutter`).

A Director event's text is cut by the clamp `duplicate_event` (`physics.duplicates`).
"""

from __future__ import annotations

import re
from itertools import filterfalse

from tavern.agents.repetition import plain_words
from tavern.agents.stutter import without_stutter
from tavern.records import CharacterReply

IDLE_WORDS = frozenset(("a", "an", "the", "now", "still", "again", "also", "then", "just"))
"""Words a repeated clause may add or drop: articles and a few adverbs of time."""
MIN_CLAUSE_WORDS = 4
"""Repeated clauses shorter than this are kept (see the module)."""
_CLAUSE = re.compile(r"[^,;.!?…]+[,;.!?…]*")
_LINKS = frozenset(("and", "then"))
_AGAIN = ("again",)


def clause_key(clause: str) -> tuple[str, ...]:
    """The clause's comparable words (see the module).

    >>> clause_key(" and walk to the window again,")
    ('walk', 'to', 'window')
    >>> clause_key("The trapdoor is now sealed.") == clause_key("the trapdoor is sealed")
    True
    """
    return tuple(filterfalse(IDLE_WORDS.__contains__, _linked_words(clause)))


def _linked_words(clause: str) -> list[str]:
    """The clause's words without a leading "and"/"then" and a trailing "again"."""
    words = plain_words(clause)
    if words and words[0] in _LINKS:
        words = words[1:]
    if tuple(words[-1:]) == _AGAIN:
        words = words[:-1]
    return words


def _long(clause: str) -> bool:
    return len(_linked_words(clause)) >= MIN_CLAUSE_WORDS


def before_repeated_clause(text: str) -> str:
    """`text` up to its first long clause that repeats an earlier one (see the module).

    >>> before_repeated_clause("open the box on the table, open the box on the table again")
    'open the box on the table'
    >>> before_repeated_clause("No, no, no!")
    'No, no, no!'
    """
    text = without_stutter(text)
    seen: set[tuple[str, ...]] = set()
    for match in _CLAUSE.finditer(text):
        key = clause_key(match.group())
        if key in seen and _long(match.group()):
            return text[: match.start()].rstrip().rstrip(",;")
        seen.add(key)
    return text


def without_loops(reply: CharacterReply) -> CharacterReply:
    """`reply` with each field cut before its first repeated clause."""
    # The fields read in place: `model_dump` copied the whole reply to read three strings.
    cut = {
        field: before_repeated_clause(text)
        for field in type(reply).model_fields
        if isinstance(text := getattr(reply, field), str)
    }
    changed = {field: text for field, text in cut.items() if text != getattr(reply, field)}
    return reply.model_copy(update=changed) if changed else reply
