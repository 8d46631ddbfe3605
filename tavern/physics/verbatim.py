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
  palavra-chave): the word after a linking verb a few words on, or else the next word,
  articles skipped, and no stop word: "the password is heron" keeps "heron", "a senha do
  portão é garça" keeps "garça", "the password heron" keeps "heron".

Numbers written as words ("three") are not codes: they are ordinary prose in both
languages ("um homem"). A code noun may name an ordinary word ("the code of the vault is
lost" keeps "lost"): a summary that must copy one word too many costs a refusal at most.

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

CUE_REACH = 4
"""How many words after a code noun its linking verb may come ("the code of the gate is")."""

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
        >>> codes("Nobody knows the code of the vault.", lexicon_for("en"))
        []
    """
    tokens = CODE_TOKEN.findall(text)
    folded = [fold(t) for t in tokens]
    found: dict[str, None] = {token: None for token in tokens if _marked(token)}
    for i, word in enumerate(folded):
        pair = f"{word}-{folded[i + 1]}" if i + 1 < len(tokens) else ""
        if pair in lex.code_nouns:
            after = i + 2
        elif word in lex.code_nouns and (i == 0 or f"{folded[i - 1]}-{word}" not in lex.code_nouns):
            after = i + 1
        else:
            continue
        code = _code_after(folded, after, lex)
        if code is not None:
            found.setdefault(tokens[code], None)
    ordered = [token for token in tokens if token in found]
    return list(dict.fromkeys(ordered))


def _code_after(folded: list[str], start: int, lex: Lexicon) -> int | None:
    """Index of the code a code noun ending before `start` names, or None: the word after
    a linking verb within the next `CUE_REACH` words ("senha do portão é garça"), else
    the next word ("the password heron"), articles skipped; never a stop word."""
    window = folded[start : start + CUE_REACH]
    links = [j for j, word in enumerate(window) if word in lex.auxiliaries]
    at = start + links[0] + 1 if links else start
    while at < len(folded) and (folded[at] in lex.articles or folded[at] in lex.auxiliaries):
        at += 1
    if at >= len(folded) or lex.is_stop(folded[at]) or folded[at] in lex.code_nouns:
        return None
    return at


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
