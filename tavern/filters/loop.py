"""Rule `loop`: a text that says something of its own again ends before the repetition.

Sentences are compared by the sentence key (`text.sentence_key`: folded words, articles and
fillers aside), so "The door is now shut." repeats "The door is shut". Narration: the text
is cut from the first sentence (four words or more) or clause whose key came before, and
from a short sentence said twice in a row; a run of three to twelve words said three times
ends a text that ran to its limit after its first copy, and such a text loses its
unfinished last sentence; a sentence that is an earlier one but for cast names goes. A
reply's field is cut before the first clause of four words or more that repeats one.
Everywhere, a run of two to six words said twice in a row is said once.

Example: "The door is shut. A bell rings. The door is shut. A bell rings." -> "The door is
shut. A bell rings."
"""

from __future__ import annotations

import operator
import re
from collections import Counter

from tavern.filters.context import FilterContext, Target
from tavern.filters.rule import BOTH, EVERY, TextRule
from tavern.physics.acts import Names
from tavern.text import Lexicon, kept_sentences, sentence_key, sentence_spans, words

MIN_SENTENCE_WORDS = 4
"""Shorter sentences and clauses may recur on purpose ("The bell tolls." as a refrain)."""
MIN_UNIT_WORDS = 3
MAX_UNIT_WORDS = 12
LOOP_COPIES = 3
"""A clause said three times in a row is a loop ("knock, knock" repeats single words only)."""
TRAILING_OFF = "…"
STUTTER = re.compile(r"\b(\w+(?:[ \t]+\w+){1,5}?)(?:[ \t]+\1\b)+", re.IGNORECASE)
"""A run of two to six words (the shortest that repeats), then one or more copies of it."""
_CLAUSE_MARK = re.compile(r"[,;:]")
_CLAUSE = re.compile(r"[^,;.!?…]+[,;.!?…]*")
_WORD = re.compile(r"\S+")
_ENDS_SENTENCE = re.compile(r"[.!?…][\"'”’)\]]*$")
_CLAUSE_END = frozenset(".,;:!?…")
_PUNCTUATION = ".,;:!?…\"'“”‘’()[]—–-*"
NAME = "\x01"
"""What a cast name (or a leading pronoun) becomes in a sentence's shape."""


def without_stutter(text: str) -> str:
    """`text` with each stutter said once.

    >>> without_stutter("The water is too high to cross until dawn until dawn.")
    'The water is too high to cross until dawn.'
    >>> without_stutter("The door, the door! Knock knock.")
    'The door, the door! Knock knock.'
    """
    return STUTTER.sub(r"\1", text)


def clause_keys(sentence: str, lex: Lexicon) -> list[str]:
    """The keys of the clauses of a sentence that has more than one, each of
    `MIN_SENTENCE_WORDS` words or more, a joining conjunction aside.

    >>> from tavern.text import lexicon_for
    >>> clause_keys("The coffin lies open in the hall, and Sand opens it.", lexicon_for("en"))
    ['coffin lies open in hall']
    """
    if not _CLAUSE_MARK.search(sentence):
        return []
    found = []
    for clause in _CLAUSE_MARK.split(sentence):
        said = words(clause)
        if said and said[0] in lex.conjunctions:
            said = said[1:]
        if len(said) >= MIN_SENTENCE_WORDS:
            found.append(sentence_key(" ".join(said), lex))
    return found


def _first_repeat(sentences: list[str], lex: Lexicon) -> int | None:
    """The index of the first sentence repeating an earlier long one, or a clause of one, or
    said again right after itself however short; None when there is none."""
    seen: dict[str, int] = {}
    before: tuple[str, int] | None = None
    for index, sentence in enumerate(sentences):
        key, count = sentence_key(sentence, lex), len(words(sentence))
        if key and (key, count) == before:
            return index
        before = (key, count)
        if not key or count < MIN_SENTENCE_WORDS:
            continue
        if key in seen or any(
            key in k and key in clause_keys(sentences[i], lex) for k, i in seen.items()
        ):
            return index
        seen[key] = index
    return None


def repeats_a_sentence(text: str, lex: Lexicon) -> bool:
    """Whether a finished sentence of `text` repeats an earlier one (what the rule cuts
    first): the prose renderer's early stop asks it of the answer as it streams.

    >>> from tavern.text import lexicon_for
    >>> en = lexicon_for("en")
    >>> repeats_a_sentence("The door is shut. A bell rings. The door is shut", en)
    False
    >>> repeats_a_sentence("The door is shut. A bell rings. The door is shut.", en)
    True
    """
    spans = sentence_spans(text)
    finished = spans if _ENDS_SENTENCE.search(text.rstrip()) else spans[:-1]
    return _first_repeat([text[a:b] for a, b in finished], lex) is not None


def _may_loop(said: list[str]) -> bool:
    """False when no clause can loop: a loop says its first `MIN_UNIT_WORDS` words
    `LOOP_COPIES` times."""
    grams = list(zip(*(said[k:] for k in range(MIN_UNIT_WORDS)), strict=False))
    return bool(grams) and max(Counter(grams).values()) >= LOOP_COPIES


def _through_first_copy(text: str) -> str:
    """The text through the first copy of its earliest looping clause, trailing off."""
    said = [word.strip(_PUNCTUATION) for word in text.lower().split()]
    if not _may_loop(said):
        return text
    spans = [m.span() for m in _WORD.finditer(text)]
    earliest: tuple[int, int, bytes] | None = None
    for unit in range(MIN_UNIT_WORDS, MAX_UNIT_WORDS + 1):
        # same[j] is 1 where word j equals word j + unit; a loop is a run of (copies-1)*unit.
        same = bytes(map(operator.eq, said, said[unit:]))
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


def _shape(sentence: str, names: Names, lex: Lexicon) -> tuple[str, int]:
    """The sentence's key with each cast name, and a leading pronoun, as `NAME`; and how
    many of its words are not."""
    said = [w for w in words(sentence) if w not in lex.articles and w not in lex.fillers]
    out: list[str] = []
    i = 0
    while i < len(said):
        found = names.at(said, i)
        if found is not None or (i == 0 and said[i] in lex.pronouns):
            if not out or out[-1] != NAME:
                out.append(NAME)
            i = found[1] if found is not None else i + 1
        else:
            out.append(said[i])
            i += 1
    return " ".join(out), sum(w != NAME for w in out)


def _without_roll_call(text: str, names: Names, lex: Lexicon) -> str:
    """`text` without each sentence that is an earlier one but for its cast names."""
    spans = sentence_spans(text)
    if len(spans) < 2:
        return text
    seen: set[str] = set()
    gone = []
    for a, b in spans:
        shape, rest = _shape(text[a:b], names, lex)
        repeat = NAME in shape and rest >= MIN_SENTENCE_WORDS and shape in seen
        seen.add(shape)
        gone.append(repeat)
    return text if not any(gone) else kept_sentences(text, spans, gone)


def _narration(text: str, capped: bool, names: Names, lex: Lexicon) -> str:
    kept = text
    while True:  # a cut can leave a shorter loop inside the copy it keeps
        spans = sentence_spans(kept)
        found = _first_repeat([kept[a:b] for a, b in spans], lex)
        shorter = kept if found is None else kept[: spans[found][0]].rstrip()
        if capped:
            shorter = _through_first_copy(shorter)
        if shorter == kept:
            break
        kept = shorter
    if capped and kept == text and not _ENDS_SENTENCE.search(kept.rstrip()):
        spans = sentence_spans(kept)
        if len(spans) > 1:
            kept = kept[: spans[-2][1]]
    return _without_roll_call(without_stutter(kept), names, lex).strip()


def before_repeated_clause(text: str, lex: Lexicon) -> str:
    """`text` up to its first clause of `MIN_SENTENCE_WORDS` words or more that repeats an
    earlier one, a leading conjunction and the language's fillers aside.

    >>> from tavern.text import lexicon_for
    >>> en = lexicon_for("en")
    >>> before_repeated_clause("open the box on the table, open the box on the table again", en)
    'open the box on the table'
    >>> before_repeated_clause("No, no, no!", en)
    'No, no, no!'
    """
    seen: set[str] = set()
    for match in _CLAUSE.finditer(text):
        said = words(match.group())
        if said and said[0] in lex.conjunctions:
            said = said[1:]
        key = sentence_key(" ".join(said), lex)
        if key in seen and len(said) >= MIN_SENTENCE_WORDS:
            return text[: match.start()].rstrip().rstrip(",;")
        seen.add(key)
    return text


def _repair(text: str, target: Target, ctx: FilterContext) -> str:
    lex = ctx.lexicon
    if target == "narration":
        return _narration(text, target in ctx.capped, Names.of(ctx.cast), lex)
    return before_repeated_clause(without_stutter(text), lex)


RULE = TextRule("loop", EVERY, BOTH, _repair)
