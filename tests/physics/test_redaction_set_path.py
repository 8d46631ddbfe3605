"""`redact` answers a plain set that cannot match the text without freezing it, and a line
that holds no hidden word without the line cache: the answers equal `redact` as first
written, on generated texts (one line or many) and sets or frozensets whose words are (or
are not) known fixed points of `normalize`. The negative controls plant a word that is not
its own normal form among the known fixed points, and a line test on unnormalized words;
both are caught.
"""

from __future__ import annotations

from collections.abc import Iterable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.physics import redaction
from tavern.physics.redaction import MASK, normalize, redact


def _reference_redact(text: str, tokens: Iterable[str], mask: str = MASK) -> str:
    """`redact` before the plain-set shortcut."""
    hidden = redaction._normalized(tokens if isinstance(tokens, frozenset) else frozenset(tokens))
    if not hidden:
        return text
    if "\n" in text:
        return "\n".join(redaction._redact_line(line, hidden, mask) for line in text.split("\n"))
    return redaction._redact_line(text, hidden, mask)


_PIECES = st.sampled_from(
    ["the", "Vault", "vault", "code", "4471", "a7", "Ação", "ação", "ÉTÉ", "straße", "STRASSE",
     "ﬁle", "½", "ǅemal", " ", "\n", ".", "-", "_"]
)  # fmt: skip
_TEXTS = st.lists(_PIECES | st.text(max_size=3), max_size=16).map("".join)
_WORDS = st.sets(_PIECES | st.text(min_size=1, max_size=3), max_size=6)


@settings(max_examples=400, deadline=None)
@given(_TEXTS, _WORDS, st.booleans(), st.booleans())
def test_redact_equals_its_reference(text: str, tokens: set[str], warm: bool, frozen: bool) -> None:
    if warm:
        for token in tokens:  # the guards' sets: words normalize has already seen
            normalize(token)
    hidden: set[str] | frozenset[str] = frozenset(tokens) if frozen else set(tokens)
    assert redact(text, hidden) == _reference_redact(text, tokens)


def test_realistic_guard_sets() -> None:
    hidden = {normalize(w) for w in ["ledger", "4471", "mill", "ação"]}
    assert redact("The ledger lies open.\nNothing else.", hidden) == (
        "The [...] lies open.\nNothing else."
    )
    for text in ["The lamp is lit.", "A cart passes.\nRain.", "Ação!", ""]:
        assert redact(text, set(hidden)) == _reference_redact(text, hidden)


def test_negative_control_a_wrong_fixed_point_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted: "Vault", whose normal form is "vault", taken as a fixed point: the shortcut
    then finds no "Vault" among the text's normalized words and masks nothing."""
    truth = _reference_redact("the vault", {"Vault"})
    assert truth == "the [...]"
    monkeypatch.setattr(redaction, "_FIXED", {"Vault"})
    assert redact("the vault", {"Vault"}) != truth


def test_negative_control_a_line_test_on_raw_words_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Planted: the one-line test reads the text's words as written, not normalized, so
    "VAULT" seems free of the hidden "vault"."""
    truth = _reference_redact("the VAULT", frozenset({"vault"}))
    assert truth == "the [...]"
    monkeypatch.setattr(redaction, "_words", lambda text: frozenset(text.split()))
    assert redact("the VAULT", frozenset({"vault"})) != truth
