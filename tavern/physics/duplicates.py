"""Duplicates: an event that tells again what was told.

Clamp `event_loop`: an event's text that says one of its clauses again ends before the
repetition. A clause is a run of words between commas, semicolons or sentence ends; two
clauses are the same when their sentence keys are (`tavern.text.sentence_key`: case,
punctuation, articles and fillers such as "now" and "again" aside), a leading conjunction
aside too. From the first clause of `MIN_CLAUSE_WORDS` words or more that repeats an
earlier one, the text is cut. A run of two to six words said again right after itself
("until dawn until dawn") is said once first.

    "The trapdoor is sealed with a page. The trapdoor is sealed with a page, and the
    trapdoor is sealed with a page." -> "The trapdoor is sealed with a page."
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tavern.physics.dropping import rewrite_events
from tavern.records import ClampChange, DirectorDecision, PerceptionEvent
from tavern.text import Lexicon, lexicon_for, sentence_key, words

if TYPE_CHECKING:
    from tavern.physics.clamps import ClampContext

Changes = list[ClampChange]
MIN_CLAUSE_WORDS = 4
"""Shorter repeats are said in earnest ("No, no, no!", "Open it, open it.")."""
_CLAUSE = re.compile(r"[^,;.!?…]+[,;.!?…]*")
STUTTER = re.compile(r"\b(\w+(?:[ \t]+\w+){1,5}?)(?:[ \t]+\1\b)+", re.IGNORECASE)
"""A run of two to six words (the shortest that repeats), then one or more copies of it."""


def _linked(clause: str, lexicon: Lexicon) -> str:
    """The clause without a leading conjunction ("and walk" -> "walk")."""
    first, _, rest = clause.strip().partition(" ")
    return rest if first.casefold() in lexicon.conjunctions else clause


def before_repeated_clause(text: str, lexicon: Lexicon) -> str:
    """`text` up to its first long clause that repeats an earlier one (see the module).

    >>> en = lexicon_for("en")
    >>> before_repeated_clause("open the box on the table, open the box on the table again", en)
    'open the box on the table'
    >>> before_repeated_clause("No, no, no!", en)
    'No, no, no!'
    >>> before_repeated_clause("A porta range, e a porta range de novo.", lexicon_for("pt-BR"))
    'A porta range'
    """
    text = STUTTER.sub(r"\1", text)
    seen: set[str] = set()
    for match in _CLAUSE.finditer(text):
        clause = _linked(match.group(), lexicon)
        key = sentence_key(clause, lexicon)
        if key in seen and len(words(clause)) >= MIN_CLAUSE_WORDS:
            return text[: match.start()].rstrip().rstrip(",;")
        seen.add(key)
    return text


def cut_event_loops(
    d: DirectorDecision, ctx: ClampContext
) -> tuple[DirectorDecision, list[ClampChange]]:
    """Cut each event's text before its first repeated clause."""
    lexicon = lexicon_for(ctx.language)
    return rewrite_events(d, "event_loop", lambda ev: before_repeated_clause(ev.text, lexicon))


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
