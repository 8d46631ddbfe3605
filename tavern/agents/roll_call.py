"""A narration's roll call: one sentence told again for each member of the cast, cut in code.

Live, the embedded 0.5B renderer told one observation once per name (toll-house soak #23,
seed 40, turn 3): "Ilse Brandt sees the toll box and realizes that it has been locked. Maren
Holt sees the toll box and realizes that it has been locked. Teodor Vask sees the toll box and
realizes that it has been locked". `repetition.cut_runaway` compares whole sentences, so the
names kept each copy apart.

A sentence goes when its words, with every cast name read as one placeholder, are an earlier
sentence's of the narration, and at least `MIN_SENTENCE_WORDS` of them are not a name: the
first telling stays. "Maren nods. Teodor nods." (a beat of short reactions) stays.

A sentence of cast names alone, the prompt's roster, goes too (`drop_roster`), and so does
one that puts the listed names where the stage is: the "Present:" line and the location of
the prompt's scene, copied as one sentence ("Agnese Corvo, Brother Caspar, Lio Mendez,
Dorotea Sand, Felix Aubert are at the vintner's house on the hill, with a stone house
inside.", vintners-wake soak #36, seed 51, turn 5), or only says they are there ("Ilse
Brandt, Maren Holt, and Teodor Vask are present.", toll-house #41, seed 55, turn 8).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache

from tavern.agents.repetition import MIN_SENTENCE_WORDS, SHORT, sentence_key, sentence_spans
from tavern.physics.acts import without_sentences

PRESENCE_VERBS = frozenset("are is were was stand stands stood remain remains remained".split())
"""How a roster says where its names are, before a place: "... are at the vintner's house"."""
PLACE_WORDS = frozenset(
    "at in inside on upon by near within beside around with of and all together gathered".split()
)
"""Words of a place clause that any stage may do without: prepositions and gatherings."""

HERE = frozenset(("present", "here", "there"))
"""A place clause that names no place: the roster says only that its names are there."""

NAME_MARK = "\x01"
"""What a cast name becomes in a sentence's key: no word of prose holds it."""

STATE_ADVERBS = frozenset(("now", "still", "already", "again", "yet"))
"""Words that add no state to a restated fact."""


def drop_roll_call(text: str, names: Sequence[str]) -> str:
    """`text` without each sentence that repeats an earlier one but for the cast names.

    >>> names = ["Ilse Brandt", "Maren Holt"]
    >>> drop_roll_call("Ilse Brandt sees the box is locked. Maren Holt sees the box is locked.",
    ...                names)
    'Ilse Brandt sees the box is locked.'
    >>> drop_roll_call("Ilse Brandt nods. Maren Holt nods.", names)
    'Ilse Brandt nods. Maren Holt nods.'
    """
    seen: set[str] = set()

    def repeats(sentence: str, pattern: re.Pattern[str]) -> bool:
        key = _key(pattern.sub(f" {NAME_MARK} ", sentence))
        if key is None:
            return False
        if key in seen:
            return True
        seen.add(key)
        return False

    return _without(text, names, repeats)


def drop_roster(
    text: str, names: Sequence[str], stage: Sequence[str] = (), events: Sequence[str] = ()
) -> str:
    """`text` without its sentences of two or more cast names and nothing else (but "and"),
    or of such names then a presence verb or a preposition and a place told in the words of
    `stage` (the prompt's location, description and staging) that this beat's `events` do not
    all hold (a roster telling a move of the beat tells news): the prompt's roster, not a
    story. "Ilse Brandt, Maren Holt, Teodor Vask." was a whole narration (toll-house seed 40
    on the final code of stop 20, turn 7); vintners-wake #60 (seed 76, turn 3) narrated the
    staging line, "Lio Mendez in the vaulted wine cellar beneath the hall, Brother Caspar in
    the vaulted wine cellar beneath the hall, ...".

    >>> names = ["Ilse Brandt", "Maren Holt"]
    >>> drop_roster("Ilse Brandt and Maren Holt. The lamp gutters.", names)
    'The lamp gutters.'
    >>> drop_roster("Ilse Brandt nods at Maren Holt.", names)
    'Ilse Brandt nods at Maren Holt.'
    >>> drop_roster("Ilse Brandt and Maren Holt are at the toll house.", names, ["toll house"])
    ''
    >>> drop_roster("Ilse Brandt and Maren Holt are at the door.", names, ["toll house"])
    'Ilse Brandt and Maren Holt are at the door.'
    >>> drop_roster("Rain. Ilse Brandt and Maren Holt are present.", names)
    'Rain.'
    >>> drop_roster("Ilse Brandt by the hearth, Maren Holt at the door.", names, ["hearth door"])
    ''
    """
    stage_words = _words(tuple(stage))
    news = _words(tuple(events))
    return _without(text, names, lambda sentence, p: _is_roster(sentence, p, stage_words, news))


def _without(text: str, names: Sequence[str], goes: Callable[[str, re.Pattern[str]], bool]) -> str:
    """`text` without the sentences `goes` picks, in order, given the pattern of the cast's
    `names`; `text` itself when it names the cast fewer than twice or nothing goes."""
    pattern = _names_pattern(tuple(names))
    if pattern is None or not _names_twice(pattern, text):
        return text
    return without_sentences(text, lambda sentence: goes(sentence, pattern), sentence_spans)


@lru_cache(maxsize=16)  # `drop_roll_call` and `drop_roster` ask it of the same narration
def _names_twice(pattern: re.Pattern[str], text: str) -> bool:
    """Whether `pattern` (the cast's names) matches `text` twice or more."""
    return len(pattern.findall(text)) >= 2


def _is_roster(
    sentence: str, pattern: re.Pattern[str], stage: frozenset[str], news: frozenset[str]
) -> bool:
    if len(pattern.findall(sentence)) < 2:
        return False
    rest = sentence_key(pattern.sub(" ", sentence)).removeprefix(SHORT).split()
    while rest and rest[0] == "and":
        del rest[0]
    if not rest:
        return True
    if rest[0] in PRESENCE_VERBS:
        rest = rest[1:]
    elif rest[0] not in PLACE_WORDS:  # "Name in <place>, Name in <place>": the staging line
        return False
    place = [w for w in rest if w not in PLACE_WORDS and w not in STATE_ADVERBS]
    if all(w in HERE for w in place):  # "are present", "are all here"
        return True
    return all(w in stage for w in place) and not all(w in news for w in place)


@lru_cache(maxsize=32)
def _words(texts: tuple[str, ...]) -> frozenset[str]:
    return frozenset(w for text in texts for w in sentence_key(text).removeprefix(SHORT).split())


def _key(marked: str) -> str | None:
    """The sentence's comparable words when it names the cast and has enough other words.
    (`sentence_key`, not the cached `sentence_keys`: these one-sentence texts would push the
    narrations' keys out of that cache.)"""
    words = sentence_key(marked).removeprefix(SHORT).split()
    if NAME_MARK not in words or len(words) - words.count(NAME_MARK) < MIN_SENTENCE_WORDS:
        return None
    return " ".join(words)


@lru_cache(maxsize=64)
def _names_pattern(names: tuple[str, ...]) -> re.Pattern[str] | None:
    longest_first = sorted((n for n in names if n.strip()), key=len, reverse=True)
    alternatives = "|".join(re.escape(n) for n in longest_first)
    return re.compile(rf"\b(?:{alternatives})\b", re.IGNORECASE) if alternatives else None
