"""Structure: who may be where, perceive what, speak when, and how far time jumps.

The rules a hostile answer meets first; they read ids, zones, links and numbers, so they
handle every language: `zone_move` (one move per present character, to a known or validly
declared zone), `link_update` (between two different known zones), `location` (a new place
only, and every present character ends in one zone), `mood_target` (present characters),
`witness_zone` (witnesses intersected with what the zone graph allows, before and after
this beat's canon; an utterance never beyond its speech's audience), `speaker_queue`
(present ids, no repeats, at most `MAX_SPEAKERS`; empty: the Narrator),
`unanswered_question` (a question no queued speaker heard puts a hearer first) and
`time_skip` (0..max ticks, none while an attempt waits).

    >>> from tavern.physics.clamps import ClampContext
    >>> ctx = ClampContext(scene=Scene(location="inn", present=["C1", "C2"]))
    >>> clamp_speakers(DirectorDecision(next_speakers=["C9", "C2", "C2"]), ctx)[0].next_speakers
    ['C2']
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from tavern.physics.awaiting import since_director_call
from tavern.physics.canon import apply_canon, preview_zone_ids
from tavern.physics.guards import scene_texts
from tavern.physics.zones import perceivers_of_zone, zone_of
from tavern.records import (
    NARRATOR,
    Character,
    ClampChange,
    DirectorDecision,
    HistoryRecord,
    Scene,
    SpeechRecord,
)
from tavern.records.scene import ZONE_ID_PATTERN
from tavern.text import LANGUAGES, lexicon_for, words

if TYPE_CHECKING:
    from tavern.physics.clamps import ClampContext

Changes = list[ClampChange]
MAX_SPEAKERS = 3
MAX_LOCATION_WORDS = 8
"""Words of a place name, small words aside ("the tavern of the Seven Sisters on the north
road": 5)."""
_ZONE_ID = re.compile(ZONE_ID_PATTERN)
_QUESTION = re.compile(r"\?[\"'”’)\]]*(?:\s|$)")


def clamp_zone_moves(d: DirectorDecision, ctx: ClampContext) -> tuple[DirectorDecision, Changes]:
    """Keep one move per present character, to an existing zone or a validly declared one."""
    existing = set(preview_zone_ids(ctx.scene, []))
    declared: set[str] = set()
    moved: set[str] = set()
    kept, changes = [], []
    for i, move in enumerate(d.zone_moves):
        reason = None
        if move.character_id not in ctx.present or move.character_id in moved:
            reason = "absent or repeated character"
        elif move.to_zone not in existing | declared and not (
            move.new_zone_label and _ZONE_ID.match(move.to_zone)
        ):
            reason = "unknown zone"
        if reason:
            changes.append(
                ClampChange(
                    rule="zone_move", path=f"zone_moves[{i}]", before=move.model_dump(), after=None
                )
            )
            continue
        if move.new_zone_label and move.to_zone in existing | declared:
            fixed = move.model_copy(update={"new_zone_label": None})
            changes.append(
                ClampChange(
                    rule="zone_move",
                    path=f"zone_moves[{i}].new_zone_label",
                    before=move.new_zone_label,
                    after=None,
                )
            )
            move = fixed
        if move.new_zone_label:
            declared.add(move.to_zone)
        moved.add(move.character_id)
        kept.append(move)
    if not changes:
        return d, changes  # every move kept as it was
    return d.model_copy(update={"zone_moves": kept}), changes


def clamp_link_updates(d: DirectorDecision, ctx: ClampContext) -> tuple[DirectorDecision, Changes]:
    """Keep link updates between two different, existing (or just declared) zones."""
    known = set(preview_zone_ids(ctx.scene, d.zone_moves))
    kept, changes = [], []
    for i, up in enumerate(d.link_updates):
        valid = up.source != up.target and {up.source, up.target} <= known
        if valid and (up.sound or up.sight):
            kept.append(up)
        else:
            changes.append(
                ClampChange(
                    rule="link_update",
                    path=f"link_updates[{i}]",
                    before=up.model_dump(),
                    after=None,
                )
            )
    if not changes:
        return d, changes  # every update kept
    return d.model_copy(update={"link_updates": kept}), changes


def clamp_moods(d: DirectorDecision, ctx: ClampContext) -> tuple[DirectorDecision, Changes]:
    """Drop mood updates for characters who are not present."""
    kept = {k: v for k, v in d.mood_updates.items() if k in ctx.present}
    if kept == d.mood_updates:
        return d, []
    change = ClampChange(rule="mood_target", path="mood_updates", before=d.mood_updates, after=kept)
    return d.model_copy(update={"mood_updates": kept}), [change]


def _speech_audience(ctx: ClampContext, seq: int | None) -> set[str] | None:
    if seq is None:
        return None
    for record in ctx.history:
        if record.seq == seq and isinstance(record, SpeechRecord):  # the cheap test first
            return set(record.audience.perceivers) | set(record.audience.aware)
    return None


def clamp_witnesses(d: DirectorDecision, ctx: ClampContext) -> tuple[DirectorDecision, Changes]:
    """Intersect each event's witnesses with who the zone graph lets perceive it.

    The actor always perceives its own event. Perception is judged on the stage both before
    and after this beat's canon, so an arrival is seen from the destination and a departure
    from the origin. An utterance event never reaches beyond its speech record's audience.
    """
    present = ctx.present
    stages: list[Scene] = []  # before and after this beat's canon, once an actor asks
    reached: dict[tuple[int, str], set[str]] = {}  # (stage, zone) -> who perceives it
    events, changes = [], []
    for i, ev in enumerate(d.events):
        if ev.actor_id is not None and ev.actor_id not in present:
            changes.append(
                ClampChange(
                    rule="witness_zone",
                    path=f"events[{i}].actor_id",
                    before=ev.actor_id,
                    after=None,
                )
            )
            ev = ev.model_copy(update={"actor_id": None})
        allowed = set(present)
        if ev.actor_id is not None:
            allowed = {ev.actor_id}
            stages = stages or [ctx.scene, apply_canon(ctx.scene, d)]
            for at, scene in enumerate(stages):
                origin = zone_of(scene, ev.actor_id)
                if origin is not None:
                    found = reached.get((at, origin))
                    if found is None:
                        found = set(perceivers_of_zone(scene, origin, ["sound", "sight"]))
                        reached[(at, origin)] = found
                    allowed |= found
            allowed &= set(present)
        heard = _speech_audience(ctx, ev.utterance_ref)
        if heard is not None:
            allowed &= heard
        witnesses = [w for w in dict.fromkeys(ev.witness_ids) if w in allowed]
        if witnesses != ev.witness_ids:
            changes.append(
                ClampChange(
                    rule="witness_zone",
                    path=f"events[{i}].witness_ids",
                    before=ev.witness_ids,
                    after=witnesses,
                )
            )
            ev = ev.model_copy(update={"witness_ids": witnesses})
        events.append(ev)
    if not changes:
        return d, changes  # every event kept as it was
    return d.model_copy(update={"events": events}), changes


def clamp_speakers(d: DirectorDecision, ctx: ClampContext) -> tuple[DirectorDecision, Changes]:
    """Present ids only, deduplicated, at most three; an empty queue becomes the Narrator."""
    queue = [s for s in dict.fromkeys(d.next_speakers) if s in ctx.present][:MAX_SPEAKERS]
    queue = queue or [NARRATOR]
    if queue == d.next_speakers:
        return d, []
    change = ClampChange(
        rule="speaker_queue", path="next_speakers", before=d.next_speakers, after=queue
    )
    return d.model_copy(update={"next_speakers": queue}), [change]


def clamp_time_skip(d: DirectorDecision, ctx: ClampContext) -> tuple[DirectorDecision, Changes]:
    """Bound a time skip to 0..max_skip_ticks, and refuse any skip mid-action."""
    ticks = 0 if ctx.mid_action else min(max(d.time_skip_ticks, 0), max(ctx.max_skip_ticks, 0))
    if ticks == d.time_skip_ticks:
        return d, []
    change = ClampChange(
        rule="time_skip", path="time_skip_ticks", before=d.time_skip_ticks, after=ticks
    )
    return d.model_copy(update={"time_skip_ticks": ticks}), [change]


def restates_the_stage(new_location: str, stage_texts: Iterable[str]) -> bool:
    """Whether `new_location` names no place that is not already the stage: no word of its
    own (articles, prepositions and conjunctions aside), or more than `MAX_LOCATION_WORDS`
    words (a place has a name, not a paragraph).

    >>> stage = ["the toll house at the river crossing", "The Toll House at Low Water"]
    >>> restates_the_stage("Low Water at Low Water", stage), restates_the_stage("o cais", stage)
    (True, False)
    """
    said = _place_words(new_location)
    if not said or len(said) > MAX_LOCATION_WORDS:
        return True
    return {w for text in stage_texts for w in _place_words(text)}.issuperset(said)


def _place_words(text: str) -> list[str]:
    """The words of `text` but articles, prepositions and conjunctions, of any language."""
    small: set[str] = set()
    for lex in map(lexicon_for, LANGUAGES):
        small |= lex.articles | lex.prepositions | lex.conjunctions
    return [w for w in words(text) if w not in small]


def clamp_location(d: DirectorDecision, ctx: ClampContext) -> tuple[DirectorDecision, Changes]:
    """Admit a new location only when it names a place that is not already the stage and
    every present character ends in one zone."""
    if not d.scene.new_location:
        return d, []
    stage = [*scene_texts(ctx.scene), *(z.id for z in ctx.scene.zones), *ctx.all_public_texts]
    if not restates_the_stage(d.scene.new_location, stage):
        after = apply_canon(ctx.scene, d.model_copy(update={"scene": type(d.scene)()}))
        if len({zone_of(after, slot) for slot in ctx.present}) <= 1:
            return d, []
    change = ClampChange(
        rule="location", path="scene.new_location", before=d.scene.new_location, after=None
    )
    scene = d.scene.model_copy(update={"new_location": None})
    return d.model_copy(update={"scene": scene}), [change]


def asks(text: str) -> bool:
    """Whether a spoken text holds a question (a sentence closed by a question mark).

    >>> asks("Good evening. What brings you here?"), asks("Who?"), asks("Keep it down.")
    (True, True, False)
    """
    return _QUESTION.search(text) is not None


def queue_hearer(d: DirectorDecision, ctx: ClampContext) -> tuple[DirectorDecision, Changes]:
    """Put first in the queue a hearer of a question of the beat that no queued speaker
    heard."""
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
        after = [chosen, *(s for s in queue if s != chosen)][:MAX_SPEAKERS]
        change = ClampChange(
            rule="unanswered_question", path="next_speakers", before=d.next_speakers, after=after
        )
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
    said = set(words(question.text))
    named = {s: _name_words(cast[s]) if s in cast else frozenset() for s in hearers}
    for slot in hearers:
        others = frozenset().union(*(named[o] for o in hearers if o != slot))
        if said & (named[slot] - others):
            return slot
    for r in reversed(history):
        if isinstance(r, SpeechRecord) and r.speaker in hearers and r.seq < question.seq:
            return r.speaker
    return hearers[0]


def _name_words(character: Character) -> frozenset[str]:
    return frozenset(w for w in words(character.body.display_name) if len(w) >= 3)
