"""Repetition in a model's prose, cut in code: runaway loops, and retelling earlier beats.

Five ten-to-twelve-turn live sessions on the embedded 0.5B model: most narrations of more
than 250 words repeated the same sentences, in a cycle, until the schema's length cap closed
the string mid-word ("... The coffin lies open in the middle of the hall. Dorotea Sand walks
slow"); two repeated one clause ("I read aloud, and I read aloud, and ...") for 330 words.
A reader was shown the same three sentences eight times. Narration is reader-facing only (it
never enters any agent's memory), so cutting it loses nothing an agent relies on; the journal
keeps the model's whole answer.

`cut_runaway` keeps the text up to the first sign of a loop:
- a sentence of `MIN_SENTENCE_WORDS` or more words that already occurred, word for word
  (case, spacing, punctuation and articles aside: `ARTICLES`), as a sentence or as a clause
  of one (`clause_keys`), ends the text before it; so
  does a shorter one said again right after itself ("Someone speaks. Someone speaks.",
  vintners-wake soak #23, seed 36, turns 3 and 5, with "Time passes. Time passes.");
- a run of `MIN_UNIT_WORDS` to `MAX_UNIT_WORDS` words said `LOOP_COPIES` times in a row ends
  the text after its first copy, when the text ran to its cap (or no cap is given): such a
  loop never stopped by itself live, and looking for it costs more than the rest together.
When the text reached the cap, its unfinished last sentence is dropped too, if a finished one
precedes it.

`drop_retold` removes the sentences an earlier narration already told word for word. The same
sessions opened nearly every narration with the scene's three standing facts, beat after beat.
"""

from __future__ import annotations

import operator
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from functools import lru_cache
from itertools import filterfalse, repeat

MIN_SENTENCE_WORDS = 4
"""Shorter sentences may recur on purpose ("The bell tolls." as a refrain)."""
MIN_UNIT_WORDS = 3
MAX_UNIT_WORDS = 12
LOOP_COPIES = 3
"""A clause said three times in a row is a loop ("knock, knock" repeats single words only)."""
TRAILING_OFF = "…"

_SENTENCE_STOP = re.compile(r"[.!?…](?<![\[.][.!?…])[.!?…]*[\"'”’)\]]*(?=\s|$)")
"""A sentence's end punctuation, not after "[" or "." (so the dots of the mask "[...]",
`physics.redaction.MASK`, end nothing). The look back follows the first mark, so that the
engine scans for the marks instead of trying the look back at every position (3x faster on
a narration than with the look back first)."""
_WORD = re.compile(r"\S+")
_ENDS_SENTENCE = re.compile(r"[.!?…][\"'”’)\]]*$")
_CLAUSE_END = frozenset(".,;:!?…")
PUNCTUATION = ".,;:!?…\"'“”‘’()[]—–-"
"""What a word is stripped of before words are compared."""


def cut_runaway(text: str, cap: int | None = None) -> str:
    """`text` up to its first repeated sentence or looping clause (see the module).

    Args:
        text: A model's prose.
        cap: The length limit the answer was constrained to (its schema's `maxLength`); a text
            that long was closed by the limit, so its last sentence may be unfinished.

    Examples:
        >>> cut_runaway("The door is shut. A bell rings. The door is shut. A bell rings.")
        'The door is shut. A bell rings.'
        >>> cut_runaway("She read aloud, and I read aloud, and I read aloud, and I read aloud")
        'She read aloud, and I read aloud…'
        >>> cut_runaway("Rain falls. The candles gutter low and", cap=38)
        'Rain falls.'
    """
    capped = cap is not None and len(text) >= cap
    kept = text
    while True:  # a cut can leave a shorter loop inside the copy it keeps
        shorter = _before_repeated_sentence(kept)
        if cap is None or capped:
            shorter = _through_first_copy(shorter)
        if shorter == kept:
            break
        kept = shorter
    if capped and kept == text:
        kept = _finished_sentences(kept)
    return kept.strip()


def drop_retold(text: str, told: AbstractSet[str]) -> str:
    """`text` without its sentences whose `sentence_keys` are in `told`, and without an
    unfinished last sentence that begins a told one (the model closed "The trapd" mid-word).

    >>> told = sentence_keys("The coffin lies open in the hall. Rain falls.")
    >>> drop_retold("The coffin lies open  in the hall. A door bangs upstairs.", told)
    'A door bangs upstairs.'
    >>> drop_retold("A door bangs upstairs. The coffin li", told)
    'A door bangs upstairs.'
    """
    if not told:
        return text
    keys = _keys(text)
    cut_short = _begins_told(text, told)
    if told.isdisjoint(keys) and not cut_short:
        return text
    spans = sentence_spans(text)
    last = len(spans) - 1
    return "".join(
        text[start:end]
        for i, ((start, end), key) in enumerate(zip(spans, keys, strict=False))
        if key not in told and not (cut_short and i == last)
    ).strip()


def _begins_told(text: str, told: AbstractSet[str]) -> bool:
    """Whether `text` ends in an unfinished sentence whose words begin a told sentence."""
    tail = text.rstrip()
    if not tail or _ENDS_SENTENCE.search(tail):
        return False
    start, end = sentence_spans(tail)[-1]
    words = _key_words(tail[start:end])
    if words and any(article.startswith(words[-1]) for article in ARTICLES):
        words.pop()  # "... in th": the key has no article to begin
    plain = " ".join([w for w in words if w not in ARTICLES])
    return bool(plain) and any(key.startswith(plain) for key in told)


def repeats_a_sentence(text: str) -> bool:
    """Whether a finished sentence of `text` repeats an earlier one word for word: what
    `cut_runaway` cuts first. Not cached: a streamed answer asks once per token.

    >>> repeats_a_sentence("The door is shut. A bell rings. The door is shut")
    False
    >>> repeats_a_sentence("The door is shut. A bell rings. The door is shut.")
    True
    """
    texts = sentence_texts(text)[:-1]  # the last one may go on
    keys = list(map(_key, texts))
    return _first_repeat(keys, texts) is not None or _first_stutter(keys) is not None


@lru_cache(maxsize=64)
def plain_words(text: str) -> list[str]:
    """The lower-case words of `text` without their punctuation (`PUNCTUATION`).

    >>> plain_words('"Open it," she said -- twice.')
    ['open', 'it', 'she', 'said', 'twice']
    """
    return list(filter(None, map(str.strip, text.lower().split(), repeat(PUNCTUATION))))


@lru_cache(maxsize=256)  # `told.told_sentences` reads each narration's for eight beats
def sentence_keys(text: str) -> frozenset[str]:
    """The sentences of `text` long enough to count as told (`MIN_SENTENCE_WORDS`), each as
    its lower-case words without punctuation and `ARTICLES`."""
    return frozenset(key for key in _keys(text) if key and not key.startswith(SHORT))


def ordered_sentence_keys(text: str) -> tuple[str, ...]:
    """`sentence_key` of each sentence of `text`, short ones included, in the order of
    `sentence_spans` (cached with the keys `sentence_keys` reads)."""
    return _keys(text)


@lru_cache(maxsize=64)
def _keys(text: str) -> tuple[str, ...]:
    """`_key` of each sentence, in the order of `sentence_spans` (plus, last, the blank rest
    of the text after its final stop, if any: its key is ""). Cached: a narration's keys are
    read when it is cut, when it is checked against the told sentences, and when it is told."""
    return tuple(map(_key, sentence_texts(text)))


def sentence_texts(text: str) -> list[str]:
    """The sentences of `text` without their end punctuation, in the order of
    `sentence_spans` (one C-level split; the last may be the blank rest of the text)."""
    return _SENTENCE_STOP.split(text)


ARTICLES = frozenset(("a", "an", "the"))
"""Words a retelling may swap without telling anything new: toll-house soak #18 (seed 35),
turn 2, told the turn-1 event "Ilse Brandt is presented to Maren Holt and Teodor Vask in the
toll house at the river crossing." again with "a toll house"."""


SHORT = "\x00"
"""Opens the key of a sentence shorter than `MIN_SENTENCE_WORDS`: only a stutter reads it."""


def sentence_key(sentence: str) -> str:
    """One sentence's key as `sentence_keys` makes it, uncached (`SHORT` marks a short one).

    >>> sentence_key("The door, shut!") == sentence_key("the door shut")
    True
    """
    return _key(sentence)


def _key(sentence: str) -> str:
    """The sentence's lower-case words without punctuation and `ARTICLES` (a capped copy may
    lack its full stop), after `SHORT` when it is shorter than `MIN_SENTENCE_WORDS`; "" for
    a sentence without words."""
    words = _key_words(sentence)
    key = " ".join(filterfalse(ARTICLES.__contains__, words))
    return SHORT + key if key and len(words) < MIN_SENTENCE_WORDS else key


_NO_PUNCTUATION = str.maketrans(dict.fromkeys(PUNCTUATION, " "))


def _key_words(text: str) -> list[str]:
    """The lower-case words of `text`, its punctuation read as spaces (one C-level pass)."""
    return text.lower().translate(_NO_PUNCTUATION).split()


def _before_repeated_sentence(text: str) -> str:
    keys = _keys(text)
    found = [
        i
        for i in (_first_repeat(keys, sentence_texts(text)), _first_stutter(keys))
        if i is not None
    ]
    return text if not found else text[: sentence_spans(text)[min(found)][0]]


def _first_stutter(keys: Iterable[str]) -> int | None:
    """The position of the first sentence equal to the one right before it, however short
    (`_key` marks a short one with `SHORT`), or None."""
    before = ""
    for index, key in enumerate(keys):
        if key and key == before:
            return index
        before = key
    return None


def _first_repeat(keys: Iterable[str], texts: Sequence[str] = ()) -> int | None:
    """The position of the first key ("" and short ones aside) equal to an earlier one, or
    to a clause of an earlier sentence of `texts` (the sentences the keys were made of; see
    `clause_keys`), or None."""
    seen: dict[str, int] = {}  # key -> the index of its sentence
    for index, key in enumerate(keys):
        if key in seen:
            return index
        if key and not key.startswith(SHORT):
            # Clauses are split only for an earlier sentence whose key holds this one.
            if texts and any(
                key in k and i < len(texts) and key in clause_keys(texts[i])
                for k, i in seen.items()
            ):
                return index
            seen[key] = index
    return None


_CLAUSE_MARK = re.compile(r"[,;:]")
CLAUSE_OPENERS = frozenset(("and", "but", "then", "so", "or", "while", "as"))
"""Words that join a clause to the one before it: "..., and the coffin lies open" tells the
clause "the coffin lies open"."""


def clause_keys(sentence: str) -> list[str]:
    """The keys of the clauses of a sentence that has more than one (split at a comma, a
    semicolon or a colon, without a joining word of `CLAUSE_OPENERS`), each of
    `MIN_SENTENCE_WORDS` words or more. A sentence said again after it was told as a clause is
    a loop too: live (vintners-wake #59, seed 75, turn 8), "The coffin lies open in the middle
    of the hall, and Dorotea Sand opens the coffin. The coffin lies open in the middle of the
    hall." was narrated.

    >>> clause_keys("The coffin lies open in the hall, and Dorotea Sand opens the coffin.")
    ['coffin lies open in hall', 'dorotea sand opens coffin']
    >>> clause_keys("Rain falls, softly."), clause_keys("The coffin lies open in the hall.")
    ([], [])
    """
    if not _CLAUSE_MARK.search(sentence):
        return []
    found = []
    for clause in _CLAUSE_MARK.split(sentence):
        words = _key_words(clause)
        if words and words[0] in CLAUSE_OPENERS:
            words = words[1:]
        if len(words) >= MIN_SENTENCE_WORDS:
            found.append(" ".join([w for w in words if w not in ARTICLES]))
    return found


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Spans of the sentences of `text`; the last one may be unfinished."""
    spans, start = [], 0
    for stop in _SENTENCE_STOP.finditer(text):
        spans.append((start, stop.end()))
        start = stop.end()
    if text[start:].strip():
        spans.append((start, len(text)))
    return spans


def _through_first_copy(text: str) -> str:
    """The text through the first copy of its earliest looping clause, trailing off."""
    words = [word.strip(PUNCTUATION) for word in text.lower().split()]
    if not _may_loop(words):
        return text
    spans = [m.span() for m in _WORD.finditer(text)]
    earliest: tuple[int, int, bytes] | None = None
    for unit in range(MIN_UNIT_WORDS, MAX_UNIT_WORDS + 1):
        # same[j] is 1 where word j equals word j + unit; a loop is a run of (copies-1)*unit.
        same = bytes(map(operator.eq, words, words[unit:]))
        at = same.find(b"\x01" * ((LOOP_COPIES - 1) * unit))
        if at != -1 and (earliest is None or at < earliest[0]):
            earliest = (at, unit, same)
    if earliest is None:
        return text
    at, unit, same = earliest
    run_end = same.find(b"\x00", at)
    last_start = (len(same) if run_end == -1 else run_end) - (LOOP_COPIES - 1) * unit
    # A rotation of the unit also begins a loop: prefer a first copy that ends a clause.
    ends_clause = (
        start
        for start in range(at, min(last_start, at + unit - 1) + 1)
        if text[spans[start + unit - 1][1] - 1] in _CLAUSE_END
    )
    at = next(ends_clause, at)
    head = text[: spans[at + unit][0]].rstrip(" \t\n,;:—–-")
    return head if _ENDS_SENTENCE.search(head) else head + TRAILING_OFF


def _may_loop(words: list[str]) -> bool:
    """False when no clause can loop: a loop says its first `MIN_UNIT_WORDS` words (all in
    its unit) `LOOP_COPIES` times. Ordinary prose almost never does, so the exact search
    mostly does not run (8 of 2,000 benchmark narrations)."""
    grams = list(zip(*(words[k:] for k in range(MIN_UNIT_WORDS)), strict=False))
    if len(set(grams)) > len(grams) - (LOOP_COPIES - 1):  # no gram can occur that often
        return False
    return max(Counter(grams).values()) >= LOOP_COPIES


def _finished_sentences(text: str) -> str:
    """`text` without its unfinished last sentence, when a finished one precedes it."""
    stripped = text.rstrip()
    if _ENDS_SENTENCE.search(stripped):
        return text
    finished = [end for _, end in sentence_spans(stripped)[:-1]]
    return stripped[: finished[-1]] if finished else text
