"""A Character greeting itself by its own name says its prompt's "You are ..." back.

Live, the embedded 0.5B model had Maren Holt open her lines with her own name: "Hello there,
Maren." and "Hello there, Maren Holt." (toll-house #64, seed 78, turns 7 and 9), "Hello,
Maren." and "Hey, Maren Holt! ..." (toll-house #65, seed 79, turns 1 and 8). Nobody greets
themselves; every listener heard a line addressed to no one in the room, and remembered it.

A sentence of speech that is a greeting (`GREETINGS`, "there" after it allowed) and the
speaker's own name words, nothing else, goes; the rest of the speech stays, and a reply left
empty says nothing this beat. A greeting of anyone else ("Hello, Ilse.") and a sentence saying
more ("Hello, I am Maren Holt.") stay. A sentence closing on the speaker's own name after a
comma (a vocative) loses the name: live (toll-house #67, seed 81, turn 9), Maren Holt said "It's
nice to meet you, Maren Holt! ...", which says "It's nice to meet you!".
"""

from __future__ import annotations

import re

from tavern.agents.repetition import sentence_spans
from tavern.records import CharacterReply
from tavern.runner.in_world import reply_with

GREETINGS = frozenset("hello hi hey greetings welcome evening morning good there".split())
"""Words of a greeting ("Good evening", "Hello there")."""
_WORD = re.compile(r"[^\W\d_]+")


def greets_self(sentence: str, own_words: frozenset[str]) -> bool:
    """Whether `sentence` is a greeting and the speaker's own name words (`own_words`,
    lower-cased) only.

    >>> maren = frozenset({"maren", "holt"})
    >>> greets_self("Hello there, Maren.", maren), greets_self("Hello, Ilse.", maren)
    (True, False)
    """
    words = _WORD.findall(sentence.casefold())
    if not words or words[0] not in GREETINGS:
        return False
    rest = set(words) - GREETINGS
    return bool(rest) and rest <= own_words


_VOCATIVE = re.compile(r",\s*([^,.!?]+?)\s*([.!?]*)\s*$")


def without_own_vocative(sentence: str, own_words: frozenset[str]) -> str:
    """`sentence` without a closing ", <own name>" (see the module).

    >>> without_own_vocative("It's nice to meet you, Maren Holt! ", frozenset({"maren", "holt"}))
    "It's nice to meet you! "
    >>> without_own_vocative("Sit down, Ilse.", frozenset({"maren", "holt"}))
    'Sit down, Ilse.'
    """
    found = _VOCATIVE.search(sentence)
    if found is None:
        return sentence
    words = set(_WORD.findall(found[1].casefold()))
    if not words or not words <= own_words:
        return sentence
    trailing = sentence[len(sentence.rstrip()) :]
    return sentence[: found.start()] + (found[2] or ".") + trailing


def without_self_greeting(reply: CharacterReply, own_name: str) -> CharacterReply | None:
    """`reply` without the sentences of its speech greeting the speaker by `own_name` and
    without the speaker's name closing a sentence; None when nothing is left."""
    speech = reply.speech
    if not speech:
        return reply
    own = frozenset(_WORD.findall(own_name.casefold()))
    if own.isdisjoint(_WORD.findall(speech.casefold())):
        return reply
    kept = "".join(
        without_own_vocative(speech[a:b], own)
        for a, b in sentence_spans(speech)
        if not greets_self(speech[a:b], own)
    ).strip()
    if kept == speech.strip():
        return reply
    return reply_with(reply, {"speech": kept or None})
