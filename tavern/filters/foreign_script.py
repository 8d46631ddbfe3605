"""Rule `foreign_script`: words of a non-Latin script inside a Latin-script story go.

The session languages (`en`, `pt-BR`) are written in Latin letters. A small model now and
then drifts into another script mid-sentence, and a run of such letters can fill a field to
its length limit; a reader can read none of it. Cut: letters of the scripts a model drifts
into (Greek, Cyrillic, Armenian, Hebrew, Arabic, the Indic and Southeast Asian scripts,
Hangul, kana, CJK ideographs) and the combining marks after them. Kept: Latin letters with
any diacritic, digits, punctuation, symbols and emoji. Full-width and ideographic
punctuation becomes its ASCII form (`。` -> `.`), since it only ever follows such a word.

Example: "The coffin lies open in the中间." -> "The coffin lies open in the."
"""

from __future__ import annotations

from tavern.filters.context import FilterContext, Target
from tavern.filters.rule import BOTH, EVERY, TextRule
from tavern.text import without_foreign_script


def _repair(text: str, target: Target, ctx: FilterContext) -> str:
    return without_foreign_script(text)


RULE = TextRule("foreign_script", EVERY, BOTH, _repair)
