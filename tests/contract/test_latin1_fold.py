"""`fold` of a Latin-1 text by a byte table equals the old per-character fold.

The old `fold` (kept below as the reference) lower-cases the whole text and then maps the
engine's extra case equivalences. A Latin-1 text now folds by `bytes.translate` with a table
built from the old fold of each Latin-1 character. The property compares both on generated
texts (Latin-1, ASCII, and wider characters that take the old path). The negative control
plants a table that lower-cases ASCII only and shows the property failing.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.contract import _prefilter
from tavern.contract._prefilter import _CANON, fold


def _old_fold(text: str) -> str:
    folded = text.replace("\u0130", "i").lower() if "\u0130" in text else text.lower()
    if not folded.isascii():
        for other, rep in _CANON.items():
            if other in folded:
                folded = folded.replace(other, rep)
    return folded


LATIN1 = st.characters(max_codepoint=0xFF)
WIDER = st.sampled_from(["\u0130", "\u0131", "\u017f", "\u03a3", "\u03c2", "\u2014", "\u1e9e"])
texts = st.one_of(st.text(LATIN1, max_size=60), st.text(st.one_of(LATIN1, WIDER), max_size=60))


@settings(max_examples=500, deadline=None)
@given(texts)
def test_fold_equals_the_old_fold(text: str) -> None:
    assert fold.__wrapped__(text) == _old_fold(text)


def test_every_latin1_character_folds_as_before() -> None:
    every = "".join(map(chr, range(256)))
    assert fold.__wrapped__(every) == _old_fold(every)
    assert len(fold.__wrapped__(every)) == 256


def test_negative_control_an_ascii_only_table_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    ascii_only = bytes(ord(chr(code).lower()) if code < 128 else code for code in range(256))
    monkeypatch.setattr(_prefilter, "_LATIN1_FOLD", ascii_only)  # planted: "À" stays upper
    assert fold.__wrapped__("O JOGADOR À") != _old_fold("O JOGADOR À")
