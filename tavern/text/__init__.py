"""The text layer: words, sentences, one sentence key, and a lexicon per language.

Standard library and `tavern.records` only. Every rule that reads words (filters, clamps,
the contract, the guards) tokenizes and splits here, so "a word" and "the same sentence"
mean one thing across the kernel, in English and Brazilian Portuguese alike.

Example:
    >>> from tavern.text import lexicon_for, sentence_key, sentences
    >>> [sentence_key(s, lexicon_for("en")) for s in sentences("The door opens. A door opens.")]
    ['door opens', 'door opens']
"""

from __future__ import annotations

from tavern.text import en, pt_br
from tavern.text.lexicon import (
    LANGUAGES,
    Lexicon,
    all_stop_words,
    lexicon_for,
    register_lexicon,
)
from tavern.text.sentences import (
    kept_sentences,
    sentence_key,
    sentence_spans,
    sentences,
    without_sentences,
    words_key,
)
from tavern.text.words import (
    WORD,
    content_set,
    content_words,
    fold,
    is_content,
    shares_run,
    without_foreign_script,
    word_runs,
    word_spans,
    words,
)

register_lexicon(en.LEXICON)
register_lexicon(pt_br.LEXICON)

__all__ = [
    "LANGUAGES",
    "WORD",
    "Lexicon",
    "all_stop_words",
    "content_set",
    "content_words",
    "fold",
    "is_content",
    "kept_sentences",
    "lexicon_for",
    "register_lexicon",
    "sentence_key",
    "sentence_spans",
    "sentences",
    "shares_run",
    "word_runs",
    "word_spans",
    "without_foreign_script",
    "without_sentences",
    "words",
    "words_key",
]
