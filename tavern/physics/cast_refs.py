"""Clamps on how a Director proposal refers to the cast: names where ids belong, repeated events.

Small local models often write a character's display name where the schema asks for a slot id
("Dorotea Sand" in `witness_ids`, `next_speakers`, `actor_id`). The id clamps would then drop
that reference as unknown: the witness perceives nothing, the queued speaker never speaks. The
Director is shown every present character's name next to its id, so a reference that is exactly
one cast member's name (ignoring case and spacing) can only mean that member: `resolve_names`
maps it to the id before any other clamp judges it. Nothing is widened by this: the mapped ids
still go through the zone, presence and audience clamps like ids the model wrote itself.

The same models also repeat an event within a beat, verbatim or with other witnesses, and copy
a line just spoken into an event; `drop_duplicate_events` merges the copies into the first and
drops the spoken copies, so memories and narration do not repeat them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from itertools import compress, repeat
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from tavern.physics.dropping import drop_events, rewrite_told
from tavern.records import (
    NARRATOR,
    Character,
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


def name_index(cast: Mapping[str, Character]) -> dict[str, str]:
    """Folded display name -> slot id, for names that belong to exactly one cast member.

    A name equal to some slot id is left out, so a resolved reference is never resolved again.

    Example:
        >>> from tavern.records.character import Body, Character, Mind
        >>> body = Body(display_name="Mara  Vell", description_ref="a tall woman")
        >>> name_index({"C1": Character(id="mara", mind=Mind(), body=body)})
        {'mara vell': 'C1'}
    """
    ids = {_key(slot) for slot in cast} | {_key(NARRATOR)}
    owners = _sole_owners((_key(c.body.display_name), slot) for slot, c in cast.items())
    return {name: slot for name, slot in owners.items() if name and name not in ids}


def id_spellings(cast: Mapping[str, Character]) -> dict[str, str]:
    """Folded slot id -> slot id, for ids no other slot folds to: "c1" can only mean "C1".

    Toll-house #43 (seed 57), turn 2: the Director wrote `"actor_id": "c1"`; the id clamp took
    it for an unknown id and made the outcome a World event, so the action stayed unresolved
    and its follow-up told the same walk again, under the actor.

    Example:
        >>> from tavern.records.character import Body, Character, Mind
        >>> body = Body(display_name="Mara", description_ref="a tall woman")
        >>> id_spellings({"C1": Character(id="mara", mind=Mind(), body=body)})
        {'c1': 'C1'}
    """
    return _sole_owners((_key(slot), slot) for slot in cast)


def _sole_owners(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """key -> slot, for the keys of (key, slot) `pairs` that one slot alone has."""
    slots: dict[str, list[str]] = {}
    for key, slot in pairs:
        slots.setdefault(key, []).append(slot)
    return {key: found[0] for key, found in slots.items() if len(found) == 1}


def resolve_names(d: DirectorDecision, ctx: ClampContext) -> tuple[DirectorDecision, Changes]:
    """Replace cast members' display names, and their ids in another case, in the id fields
    by their slot ids.

    Fields: each event's `actor_id` and `witness_ids`, `next_speakers` (where any spelling of
    `Narrator` also becomes the sentinel), the keys of `mood_updates`, and each zone move's
    `character_id`. Anything else is left for the other clamps to judge.
    """
    cast = ctx.cast or {}
    ids = {*cast, NARRATOR}
    references = [
        *(ev.actor_id for ev in d.events if ev.actor_id is not None),
        *(w for ev in d.events for w in ev.witness_ids),
        *d.next_speakers,
        *d.mood_updates,
        *(m.character_id for m in d.zone_moves),
    ]
    if ids.issuperset(references):  # the usual answer: ids only, nothing to look up
        return d, []
    index = {**id_spellings(cast), **name_index(cast)}
    if not index:
        return d, []
    changes: Changes = []

    def mapped(path: str, value: Any, found: Any) -> Any:
        if found != value:
            changes.append(ClampChange(rule="cast_reference", path=path, before=value, after=found))
        return found

    def one(path: str, value: str) -> str:
        return str(mapped(path, value, _lookup(index, value)))

    def many(path: str, values: list[str], extra: Mapping[str, str] | None = None) -> list[str]:
        table = {**index, **(extra or {})}
        return list(mapped(path, values, [_lookup(table, v) for v in values]))

    events = []
    for i, ev in enumerate(d.events):
        actor = None if ev.actor_id is None else one(f"events[{i}].actor_id", ev.actor_id)
        witnesses = many(f"events[{i}].witness_ids", ev.witness_ids)
        same = actor == ev.actor_id and witnesses == ev.witness_ids
        events.append(
            ev if same else ev.model_copy(update={"actor_id": actor, "witness_ids": witnesses})
        )
    speakers = many("next_speakers", d.next_speakers, {_key(NARRATOR): NARRATOR})
    moods = dict(
        zip(many("mood_updates", list(d.mood_updates)), d.mood_updates.values(), strict=True)
    )
    moves = [
        move.model_copy(update={"character_id": slot})
        if (slot := one(f"zone_moves[{i}].character_id", move.character_id)) != move.character_id
        else move
        for i, move in enumerate(d.zone_moves)
    ]
    if not changes:
        return d, []
    update = {
        "events": events,
        "next_speakers": speakers,
        "mood_updates": moods,
        "zone_moves": moves,
    }
    return d.model_copy(update=update), changes


_GLOSSED = re.compile(r"\s*([^()]+?)\s*\(\s*([^()]+?)\s*\)\s*")
"""A reference glossed with another: "Ilse Brandt (C1)", "C1 (Ilse Brandt)"."""


def _lookup(table: Mapping[str, str], value: str) -> str:
    """The slot `value` names in `table`, or `value` itself. A glossed reference names a slot
    when both of its parts name it: live (toll-house #46, seed 60, turn 1), the Director wrote
    every actor and witness as "Ilse Brandt (C1)", and the id clamp dropped them all, so the
    beat's event reached nobody while the renderer narrated it."""
    found = table.get(_key(value))
    if found is None and "(" in value and (glossed := _GLOSSED.fullmatch(value)):
        outer, inner = (table.get(_key(part)) for part in glossed.groups())
        if outer is not None and outer == inner:
            return outer
    return value if found is None else found


def collapse_glosses(d: DirectorDecision, ctx: ClampContext) -> tuple[DirectorDecision, Changes]:
    """A cast member glossed with its own id or name, "Ilse Brandt (C1)" or "C1 (Ilse
    Brandt)", becomes the bare id, in event texts and new facts.

    Live, the 0.5B Director wrote "Ilse Brandt (C1) walks slowly to the window"; every prompt
    names the id, so readers got "Ilse Brandt (Ilse Brandt) walks ...". Event texts keep slot
    ids, which each viewer sees in the names it knows. A gloss naming another member, or
    nobody in the cast, is left alone.
    """
    cast = ctx.cast or {}
    facts = d.scene.add_facts
    if not cast or not any("(" in t for t in (*(ev.text for ev in d.events), *facts)):
        return d, []
    pattern = _gloss_pattern(tuple((slot, c.body.display_name) for slot, c in cast.items()))
    slots = list(cast)

    def collapsed(text: str) -> str:
        if "(" not in text:
            return text
        return pattern.sub(lambda m: slots[int(str(m.lastgroup)[1:])], text)

    return rewrite_told(d, "cast_gloss", collapsed)


@lru_cache(maxsize=64)
def _gloss_pattern(members: tuple[tuple[str, str], ...]) -> re.Pattern[str]:
    """One alternative per member (group `m<index>`): its name glossed with its id, or its id
    glossed with its name; names match in any case and spacing."""
    forms = []
    for index, (slot, name) in enumerate(members):
        named = r"\s+".join(map(re.escape, name.split())) or re.escape(slot)
        slot_id = re.escape(slot)
        forms.append(
            rf"(?P<m{index}>\b{named}\s*\(\s*{slot_id}\s*\)|\b{slot_id}\s*\(\s*{named}\s*\))"
        )
    return re.compile("|".join(forms), re.IGNORECASE)


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
