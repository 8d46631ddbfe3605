"""Clamp `fact_flip`: an event may not open or shut a standing thing that nobody tried.

The stage's facts give some things a state: "The toll box sits locked on the counting
table.", "The trapdoor to the cellar is shut and bolted from the hall side.", "The coffin
lies open in the middle of the hall." Live, the embedded Director turned such a state over
on a beat in which nobody had touched the thing (toll-house soak #53, seed 67, turn 2): the
human walked to the window, Maren Holt tried to "sign book", and the decision told "The toll
box is now open on the counting table." and, two events later, "The toll box is now locked
on the counting table."; the first was committed and narrated, and the box the whole story
turns on stood open for no reason anyone could act on.

A state has two axes: open or shut, and unlocked or locked (open implies unlocked, locked
implies shut). A sentence states one when it reads "<thing> [is, sits, swings, ...] <state>"
("The toll box is now open", "The coffin is no longer open", negated) or "<someone> opens
<thing>"; the rule is narrow on purpose, and reads no other shape. A sentence that tells an
attempt or what may happen ("tries to open", "fails", "could") states
nothing here. The thing is known by the words of a fact's subject ("toll box", "trapdoor",
"coffin"); the state it is in is that of the latest sentence that stated one, over the
facts, then the events the Director was shown, then this decision's kept events, in order.

An event's sentence that turns a known thing's state over goes, unless an attempt awaiting
the beat names the thing (a word of its subject of three letters or more, as in "open the
toll box" or "tries the trapdoor"): then the world is answering someone. A cast member's
own act ("Maren Holt opens the toll box") is judged by the clamp `agency` first; this one
reads what no one is said to do. An event left with no sentence goes.

Narration is held to the events (`without_state_flips`): the renderer tells what they
confirmed, so its sentence that turns a thing over against the facts and every event so far,
this beat's included, goes. Live (toll-house #53, turn 3), the renderer told "The toll box is
now open, and the lamp is on a hook." a beat after the Director's unattempted opening.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from tavern.physics.acts import sentence_spans, without_sentences
from tavern.physics.awaiting import attempt_records
from tavern.physics.dropping import rewrite_events
from tavern.records import ClampChange, DirectorDecision, EventRecord

if TYPE_CHECKING:
    from tavern.physics.clamps import ClampContext

Axis = str
""""open" (open or shut) or "lock" (unlocked or locked)."""

STATE_WORDS: dict[str, tuple[Axis, bool]] = {
    **dict.fromkeys("open opens opened ajar".split(), ("open", True)),
    **dict.fromkeys("shut shuts closed closes".split(), ("open", False)),
    **dict.fromkeys("unlocked unlocks unbolted unbolts unbarred unlatched".split(), ("lock", True)),
    **dict.fromkeys(
        "locked locks bolted bolts barred bars latched sealed seals".split(), ("lock", False)
    ),
}
"""Word -> (axis, whether it is the open or unlocked side)."""
_LINKS = frozenset(
    "is are was were be been being sits sit sat lies lie lay stands stand stood remains"
    " remain remained stays stay stayed hangs hang swings swung slides slid falls fell springs"
    " sprang creaks creaked slams slammed bangs banged clicks clicked now still already again"
    " suddenly slowly"
    " quietly wide half firmly securely tightly fast and".split()
)
"""Words between a thing and its state: a verb of being, resting or swinging ("swings open"),
or an adverb."""
_NEGATIONS = frozenset("not never no longer isn't aren't wasn't weren't".split())
_MAYBE = frozenset(
    "try tries tried trying attempt attempts attempted attempting fail fails failed failing"
    " cannot can't unable could would should might must will wants want wanted if whether"
    " until unless".split()
)
"""Words of a sentence that tells what someone tried or what may be: no state is told."""
_ARTICLES = frozenset("the a an its his her their this that".split())
_PREPOSITIONS = frozenset(
    "to of in on at from with by for into onto under over near beside inside behind".split()
)
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")
_ANY_STATE = re.compile(
    r"\b(?:" + "|".join(sorted(STATE_WORDS, key=len, reverse=True)) + r")\b", re.I
)
"""Whether a text may tell a state at all: one C-level search, not a word walk."""


@dataclass(frozen=True)
class Stated:
    """One state a sentence tells: the thing (its subject words), the axis and the side."""

    thing: tuple[str, ...]
    axis: Axis
    opened: bool


def _subject(words: Sequence[str]) -> tuple[str, ...]:
    """The noun phrase of `words` ending a subject: articles off, cut at a preposition."""
    phrase = list(words)
    while phrase and (
        phrase[-1] in _LINKS or phrase[-1] in STATE_WORDS or phrase[-1] in _NEGATIONS
    ):
        phrase.pop()
    for at, word in enumerate(phrase):
        if word in _ARTICLES:
            phrase = phrase[at + 1 :]
            break
    for at, word in enumerate(phrase):
        if word in _PREPOSITIONS:
            return tuple(phrase[:at])
    return tuple(phrase)


@lru_cache(maxsize=4096)
def stated(sentence: str) -> tuple[Stated, ...]:
    """The states `sentence` may tell (see the module), with the implied other axis: for each
    state word, of the words before it ("The box is open") and, when an article follows it,
    of those after ("Maren opens the box"); only a known thing's reading counts (`States`).

    >>> [(s.thing, s.axis, s.opened) for s in stated("The toll box sits locked on the table.")]
    [(('toll', 'box'), 'lock', False), (('toll', 'box'), 'open', False)]
    >>> [(s.thing, s.opened) for s in stated("The coffin is no longer open.")]
    [(('coffin',), False)]
    >>> [(s.thing, s.axis) for s in stated("The wind opens the trapdoor and goes.")]
    [(('wind',), 'open'), (('wind',), 'lock'), (('trapdoor',), 'open'), (('trapdoor',), 'lock')]
    >>> stated("Maren tries to open the toll box."), stated("The door.")
    ((), ())
    """
    words = [w.replace("’", "'") for w in _WORD.findall(sentence.casefold())]
    if _MAYBE.intersection(words):
        return ()
    told: dict[Stated, None] = {}
    for at, word in enumerate(words):
        if word not in STATE_WORDS:
            continue
        axis, opened = STATE_WORDS[word]
        before, after = words[:at], words[at + 1 :]
        negated = bool(_NEGATIONS.intersection(before[-3:]))
        readings = [(_subject(before), opened != negated)]
        if after and after[0] in _ARTICLES and not negated:
            cut = after.index("and") if "and" in after else len(after)
            readings.append((_subject(after[:cut]), opened))
        for thing, side in readings:
            if thing:
                told[Stated(thing, axis, side)] = None
                if side == (axis == "open"):  # open implies unlocked, locked implies shut
                    told[Stated(thing, "lock" if axis == "open" else "open", side)] = None
    return tuple(told)


class States:
    """The known things and the state each is in, updated sentence by sentence."""

    def __init__(self, facts: Iterable[str]) -> None:
        self.state: dict[tuple[tuple[str, ...], Axis], bool] = {}
        self.things: set[tuple[str, ...]] = set()
        for fact in facts:
            for told in _sentences_stated(fact):
                self.things.add(told.thing)
                self.state[told.thing, told.axis] = told.opened

    def known(self, thing: tuple[str, ...]) -> tuple[str, ...] | None:
        """The known thing `thing` names: the same words, or its last word ("box" for the
        toll box) when no other known thing ends so."""
        if thing in self.things:
            return thing
        ending = [t for t in self.things if t[-1] == thing[-1]]
        return ending[0] if len(ending) == 1 else None

    def flips(self, sentence: str) -> list[tuple[str, ...]]:
        """The known things `sentence` turns over (against the state they are in)."""
        found = []
        for told in stated(sentence):
            thing = self.known(told.thing)
            if thing is not None and self.state.get((thing, told.axis), told.opened) != (
                told.opened
            ):
                found.append(thing)
        return found

    def tell(self, text: str) -> None:
        """Take the states `text` tells as the things' own."""
        for told in _sentences_stated(text):
            thing = self.known(told.thing)
            if thing is not None:
                self.state[thing, told.axis] = told.opened


@lru_cache(maxsize=4096)  # every clamp call that reads a state walks the window's events
def _sentences_stated(text: str) -> tuple[Stated, ...]:
    return tuple(told for a, b in sentence_spans(text) for told in stated(text[a:b]))


def _named_by(thing: tuple[str, ...], attempt: str) -> bool:
    words = set(_WORD.findall(attempt.casefold()))
    return any(len(w) >= 3 and w in words for w in thing)


def drop_state_flips(
    d: DirectorDecision, ctx: ClampContext
) -> tuple[DirectorDecision, list[ClampChange]]:
    """Drop each event sentence that turns a known thing's state over when no attempt
    awaiting the beat names the thing (see the module)."""
    if not any(_ANY_STATE.search(ev.text) is not None for ev in d.events):
        return d, []  # most decisions: no state told
    states = States(ctx.scene.facts)
    for record in ctx.history:
        if isinstance(record, EventRecord):
            states.tell(record.text)
    attempts = [a.text for a in attempt_records(ctx.history, ctx.turn_number)]

    def unattempted(sentence: str) -> bool:
        return any(
            not any(_named_by(thing, a) for a in attempts) for thing in states.flips(sentence)
        )

    def rewrite(text: str) -> str:
        kept = without_sentences(text, unattempted)
        states.tell(kept)
        return kept

    return rewrite_events(d, "fact_flip", lambda ev: rewrite(ev.text))


def without_state_flips(text: str, facts: Sequence[str], events: Iterable[str]) -> str:
    """Narration `text` without its sentences that turn a known thing's state over against
    `facts` and the `events` told so far, in order (see the module).

    >>> facts = ["The toll box sits locked on the counting table."]
    >>> without_state_flips("Rain falls. The toll box is open.", facts, [])
    'Rain falls.'
    >>> without_state_flips("The toll box is open.", facts, ["Maren opens the toll box."])
    'The toll box is open.'
    """
    if _ANY_STATE.search(text) is None:
        return text  # most narrations: no state told
    states = States(facts)
    for event in events:
        states.tell(event)
    return without_sentences(text, lambda sentence: bool(states.flips(sentence)))
