"""Rule `invented_speech`: dialogue in a narration is invented, and goes.

The renderer never reads a spoken word, so a line it puts in a mouth may be the human's
character's: the agency lock broken for the reader. A sentence overlapping a quotation of
three words or more (`physics.quotations`) goes unless the public text it was given holds
the quotation, and so does one continuing it in lower case. In pt-BR a line opened by a dash
(or a dash after a colon) is a quotation to the end of its line.

Example: "Caspar turns. He says, 'We have no ideas. I can help.' Rain falls." -> "Caspar
turns. Rain falls."
"""

from __future__ import annotations

import re

from tavern.filters.context import FilterContext, Target
from tavern.filters.rule import BOTH, TextRule
from tavern.physics.quotations import invented_quotations
from tavern.text import kept_sentences, sentence_spans

_DASH_LINE = re.compile(r"(?:^|(?<=:))[ \t]*[—–][ \t]*(\S[^\n]*)", re.MULTILINE)
"""Dash dialogue (pt-BR): from a dash opening a line, or following a colon, to the line's
end."""
_QUOTE_MARKS = "\"'“‘"


def _dash_quotations(text: str, public: str) -> list[tuple[int, int]]:
    """Spans of dash dialogue of three words or more that `public` does not hold.

    >>> _dash_quotations("Rain.\\n— Abra a porta agora — disse Maren.", "")
    [(6, 41)]
    """
    return [
        (m.start(), m.end())
        for m in _DASH_LINE.finditer(text)
        if len(m[1].split()) >= 3 and m[1].strip(" .,!?…").casefold() not in public
    ]


def _repair(text: str, target: Target, ctx: FilterContext) -> str:
    dashes = ctx.language == "pt-BR" and ("—" in text or "–" in text)
    if not dashes and not any(mark in text for mark in _QUOTE_MARKS):
        return text
    public = " ".join(ctx.public).casefold()
    invented = invented_quotations(text, public)
    if dashes:
        invented += _dash_quotations(text, public)
    if not invented:
        return text
    spans = sentence_spans(text)
    gone, dropped = [], False
    for start, end in spans:
        continues = dropped and text[start:end][:1].islower()
        dropped = continues or any(start < q_end and q_start < end for q_start, q_end in invented)
        gone.append(dropped)
    return kept_sentences(text, spans, gone)


RULE = TextRule("invented_speech", frozenset(("narration",)), BOTH, _repair)
