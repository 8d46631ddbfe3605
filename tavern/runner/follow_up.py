"""Attempts the Director's decision left without an outcome get one follow-up call each.

An attempt (a human's action, a Character's action_intent) waits for the next Director call.
When the clamped decision holds no action_outcome by that actor, the runner asks the
Director once more, about that attempt only (`tavern.agents.outcome`), and the answer
becomes an action_outcome event by the actor, witnessed by whoever perceived the attempt,
which then goes through every clamp the decision went through. An outcome's sentence that
tells another attempt or a recent event (`without_borrowed`, `COPY_RULE`) is not told, nor
an answer naming someone of the cast but never the actor (`OTHER_ACTOR_RULE`). An
attempt whose answer was refused is asked about once more, worded apart, after the first round
(`MAX_ASKED_AGAIN`). A dropped or empty outcome then leaves the attempt as it was: the code
never writes an outcome itself.

Every waiting attempt is treated alike, whoever's it is: which character the human plays is
not an input here, so Director prompts stay the same whoever is controlled. Newest first:
an attempt made this beat before the last beat's replies, which the cap of `MAX_FOLLOW_UPS`
calls a beat (bounding the extra model time) otherwise spent first (toll-house #14, turn 2:
two Characters' "read" took both calls).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from tavern.agents import director, outcome
from tavern.filters.empty_intent import SMALL
from tavern.physics.acts import Names, named, words_of
from tavern.physics.awaiting import about_words as content_words
from tavern.physics.awaiting import attempt_records, shares_a_word
from tavern.physics.outcomes import act_stem
from tavern.records import (
    ActionRecord,
    Character,
    ChatMessage,
    ClampChange,
    DirectorDecision,
    EventRecord,
    HistoryRecord,
    PerceptionEvent,
)
from tavern.runner.calls import AgentCaller
from tavern.runner.fit import fitted
from tavern.text import sentence_spans
from tavern.text import words as plain_words

AGENT = "director:outcome"
"""The follow-up's agent name: the Director's role, its own line in the journal."""
MAX_FOLLOW_UPS = 2
"""Follow-up calls a beat may make. A beat's waiting attempts are the human's and those of
the last beat's speakers (at most three), and each call costs a Director's prompt."""

MAX_ASKED_AGAIN = 1
"""Follow-up calls a beat may make again, after the first round, about an attempt whose
answer the copy rules or the clamps refused, so it still has no outcome (`outcome.ask_again`).
Live (toll-house #32, seed 46), both of the human's attempts got none: "walks slowly to the
nearest window and looks outside" (turn 2) was answered with another character's private
thought, "reaches for the door" (turn 5) with the human's own speech of that beat."""
RESEED = 1
"""Added to the client's seed for the call asked again (`LlmClient.call_json`'s
`seed_offset`). Live (toll-house #36, seed 50, turn 5), the prompt worded apart still drew the
refused copy under the session's seed; replayed under seeds 51 and 52, the first ask drew
"Ilse Brandt succeeds" once in two."""

COPY_RULE = "follow_up_copy"
"""The change reported when a follow-up's outcome is another attempt copied. Live, the
embedded model answered "reaches for the door" with the actor's attempt of three beats before
("Agnese Corvo walks slowly to the nearest window and looks outside.", the-vintners-wake soak
#18, seed 32, turn 5), and Maren Holt's attempt with the human's of the same beat ("Maren Holt
reaches for the door", toll-house #13): each would tell the story that the actor did what
they, or someone else, had tried."""
EVENT_TURNS = 8
"""Beats back whose events an outcome may not copy. Live (the-vintners-wake #19, seed 33),
"reaches for the door" got "Agnese Corvo attempts to arrive at the nearest window and looks
outside, but fails.", her outcome of three beats before; in that earlier beat, Dorotea Sand's
"read the will at midnight" got the same sentence with her name, copied from the beat's
decided events."""
MIN_COPY_WORDS = 3
"""Words of another attempt that make a sentence telling nothing but it a copy. Shorter acts
("sits down") may well be an outcome and another attempt alike."""
WHOLE_MIN_WORDS = 2
"""Words of another actor's attempt that, whole inside a sentence holding no word of its own
attempt, make that sentence a copy; the actor's own earlier acts count from `MIN_COPY_WORDS`
(doing again what one did is no borrowing: "Ilse Brandt sits down." stays). Toll-house #16
(seed 33, turn 5) answered "reaches for the door" with "Ilse Brandt tries to sign the books
tonight.", Teodor Vask's attempt; "Ilse Brandt tries to open the door, but it is locked" holds
Maren Holt's "open the door" and her own "door", and stays. Live (vintners-wake #55, seed 71,
turn 9), the human's "sits down by the fire", asked again after a copy was refused, got
"Agnese Corvo reads aloud", Brother Caspar's "read aloud" of that beat, and the human's
character was told reading aloud. A one-word act ("read") stays out: one word inside an
outcome proves no copy."""
COPY_RUN_WORDS = 7
"""Words in a row of another attempt that make a sentence its copy: toll-house #14 (seed 32,
turn 2) answered Maren Holt's "read" with "Maren Holt tries to read the toll box and reads.
Maren Holt moves to the nearest window and looks outside.", the human's attempt of that beat
in its second sentence ("to the nearest window and look outside", 7). Six would also take
"the toll box on the counting table", which an outcome may well say."""

EMPTY_RULE = "follow_up_empty"
"""The change reported when a follow-up's sentence tells no outcome: live (toll-house #19,
seed 36, turn 5), "reaches for the door" was answered "Ilse Brandt tries this.", and
(vintners-wake #22, seed 35, turn 8) "take action" with "Felix Aubert tries this to take
action"; both were committed and shown."""
UNRELATED_RULE = "follow_up_unrelated"
"""The change reported when a follow-up's sentence holds no word of its attempt but a word of
a standing fact: the small model reaches for the prompt's facts instead of the act. Live
(toll-house #46, seed 60, turn 5), "reaches for the door" got "Ilse Brandt successfully opened
the toll box.", the locked box of the facts opened by nobody's attempt; over the 84 follow-up
answers of 24 soak journals the test picked 8, each about something the attempt never touched
("The trapdoor is sealed and bolted from the hall side." for a walk to the window)."""
OTHER_ACTOR_RULE = "follow_up_other_actor"
"""The change reported when a follow-up answer names someone of the cast and never the actor:
it tells another's outcome. Live (vintners-wake #63, seed 79, turn 9), Agnese Corvo's "sits
down by the fire" got "Lio Mendez succeeds.", copied from the answer about Lio's attempt, and
it was committed as her outcome; in the soak of seed 73 (turn 9), her attempt got "Brother
Caspar's attempt to read the will is successful." (`names_only_others`)."""

EMPTY_WORDS = SMALL["en"] | frozenset(
    "this that it tried attempted did make makes made take takes taking action actions act"
    " acts".split()
)
"""Words an outcome sentence may hold, beside its actor's name, and still tell nothing."""

Clamp = Callable[[DirectorDecision], tuple[DirectorDecision, list[ClampChange]]]
"""`physics.clamp_decision` with the beat's context bound."""


def answered(decision: DirectorDecision, actor: str) -> bool:
    """Whether the decision holds an action_outcome by `actor`."""
    return any(e.kind == "action_outcome" and e.actor_id == actor for e in decision.events)


def unanswered(
    history: list[HistoryRecord], turn: int, decision: DirectorDecision
) -> list[ActionRecord]:
    """The attempts waiting for beat `turn` whose actor has no outcome in `decision`."""
    return [a for a in attempt_records(history, turn) if not answered(decision, a.speaker)]


def act_key(text: str, actor_name: str = "") -> tuple[str, ...]:
    """The words of an act as copies compare: case, punctuation, a leading `actor_name` and
    each verb's "-s" or "-es" aside (`act_stem`: "Ilse Brandt reaches for the door." ~
    "reach for the door")."""
    words = [act_stem(w) for w in plain_words(text)]
    named = [act_stem(w) for w in plain_words(actor_name)]
    if named and words[: len(named)] == named:
        words = words[len(named) :]
    return tuple(w for w in words if w)


def without_borrowed(
    text: str,
    attempt: ActionRecord,
    history: list[HistoryRecord],
    actor_name: str,
    decided: Sequence[PerceptionEvent] = (),
    public: Sequence[str] = (),
) -> str:
    """The outcome `text` of `attempt` without its sentences that tell another attempt of
    `history` or an event (see `COPY_RULE`): another attempt word for word, or whole inside
    a sentence with no word of its own attempt, or `COPY_RUN_WORDS` words in a row of
    another attempt, of an event of the last `EVENT_TURNS` beats or of `decided` (this
    beat's) that neither its own attempt nor a `public` text (the standing facts) holds. Its
    own attempt told as done is an outcome.
    """
    own = act_key(attempt.text)
    turn = history[-1].turn_number if history else 0
    attempts: set[tuple[str, ...]] = set()
    others: set[tuple[str, ...]] = set()
    told = [e.text for e in decided]
    for r in history:
        if isinstance(r, ActionRecord) and r is not attempt:
            attempts.add(act_key(r.text))
            if r.speaker != attempt.speaker:
                others.add(act_key(r.text))
    told += [
        r.text for r in history if isinstance(r, EventRecord) and r.turn_number > turn - EVENT_TURNS
    ]
    attempts.discard(own)
    runs = [_runs(key) for key in attempts] + [_runs(act_key(t)) for t in told]
    other_runs = set().union(*runs) - _runs(own)
    if other_runs and public:
        other_runs -= set().union(*(_runs(act_key(t)) for t in public))
    if not (attempts or other_runs):
        return text
    wholes = [
        f" {' '.join(k)} "
        for k in attempts
        if len(k) >= MIN_COPY_WORDS or (len(k) >= WHOLE_MIN_WORDS and k in others)
    ]
    own_words = content_words(attempt.text)
    kept = []
    for start, end in sentence_spans(text):
        sentence = text[start:end]
        key = act_key(sentence, actor_name)
        if (len(key) >= MIN_COPY_WORDS and key in attempts) or _runs(key) & other_runs:
            continue
        spaced = f" {' '.join(key)} "
        if any(w in spaced for w in wholes) and not shares_a_word(
            content_words(sentence) - content_words(actor_name), own_words
        ):
            continue
        kept.append(sentence.strip())
    return " ".join(kept)


def without_empty(text: str, actor_name: str) -> str:
    """`text` without its sentences that hold nothing but the actor's name and `EMPTY_WORDS`
    ("Ilse Brandt tries this."); "Ilse Brandt fails." tells an outcome and stays, and so does
    a sentence that copies the question's "tries this" but tells how it went ("Ilse Brandt
    tries this and succeeds.": live, dropping those left two of the human's attempts of three
    soaks with no outcome at all)."""
    names = set(plain_words(actor_name))
    kept = [
        text[a:b].strip()
        for a, b in sentence_spans(text)
        if any(w not in names and w not in EMPTY_WORDS for w in plain_words(text[a:b]))
    ]
    return " ".join(kept)


def without_unrelated(text: str, attempt: str, actor_name: str, facts: Sequence[str]) -> str:
    """`text` without its sentences that share no content word with the `attempt` and hold
    one of the standing `facts`' (`UNRELATED_RULE`); the actor's name is no such word.

    >>> facts = ["The toll box sits locked on the counting table."]
    >>> reach = "reaches for the door"
    >>> without_unrelated("Ilse opens the toll box.", reach, "Ilse", facts)
    ''
    >>> without_unrelated("Ilse pulls the handle; it holds.", reach, "Ilse", facts)
    'Ilse pulls the handle; it holds.'
    >>> without_unrelated("Ilse opens the door to the table.", reach, "Ilse", facts)
    'Ilse opens the door to the table.'
    """
    if not text or not facts:
        return text
    named = content_words(actor_name)
    standing = set().union(*(content_words(f) for f in facts)) - named
    own = content_words(attempt)
    spans = sentence_spans(text)
    kept = []
    for a, b in spans:
        said = content_words(text[a:b]) - named
        if said & standing and not shares_a_word(said, own):
            continue
        kept.append(text[a:b].strip())
    return text if len(kept) == len(spans) else " ".join(kept)


def _runs(words: tuple[str, ...]) -> frozenset[tuple[str, ...]]:
    """Every `COPY_RUN_WORDS` words in a row of `words`.

    >>> len(_runs(tuple("abcdefgh"))), _runs(tuple("abcdef"))
    (2, frozenset())
    """
    n = COPY_RUN_WORDS
    return frozenset(words[i : i + n] for i in range(len(words) - n + 1))


def names_only_others(text: str, actor: str, cast: Mapping[str, Character]) -> bool:
    """Whether `text` names someone of the `cast` and not the `actor` (a slot id): by name,
    description or id (`physics.acts.Names`).

    >>> from tavern.records import Body, Mind
    >>> def member(name: str) -> Character:
    ...     body = Body(display_name=name, description_ref="x")
    ...     return Character(id=name[:3].lower(), mind=Mind(), body=body)
    >>> cast = {"C1": member("Agnese Corvo"), "C3": member("Lio Mendez")}
    >>> names_only_others("Lio Mendez succeeds.", "C1", cast)
    True
    >>> names_only_others("Agnese Corvo sits; Lio Mendez nods.", "C1", cast)
    False
    """
    found = set(named(words_of(text), Names.of(cast)))
    return bool(found) and actor not in found


def outcome_event(attempt: ActionRecord, text: str) -> PerceptionEvent:
    """The proposed outcome of `attempt`: by its actor, witnessed by who perceived it."""
    return PerceptionEvent(
        kind="action_outcome",
        text=text,
        actor_id=attempt.speaker,
        witness_ids=list(attempt.audience.perceivers),
    )


async def follow_up(
    caller: AgentCaller,
    context: director.BeatContext,
    decision: DirectorDecision,
    clamp: Clamp,
    *,
    turn: int,
    budget_tokens: int,
    room: int | None,
) -> tuple[DirectorDecision, list[ClampChange]]:
    """Ask for the outcome of each attempt `decision` left unanswered (up to the bound).

    Args:
        caller: The turn's gated caller.
        context: The Director call's session before the beat, its history (this turn's
            records so far included) and its prompt's blocks.
        decision: The clamped decision.
        clamp: Clamps a proposal with the beat's context.
        turn: The beat's turn number.
        budget_tokens: The Director's history budget.
        room: Tokens the prompt may take (see `fitted`).

    Returns:
        The decision with the clamped outcomes added, and the clamps' changes.
    """
    beat = _Beat(caller, context, clamp, turn, budget_tokens, room)
    changes: list[ClampChange] = []
    asked = 0
    rejected: list[ActionRecord] = []
    for attempt in reversed(unanswered(context.history, turn, decision)):
        if asked == MAX_FOLLOW_UPS:
            break
        if answered(decision, attempt.speaker):  # an earlier follow-up answered its actor
            continue
        asked += 1
        decision, more = await beat.ask(decision, attempt)
        changes += more
        if more and not answered(decision, attempt.speaker):
            rejected.append(attempt)
    for attempt in rejected[:MAX_ASKED_AGAIN]:
        if not answered(decision, attempt.speaker):
            decision, more = await beat.ask(decision, attempt, again=True)
            changes += more
    return decision, changes


@dataclass(frozen=True)
class _Beat:
    """What every follow-up call of one beat shares (see `follow_up`'s arguments)."""

    caller: AgentCaller
    context: director.BeatContext
    clamp: Clamp
    turn: int
    budget_tokens: int
    room: int | None

    async def ask(
        self, decision: DirectorDecision, attempt: ActionRecord, *, again: bool = False
    ) -> tuple[DirectorDecision, list[ClampChange]]:
        """One follow-up call about `attempt`: the decision with its clamped outcome added,
        and the changes (none when the answer was blank: nothing was told, nothing refused)."""
        context, events = self.context, decision.events

        def build(budget: int) -> list[ChatMessage]:
            return outcome.build_messages(
                context.state, context.history, attempt, events, budget_tokens=budget,
                again=again, context=context,
            )  # fmt: skip

        messages = fitted(build, self.budget_tokens, self.room)
        answer = await self.caller.call(
            AGENT, messages, outcome.OUTPUT_SCHEMA, self.turn, seed_offset=RESEED if again else 0
        )
        return self._tell(decision, attempt, outcome.parse(answer))

    def _tell(
        self, decision: DirectorDecision, attempt: ActionRecord, text: str
    ) -> tuple[DirectorDecision, list[ClampChange]]:
        """`decision` with the outcome `text` of `attempt` added once the copy rules and the
        clamps let it through, and what they changed."""
        if not text:
            return decision, []
        state = self.context.state
        name = director.true_name(state, attempt.speaker)
        copied = without_borrowed(
            text, attempt, self.context.history, name, decision.events, state.scene.facts
        )
        related = without_unrelated(copied, attempt.text, name, state.scene.facts)
        told = without_empty(related, name)
        own = "" if names_only_others(told, attempt.speaker, state.cast) else told
        path = f"outcome of #{attempt.seq}"
        changes = [
            ClampChange(rule=rule, path=path, before=before, after=after)
            for rule, before, after in [
                (COPY_RULE, text, copied),
                (UNRELATED_RULE, copied, related),
                (EMPTY_RULE, related, told),
                (OTHER_ACTOR_RULE, told, own),
            ]
            if after != before
        ]
        if not own:
            return decision, changes
        proposal = decision.model_copy(
            update={
                "events": [*decision.events, outcome_event(attempt, own)],
                "nothing_happens": False,
            }
        )
        decision, more = self.clamp(proposal)
        return decision, changes + more
