"""Clamps: turn any schema-valid Director proposal into an admissible decision.

A model can narrow perception, never widen it. Each rule is a pure function
`(decision, ctx) -> (decision, changes)`; `clamp_decision` runs them in `CLAMP_RULES` order and
reports every change for the journal. Running the clamps twice changes nothing the second time.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from tavern.physics.agency import drop_unattempted_acts, drop_unattempted_moves
from tavern.physics.authored import drop_authored_speech
from tavern.physics.canon import apply_canon, preview_zone_ids
from tavern.physics.cast_refs import (
    collapse_glosses,
    drop_duplicate_events,
    drop_spoken_copies,
    drop_thought_copies,
    resolve_names,
)
from tavern.physics.directive_copy import drop_directive_copies
from tavern.physics.emptied import drop_emptied_events
from tavern.physics.fact_state import drop_state_flips
from tavern.physics.guards import Knowledge, cast_public_texts, knowledge_of
from tavern.physics.location import clamp_location
from tavern.physics.mind_copy import drop_mind_copies
from tavern.physics.near_duplicate import drop_near_duplicates
from tavern.physics.outcome_kind import label_outcomes
from tavern.physics.pending_action import has_unresolved_action
from tavern.physics.prompt_copy import drop_prompt_copies
from tavern.physics.prompt_labels import drop_label_copies
from tavern.physics.questions import queue_a_hearer
from tavern.physics.respelt import respell_names
from tavern.physics.restated import drop_restated_events
from tavern.physics.roster_event import drop_roster_events
from tavern.physics.told_mind import drop_told_thoughts
from tavern.physics.unfinished import drop_unfinished_ends
from tavern.physics.visible import perception_guard, redact_visible, thought_guard
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

MAX_SPEAKERS = 3
MAX_NEW_FACTS = 2
"""Facts one beat may add. Live, the 0.5B Director added 252 facts over 96 beats, 186 of
them restating an opening fact; a hostile one adds as many as its schema allows, every beat."""
MAX_FACTS = 12
"""Facts the stage may hold. Every prompt shows them all: unbounded, they crowded the rest of
the Director's prompt out of a small model's context."""
_ZONE_ID = re.compile(ZONE_ID_PATTERN)


@dataclass(frozen=True)
class ClampContext:
    """Everything the clamps need to judge a proposal.

    Attributes:
        scene: The stage before the beat.
        history: Records so far, including this turn's already appended ones.
        max_skip_ticks: Upper bound of a time skip.
        unresolved_action: Whether an action intent awaits adjudication; None derives it
            from `history` with `has_unresolved_action`.
        public_texts: Extra public text (premise, scenario prose) whose words are never secret.
        cast: The session cast; its names, descriptions and appearances count as public.
        turn_number: The beat being played; None: that of the last record in `history`.
        prompt_sentences: The fixed sentences of the Director's prompts (clamp
            `prompt_copy`); none by default.
        directives: The scenario's tone directives (clamp `directive_copy`).
        title: The session's title, the first line of the Director's history (clamp
            `prompt_copy`); none by default.
    """

    scene: Scene
    history: Sequence[HistoryRecord] = ()
    max_skip_ticks: int = 3
    unresolved_action: bool | None = None
    public_texts: Sequence[str] = field(default_factory=tuple)
    cast: Mapping[str, Character] | None = None
    turn_number: int | None = None
    prompt_sentences: Sequence[str] = ()
    directives: Sequence[str] = ()
    title: str = ""

    @property
    def all_public_texts(self) -> list[str]:
        """`public_texts` plus the cast's public words."""
        return [*self.public_texts, *cast_public_texts(self.cast or {})]

    @cached_property
    def knowledge(self) -> Knowledge:
        """Who perceived each non-public word of `history` (`guards.knowledge_of`), walked
        once per context: every guard of a beat, and each follow-up's, reads it."""
        return knowledge_of(self.history, self.scene, self.all_public_texts)

    @property
    def present(self) -> list[str]:
        """Slot ids present in the scene."""
        return list(self.scene.present)

    @property
    def mid_action(self) -> bool:
        """Whether a time skip must be refused."""
        if self.unresolved_action is not None:
            return self.unresolved_action
        return has_unresolved_action(self.history)


Changes = list[ClampChange]
ClampRule = Callable[[DirectorDecision, ClampContext], tuple[DirectorDecision, Changes]]


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


def queue_hearer(d: DirectorDecision, ctx: ClampContext) -> tuple[DirectorDecision, Changes]:
    """A question of the beat that no queued speaker heard gets a hearer (`physics.questions`)."""
    return queue_a_hearer(d, ctx, MAX_SPEAKERS)


def clamp_time_skip(d: DirectorDecision, ctx: ClampContext) -> tuple[DirectorDecision, Changes]:
    """Bound a time skip to 0..max_skip_ticks, and refuse any skip mid-action."""
    ticks = 0 if ctx.mid_action else min(max(d.time_skip_ticks, 0), max(ctx.max_skip_ticks, 0))
    if ticks == d.time_skip_ticks:
        return d, []
    change = ClampChange(
        rule="time_skip", path="time_skip_ticks", before=d.time_skip_ticks, after=ticks
    )
    return d.model_copy(update={"time_skip_ticks": ticks}), [change]


def bound_facts(d: DirectorDecision, ctx: ClampContext) -> tuple[DirectorDecision, Changes]:
    """Keep at most `MAX_NEW_FACTS` new facts a beat, and none past `MAX_FACTS` standing
    facts (after the beat's removals); the beat's first proposals are kept, the rest refused.

    Refused rather than folding the oldest away: the oldest facts are the scenario's opening
    canon (the will in the satchel, the bolted trapdoor) that every character has read, and a
    Director flooding the stage must not be able to push them out. A Director that needs room
    removes a fact in the same beat. A fact already standing adds nothing and costs no room;
    a fact the beat repeats goes (canon would add it twice).

    Example:
        >>> ctx = ClampContext(scene=Scene(location="inn", facts=["The door is shut."]))
        >>> d = DirectorDecision(scene={"add_facts": ["A", "B", "C"]})
        >>> out, changes = bound_facts(d, ctx)
        >>> out.scene.add_facts, [c.path for c in changes]
        (['A', 'B'], ['scene.add_facts[2]'])
    """
    delta = d.scene
    standing = {f for f in ctx.scene.facts if f not in set(delta.remove_facts)}
    room = min(MAX_NEW_FACTS, MAX_FACTS - len(standing))
    added: set[str] = set()
    kept, changes = [], []
    for i, fact in enumerate(delta.add_facts):
        if fact not in standing:
            if fact in added or room <= 0:
                changes.append(
                    ClampChange(rule="fact_bound", path=f"scene.add_facts[{i}]", before=fact)
                )
                continue
            room -= 1
            added.add(fact)
        kept.append(fact)
    if not changes:
        return d, changes  # every fact kept
    return d.model_copy(update={"scene": delta.model_copy(update={"add_facts": kept})}), changes


CLAMP_RULES: list[tuple[str, ClampRule]] = [
    ("misspelt_name", respell_names),
    ("cast_reference", resolve_names),
    ("cast_gloss", collapse_glosses),
    ("unfinished_sentence", drop_unfinished_ends),
    ("zone_move", clamp_zone_moves),
    ("agency_move", drop_unattempted_moves),
    ("link_update", clamp_link_updates),
    ("location", clamp_location),
    ("mood_target", clamp_moods),
    ("witness_zone", clamp_witnesses),
    ("speaker_queue", clamp_speakers),
    ("unanswered_question", queue_hearer),
    ("time_skip", clamp_time_skip),
    ("outcome_kind", label_outcomes),
    ("spoken_copy", drop_spoken_copies),
    ("thought_copy", drop_thought_copies),
    ("authored_speech", drop_authored_speech),
    ("mind_copy", drop_mind_copies),
    ("prompt_label", drop_label_copies),
    ("prompt_copy", drop_prompt_copies),
    ("directive_copy", drop_directive_copies),
    ("told_mind", drop_told_thoughts),
    ("restated_event", drop_restated_events),
    ("agency", drop_unattempted_acts),
    ("fact_flip", drop_state_flips),
    ("thought_guard", thought_guard),
    ("perception_guard", perception_guard),
    ("redacted_event", drop_emptied_events),
    ("roster_event", drop_roster_events),
    ("duplicate_event", drop_duplicate_events),
    ("near_duplicate_event", drop_near_duplicates),
    ("fact_bound", bound_facts),
]
"""Clamp rules in application order. Cast names one letter off are spelt right, then names
become ids first, so every other rule judges ids. An actor's event telling their waiting
attempt becomes its outcome before the rules that judge outcomes read the kind. Copies of
spoken lines and thoughts and recitals of a mind go before the guards could mask them. The
guards run on the final witness lists, and an event they left with nothing to tell goes;
repeats merge last, on the texts as they will be shown (two texts can become equal once
redacted). A merged event's witnesses never make a guard redact more: copies that the guards
left equal hold nothing hidden from any of them. Facts are counted last, as the guards left
them (two can become one)."""


def clamp_decision(
    decision: DirectorDecision, ctx: ClampContext
) -> tuple[DirectorDecision, list[ClampChange]]:
    """Make a Director proposal admissible and report each change.

    Args:
        decision: The parsed, schema-valid proposal (possibly hostile).
        ctx: The scene, history and limits to judge it against.

    Returns:
        The admissible decision and the list of changes, in rule order. Clamping the result
        again returns it unchanged with no changes.

    Example:
        >>> ctx = ClampContext(scene=Scene(location="inn", present=["C1", "C2"]))
        >>> d, changes = clamp_decision(DirectorDecision(next_speakers=["C9", "C2", "C2"]), ctx)
        >>> d.next_speakers, [c.rule for c in changes]
        (['C2'], ['speaker_queue'])
    """
    changes: list[ClampChange] = []
    for _name, rule in CLAMP_RULES:
        decision, found = rule(decision, ctx)
        changes.extend(found)
    return decision, changes


__all__ = [
    "CLAMP_RULES",
    "MAX_FACTS",
    "MAX_NEW_FACTS",
    "ClampContext",
    "apply_canon",
    "bound_facts",
    "clamp_decision",
    "has_unresolved_action",
    "redact_visible",
    "perception_guard",
    "thought_guard",
]
