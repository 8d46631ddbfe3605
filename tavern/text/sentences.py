"""Sentences: the one splitter of the kernel and the one sentence key.

A sentence ends at `.`, `!`, `?` or `…` (and any closing quote or bracket after it) before
whitespace or the end, or at a line break. The redaction mask `[...]` ends nothing. The
sentence key is what "the same sentence" means to every repetition rule: folded words without
articles and fillers, punctuation and spacing aside.

Example:
    >>> sentences("Rain falls. The door [...] opens!\\nMaren waits")
    ['Rain falls.', 'The door [...] opens!', 'Maren waits']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from tavern.text.lexicon import Lexicon
from tavern.text.words import words

_END = re.compile(r"(?<!\[\.\.)(?<!\[\.)(?<!\[)[.!?…]+[\"'”’)\]]*(?=\s|$)|\n")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of `text`, surrounding whitespace excluded.

    Example:
        >>> sentence_spans("Go. Now!")
        [(0, 3), (4, 8)]
    """
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _END.finditer(text):
        end = m.start() if m.group() == "\n" else m.end()
        _add(text, start, end, spans)
        start = m.end()
    _add(text, start, len(text), spans)
    return spans


def _add(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        spans.append((start, end))


def sentences(text: str) -> list[str]:
    """The sentences of `text`, in order.

    Example:
        >>> sentences("Ela entra. Ninguém fala…")
        ['Ela entra.', 'Ninguém fala…']
    """
    return [text[a:b] for a, b in sentence_spans(text)]


def without_sentences(text: str, goes: Callable[[str], bool]) -> str:
    """`text` without its sentences for which `goes` holds; each kept sentence keeps the
    whitespace after it, and the result is stripped. `text` itself when none goes.

    Example:
        >>> without_sentences("Rain. Time passes.\\nWind.", lambda s: s.startswith("Time"))
        'Rain. Wind.'
    """
    spans = sentence_spans(text)
    gone = [goes(text[a:b]) for a, b in spans]
    return text if not any(gone) else kept_sentences(text, spans, gone)


def kept_sentences(text: str, spans: Sequence[tuple[int, int]], gone: Sequence[bool]) -> str:
    """`text` rebuilt from the `spans` (its `sentence_spans`) not marked `gone`, each with the
    whitespace that followed it, stripped.

    Example:
        >>> kept_sentences("A. B. C.", sentence_spans("A. B. C."), [False, True, False])
        'A. C.'
    """
    parts = []
    for i, (a, b) in enumerate(spans):
        if not gone[i]:
            parts.append(text[a : spans[i + 1][0] if i + 1 < len(spans) else b])
    return "".join(parts).strip()


def sentence_key(sentence: str, lexicon: Lexicon) -> str:
    """The one key two sentences are compared by: folded words, articles and fillers
    dropped, joined by single spaces ("" for a sentence of no word).

    Example:
        >>> from tavern.text import lexicon_for
        >>> sentence_key("The bell tolls again!", lexicon_for("en"))
        'bell tolls'
        >>> sentence_key("O sino ainda toca.", lexicon_for("pt-BR"))
        'sino toca'
    """
    return words_key(words(sentence), lexicon)


def words_key(said: Sequence[str], lexicon: Lexicon) -> str:
    """`sentence_key` of a sentence whose folded words (`words`) are `said`, for a rule that
    reads them anyway.

    Example:
        >>> from tavern.text import lexicon_for
        >>> words_key(["the", "bell", "tolls", "again"], lexicon_for("en"))
        'bell tolls'
    """
    return " ".join(w for w in said if w not in lexicon.articles and w not in lexicon.fillers)
