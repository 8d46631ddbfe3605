"""Rule `self_greeting`: a Character does not greet itself by its own name.

A Character's prompt opens "You are <name>", and a small model says it back: "Hello there,
Maren." from Maren Holt herself. Every listener hears a line addressed to no one in the
room, and remembers it. A sentence of speech that is a greeting (the language's `greetings`)
and the speaker's own name words, nothing else, goes; a sentence closing on the speaker's own
name after a comma (a vocative) loses the name. A greeting of anyone else ("Hello, Ilse.")
and a sentence saying more ("Hello, I am Maren Holt.") stay.

Example: "Hello there, Maren. Sit down." -> "Sit down." (said by Maren Holt).
"""

from __future__ import annotations

import re

from tavern.filters.context import FilterContext, Target
from tavern.filters.rule import BOTH, TextRule
from tavern.text import sentence_spans, words

_VOCATIVE = re.compile(r",\s*([^,.!?]+?)\s*([.!?]*)\s*$")


def greets_self(sentence: str, own: frozenset[str], greetings: frozenset[str]) -> bool:
    """Whether `sentence` is a greeting and the speaker's own name words only.

    >>> maren, hello = frozenset({"maren", "holt"}), frozenset({"hello", "there"})
    >>> greets_self("Hello there, Maren.", maren, hello), greets_self("Hello, Ilse.", maren, hello)
    (True, False)
    """
    said = words(sentence)
    if not said or said[0] not in greetings:
        return False
    rest = set(said) - greetings
    return bool(rest) and rest <= own


def without_own_vocative(sentence: str, own: frozenset[str]) -> str:
    """`sentence` without a closing ", <own name>".

    >>> without_own_vocative("It's nice to meet you, Maren Holt!", frozenset({"maren", "holt"}))
    "It's nice to meet you!"
    >>> without_own_vocative("Sit down, Ilse.", frozenset({"maren", "holt"}))
    'Sit down, Ilse.'
    """
    found = _VOCATIVE.search(sentence)
    if found is None:
        return sentence
    said = set(words(found[1]))
    if not said or not said <= own:
        return sentence
    return sentence[: found.start()] + (found[2] or ".")


def _repair(text: str, target: Target, ctx: FilterContext) -> str:
    if ctx.speaker is None:
        return text
    own = frozenset(words(ctx.speaker.name))
    if own.isdisjoint(words(text)):
        return text
    greetings = ctx.lexicon.greetings
    spans = sentence_spans(text)
    gone = [greets_self(text[a:b], own, greetings) for a, b in spans]
    parts: list[str] = []
    for i, (a, b) in enumerate(spans):
        if not gone[i]:
            end = spans[i + 1][0] if i + 1 < len(spans) else b
            parts.append(without_own_vocative(text[a:b], own) + text[b:end])
    kept = "".join(parts).strip()
    return text if kept == text.strip() else kept


RULE = TextRule("self_greeting", frozenset(("speech",)), BOTH, _repair)
