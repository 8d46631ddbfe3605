"""Clamps on repeated events and copied lines.

Small models repeat an event within a beat, verbatim or with other witnesses, and copy a line
just spoken into an event; `drop_duplicate_events` merges the copies into the first and
`drop_spoken_copies` drops the spoken copies, so memories and narration do not repeat them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import compress, repeat
from operator import attrgetter
from typing import TYPE_CHECKING

from tavern.physics.dropping import drop_events
from tavern.records import (
    ClampChange,
    DirectorDecision,
    HistoryRecord,
    PerceptionEvent,
    SpeechRecord,
    ThoughtRecord,
)

if TYPE_CHECKING:
    from tavern.physics.clamps import ClampContext

Changes = list[ClampChange]


def _key(text: str) -> str:
    return " ".join(text.split()).casefold()


def drop_duplicate_events(
    d: DirectorDecision, ctx: ClampContext
) -> tuple[DirectorDecision, Changes]:
    """One event per text and actor in a beat: repeats merge into the first (texts compared
    by `merge_key`).

    Runs last, after the witness clamp and the guards: each copy's witnesses are already
    admissible for its actor and `utterance_ref`, and texts are compared as they will be
    shown. The first copy keeps its kind (a small model labels one happening "arrival" and
    "utterance" in the same answer) and takes the union of the copies' witnesses: each of
    them perceived that same text already, so nobody perceives more. When the copies cite
    different lines, the merged event cites none: the ref only narrows who may witness, so
    the union stays admissible and clamping again changes nothing.

    """
    first: dict[tuple[str, str | None], int] = {}
    events: list[PerceptionEvent] = []
    origins: list[int] = []
    changes: Changes = []
    for i, ev in enumerate(d.events):
        at = first.setdefault((merge_key(ev.text), ev.actor_id), len(events))
        if at == len(events):
            events.append(ev)
            origins.append(i)
            continue
        changes.append(
            ClampChange(
                rule="duplicate_event", path=f"events[{i}]", before=ev.model_dump(), after=None
            )
        )
        kept = events[at]
        witnesses = list(dict.fromkeys([*kept.witness_ids, *ev.witness_ids]))
        ref = kept.utterance_ref if kept.utterance_ref == ev.utterance_ref else None
        events[at] = kept.model_copy(update={"witness_ids": witnesses, "utterance_ref": ref})
    if not changes:
        return d, []
    for ev, i in zip(events, origins, strict=True):
        if ev != d.events[i]:
            changes.append(
                ClampChange(
                    rule="duplicate_event",
                    path=f"events[{i}]",
                    before=d.events[i].model_dump(),
                    after=ev.model_dump(),
                )
            )
    return d.model_copy(update={"events": events}), changes


def drop_spoken_copies(d: DirectorDecision, ctx: ClampContext) -> tuple[DirectorDecision, Changes]:
    """Drop each event whose text is a line already spoken: a speech among the last
    `COPY_WINDOW` records of `ctx.history`, ignoring case, spacing, quotes and end
    punctuation. The Director never authors dialogue, and the speech record already reached
    its audience.

    Runs before the guards, on the text as the Director wrote it: a whispered line copied
    into a public event was once masked instead ('[...] your [...] down.') and shown.
    """
    spoken = _spoken_lines(d.events, ctx.history)
    if not spoken:
        return d, []
    return drop_events(d, "spoken_copy", lambda ev: line_key(ev.text) in spoken)


_QUOTES_AND_STOPS = " \"'\u201c\u201d\u2018\u2019.,!?;:"
_MERGE_WORDS = re.compile(r"\[\.\.\.\]|[^\W_]+(?:'[^\W_]+)?")
IDLE_WORDS = frozenset(("a", "an", "the", "now", "still", "again", "also", "then", "just"))
"""Words a repeat may add or drop without telling anything else: articles and a few adverbs
of time, each a stopword of `physics.redaction` (never a secret, so never masked). Live
(vintners-wake soak #26, seed 40, turn 2), one beat committed "The trapdoor to the cellar is
shut and bolted from the hall side." and "... is now shut and bolted ..."."""


def merge_key(text: str) -> str:
    """A text as repeats within a beat compare: case and punctuation aside, without
    `IDLE_WORDS`. Masks stay in place, and no other word goes, so copies with one key show
    their witnesses the same words: merging them reveals nothing ("not" stays too).

    >>> merge_key("The door is now shut.") == merge_key("the door is shut")
    True
    >>> merge_key("The door is not shut.") == merge_key("The door is shut.")
    False
    """
    return " ".join(w for w in _MERGE_WORDS.findall(text.lower()) if w not in IDLE_WORDS)


def line_key(text: str) -> str:
    """A text as copies are compared: case, spacing, quotes and end punctuation aside.

    >>> line_key('  "Shut the DOOR."  ')
    'shut the door'
    """
    return _key(text).strip(_QUOTES_AND_STOPS)


COPY_WINDOW = 64
"""Records looked back over for what an event copies: a spoken line (`spoken_copy`), a fact
or an earlier event (`restated_event`). Copies seen live came from the same beat or a few
turns earlier; the clamp context holds hundreds of records."""


def _spoken_lines(
    events: list[PerceptionEvent],
    history: Sequence[HistoryRecord],
    kind: type[SpeechRecord] | type[ThoughtRecord] = SpeechRecord,
) -> set[str]:
    """Keys of the recent spoken lines (or thoughts) some event's text could repeat: only
    lines of about an event's length are folded, found in C-level passes."""
    if not events:
        return set()
    lengths = [len(ev.text) for ev in events]
    low, high = min(lengths) - 8, max(lengths) + 8
    recent = history[-COPY_WINDOW:]
    lines = compress(recent, map(isinstance, recent, repeat(kind)))
    return {line_key(t) for t in map(_TEXT, lines) if low <= len(t) <= high}


def drop_thought_copies(d: DirectorDecision, ctx: ClampContext) -> tuple[DirectorDecision, Changes]:
    """Drop each event whose text is a recent private thought, compared as `spoken_copy`
    compares lines. A thought is no happening: the Director reads every thought, and the
    0.5B one made C3's "The barefoot girl in the oilskin tried to walk slowly to the nearest
    window and looks outside. She failed." the next beat's event, word for word (toll-house
    soak #23, seed 40, turn 4); the thought guard masked only its one word nobody had said.
    """
    thought = _spoken_lines(d.events, ctx.history, ThoughtRecord)
    if not thought:
        return d, []
    return drop_events(d, "thought_copy", lambda ev: line_key(ev.text) in thought)


_TEXT = attrgetter("text")
