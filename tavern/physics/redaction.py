"""Salient-token extraction and redaction, shared by the clamps' guards and the projections.

A token is a lowercase word of at least three letters that is not a stopword (English or
Brazilian Portuguese), or any number of two digits or more: codes and numbers are exactly the
payloads a secret tends to carry.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from collections.abc import Set as AbstractSet

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


def normalize(word: str) -> str:
    """Casefold and NFC-normalize a word, the form tokens are compared in.

    Example:
        >>> normalize("CHAVE")
        'chave'
    """
    if word.isascii():  # NFC leaves ASCII as it is, and casefold is lower there
        return word.lower()
    return unicodedata.normalize("NFC", word).casefold()


def _salient_normalized(norm: str) -> bool:
    if norm.isalpha():  # most words: no digit to look for
        return len(norm) >= 3 and norm not in STOPWORDS
    if any(ch.isdigit() for ch in norm):
        return len(norm) >= 2
    return len(norm) >= 3 and norm not in STOPWORDS


def salient_tokens(text: str) -> frozenset[str]:
    """Normalized payload tokens of `text`.

    Example:
        >>> sorted(salient_tokens("The vault code is 4471, under the red lamp."))
        ['4471', 'code', 'lamp', 'red', 'vault']
    """
    # ASCII: lowering the whole text lowers each word in place, as `normalize` would.
    found = _WORD.findall(text.lower()) if text.isascii() else map(normalize, _WORD.findall(text))
    return frozenset(t for t in found if _salient_normalized(t))


Tokenizer = Callable[[str], frozenset[str]]
"""`salient_tokens` or a `TokenTable`: what the guards tokenize record texts with."""


class TokenTable:
    """`salient_tokens`, each distinct text tokenized once: one table per turn, passed down.

    A turn's guards, projections and prose mask read the same window's texts several times;
    the runner makes one table per turn and hands it to each of them (never module state).

    Example:
        >>> table = TokenTable()
        >>> table("The vault code") is table("The vault code")
        True
    """

    def __init__(self) -> None:
        self._tokens: dict[str, frozenset[str]] = {}

    def __call__(self, text: str) -> frozenset[str]:
        found = self._tokens.get(text)
        if found is None:
            found = self._tokens[text] = salient_tokens(text)
        return found


def tokens_of(texts: Iterable[str], tokens: Tokenizer = salient_tokens) -> set[str]:
    """Union of `tokens` (by default `salient_tokens`) over many texts."""
    found: set[str] = set()
    for text in texts:
        found |= tokens(text)
    return found


def redact(text: str, tokens: Iterable[str], mask: str = MASK, *, normalized: bool = False) -> str:
    """Replace every whole-word occurrence of any of `tokens` (case-insensitive) by `mask`.

    `normalized`: `tokens` is a set already in `normalize`'s form (as `salient_tokens` and
    `guards.Knowledge` give them), so a caller redacting many texts with one set does not
    normalize it again for each.

    Example:
        >>> redact("Vault code: 4471.", {"4471", "vault"})
        '[...] code: [...].'
    """
    hidden = (
        tokens if normalized and isinstance(tokens, AbstractSet) else set(map(normalize, tokens))
    )
    if not hidden:
        return text
    return _WORD.sub(lambda m: mask if normalize(m.group()) in hidden else m.group(), text)
