"""Clamps `agency` and `agency_move`: a character does only what its own agent attempted or said.

The rule is the same for every character, so it holds for the human's without anyone
knowing which one that is. An event sentence whose subject is a cast member (`physics.acts`)
and whose verb is an act stays when that character has a waiting attempt sharing a word
with it (`awaiting.about_words`), or the event is that attempt's `action_outcome`; a bare
verb of speaking stays for someone who spoke since the last Director call; verbs of
perceiving or undergoing ("sees", "vê", "está") are no acts. Otherwise the sentence goes,
with a next sentence whose pronoun named only its subject. A zone move stays when a waiting
attempt by or naming the mover shares a word with the destination. Words are the session
language's (`Lexicon`).

Example: with no attempt waiting, "Ilse Brandt asks C2 to sign the toll books tonight." goes.
"""

from __future__ import annotations

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
from tavern.physics.awaiting import about_words, recent_acts, shares_a_word
from tavern.physics.redaction import redact
from tavern.physics.visible import masked_on_stage
from tavern.records import (
    ClampChange,
    DirectorDecision,
    PerceptionEvent,
)
from tavern.text import Lexicon, lexicon_for

if TYPE_CHECKING:
    from tavern.physics.clamps import ClampContext

_EN = lexicon_for("en")

RULE = "agency"
MOVE_RULE = "agency_move"


def unsupported_sentences(
    text: str, names: Names, supported: SupportTest, actor: str | None = None
) -> str | None:
    """`text` without its sentences stating an act `supported` refuses; `text` itself when
    none goes, None when none is left. A leading pronoun refers to `actor`; a sentence right
    after a dropped one whose pronoun names that one's subject goes too, since it would name
    no one. Repeated until nothing more goes: a dropped sentence can change whom a later
    pronoun names."""
    lex = supported.lexicon
    while True:
        spans = sentence_spans(text)
        kept: list[tuple[int, int]] = []
        before = actor
        gone: tuple[str, ...] = ()
        for a, b in spans:
            acts, before = read_acts(text[a:b], names, before, lex)
            acts += _joined_speech(text[a:b], acts, lex)
            orphan = any(act.by_pronoun and set(act.subjects) <= set(gone) for act in acts)
            unbacked = [
                act
                for act in acts
                if act.verb not in lex.perceiving and not supported(act, text[a:b], names)
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


def _joined_speech(sentence: str, acts: list[Act], lex: Lexicon) -> list[Act]:
    """A verb of speaking joined by "and" ("e") to a cast member's act is theirs too ("Ilse
    Brandt sees the toll box and asks who is on it."): what someone said is their line's."""
    if not acts:
        return []
    said = words_of(sentence)
    spoken = [
        verb
        for joint, verb in zip(said, said[1:], strict=False)
        if joint in lex.joins & lex.conjunctions and verb in lex.speaking
    ]
    if not spoken or any(act.verb == spoken[0] for act in acts):
        return []
    first = acts[0]
    return [Act(first.subjects, spoken[0], first.by_pronoun)]


class SupportTest:
    """Whether an act is backed by what its subjects did (see the module)."""

    def __init__(
        self,
        attempts: Mapping[str, Sequence[str]],
        spoke: frozenset[str],
        outcome_of: str | None = None,
        whispered: frozenset[str] | None = None,
        lexicon: Lexicon = _EN,
    ) -> None:
        """`attempts`: the texts backing each slot's acts; `spoke`: slots that spoke since the
        last Director call; `outcome_of`: the slot whose attempt the text adjudicates;
        `whispered`: the slots among `spoke` that whispered (default: all of them);
        `lexicon`: the session language's words."""
        self.attempts = attempts
        self.spoke = spoke
        self.outcome_of = outcome_of
        self.whispered = spoke if whispered is None else whispered
        self.lexicon = lexicon

    def __call__(self, act: Act, sentence: str, names: Names) -> bool:
        said = about_words(sentence, self.lexicon) - names.words
        return all(self._backs(slot, act, said) for slot in act.subjects)

    def _backs(self, slot: str, act: Act, said: set[str]) -> bool:
        lex = self.lexicon
        speakers = self.whispered if act.verb in lex.whispering else self.spoke
        if (
            act.verb in lex.speaking
            and slot in speakers
            and not said - lex.speaking - lex.bare_speech
        ):
            return True
        texts = self.attempts.get(slot, ())
        moves = any(not lex.moving.isdisjoint(words_of(t)) for t in texts)
        if slot == self.outcome_of and texts and (act.verb not in lex.moving or moves):
            return True
        return any(shares_a_word(said, about_words(t, lex)) for t in texts)


def drop_unattempted_acts(
    d: DirectorDecision, ctx: ClampContext
) -> tuple[DirectorDecision, list[ClampChange]]:
    """Cut the event sentences in which a character acts without having attempted it."""
    if not d.events or not ctx.cast:
        return d, []
    names = Names.of(ctx.cast)
    lex = lexicon_for(ctx.language)
    attempts, spoke = recent_acts(ctx.history, ctx.turn_number)
    changes: list[ClampChange] = []
    events: list[PerceptionEvent] = []
    for i, ev in enumerate(d.events):
        outcome = ev.actor_id if ev.kind == "action_outcome" else None
        test = SupportTest(attempts, spoke, outcome, lexicon=lex)
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
    """Drop the zone moves no waiting attempt asks for (by the mover, or naming the mover,
    sharing a word with the destination's id or label)."""
    if not d.zone_moves:
        return d, []
    names = Names.of(ctx.cast or {})
    lex = lexicon_for(ctx.language)
    attempts, _ = recent_acts(ctx.history, ctx.turn_number)
    labels = {z.id: z.label for z in ctx.scene.zones}
    kept, changes = [], []
    # A new label is read as the guards will leave it (their masks come later), so a second
    # pass over the clamped decision keeps exactly the moves the first one kept.
    hidden = masked_on_stage(ctx)
    for i, move in enumerate(d.zone_moves):
        label = redact(move.new_zone_label or "", hidden)
        where = (move.to_zone, labels.get(move.to_zone, ""), label)
        place = about_words(" ".join(where), lex)
        asking = [
            text
            for slot, texts in attempts.items()
            for text in texts
            if slot == move.character_id or move.character_id in named(words_of(text), names)
        ]
        if any(shares_a_word(place, about_words(text, lex)) for text in asking):
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
