"""The text layer: splitting, keys and lexicons, as properties, with negative controls."""

from __future__ import annotations

import importlib
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tavern.text import (
    LANGUAGES,
    content_words,
    fold,
    lexicon_for,
    sentence_key,
    sentence_spans,
    sentences,
    shares_run,
    words,
)

sentences_module = importlib.import_module("tavern.text.sentences")
"""The module (the package re-exports its function of the same name)."""

_WORDS = st.sampled_from(
    "Maren door opens the a chuva vê ela rain falls [...] 4471 d'água don't O sino".split()
)
_ENDS = st.sampled_from([". ", "! ", "? ", "… ", "\n", " ", ", ", '." ', " "])
_TEXTS = st.lists(st.tuples(_WORDS, _ENDS), max_size=30).map(
    lambda parts: "".join(w + e for w, e in parts)
)


@given(_TEXTS)
def test_sentences_cover_every_word_once_in_order(text: str) -> None:
    spans = sentence_spans(text)
    assert all(a < b for a, b in spans)
    assert all(b1 <= a2 for (_, b1), (a2, _) in zip(spans, spans[1:], strict=False))
    assert [w for s in sentences(text) for w in words(s)] == words(text)


@given(_TEXTS)
def test_no_sentence_ends_inside_the_mask(text: str) -> None:
    for s in sentences(text):
        assert not s.endswith("[...") and not s.startswith("]")


def test_mask_ends_no_sentence_negative_control(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "The [...] waits. Then rain."
    assert sentences(text) == ["The [...] waits.", "Then rain."]
    monkeypatch.setattr(sentences_module, "_END", re.compile(r"[.!?…]+|\n"))
    assert sentences(text) != ["The [...] waits.", "Then rain."]


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_language_has_every_class(language: str) -> None:
    lex = lexicon_for(language)
    for name in lex.__dataclass_fields__:
        if name != "language":
            value = getattr(lex, name)
            assert value, f"{language}: empty {name}"
            assert all(w == fold(w) for w in value), f"{language}: {name} not folded"
    assert lex.whispering <= lex.speaking


def test_unknown_language_is_refused() -> None:
    with pytest.raises(KeyError, match="supported"):
        lexicon_for("fr")


@pytest.mark.parametrize(
    ("language", "a", "b"),
    [
        ("en", "The bell tolls again.", "bell tolls"),
        ("pt-BR", "O sino ainda toca!", "O SINO toca"),
    ],
)
def test_sentence_key_ignores_articles_fillers_case_and_punctuation(
    language: str, a: str, b: str
) -> None:
    lex = lexicon_for(language)
    assert sentence_key(a, lex) == sentence_key(b, lex)
    assert sentence_key(a, lex) != sentence_key(a + " loudly", lex)  # a content word counts


def test_content_words_both_languages() -> None:
    assert content_words("Maren Holt vê a chuva", lexicon_for("pt-BR")) == [
        "maren",
        "holt",
        "chuva",
    ]
    assert content_words("Maren Holt sees the rain", lexicon_for("en")) == [
        "maren",
        "holt",
        "sees",
        "rain",
    ]


def test_shares_run() -> None:
    assert shares_run(words("under the red lamp"), words("a red lamp glows"), 2)
    assert not shares_run(words("under the red lamp"), words("a lamp red"), 2)
