"""What awaits the Director: the attempts since its last call and who spoke, and whether
the last beat holds an attempt not yet adjudicated. Read by the clamps that judge acts
against attempts, the unanswered-question and time-skip rules, and the follow-up."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from tavern.records import ActionRecord, HistoryRecord, SpeechRecord
from tavern.text import Lexicon, lexicon_for, words


def waiting_attempts(
    history: Sequence[HistoryRecord], turn: int | None = None
) -> dict[str, list[str]]:
    """The attempts awaiting adjudication by the Director of beat `turn`, by actor (see
    `recent_acts`)."""
    return recent_acts(history, turn)[0]


def recent_acts(
    history: Sequence[HistoryRecord], turn: int | None = None
) -> tuple[dict[str, list[str]], frozenset[str]]:
    """What the cast did since the last Director call of a beat: the attempts awaiting
    adjudication, by slot, and who spoke. `turn`: the beat being played (default: that of
    the last record). The last beat's replies came after its Director call, its human's
    records before it."""
    attempts: dict[str, list[str]] = {}
    spoke: set[str] = set()
    for r in since_director_call(history, turn):
        if isinstance(r, ActionRecord) and not r.resolved:
            attempts.setdefault(r.speaker, []).append(r.text)
        elif isinstance(r, SpeechRecord):
            spoke.add(r.speaker)
    return attempts, frozenset(spoke)


def attempt_records(
    history: Sequence[HistoryRecord], turn: int | None = None
) -> list[ActionRecord]:
    """The attempts awaiting adjudication by the Director of beat `turn`, oldest first."""
    found = [
        r
        for r in since_director_call(history, turn)
        if isinstance(r, ActionRecord) and not r.resolved
    ]
    return found[::-1]


def since_director_call(
    history: Sequence[HistoryRecord], turn: int | None
) -> Iterator[HistoryRecord]:
    """The records since the last Director call of beat `turn`, newest first (see
    `recent_acts`)."""
    if turn is None:
        turn = history[-1].turn_number if history else 0
    for r in reversed(history):
        if r.turn_number < turn - 1:
            return
        if r.turn_number < turn and r.author != "character":
            continue
        yield r


def has_unresolved_action(history: Sequence[HistoryRecord]) -> bool:
    """Whether the last beat (highest turn number) holds an attempt not yet adjudicated.

    Example:
        >>> has_unresolved_action([])
        False
    """
    if not history:
        return False
    last = max(r.turn_number for r in history)
    return any(
        isinstance(r, ActionRecord) and not r.resolved and r.turn_number == last for r in history
    )


def about_words(text: str, lexicon: Lexicon | None = None) -> set[str]:
    """The words an act is known by: words of four letters or more that are neither stop
    words nor prepositions of the language (`lexicon`: English by default).

    >>> sorted(about_words("They reach for the trapdoor"))
    ['reach', 'trapdoor']
    >>> sorted(about_words("Ela abre a caixa do pedágio", lexicon_for("pt-BR")))
    ['abre', 'caixa', 'pedágio']
    """
    lex = lexicon or lexicon_for("en")
    return {
        w
        for w in words(text)
        if len(w) >= 4 and w.isalpha() and not lex.is_stop(w) and w not in lex.prepositions
    }


def shares_a_word(one: set[str], other: set[str]) -> bool:
    """Whether a word of `one` is inside a word of `other` or the other way round ("door" and
    "trapdoor").

    >>> shares_a_word({"door"}, {"trapdoor"}), shares_a_word({"door"}, {"window"})
    (True, False)
    """
    return any(a in b or b in a for a in one for b in other)
