"""Clamp `unanswered_question`: a question spoken since the Director's last call gets a hearer.

A question asked aloud that no one in the speaker queue heard is a dead beat: the story
stops where the asker waits for an answer. Live, the embedded Director queued no Character
on 17 of 25 beats in which the human asked a question (toll-house and vintners-wake soaks
#34 to #39, seeds 49 to 53), so no model was even asked to answer "Who are you, exactly?".

When the queue holds no one who heard a question of the beat (the Narrator or only others),
one hearer is put first: one the question names, else the hearer who spoke last, else the
first present one. Hearers are the question's perceivers who are present, the asker aside.
When the asker is queued before every hearer, the first queued hearer moves first: live
(toll-house #41, seed 55, turn 8), the Director queued the human's character, then the two
others, after "Who are you, exactly?", and the beat ended at her before anyone answered.
The rule reads records only, never who plays whom: a Character's question of the last beat
gets a hearer just the same, and when that hearer is the human's character, the queue
reaching it returns control to the human, as it always does.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from tavern.physics.awaiting import since_director_call
from tavern.records import (
    NARRATOR,
    Character,
    ClampChange,
    DirectorDecision,
    HistoryRecord,
    SpeechRecord,
)

if TYPE_CHECKING:
    from tavern.physics.clamps import ClampContext

RULE = "unanswered_question"
_QUESTION = re.compile(r"\?[\"'”’)\]]*(?:\s|$)")
_WORD = re.compile(r"[^\W\d_]+")


def asks(text: str) -> bool:
    """Whether a spoken text holds a question (a sentence closed by a question mark).

    >>> asks("Good evening. What brings you here?"), asks("Who?"), asks("Keep it down.")
    (True, True, False)
    """
    return _QUESTION.search(text) is not None


def queue_a_hearer(
    d: DirectorDecision, ctx: ClampContext, limit: int
) -> tuple[DirectorDecision, list[ClampChange]]:
    """Put a hearer of the beat's unheard question first in the queue (see the module),
    which keeps at most `limit` speakers."""
    queue = [s for s in d.next_speakers if s != NARRATOR]
    present = list(ctx.scene.present)
    for question in _questions(ctx.history, ctx.turn_number):
        hearers = [
            s for s in present if s in question.audience.perceivers and s != question.speaker
        ]
        if not hearers:
            continue
        queued = [s for s in queue if s in hearers]
        if queued and _before(queued[0], question.speaker, queue):
            continue
        # No hearer is queued, or the asker would speak first, which ends the beat when the
        # asker is the human's character: a hearer goes first.
        chosen = queued[0] if queued else _hearer(question, hearers, ctx.history, ctx.cast or {})
        after = [chosen, *(s for s in queue if s != chosen)][:limit]
        change = ClampChange(rule=RULE, path="next_speakers", before=d.next_speakers, after=after)
        return d.model_copy(update={"next_speakers": after}), [change]
    return d, []


def _before(hearer: str, asker: str, queue: list[str]) -> bool:
    """Whether `hearer` speaks before `asker` in `queue` (or `asker` is not queued)."""
    return asker not in queue or queue.index(hearer) < queue.index(asker)


def _questions(history: Sequence[HistoryRecord], turn: int | None) -> list[SpeechRecord]:
    """The questions spoken since the Director's last call that no hearer spoke after,
    oldest first: a line spoken by one who heard the question has taken its turn to answer
    (live, toll-house #43, seed 57, turn 8: Maren Holt's question of the last beat, which
    the human had answered with her own, queued the human's character first)."""
    found: list[SpeechRecord] = []
    spoke_after: set[str] = set()
    for r in since_director_call(history, turn):  # newest first
        if not isinstance(r, SpeechRecord):
            continue
        if asks(r.text) and spoke_after.isdisjoint(set(r.audience.perceivers) - {r.speaker}):
            found.append(r)
        spoke_after.add(r.speaker)
    return found[::-1]


def _hearer(
    question: SpeechRecord,
    hearers: list[str],
    history: Sequence[HistoryRecord],
    cast: Mapping[str, Character],
) -> str:
    """The hearer the question names (a word of one hearer's name and no other's), else the
    one who spoke last before it, else the first."""
    said = {w.casefold() for w in _WORD.findall(question.text)}
    words = {s: _name_words(cast[s]) if s in cast else frozenset() for s in hearers}
    for slot in hearers:
        others = frozenset().union(*(words[o] for o in hearers if o != slot))
        if said & (words[slot] - others):
            return slot
    for r in reversed(history):
        if isinstance(r, SpeechRecord) and r.speaker in hearers and r.seq < question.seq:
            return r.speaker
    return hearers[0]


def _name_words(character: Character) -> frozenset[str]:
    return frozenset(
        w.casefold() for w in _WORD.findall(character.body.display_name) if len(w) >= 3
    )
