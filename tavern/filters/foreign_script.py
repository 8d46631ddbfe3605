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

import re
from typing import Any

from tavern.filters.context import FilterContext, Target
from tavern.filters.rule import BOTH, EVERY, TextRule

_FOREIGN = re.compile(
    "["
    "\u0370-\u03ff\u1f00-\u1fff"  # Greek
    "\u0400-\u052f\u1c80-\u1c8f\u2de0-\u2dff\ua640-\ua69f"  # Cyrillic
    "\u0530-\u058f"  # Armenian
    "\u0590-\u05ff"  # Hebrew
    "\u0600-\u06ff\u0750-\u077f\u08a0-\u08ff\ufb50-\ufdff\ufe70-\ufeff"  # Arabic
    "\u0900-\u0dff"  # Indic scripts
    "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff"  # Thai, Lao, Myanmar, Khmer
    "\u1100-\u11ff\u3130-\u318f\uac00-\ud7af"  # Hangul
    "\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f"  # kana
    "\u2e80-\u2fdf\u3005-\u3007\u3021-\u3029\u3100-\u312f\u31a0-\u31bf"
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # CJK ideographs, radicals, bopomofo
    "]+[\u0300-\u036f]*"
)
_WIDE_PUNCTUATION = str.maketrans(
    {"\u3000": " ", "\u3001": ",", "\u3002": ".", "\u300c": '"', "\u300d": '"', "\u300e": '"',
     "\u300f": '"', "\uff0c": ",", "\uff0e": ".", "\uff1a": ":", "\uff1b": ";", "\uff01": "!",
     "\uff1f": "?", "\uff08": "(", "\uff09": ")"}
)  # fmt: skip
_SPACES = re.compile(r"[ \t]{2,}")
_SPACE_BEFORE_STOP = re.compile(r"[ \t]+(?=[.,;:!?)])")


def without_foreign_script(text: str) -> str:
    """`text` with words of a non-Latin script cut and wide punctuation made ASCII.

    >>> without_foreign_script("The coffin lies open in the中间.")
    'The coffin lies open in the.'
    >>> without_foreign_script("Ela abre a porta, não há ninguém.")
    'Ela abre a porta, não há ninguém.'
    """
    if text.isascii():
        return text
    cut = _FOREIGN.sub(" ", text).translate(_WIDE_PUNCTUATION)
    if cut == text:
        return text
    return _SPACE_BEFORE_STOP.sub("", _SPACES.sub(" ", cut)).strip()


def answer_without_foreign_script(value: Any) -> Any:
    """Every string inside a parsed JSON answer, `without_foreign_script` (keys untouched):
    for the Director's answers, whose repairs are clamps."""
    if isinstance(value, str):
        return without_foreign_script(value)
    if isinstance(value, dict):
        return {key: answer_without_foreign_script(item) for key, item in value.items()}
    if isinstance(value, list):
        return [answer_without_foreign_script(item) for item in value]
    return value


def _repair(text: str, target: Target, ctx: FilterContext) -> str:
    return without_foreign_script(text)


RULE = TextRule("foreign_script", EVERY, BOTH, _repair)
