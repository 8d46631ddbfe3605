"""How an action_outcome tells an attempt: retold, borrowed, or bare.

Three readings of an event against the attempts it may answer, shared by clamp
`restated_event` (`physics.restated`) and the narration's filters.

An action_outcome that only says its actor attempts a recent attempt of theirs tells no
outcome and goes (`attempt_retold`), so the follow-up call asks for one: live (vintners-wake
#29's rerun, seed 44, turn 2), "walks slowly to the nearest window and looks outside" got
"Agnese Corvo attempts to walk slowly to the nearest window and looks outside."; toll-house
#29 (seed 43) told an older attempt so. "... attempts to open the door, but it is locked"
says more, and stays. An attempt typed with such a verb is known by its act after it too
("Try to help" answered "Maren Holt tries to help.", toll-house #32, seed 46, turn 2), and so
is "The attempt of <name> <act>" (its rerun, turn 5).

An action_outcome telling its actor doing, word for word, what another character attempted
goes too (`act_borrowed`), unless the actor attempted it as well: live (toll-house #31, seed
45, turn 3), "Maren Holt walks slowly to the nearest window and looks outside", the human's
turn-2 attempt, while Maren Holt's own waiting attempt was "call".

An action_outcome that only states a new attempt ("Agnese Corvo attempts to open the will
now.") tells no outcome either (`bare_attempt`).

A bare outcome ("Ilse Brandt fails") of a character whose attempt waits stays, though an
earlier beat said the same words: it answers the new attempt (`bare_outcome`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

_WORD = re.compile(r"[^\W\d_]+")

BARE_OUTCOMES = frozenset("fail fails failed succeed succeeds succeeded".split())
"""What an outcome may say of its actor and nothing else: "Ilse Brandt fails"."""


def bare_outcome(text: str, actor_name: str) -> bool:
    """Whether `text` is its actor's name and a bare outcome word, nothing else: a new
    attempt's outcome in the same words as an old one's, not a restatement. Live (toll-house
    #23, seed 40, turn 5), "reaches for the door" was answered "Ilse Brandt fails", the words
    of her turn-2 outcome, and dropped: the attempt got no outcome.

    >>> bare_outcome("Ilse Brandt fails.", "Ilse Brandt"), bare_outcome("The door fails.", "Ilse")
    (True, False)
    """
    name = set(_WORD.findall(actor_name.casefold()))
    words = [w for w in _WORD.findall(text.casefold()) if w not in name]
    return bool(words) and len(words) < len(_WORD.findall(text)) and BARE_OUTCOMES.issuperset(words)


_ATTEMPTING = tuple(
    tuple(opening.split())
    for opening in (
        "attempt to", "attempted to", "trie to", "tried to", "try to", "make an attempt to",
        "made an attempt to",
    )
)  # fmt: skip
"""How a retelling opens an attempt, in `_act_words` form ("tries" loses its "s" too)."""


@lru_cache(maxsize=4096)
def _act_words(text: str) -> tuple[str, ...]:
    """The lower-cased words of `text`, each in `act_stem` form (remembered: the same
    attempts and events are read again on every beat they stay recent).

    >>> _act_words("Reaches for the boxes, walks, passes, pass, gazes, gaze")
    ('reach', 'for', 'the', 'box', 'walk', 'pass', 'pass', 'gaz', 'gaz')
    """
    return tuple(act_stem(w) for w in _WORD.findall(text.casefold()))


_HISSING_E = ("che", "she", "xe", "sse", "ze")


def act_stem(word: str) -> str:
    """One form for a lower-case word and its verb in "-s" or "-es", the one word stem every
    rule comparing acts uses: a final "s" goes ("walks" ~ "walk"; "ss" stays: "pass"), then
    an "e" after a hissing sound ("reaches" ~ "reach", "gazes" ~ "gaze", "boxes" ~ "box").

    >>> [act_stem(w) for w in ("walks", "pass", "passes", "reaches", "reach", "gaze", "gazes")]
    ['walk', 'pass', 'pass', 'reach', 'reach', 'gaz', 'gaz']
    """
    if not word.endswith("ss"):
        word = word.removesuffix("s")
    return word[:-1] if word.endswith(_HISSING_E) else word


def _act_of(text: str, actor_name: str) -> tuple[str, ...] | None:
    """The `_act_words` of `text` after its opening `actor_name`; None when it does not open
    with the name."""
    words, name = _act_words(text), _act_words(actor_name)
    return words[len(name) :] if words[: len(name)] == name else None


def attempt_retold(text: str, actor_name: str, attempts: Sequence[str]) -> bool:
    """Whether `text` is `actor_name`, a verb of attempting and one of `attempts`, nothing
    else (see the module).

    >>> attempt_retold("Ilse Brandt tries to open the door.", "Ilse Brandt", ["opens the door"])
    True
    >>> attempt_retold("Ilse Brandt tries to open the door, but it is locked.", "Ilse Brandt",
    ...                ["opens the door"])
    False
    >>> attempt_retold("Maren Holt tries to help.", "Maren Holt", ["Try to help"])
    True
    >>> attempt_retold("The attempt of Ilse Brandt reaches for the door.", "Ilse Brandt",
    ...                ["reaches for the door"])
    True
    """
    if not attempts:
        return False
    rest = _act_of(text, actor_name)
    told = _without_attempting(rest) if rest is not None else _after_attempt_of(text, actor_name)
    return told is not None and told in _attempted_acts(attempts)


_ATTEMPT_OF = ("the", "attempt", "of")


def _after_attempt_of(text: str, actor_name: str) -> tuple[str, ...] | None:
    """The act of `text` told as "The attempt of <actor_name> (to) <act>", or None.

    Live (toll-house #32's rerun, seed 46, turn 5): "reaches for the door" got "The attempt of
    Ilse Brandt (C1) reaches for the door."
    """
    words = _act_words(text)
    opening = (*_ATTEMPT_OF, *_act_words(actor_name))
    if words[: len(opening)] != opening:
        return None
    act = words[len(opening) :]
    return act[1:] if act[:1] == ("to",) else act


def _attempted_acts(attempts: Sequence[str]) -> set[tuple[str, ...]]:
    """The `_act_words` of each attempt, and of its act after an opening verb of attempting:
    an attempt may be typed so too. Live (toll-house #32, seed 46, turn 2), Maren Holt's
    attempt "Try to help" got the outcome "Maren Holt tries to help.", no outcome of it."""
    acts = {_act_words(attempt) for attempt in attempts}
    return acts | {act for act in map(_without_attempting, acts) if act is not None}


def _without_attempting(words: tuple[str, ...]) -> tuple[str, ...] | None:
    """`words` after an opening verb of attempting ("tries to"), or None without one."""
    for opening in _ATTEMPTING:
        if words[: len(opening)] == opening:
            return words[len(opening) :]
    return None


HOW_IT_WENT = frozenset(
    "but yet only until and then so while when as though although because without fail failed"
    " succeed succeeded find found finding cannot can t unable manage managed".split()
)
"""Words (in `_act_words` form) after which a sentence may tell how an attempt went."""
_CLAUSE_BREAK = re.compile(r"[,;:.!?]\s*\S")
_TRYING = re.compile(r"attempt|tri|try", re.IGNORECASE)
"""What every verb of attempting (`_ATTEMPTING`) holds as written: a text without any cannot
open with one, so it needs no word split."""


def bare_attempt(text: str, actor_name: str) -> bool:
    """Whether `text` is one clause: `actor_name`, a verb of attempting, and an act, with no
    word of how it went (`HOW_IT_WENT`). It tells a new attempt, no outcome: live
    (vintners-wake #33's rerun, seed 48), "reaches for the door" got "Agnese Corvo attempts to
    open the will now." and Brother Caspar's "read" got "Brother Caspar tries to read the will
    at midnight.".

    >>> bare_attempt("Agnese Corvo attempts to open the will now.", "Agnese Corvo")
    True
    >>> bare_attempt("Agnese Corvo tries to open the door, but it is locked.", "Agnese Corvo")
    False
    >>> bare_attempt("Agnese Corvo tries the door and it opens.", "Agnese Corvo")
    False
    """
    if not _TRYING.search(text) or _CLAUSE_BREAK.search(text.strip()):
        return False
    rest = _act_of(text, actor_name)
    act = _without_attempting(rest) if rest is not None else None
    return act is not None and len(act) > 0 and HOW_IT_WENT.isdisjoint(act)


def attempts_joined(text: str, actor_name: str, own: Sequence[str]) -> bool:
    """Whether `text` is `actor_name`, a verb of attempting (`_TRYING_VERBS`, with or without
    "to": "tries the box", which `bare_attempt` does not read) and its act, joined by "and" or
    a comma to one of the actor's `own` attempts told again (its verb in "-ing" too), no word
    of how either went: two attempts, no outcome.
    Live (toll-house #60, seed 74, turn 5), the human's "reaches for the door", beside the
    line "I think we should open it now.", got "Ilse Brandt tries the toll box and reaches for
    the door": an act nobody attempted, written for the human's character; and toll-house
    #58 (seed 72, turn 5) got "Ilse Brandt tries to open the toll box now, reaching for the
    door." for the same attempt.

    >>> own = ["reaches for the door"]
    >>> attempts_joined("Ilse Brandt tries the box and reaches for the door.", "Ilse Brandt", own)
    True
    >>> attempts_joined("Ilse Brandt tries the box, reaching for the door.", "Ilse Brandt", own)
    True
    >>> attempts_joined("Ilse Brandt tries the box and it opens.", "Ilse Brandt", own)
    False
    """
    plain = text.strip().rstrip(".!")
    return any(_joined_at(plain.partition(joint), actor_name, own) for joint in (" and ", ", "))


def _joined_at(parts: tuple[str, str, str], actor_name: str, own: Sequence[str]) -> bool:
    first, joined, second = parts
    tried = _act_of(first, actor_name) if joined else None
    if not tried or tried[0] not in _TRYING_VERBS or len(tried) < 2:
        return False
    told = _act_words(second.removeprefix("and "))
    if not told or not HOW_IT_WENT.isdisjoint((*tried, *told)):
        return False
    acts = _attempted_acts(own)
    return told in acts or any((verb, *told[1:]) in acts for verb in _participle_verbs(told[0]))


def _participle_verbs(word: str) -> tuple[str, ...]:
    """The `act_stem` forms a verb in "-ing" may have: "reaching" ~ "reach", "taking" ~
    "take", "sitting" ~ "sit" (none for a word that is not one).

    >>> _participle_verbs("reaching"), _participle_verbs("sitting"), _participle_verbs("king")
    (('reach', 'reache'), ('sitt', 'sitte', 'sit'), ())
    """
    stem = word.removesuffix("ing")
    if stem == word or len(stem) < 2:
        return ()
    doubled = (stem[:-1],) if stem[-1] == stem[-2] else ()
    return (stem, stem + "e", *doubled)


_TRYING_VERBS = frozenset(("trie", "try", "attempt"))
"""A verb of attempting with its object right after it ("tries the box"), in `_act_words`
form ("tries" and "attempts" lose their "s")."""


MIN_BORROWED_WORDS = 3
"""Shorter acts ("sits down") may well be two characters' own."""


def act_borrowed(text: str, actor_name: str, own: Sequence[str], others: Sequence[str]) -> bool:
    """Whether `text` is `actor_name` doing what one of `others` attempted, word for word
    (a verb's "s" aside), and none of `own` (see the module).

    >>> act_borrowed("Maren Holt walks to the window.", "Maren Holt", [], ["walk to the window"])
    True
    >>> act_borrowed("Maren Holt walks to the window.", "Maren Holt", ["walks to the window"],
    ...              ["walk to the window"])
    False
    """
    act = _act_of(text, actor_name) or ()
    if len(act) < MIN_BORROWED_WORDS or any(act == _act_words(a) for a in own):
        return False
    return any(act == _act_words(attempt) for attempt in others)
