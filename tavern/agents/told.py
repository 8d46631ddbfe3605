"""The sentences a narration may not tell again: those of the last narrations of the window
and of the events since (`told_sentences`, read by `prose.parse` through `agents.repetition`
and `agents.retold_subject`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tavern.agents.repetition import sentence_keys
from tavern.agents.retold_subject import predicate_keys
from tavern.physics.identity import UNKNOWN_REF, replace_slot_ids
from tavern.records import EventRecord, HistoryRecord, NarrationRecord

RETOLD_NARRATIONS = 8
"""Earlier narrations whose sentences a new one may not tell again word for word."""


def told_sentences(
    earlier: Sequence[HistoryRecord], names: Mapping[str, str] | None = None
) -> frozenset[str]:
    """The sentence keys of the last `RETOLD_NARRATIONS` narrations among `earlier`, and of
    the events of earlier beats since the oldest of them, slot ids read as `names`.

    An event is on the reader's screen from its own beat: live (toll-house #18, seed 35), the
    turn-1 event "Ilse Brandt is presented to Maren Holt and Teodor Vask in the toll house at
    the river crossing." was the whole narration of turn 5.
    """
    narrations: list[HistoryRecord] = []
    events: list[HistoryRecord] = []
    for record in reversed(earlier[-RETOLD_NARRATIONS * 32 :]):  # beats without narration
        if isinstance(record, EventRecord):
            events.append(record)
        elif isinstance(record, NarrationRecord):
            narrations.append(record)
            if len(narrations) == RETOLD_NARRATIONS:
                break
    # `sentence_keys` is cached by text: each narration's keys were computed when it was cut.
    named = dict(names or {})
    told = frozenset().union(
        *(sentence_keys(r.text) for r in narrations),
        predicate_keys([r.text for r in narrations], list(named.values())),
    )
    if not events:
        return told

    def event_keys(record: HistoryRecord) -> frozenset[str]:
        text = replace_slot_ids(record.text, lambda m: named.get(m.group(), UNKNOWN_REF))
        return sentence_keys(text) | predicate_keys([text], list(named.values()))

    return told.union(*(event_keys(r) for r in events[::-1]))
