"""A run of two to six words said again right after itself: said once, in code.

Live (toll-house soak #29, seed 43, turns 4 and 7), the embedded model wrote "... is too
high to cross until dawn until dawn." The narration (`agents.prose`) and every field the
loop cut reads (`runner.loops`) go through `without_stutter`. A repeat with punctuation
between ("the door, the door") or of one word ("very very") is said in earnest and stays.

Speed: `STUTTER` tried at every word costs ~0.34 us a character (95 us for a 281-character
narration), and the runner reads several texts a beat. A run of k words said again makes
the pair of words opening it recur k words on, so a pass over the words finds the only
places a stutter can start (`stutter_starts`), and the pattern is tried there alone. Words
are compared lower-cased: a stutter joined only by the engine's rarer case equivalences
(the long s) is left as written.
"""

from __future__ import annotations

import re
from itertools import compress, count
from operator import eq

STUTTER = re.compile(r"\b(\w+(?:[ \t]+\w+){1,5}?)(?:[ \t]+\1\b)+", re.IGNORECASE)
"""A run of two to six words (the shortest that repeats), then one or more copies of it."""
MAX_RUN = 6
"""The longest run `STUTTER` repeats, in words."""
_WORD = re.compile(r"\w+")


def without_stutter(text: str) -> str:
    """`text` with each stutter said once: what `STUTTER.sub(r"\\1", text)` gives.

    >>> without_stutter("The water is too high to cross until dawn until dawn.")
    'The water is too high to cross until dawn.'
    >>> without_stutter("The door, the door! Knock knock.")
    'The door, the door! Knock knock.'
    """
    if not may_stutter(text):
        return text
    parts: list[str] = []
    at = 0
    for start in stutter_starts(text):
        found = STUTTER.match(text, start) if start >= at else None
        if found is not None:
            parts += [text[at:start], found.group(1)]
            at = found.end()
    return "".join(parts) + text[at:] if parts else text


def may_stutter(text: str) -> bool:
    """False when no pair of words recurs within `MAX_RUN` words: no stutter can be there.

    >>> may_stutter("until dawn until dawn"), may_stutter("The bell tolls. Ilse Brandt waits.")
    (True, False)
    """
    words = list(map(str.lower, _WORD.findall(text)))  # as `stutter_starts` reads them
    pairs = list(zip(words, words[1:], strict=False))
    if len(set(pairs)) == len(pairs):
        return False  # no pair recurs at all (most replies): no walk
    # A pair recurring within `MAX_RUN` words is one equal to the pair some 1 to `MAX_RUN`
    # places before it: one C-level comparison pass per distance, no walk.
    return any(any(map(eq, pairs, pairs[d:])) for d in range(1, MAX_RUN + 1))


def stutter_starts(text: str) -> list[int]:
    """The character offsets, in order, of the words whose pair with the next word recurs
    two to `MAX_RUN` words on: where a stutter may start.

    >>> stutter_starts("cross until dawn until dawn")
    [6]
    """
    found = list(_WORD.finditer(text))
    words = list(map(str.lower, map(re.Match.group, found)))
    pairs = list(zip(words, words[1:], strict=False))
    # Word j starts one when its pair recurs d = 2 to `MAX_RUN` words on: per distance, the
    # places where the pairs d apart are equal, found by one C-level comparison pass.
    return sorted(
        {
            found[j].start()
            for d in range(2, MAX_RUN + 1)
            for j in compress(count(), map(eq, pairs, pairs[d:]))
        }
    )
