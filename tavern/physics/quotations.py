"""Quotations in a text: words someone said, written inside quote marks.

The prose renderer and the Director both may not author dialogue; `agents.quoted` and the
clamp `authored_speech` find it with this one definition.
"""

from __future__ import annotations

import re

MIN_QUOTED_WORDS = 3
"""Shorter quotations name things ("the so-called 'Widow's Bell'"), they do not speak."""

QUOTATION = re.compile(
    r"(?<![\w\]])(?:"
    r"\"(?P<straight>[^\"\n]+)\""
    r"|“(?P<curly>[^”\n]+)”"
    r"|'(?=\w)(?P<single>[^\n]+?)(?<=[\w.!?,…])'(?!\w)"
    r"|‘(?P<curly_single>[^\n]+?)(?<=[\w.!?,…])’(?!\w)"
    r"|[\"“‘](?P<unclosed>[^\"“”‘’\n]+)\Z"
    r"|'(?=\w)(?P<unclosed_single>[^\n]+)\Z"
    r")"
)
"""A quotation in double or single quotes, straight or curly. An apostrophe inside a word
("I'm", "Caspar's"), or after the guards' mask ("the [...]'s key"), neither opens nor
closes one; one after a word ("the boys' hats") closes
a single-quoted quotation there, so the rest of it is missed. A quotation opened and never
closed runs to the end of the text: a model's answer cut at a loop or at its length limit
ends inside the dialogue it was writing (toll-house soak #5, turn 8: "... and says, 'You're
the one outside. You have the seal ring in your pocket. You're inside."). An archaic "'Tis"
near the end of a text reads as one too."""


def quotations(text: str) -> list[tuple[int, int, str]]:
    """Spans and inner words of the quotations of `text` with `MIN_QUOTED_WORDS` or more.

    >>> quotations("Caspar's lamp. He says, 'We have no more ideas.' The rain stops.")
    [(24, 48, 'We have no more ideas.')]
    >>> quotations("He says, 'You're the one outside. You're inside.")
    [(9, 48, "You're the one outside. You're inside.")]
    """
    found = []
    for match in QUOTATION.finditer(text):
        inner = next(group for group in match.groups() if group is not None)
        if len(inner.split()) >= MIN_QUOTED_WORDS:
            found.append((match.start(), match.end(), inner))
    return found


def invented_quotations(text: str, public: str) -> list[tuple[int, int]]:
    """Spans of the quotations of `text` (`quotations`) whose words are not in `public`, a
    case-folded text (a sign or an inscription of the scene may be quoted).

    >>> invented_quotations("It reads 'Tolls in coin.' and 'Go home now.'", "tolls in coin only")
    [(30, 44)]
    """
    return [
        (start, end)
        for start, end, inner in quotations(text)
        if " ".join(inner.split()).strip(" .,!?…").casefold() not in public
    ]
