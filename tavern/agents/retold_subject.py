"""A narration sentence that tells again, under another subject, what an earlier narration
or event told: cut in code.

`repetition.drop_retold` compares whole sentences, so a retelling that swaps its subject
passes it. Live (toll-house soak #29, seed 43, turn 5), the renderer wrote "Ilse Brandt sees a
tall window with a small lamp on it, its lights flickering in the sunlight." three beats after
its own "She sees a tall window with a small lamp on it, its lights flickering in the
sunlight.", for an attempt at the door.

A sentence's predicate is its key (`repetition.sentence_key`) after a leading subject: a cast
name, a first name, or a personal pronoun. When an earlier text (the narrations and events of
`told.told_sentences`) has a sentence with the same predicate, of `MIN_PREDICATE_WORDS` or
more words, the sentence goes; unless one of this beat's events says it, since a character
may repeat another's act and the beat's narration must be able to tell it. Told twice in one
narration, the second telling goes all the same: live (toll-house #42, seed 56, turn 2),
"Ilse Brandt walks slowly to the nearest window and looks outside. He walks slowly to the
nearest window and looks outside.", both after the beat's event that says it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from functools import lru_cache

from tavern.agents.repetition import (
    SHORT,
    ordered_sentence_keys,
    sentence_key,
    sentence_spans,
)

MIN_PREDICATE_WORDS = 6
"""Shorter predicates recur in earnest ("nods slowly", "looks at the door")."""
PREDICATE = "\x02"
"""Opens a predicate key among `told.told_sentences`' keys: no sentence key holds it."""
SUBJECT_PRONOUNS = frozenset(("he", "she", "they", "it", "ele", "ela", "eles", "elas"))


def predicate_key(sentence: str, names: Sequence[str]) -> str | None:
    """The sentence's words after a leading subject, `PREDICATE` first; None when too short.

    >>> names = ["Ilse Brandt"]
    >>> predicate_key("She sees a tall window with a small lamp on it.", names) == (
    ...     predicate_key("Ilse Brandt sees a tall window with a small lamp on it", names))
    True
    >>> predicate_key("Ilse nods slowly.", names) is None
    True
    """
    return _predicate(sentence_key(sentence), _subjects(tuple(names)))


def predicate_keys(texts: Iterable[str], names: Sequence[str]) -> frozenset[str]:
    """The predicate keys of every sentence of `texts`."""
    known = tuple(names)
    return frozenset().union(*(_text_predicates(text, known) for text in texts))


@lru_cache(maxsize=256)  # `told.told_sentences` reads each narration's for eight beats
def _text_predicates(text: str, names: tuple[str, ...]) -> frozenset[str]:
    return frozenset(key for key in _text_keys(text, names) if key is not None)


def drop_retold_subjects(
    text: str, told: AbstractSet[str], names: Sequence[str], events: Sequence[str] = ()
) -> str:
    """`text` without the sentences whose predicate key is in `told` and in none of this
    beat's `events`, or is an earlier sentence's of `text` (see the module).

    >>> names = ["Ilse Brandt"]
    >>> told = predicate_keys(["She walks slowly to the nearest window and looks out."], names)
    >>> drop_retold_subjects(
    ...     "Ilse Brandt walks slowly to the nearest window and looks out. Rain falls.",
    ...     told, names)
    'Rain falls.'
    """
    keys = _text_keys(text, tuple(names))
    said = [k for k in keys if k]
    if len(set(said)) == len(said) and told.isdisjoint(said):
        return text  # most narrations: no predicate told before, none twice
    now = predicate_keys(events, names)
    spans = sentence_spans(text)
    kept: list[str] = []
    seen: set[str] = set()
    for (start, end), key in zip(spans, keys, strict=False):
        if key is not None and (key in seen or (key in told and key not in now)):
            continue
        if key is not None:
            seen.add(key)
        kept.append(text[start:end])
    return "".join(kept).strip() if len(kept) < len(spans) else text


@lru_cache(maxsize=256)
def _text_keys(text: str, names: tuple[str, ...]) -> tuple[str | None, ...]:
    subjects = _subjects(names)
    return tuple(_predicate(key, subjects) for key in ordered_sentence_keys(text))


Subjects = dict[str, tuple[tuple[str, ...], ...]]
"""First word -> the subjects opening with it, longest first."""


def _predicate(key: str, subjects: Subjects) -> str | None:
    words = key.removeprefix(SHORT).split()
    for subject in subjects.get(words[0], ()) if words else ():
        if tuple(words[: len(subject)]) == subject:
            words = words[len(subject) :]
            break
    return PREDICATE + " ".join(words) if len(words) >= MIN_PREDICATE_WORDS else None


@lru_cache(maxsize=16)
def _subjects(names: tuple[str, ...]) -> Subjects:
    """Word sequences that may open a sentence as its subject, by first word."""
    forms = {tuple(sentence_key(name).removeprefix(SHORT).split()) for name in names}
    forms |= {form[:1] for form in forms if form}
    forms |= {(pronoun,) for pronoun in SUBJECT_PRONOUNS}
    by_first: dict[str, list[tuple[str, ...]]] = {}
    for form in sorted((f for f in forms if f), key=len, reverse=True):
        by_first.setdefault(form[0], []).append(form)
    return {first: tuple(found) for first, found in by_first.items()}
