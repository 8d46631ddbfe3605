"""Clamps `agency` and `agency_move`: a character does only what its own agent attempted or said.

Characters attempt, the Director adjudicates, the renderer tells confirmed facts. Live, the
embedded models crossed that line with the character the human plays, which is the one
character whose choices no model may make:
- the Director, on a beat the human skipped, wrote "Ilse Brandt asks C2 to sign the toll
  books tonight." as an event (toll-house soak #7, turn 4); and it moved characters nobody
  had asked to move: 23 of 115 live Director answers held zone moves, and 22 of their 65
  moves passed the zone checks and were committed (vintners-wake #11, turn 2: Dorotea Sand
  went down to the cellar and stayed there for the rest of the session);
- the renderer did the same in its narration (the filter rule `unconfirmed_act`,
  `tavern.filters.unconfirmed_act`, holds a narration to the beat's events).

The rule is the same for every character, so it holds for the human's without anyone knowing
which one that is (the Director and prose prompts stay identical whichever character is
controlled). A sentence of a Director event whose subject is a cast member (named, or
"he"/"she"/"they" for the one named just before) and whose verb is an act stays when that
character has an attempt awaiting adjudication that shares a word of four letters or more with
the sentence, or the event is the `action_outcome` of such an attempt (in any words, but a walk
only when the attempt moves too: `verbs.MOVING`). A verb of speaking stays bare only, when the
character spoke since the last Director call: "Ilse Brandt whispers something to Maren Holt."
stays; "... asks Maren Holt to sign the toll books" goes, since what she asked is her line's
(the Director never authors dialogue, the renderer never read it). A verb of undergoing or
perceiving ("is", "hears", "notices") is no act and stays. The sentence goes (and with it a
next sentence whose pronoun named only its subject); an event left empty goes whole. Each
clause of a sentence is read (`physics.acts`), and so is a verb of speaking joined by "and" to
a cast member's act (`_joined_speech`); a subordinate clause, another second verb of one
subject, a pronoun with no one named before it and a subject that is not a cast member are not:
the rule is narrow by design, since what it removes must be an act a model decided for someone
else.

A zone move stays when an attempt awaiting adjudication, by the mover or naming the mover,
shares such a word with the destination's id or label ("climbs to the loft", "drags Tomas
into the cellar"). It runs before the witness clamp, which reads the zones after the moves.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from tavern.physics.acts import (
    Act,
    Names,
    named,
    read_acts,
    sentence_spans,
    words_of,
)
from tavern.physics.awaiting import recent_acts
from tavern.physics.restated import content_words, shares_a_word
from tavern.physics.verbs import BARE_WORDS, MOVING, SPEAKING, UNDERGOING, WHISPERING
from tavern.records import (
    ClampChange,
    DirectorDecision,
    PerceptionEvent,
)

if TYPE_CHECKING:
    from tavern.physics.clamps import ClampContext

RULE = "agency"
MOVE_RULE = "agency_move"


def unsupported_sentences(
    text: str, names: Names, supported: SupportTest, actor: str | None = None
) -> str | None:
    """`text` without its sentences stating an act `supported` refuses; `text` itself when
    none goes, None when none is left. A leading pronoun refers to `actor`. A sentence right
    after a dropped one whose pronoun names that one's subject goes too, since it would name
    no one ("Dorotea Sand makes an attempt to open the cellar. As she opens, she hears a
    sound ...", vintners-wake #13, turn 2). Repeated until nothing more goes: a dropped
    sentence can change whom a later pronoun names."""
    while True:
        spans = sentence_spans(text)
        kept: list[tuple[int, int]] = []
        before = actor
        gone: tuple[str, ...] = ()
        for a, b in spans:
            acts, before = read_acts(text[a:b], names, before)
            acts += _joined_speech(text[a:b], acts)
            orphan = any(act.by_pronoun and set(act.subjects) <= set(gone) for act in acts)
            unbacked = [
                act
                for act in acts
                if act.verb not in UNDERGOING and not supported(act, text[a:b], names)
            ]
            if orphan or unbacked:
                gone = tuple(slot for act in acts for slot in act.subjects)
            else:
                kept.append((a, b))
                gone = ()
        if len(kept) == len(spans):
            return text
        text = "".join(text[a:b] for a, b in kept).strip()
        if not text:
            return None


_AND_SPEAKS = re.compile(r"\band\s+(" + "|".join(sorted(SPEAKING)) + r")\b")


def _joined_speech(sentence: str, acts: list[Act]) -> list[Act]:
    """A verb of speaking joined by "and" to a cast member's act is theirs too: live
    (toll-house #64, seed 78, turn 3), on a beat the human only thought, the event "Ilse
    Brandt sees the toll box and asks who is on it." made her ask a question. Only speaking:
    what someone said is their line's, and no model may decide it."""
    if not acts or "and" not in sentence:
        return []
    found = _AND_SPEAKS.search(sentence)
    if found is None or any(act.verb == found[1] for act in acts):
        return []
    first = acts[0]
    return [Act(first.subjects, found[1], first.by_pronoun)]


class SupportTest:
    """Whether an act is backed by what its subjects did (see the module)."""

    def __init__(
        self,
        attempts: Mapping[str, Sequence[str]],
        spoke: frozenset[str],
        outcome_of: str | None = None,
        whispered: frozenset[str] | None = None,
    ) -> None:
        """`attempts`: the texts backing each slot's acts; `spoke`: slots that spoke since the
        last Director call; `outcome_of`: the slot whose attempt the text adjudicates;
        `whispered`: the slots among `spoke` that whispered (default: all of them)."""
        self.attempts = attempts
        self.spoke = spoke
        self.outcome_of = outcome_of
        self.whispered = spoke if whispered is None else whispered

    def __call__(self, act: Act, sentence: str, names: Names) -> bool:
        said = content_words(sentence) - names.words
        return all(self._backs(slot, act, said) for slot in act.subjects)

    def _backs(self, slot: str, act: Act, said: set[str]) -> bool:
        speakers = self.whispered if act.verb in WHISPERING else self.spoke
        if act.verb in SPEAKING and slot in speakers and not said - SPEAKING - BARE_WORDS:
            return True
        texts = self.attempts.get(slot, ())
        if slot == self.outcome_of and texts and (act.verb not in MOVING or _moving(texts)):
            return True
        return any(shares_a_word(said, content_words(t)) for t in texts)


def _moving(texts: Sequence[str]) -> bool:
    return any(not MOVING.isdisjoint(words_of(t)) for t in texts)


def drop_unattempted_acts(
    d: DirectorDecision, ctx: ClampContext
) -> tuple[DirectorDecision, list[ClampChange]]:
    """Remove the event sentences in which a character acts without having attempted it."""
    if not d.events or not ctx.cast:
        return d, []
    names = Names.of(ctx.cast)
    attempts, spoke = recent_acts(ctx.history, ctx.turn_number)
    changes: list[ClampChange] = []
    events: list[PerceptionEvent] = []
    for i, ev in enumerate(d.events):
        outcome = ev.actor_id if ev.kind == "action_outcome" else None
        test = SupportTest(attempts, spoke, outcome)
        kept = unsupported_sentences(ev.text, names, test, ev.actor_id)
        if kept != ev.text:
            changes.append(
                ClampChange(
                    rule=RULE,
                    path=f"events[{i}]" if kept is None else f"events[{i}].text",
                    before=ev.model_dump() if kept is None else ev.text,
                    after=kept,
                )
            )
        if kept is not None:
            events.append(ev if kept == ev.text else ev.model_copy(update={"text": kept}))
    if not changes:
        return d, []
    return d.model_copy(update={"events": events}), changes


def drop_unattempted_moves(
    d: DirectorDecision, ctx: ClampContext
) -> tuple[DirectorDecision, list[ClampChange]]:
    """Remove the zone moves no waiting attempt asks for: one by the mover, or one naming the
    mover, that shares a word with the destination's id or label."""
    if not d.zone_moves:
        return d, []
    names = Names.of(ctx.cast or {})
    attempts, _ = recent_acts(ctx.history, ctx.turn_number)
    labels = {z.id: z.label for z in ctx.scene.zones}
    kept, changes = [], []
    for i, move in enumerate(d.zone_moves):
        place = content_words(
            " ".join((move.to_zone.replace("_", " "), labels.get(move.to_zone, ""),
                      move.new_zone_label or ""))
        )  # fmt: skip
        asking = [
            text
            for slot, texts in attempts.items()
            for text in texts
            if slot == move.character_id or move.character_id in named(words_of(text), names)
        ]
        if any(shares_a_word(place, content_words(text)) for text in asking):
            kept.append(move)
        else:
            changes.append(
                ClampChange(
                    rule=MOVE_RULE, path=f"zone_moves[{i}]", before=move.model_dump(), after=None
                )
            )
    if not changes:
        return d, []
    return d.model_copy(update={"zone_moves": kept}), changes
