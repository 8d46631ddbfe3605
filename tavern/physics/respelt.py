"""A cast member's name written one letter off is that member's name: spelt right again.

Live (toll-house #35, seed 49), the embedded Director wrote "Ilsse Brandt (C1) arrives ...";
the projection knows names only as written (`identity._name_forms`), so "Ilsse Brandt"
reached every viewer as it stood, nearly the true name of someone they never learned, and
two beats later the Director and the renderer copied it ("Ilsse Brandt's attempts fail.",
"Ilsse Brandt attempts to cross the river"), past the rules that know the human's character
by name (agency, restatements). Spelt right at once, the name is projected for each viewer
and judged by every later rule.

Only a name of two words or more is mended, and only where all its words but one stand as
written (in order, spaces between) and that one is a single edit off (a letter added,
dropped, changed, or two swapped): "Ilsse Brandt", "Ilse Brant", "Brother Casper". A lone
word one letter off ("Else") is left alone: too many ordinary words are one edit from a
short name. A window that is exactly some cast member's name, or near two, stays as it is.
A text is read word by word only when one of a name's words stands outside that name spelt
right (counted as substrings, in C): most texts name the cast as the cast is named. So a
letter added before a name that still holds the name whole ("AIlse Brandt") is not seen.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from tavern.physics.dropping import rewrite_told
from tavern.records import Character, ClampChange, DirectorDecision

if TYPE_CHECKING:
    from tavern.physics.clamps import ClampContext

_WORD = re.compile(r"[^\W\d_]+")
MIN_MENDED_LETTERS = 3
"""A word shorter than this ("Li" for "Lio") is not mended: one edit is half of it."""


def one_edit_apart(a: str, b: str) -> bool:
    """Whether `a` becomes `b` by exactly one letter added, dropped, changed, or two
    neighbours swapped (case aside).

    >>> [one_edit_apart("Ilse", w) for w in ("Ilsse", "Ilse", "Isle", "Else", "Ilsea", "Ile")]
    [True, False, True, True, True, True]
    >>> one_edit_apart("Brandt", "Brand"), one_edit_apart("Brandt", "Bandit")
    (True, False)
    """
    a, b = a.casefold(), b.casefold()
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    if len(a) < len(b):
        return a[i:] == b[i + 1 :]
    if a[i + 1 :] == b[i + 1 :]:
        return True
    return i + 1 < len(a) and a[i] == b[i + 1] and a[i + 1] == b[i] and a[i + 2 :] == b[i + 2 :]


@lru_cache(maxsize=64)
def _names(display_names: tuple[str, ...]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(name, its words) of each cast name of two words or more, whose words are all
    letters (a name with digits or marks is left to be written right)."""
    found = []
    for name in display_names:
        words = tuple(name.split())
        if len(words) >= 2 and all(_WORD.fullmatch(w) for w in words):
            found.append((name, words))
    return tuple(found)


def respelt(text: str, cast: Mapping[str, Character]) -> str:
    """`text` with each cast name written one letter off spelt as the cast spells it.

    >>> from tavern.records import Body, Mind
    >>> cast = {"C1": Character(id="ilse", mind=Mind(), body=Body(display_name="Ilse Brandt",
    ...     description_ref="the woman in grey"))}
    >>> respelt("Ilsse Brandt's attempts fail. Ilse Brant nods. Else Brandt.", cast)
    "Ilse Brandt's attempts fail. Ilse Brandt nods. Ilse Brandt."
    >>> respelt("Ilse Brandt and Else wait.", cast)
    'Ilse Brandt and Else wait.'
    """
    return respelt_names(text, tuple(c.body.display_name for c in cast.values()))


def respelt_names(text: str, display_names: Sequence[str]) -> str:
    """`respelt` for a cast known by its display names only (the renderer's answer).

    >>> respelt_names("Dorootea Sand waits.", ["Dorotea Sand"])
    'Dorotea Sand waits.'
    """
    cast_names = _names(tuple(display_names))
    names = [
        (name, words)
        for name, words in cast_names
        if any(text.count(w) > text.count(name) for w in words)
    ]
    if not names:  # every name word in the text stands inside its name spelt right
        return text
    spans = [(m.start(), m.end(), m.group()) for m in _WORD.finditer(text)]
    exact = {words for _, words in cast_names}
    mends: dict[int, tuple[int, str] | None] = {}  # first word index -> (length, name); None: two
    for name, words in names:
        for start in _windows(spans, words, text):
            window = tuple(w for _, _, w in spans[start : start + len(words)])
            if window in exact or not _near(window, words):
                continue
            mends[start] = (len(words), name) if start not in mends else None
    if not any(mends.values()):
        return text
    parts, last = [], 0
    for start in sorted(mends):
        mend = mends[start]
        if mend is None or spans[start][0] < last:
            continue
        length, name = mend
        parts += [text[last : spans[start][0]], name]
        last = spans[start + length - 1][1]
    return "".join([*parts, text[last:]])


def _windows(spans: list[tuple[int, int, str]], words: tuple[str, ...], text: str) -> Iterable[int]:
    """Indexes of the first word of each run of `len(words)` words, separated by spaces only,
    that holds at least one of `words` in its place."""
    seen: set[int] = set()
    for index, (_, _, word) in enumerate(spans):
        for place, name_word in enumerate(words):
            start = index - place
            if word != name_word or start < 0 or start + len(words) > len(spans) or start in seen:
                continue
            run = spans[start : start + len(words)]
            if all(text[a[1] : b[0]].isspace() for a, b in zip(run, run[1:], strict=False)):
                seen.add(start)
                yield start


def _near(window: tuple[str, ...], words: tuple[str, ...]) -> bool:
    """All words as written but one, that one a single edit off and as capitalized."""
    off = [(w, n) for w, n in zip(window, words, strict=True) if w != n]
    if len(off) != 1:
        return False
    written, name = off[0]
    return (
        len(name) >= MIN_MENDED_LETTERS
        and written[:1].isupper() == name[:1].isupper()
        and one_edit_apart(written, name)
    )


def respell_names(
    d: DirectorDecision, ctx: ClampContext
) -> tuple[DirectorDecision, list[ClampChange]]:
    """Clamp `misspelt_name`: event texts and new facts with cast names spelt right."""
    cast = ctx.cast or {}
    if not cast:
        return d, []
    return rewrite_told(d, "misspelt_name", lambda text: respelt(text, cast))
