"""Salient-token extraction and redaction, shared by the clamps' guards and the projections.

A token is a lowercase word of at least three letters that is not a stopword (English or
Brazilian Portuguese), or any number of two digits or more: codes and numbers are exactly the
payloads a secret tends to carry.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

MASK = "[...]"
"""What a redacted token becomes. It holds no word characters, so redaction is idempotent."""

_WORD = re.compile(r"[^\W_]+", re.UNICODE)

_STOP_EN = """
the and for are but not you your yours all any can had her hers was one our out his him has
have how its it's who whom whose what when where which why with this that these those there
their theirs them they then than too very just from into onto over under about above after
before again also been being did does doing done down each few more most much must only other
own same she should some such off once here both because while until upon yet nor may might
will would shall could let lets get got make made say says said says tell told see saw seen
come came goes went now well still even ever every like want know think thought look looks
yes okay really thing things something nothing anything someone anyone everyone maybe
""".split()

_STOP_PT = """
que não nao com uma umas uns para por pelo pela pelos pelas dos das nos nas num numa como
mas mais muito muita muitos muitas seu sua seus suas ele ela eles elas você voce vocês voces
isso isto aquilo esse essa esses essas este esta estes estas aqui ali lá onde quando quem qual
quais porque porquê então entao também tambem ainda já sim está estão estou estava era foi
ser ter tem têm tinha há haver vai vou vamos fazer faz fez disse diz dizer ver viu agora bem
sobre entre até ate depois antes sem sob meu minha meus minhas nosso nossa teu tua tudo nada
algo alguém alguem ninguém ninguem cada outro outra outros outras mesmo mesma coisa
""".split()

STOPWORDS: frozenset[str] = frozenset(w.casefold() for w in _STOP_EN + _STOP_PT)
"""Words never treated as payload, in both supported languages."""


_FIXED: set[str] = set()
"""Words seen to be their own normal form (`normalize(w) == w`): a hidden set made of them
needs no normalizing pass (`_normalized`). Bounded: cleared at `_FIXED_KEPT`."""
_FIXED_KEPT = 1 << 18


@lru_cache(maxsize=1 << 16)
def normalize(word: str) -> str:
    """Casefold and NFC-normalize a word, the form tokens are compared in.

    Example:
        >>> normalize("CHAVE")
        'chave'
    """
    norm = unicodedata.normalize("NFC", word).casefold()
    if norm == word:
        if len(_FIXED) >= _FIXED_KEPT:
            _FIXED.clear()
        _FIXED.add(word)
    return norm


def is_salient(word: str) -> bool:
    """Whether a single word counts as a payload token.

    Example:
        >>> is_salient("dagger"), is_salient("the"), is_salient("42"), is_salient("a7")
        (True, False, True, True)
    """
    return _salient_normalized(normalize(word))


def _salient_normalized(norm: str) -> bool:
    if norm.isalpha():  # the common case, in C: no digit to look for
        return len(norm) >= 3 and norm not in STOPWORDS
    if any(ch.isdigit() for ch in norm):
        return len(norm) >= 2
    return len(norm) >= 3 and norm not in STOPWORDS


# Stored record texts are immutable and every guard walks the same history each beat, so
# a text's tokens are computed once. The frozenset return keeps the cached value safe from
# callers (they combine it into new sets, never mutate it).
@lru_cache(maxsize=1 << 15)
def salient_tokens(text: str) -> frozenset[str]:
    """Normalized payload tokens of `text` (memoized per text).

    Example:
        >>> sorted(salient_tokens("The vault code is 4471, under the red lamp."))
        ['4471', 'code', 'lamp', 'red', 'vault']
    """
    return frozenset(filter(_salient_normalized, map(normalize, _WORD.findall(text))))


def tokens_of(texts: Iterable[str]) -> set[str]:
    """Union of `salient_tokens` over many texts."""
    found: set[str] = set()
    for text in texts:
        found |= salient_tokens(text)
    return found


@lru_cache(maxsize=1 << 15)
def _words(text: str) -> frozenset[str]:
    """Every normalized word of `text`, salient or not (what `redact` could match)."""
    return frozenset(map(normalize, _WORD.findall(text)))  # C-level passes: hot per new text


@lru_cache(maxsize=64)
def _normalized(tokens: frozenset[str]) -> frozenset[str]:
    # The same hidden set is applied to every line of an observation. Callers nearly always
    # pass tokens already normalized: then the set itself comes back, so the per-line cache
    # below meets the very object it was keyed by (an identity check, not a set compare).
    # Words already seen to be fixed points skip the pass (a subset test, no new set).
    if tokens <= _FIXED:
        return tokens
    found = frozenset(map(normalize, tokens))
    return tokens if found == tokens else found


def redact(text: str, tokens: Iterable[str], mask: str = MASK) -> str:
    """Replace every whole-word occurrence of any of `tokens` (case-insensitive) by `mask`.

    Example:
        >>> redact("Vault code: 4471.", {"4471", "vault"})
        '[...] code: [...].'
    """
    one_line = "\n" not in text
    if (
        one_line
        and isinstance(tokens, set)
        and tokens.isdisjoint(_words(text))
        and _FIXED.issuperset(tokens)
    ):
        # Guards build a fresh set per event: when none of its words, all known to be their
        # own normal form, is in the text, nothing is masked, and freezing and hashing a set
        # of hundreds of words for the caches below would cost more than the whole answer.
        return text
    hidden = _normalized(tokens if isinstance(tokens, frozenset) else frozenset(tokens))
    if not hidden:
        return text
    if one_line:
        # Most lines hold no hidden word, and a hidden set is new nearly every beat: the
        # test answers them without filing (line, set) pairs in the line cache.
        return text if hidden.isdisjoint(_words(text)) else _redact_line(text, hidden, mask)
    # A word never spans a line break, so a long text (a whole prompt) is redacted line
    # by line: its lines are stored record texts that recur beat after beat, and each
    # (line, hidden set) pair is computed once.
    return "\n".join(_redact_line(line, hidden, mask) for line in text.split("\n"))


@lru_cache(maxsize=1 << 14)
def _redact_line(text: str, hidden: frozenset[str], mask: str) -> str:
    if hidden.isdisjoint(_words(text)):
        return text  # nothing to mask: skip the substitution pass
    return _WORD.sub(lambda m: mask if normalize(m.group()) in hidden else m.group(), text)


def surviving_tokens(text: str, tokens: Iterable[str]) -> set[str]:
    """Which of `tokens` still occur as whole words in `text` (for guards and tests).

    Example:
        >>> surviving_tokens("the code is [...]", {"code", "4471"})
        {'code'}
    """
    return set(salient_tokens(text) & {normalize(t) for t in tokens})
