"""Rule `wordless`: a text without a word tells nothing, and goes.

A small model answered "..." for a narration, and an intent of punctuation alone; either
reached the reader as the beat's text. Run last, so that what other rules left of a text is
judged too.

Example: "..." -> "".
"""

from __future__ import annotations

import re

from tavern.filters.context import FilterContext, Target
from tavern.filters.rule import BOTH, EVERY, TextRule

_A_WORD = re.compile(r"[^\W_]")


def _repair(text: str, target: Target, ctx: FilterContext) -> str:
    """`text`, or "" when it holds no letter or digit.

    >>> _repair("…", "narration", FilterContext()), _repair("Rain.", "narration", FilterContext())
    ('', 'Rain.')
    """
    return text if _A_WORD.search(text) else ""


RULE = TextRule("wordless", EVERY, BOTH, _repair)
