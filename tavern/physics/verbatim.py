"""Words a condensed memory must keep character for character: codes, numbers, passwords.

A memory summary may retell everything in its own words except what is only worth its
exact form: the vault code 4471, the password "heron", the ship R-17, the hour 12:30. A
small model rounding a number or paraphrasing a password corrupts the very fact. This
module says which words of a text are such codes, so that the runner can refuse a summary
that lost one (`runner.memory`).

A code is a token (a run of word characters, joined across `-`, `.`, `/` or `:` between
two of them) that:

- holds a digit (4471, R-17, 12:30, t3), or
- is written in capitals, three letters or more (HERON, ALFA), or
- holds an underscore or a capital after a small letter (CANARY_7, blueHeron), or
- follows a code noun of the language (`Lexicon.code_nouns`: password, code-word; senha,
  palavra-chave), past auxiliaries and articles, and is no stop word: "the password is
  heron" keeps "heron", "a senha é garça" keeps "garça".

Numbers written as words ("three") are not codes: they are ordinary prose in both
languages ("um homem").

Example:
    >>> from tavern.text import lexicon_for
    >>> codes("The password is heron; the vault code is 4471 at 12:30.", lexicon_for("en"))
    ['heron', '4471', '12:30']
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tavern.text import Lexicon, fold

CODE_TOKEN = re.compile(r"\w+(?:[-./:]\w+)*")
"""A token as codes are written: word characters (underscores too), joined across `-`,
`.`, `/` or `:` between two of them ("R-17", "12:30", "CANARY_7")."""

_MARKED = re.compile(r"\d|_|[a-zà-ÿ][A-ZÀ-Ý]")
_CAPITALS = re.compile(r"[A-ZÀ-Ý]{3,}")


def _marked(token: str) -> bool:
    """Whether the token's own form makes it a code (a digit, capitals, an inner mark)."""
    return bool(_MARKED.search(token)) or bool(_CAPITALS.fullmatch(token))


def codes(text: str, lex: Lexicon) -> list[str]:
    """The codes of `text`, in order, each once, as written.

    Example:
        >>> from tavern.text import lexicon_for
        >>> codes('A senha é "garça". O barco R-17 parte.', lexicon_for("pt-BR"))
        ['garça', 'R-17']
        >>> codes("The code of the vault is lost.", lexicon_for("en"))
        []
    """
    tokens = CODE_TOKEN.findall(text)
    folded = [fold(t) for t in tokens]
    found: dict[str, None] = {}
    cue_end, pending = -1, False  # the last word of a code noun; its code not yet found
    for i, token in enumerate(tokens):
        word = folded[i]
        if _marked(token):
            found.setdefault(token, None)
        if i <= cue_end:
            continue  # the second word of a two-word code noun
        pair = f"{word}-{folded[i + 1]}" if i + 1 < len(tokens) else ""
        if pair in lex.code_nouns or word in lex.code_nouns:
            cue_end, pending = (i + 1 if pair in lex.code_nouns else i), True
            continue
        if pending and (word in lex.auxiliaries or word in lex.articles):
            continue
        if pending and not lex.is_stop(word):
            found.setdefault(token, None)
        pending = False
    return list(found)


def present(token: str, text: str) -> bool:
    """Whether `token` stands in `text` as a whole token, exactly as written.

    Example:
        >>> present("4471", "code 4471."), present("4471", "code 44711"), present("Heron", "heron")
        (True, False, False)
    """
    return re.search(rf"(?<!\w){re.escape(token)}(?!\w)", text) is not None


def dropped(lines: Iterable[str], summary: str, lex: Lexicon) -> list[str]:
    """The codes of `lines` that `summary` does not hold verbatim, in order.

    Example:
        >>> from tavern.text import lexicon_for
        >>> dropped(['Ana said: "Gate code 4471."', "Rain."], "I know the code, 4470.",
        ...         lexicon_for("en"))
        ['4471']
    """
    found = codes("\n".join(lines), lex)
    return [token for token in found if not present(token, summary)]
