"""Clamps `agency` and `agency_move`: a character does only what its own agent attempted or said.

Characters attempt, the Director adjudicates. The rule is the same for every character, so it
holds for the human's without anyone knowing which one that is (the Director and prose
prompts stay identical whichever character is controlled). A sentence of an event whose
subject is a cast member (named, or a third-person pronoun for the one named just before:
`physics.acts`) and whose verb is an act stays when that character has an attempt awaiting
adjudication that shares a word with the sentence (`awaiting.about_words`), or the event is
the `action_outcome` of such an attempt (in any words, but a walk only when the attempt moves
too). A verb of speaking stays bare only ("whispers something to Maren Holt"), and only for
someone who spoke (a whisper: who whispered) since the last Director call: what was said is
the speaker's line's. A verb of perceiving or undergoing ("is", "hears", "vê", "está") is no
act and stays. The sentence goes, and with it a next sentence whose pronoun named only its
subject; an event left empty goes. Words are the session language's (`Lexicon`): "Maren
Holt vê a chuva" stays as "Maren Holt sees the rain" does, and "Maren Holt abre a caixa"
goes, unattempted, as "Maren Holt opens the box" does.

A zone move stays when an attempt awaiting adjudication, by the mover or naming the mover,
shares such a word with the destination's id or label ("climbs to the loft"). It runs before
the witness clamp, which reads the zones after the moves.

Example: with no attempt waiting, "Ilse Brandt asks C2 to sign the toll books tonight." goes.
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
    without_sentences,
    words_of,
)
from tavern.physics.awaiting import about_words, recent_acts, shares_a_word
from tavern.physics.outcomes import retells
from tavern.records import (
    ActionRecord,
    Character,
    ClampChange,
    DirectorDecision,
    EventRecord,
    HistoryRecord,
    PerceptionEvent,
    SpeechRecord,
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


def unconfirmed_acts(
    narration: str, cast: Mapping[str, Character], recent: Sequence[HistoryRecord], turn: int
) -> str:
    """`narration` without its sentences in which a character does what no event of beat
    `turn` confirms (`recent`: the records so far, this beat's included), nor those that only
    retell a recent attempt as an attempt (`without_retold_attempts`)."""
    if not narration or not cast:
        return narration
    names = Names.of(cast)
    about: dict[str, list[str]] = {}
    actors: set[str] = set()
    for r in recent:
        if isinstance(r, EventRecord) and r.turn_number == turn:
            for slot, text in _confirmed(r, names):
                about.setdefault(slot, []).append(text)
            if r.actor_id is not None and r.actor_id in cast:
                actors.add(r.actor_id)
    _, spoke = recent_acts(recent, turn)
    whispered = frozenset(
        r.speaker
        for r in recent
        if isinstance(r, SpeechRecord) and r.turn_number == turn and r.audience.origin == "whisper"
    )
    test = SupportTest(about, spoke, whispered=whispered)
    # A narration opening on a pronoun tells of the beat's actor when it has one only: live
    # (vintners-wake #35's rerun, seed 50, turn 2), "He cautiously opens the door to the
    # cellar." after Agnese Corvo's one outcome, which the Director had told as "He ...".
    actor = next(iter(actors)) if len(actors) == 1 else None
    kept = unsupported_sentences(narration, names, test, actor) or ""
    if not whispered:
        kept = without_phantom_whispers(kept, names)
    if actor is None:
        kept = without_pronoun_opening(kept)
    return without_retold_attempts(kept, cast, recent, turn)


_PRONOUN_OPENING = re.compile(r"\s*(?:He|She|They|His|Her|Their)\b")


def without_pronoun_opening(narration: str) -> str:
    """`narration` without the sentences opening it on a pronoun: with no actor in the beat,
    it names no one a reader can tell. Live, the renderer's first sentence named the person
    and a rule took it out, leaving the pronoun's: vintners-wake #63 (seed 79, turn 1) opened
    on "She holds a candle on a cord and a glass of red wine she never drinks.", #64 (seed
    80, turn 4) on "She is in the middle of the hall and the coffin is open. She is walking
    slowly to the nearest window."

    >>> without_pronoun_opening("She is in the hall. She walks. The trapdoor is shut.")
    'The trapdoor is shut.'
    >>> without_pronoun_opening("The trapdoor is shut. She walks.")
    'The trapdoor is shut. She walks.'
    """
    if not _PRONOUN_OPENING.match(narration):
        return narration
    for a, b in sentence_spans(narration):
        if not _PRONOUN_OPENING.match(narration[a:b]):
            return narration[a:].strip()
    return ""


_BARE_WHISPER = re.compile(
    r"^\W*(?:[^\W\d_]+[\s,]+){1,4}whisper(?:s|ed)?\b(?P<rest>[^.!?]*)[.!?]*\s*$", re.IGNORECASE
)
"""A subject of up to four words, a verb of whispering, and the rest of the sentence."""


def without_phantom_whispers(narration: str, names: Names) -> str:
    """`narration` without its sentences saying only that someone whispers, for a beat in
    which nobody whispered: the whisper marker of an earlier beat, copied under any subject.
    Live (vintners-wake #43, seed 59, turn 8), "The vintner whispers something." (the
    deceased) after turn 6's "(Agnese Corvo whispers something.)"; no cast member is its
    subject, so the agency rule, which judges the cast's acts, let it through.

    >>> names = Names.of({})
    >>> without_phantom_whispers("The vintner whispers something. Rain falls.", names)
    'Rain falls.'
    >>> without_phantom_whispers("The vintner whispers that the will is forged.", names)
    'The vintner whispers that the will is forged.'
    """
    if "whisper" not in narration.casefold():
        return narration
    allowed = _EN.bare_speech | _TO | names.words

    def bare(sentence: str) -> bool:
        whisper = _BARE_WHISPER.match(sentence)
        if whisper is None:
            return False
        return {_POSSESSIVE.sub("", w) for w in words_of(whisper.group("rest"))} <= allowed

    return without_sentences(narration, bare)


_POSSESSIVE = re.compile(r"['’]s$")
_TO = frozenset(("to", "at", "into", "in", "ear", "the", "a", "an", "his", "her", "their"))
"""Words a bare whisper may add before its hearer: "... whispers something into Ana's ear"."""


_TELLS_ATTEMPT = re.compile(r"\b(?:attempt|tries|tried|try)", re.IGNORECASE)


def without_retold_attempts(
    narration: str, cast: Mapping[str, Character], recent: Sequence[HistoryRecord], turn: int
) -> str:
    """`narration` without its sentences that only retell an attempt of this beat or the last
    as an attempt (`outcomes.retells`): live (toll-house #34's rerun, seed 48, turn
    2), the event "Ilse Brandt walks slowly to the nearest window and looks outside" was
    narrated "Ilse Brandt makes an attempt to walk slowly to the nearest window and looks
    outside.", the outcome taken back.
    """
    if not narration or not _TELLS_ATTEMPT.search(narration):
        return narration
    tried: dict[str, list[str]] = {}
    for r in recent:
        if isinstance(r, ActionRecord) and r.turn_number >= turn - 1 and r.speaker in cast:
            tried.setdefault(cast[r.speaker].body.display_name, []).append(r.text)
    if not tried:
        return narration
    return without_sentences(
        narration,
        lambda sentence: any(
            retells(sentence, name, texts, [], False, _EN) for name, texts in tried.items()
        ),
    )


def _confirmed(event: EventRecord, names: Names) -> list[tuple[str, str]]:
    """(slot, sentence) for each sentence of `event` that confirms an act of that slot: one
    stating the act, or one about no cast member, which tells the outcome of its actor's act.
    A sentence in which someone perceives or undergoes confirms no act of theirs ("Ilse Brandt
    sees the toll box on the counting table" does not confirm that she sits on the table)."""
    confirmed = []
    before = event.actor_id
    for a, b in sentence_spans(event.text):
        sentence = event.text[a:b]
        acts, before = read_acts(sentence, names, before)
        if not acts and event.actor_id is not None and not named(words_of(sentence), names):
            confirmed.append((event.actor_id, sentence))
        for act in acts:
            if act.verb not in _EN.perceiving:
                confirmed.extend((slot, sentence) for slot in act.subjects)
    return confirmed


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
    for i, move in enumerate(d.zone_moves):
        where = (move.to_zone, labels.get(move.to_zone, ""), move.new_zone_label or "")
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
