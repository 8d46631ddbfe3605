"""Words: the one tokenizer of the kernel, its normal form, content words and word runs.

A word is a run of letters or digits, with inner apostrophes ("don't", "d'água"); words are
compared in `fold`ed form (NFC, casefolded). Content words are what a secret, a repetition
or a copy is made of: words of three letters or more that are not stop words, and numbers of
two digits or more.

Example:
    >>> words("The vault code is 4471, under Maren's lamp.")
    ['the', 'vault', 'code', 'is', '4471', 'under', "maren's", 'lamp']
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

from tavern.text.lexicon import Lexicon, all_stop_words

WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
"""One word: letters or digits, inner apostrophes kept."""


def fold(word: str) -> str:
    """The form words are compared in: NFC-normalized, casefolded, curly apostrophe made
    straight.

    Example:
        >>> fold("CHAVE"), fold("Don’t")
        ('chave', "don't")
    """
    return unicodedata.normalize("NFC", word).casefold().replace("’", "'")


def words(text: str) -> list[str]:
    """The folded words of `text`, in order.

    Example:
        >>> words("Ela vê a chuva.")
        ['ela', 'vê', 'a', 'chuva']
    """
    return WORD.findall(fold(text))  # one fold of the text: the words of its folded form


def word_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each word of `text`, for rules that cut or mask in place.

    Example:
        >>> word_spans("a key")
        [(0, 1), (2, 5)]
    """
    return [m.span() for m in WORD.finditer(text)]


def is_content(word: str, stop_words: frozenset[str]) -> bool:
    """Whether a folded word is content: 3+ letters and not a stop word, or holding a digit
    and 2+ characters long.

    Example:
        >>> sw = frozenset({"the"})
        >>> is_content("dagger", sw), is_content("the", sw), is_content("42", sw)
        (True, False, True)
    """
    if any(ch.isdigit() for ch in word):
        return len(word) >= 2
    return len(word) >= 3 and word not in stop_words


def content_words(text: str, lexicon: Lexicon | None = None) -> list[str]:
    """The content words of `text`, in order. Without a lexicon, the stop words of every
    language apply (for text whose language is not known).

    Example:
        >>> content_words("The vault code is 4471.")
        ['vault', 'code', '4471']
    """
    stop = lexicon.stop_words if lexicon is not None else all_stop_words()
    return [w for w in words(text) if is_content(w, stop)]


def content_set(texts: Iterable[str], lexicon: Lexicon | None = None) -> frozenset[str]:
    """The union of the content words of many texts.

    Example:
        >>> sorted(content_set(["a red lamp", "the lamp"]))
        ['lamp', 'red']
    """
    stop = lexicon.stop_words if lexicon is not None else all_stop_words()
    return frozenset(w for text in texts for w in words(text) if is_content(w, stop))


def word_runs(seq: Sequence[str], n: int) -> set[tuple[str, ...]]:
    """Every run of `n` consecutive words of `seq` (empty when `seq` is shorter).

    Example:
        >>> sorted(word_runs(["a", "b", "c"], 2))
        [('a', 'b'), ('b', 'c')]
    """
    return {tuple(seq[i : i + n]) for i in range(len(seq) - n + 1)}


def shares_run(a: Sequence[str], b: Sequence[str], n: int) -> bool:
    """Whether `a` and `b` share a run of `n` consecutive words.

    Example:
        >>> shares_run("the old mill by the river".split(), "by the river bank".split(), 3)
        True
    """
    return not word_runs(a, n).isdisjoint(word_runs(b, n))


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
