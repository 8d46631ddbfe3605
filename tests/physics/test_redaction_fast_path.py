"""Salient tokens and redaction equal their plain forms, on any text.

`salient_tokens` runs C-level passes with an `isalpha` shortcut, and `redact` hands back an
already-normalized hidden set itself. Both are compared with the definitions as first
written, on generated Unicode text (digits, letters with accents, other numerals, mixed
case); the negative control plants a shortcut that forgets a word's digits and is caught.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.physics import redaction
from tavern.physics.redaction import MASK, STOPWORDS, normalize, redact, salient_tokens

_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def _plain_is_salient(word: str) -> bool:
    norm = normalize(word)
    if any(ch.isdigit() for ch in norm):
        return len(norm) >= 2
    return len(norm) >= 3 and norm not in STOPWORDS


def _plain_salient_tokens(text: str) -> frozenset[str]:
    return frozenset(normalize(w) for w in _WORD.findall(text) if _plain_is_salient(w))


def _plain_redact(text: str, tokens: set[str]) -> str:
    hidden = {normalize(t) for t in tokens}
    return _WORD.sub(lambda m: MASK if normalize(m.group()) in hidden else m.group(), text)


_PIECES = st.sampled_from(
    ["the", "Vault", "code", "4471", "a7", "7", "x", "Ação", "ÉTÉ", "½", "٣٤", "²²", "ǅemal",
     "ﬁle", "straße", "STRASSE", "não", "you", "é", "_", "-", " ", "\n", ".", "'s", "ⅷ"]
)  # fmt: skip
_TEXTS = st.lists(_PIECES | st.text(max_size=4), max_size=24).map("".join)


@settings(max_examples=300, deadline=None)
@given(_TEXTS)
def test_salient_tokens_equal_their_plain_form(text: str) -> None:
    salient_tokens.cache_clear()
    assert salient_tokens(text) == _plain_salient_tokens(text)


@settings(max_examples=300, deadline=None)
@given(_TEXTS, st.sets(_PIECES | st.text(min_size=1, max_size=4), max_size=6), st.booleans())
def test_redact_equals_its_plain_form(text: str, tokens: set[str], frozen: bool) -> None:
    hidden: set[str] | frozenset[str] = frozenset(tokens) if frozen else tokens
    assert redact(text, hidden) == _plain_redact(text, tokens)


def test_negative_control_a_shortcut_that_forgets_digits_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def planted(norm: str) -> bool:  # the isalpha shortcut applied to every word
        return len(norm) >= 3 and norm not in STOPWORDS

    monkeypatch.setattr(redaction, "_salient_normalized", planted)
    salient_tokens.cache_clear()
    try:
        assert salient_tokens("code 42") != _plain_salient_tokens("code 42")
    finally:
        salient_tokens.cache_clear()


def test_a_hidden_set_of_normal_words_is_used_as_it_is() -> None:
    redact("warm-up", frozenset({"vault", "4471", "ação"}))  # learns they are fixed points
    redaction._normalized.cache_clear()
    hidden = frozenset({"vault", "4471", "ação"})
    assert redaction._normalized(hidden) is hidden  # no normalizing pass, no new set


def test_negative_control_a_wrong_fixed_point_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The subset shortcut trusts `_FIXED`: a word planted there that is not its own normal
    form makes redaction miss it, which the plain form shows."""
    monkeypatch.setattr(redaction, "_FIXED", {"Vault"})  # planted: normalize("Vault") is "vault"
    redaction._normalized.cache_clear()
    try:
        assert redact("the vault", {"Vault"}) != _plain_redact("the vault", {"Vault"})
    finally:
        redaction._normalized.cache_clear()
