"""Clamp `fact_flip`: an event may not open or shut a standing thing that nobody tried.

Facts give some things a state on two axes, open/shut and unlocked/locked ("The toll box
sits locked on the counting table."). A sentence states one when it reads "<thing> [is,
sits, ...] <state>" (negated too) or "<someone> opens <thing>"; an attempt or a
possibility ("tries to open", "could") states nothing. A thing is known by its fact's
subject words; its state is that of the latest sentence stating one (facts, the events
shown, then this decision's kept events). An event sentence turning a known thing's state
over goes unless a waiting attempt names the thing; an event left empty goes. A cast
member's own act is judged by `agency` first. The narration is held to the events by the
filter rule `state_flip` with the same reader (`StateWords` per language).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tavern.physics.acts import sentence_spans, without_sentences
from tavern.physics.awaiting import attempt_records
from tavern.physics.dropping import rewrite_events
from tavern.records import ClampChange, DirectorDecision, EventRecord
from tavern.text import words

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


@dataclass(frozen=True, eq=False)
class StateWords:
    """The words a language tells a state in (see the module); `ENGLISH` by default,
    `PORTUGUESE` for Brazilian Portuguese narration."""

    states: Mapping[str, tuple[Axis, bool]]
    links: frozenset[str]
    negations: frozenset[str]
    maybe: frozenset[str]
    articles: frozenset[str]
    prepositions: frozenset[str]
    conjunction: str


ENGLISH = StateWords(
    STATE_WORDS, _LINKS, _NEGATIONS, _MAYBE, _ARTICLES, _PREPOSITIONS, conjunction="and"
)
PORTUGUESE = StateWords(
    states={
        **dict.fromkeys(
            "aberto aberta abertos abertas abre abrem abriu entreaberto entreaberta"
            " escancarado escancarada".split(),
            ("open", True),
        ),
        **dict.fromkeys(
            "fechado fechada fechados fechadas fecha fecham fechou".split(), ("open", False)
        ),
        **dict.fromkeys(
            "destrancado destrancada destrancados destrancadas destranca destrancou"
            " destravado destravada".split(),
            ("lock", True),
        ),
        **dict.fromkeys(
            "trancado trancada trancados trancadas tranca trancou lacrado lacrada selado"
            " selada aferrolhado aferrolhada travado travada".split(),
            ("lock", False),
        ),
    },  # fmt: skip
    links=frozenset(
        "é e são sao era eram foi está esta estão estao estava estavam fica ficam ficou"
        " permanece permanecem permaneceu continua continuou jaz repousa repousam agora ainda"
        " já ja novamente de repente lentamente bem firmemente".split()
    ),
    negations=frozenset("não nao nunca mais".split()),
    maybe=frozenset(
        "tenta tentam tentou tentar tentando falha falham falhou pode podem poderia deveria"
        " talvez se caso quer queria consegue conseguir".split()
    ),
    articles=frozenset("o a os as um uma seu sua seus suas este esta esse essa".split()),
    prepositions=frozenset(
        "de do da dos das em no na nos nas sobre sob com para por pelo pela perto junto"
        " dentro atrás atras".split()
    ),
    conjunction="e",
)


@dataclass(frozen=True)
class Stated:
    """One state a sentence tells: the thing (its subject words), the axis and the side."""

    thing: tuple[str, ...]
    axis: Axis
    opened: bool


def _subject(words: Sequence[str], vocabulary: StateWords = ENGLISH) -> tuple[str, ...]:
    """The noun phrase of `words` ending a subject: articles off, cut at a preposition."""
    phrase = list(words)
    while phrase and (
        phrase[-1] in vocabulary.links
        or phrase[-1] in vocabulary.states
        or phrase[-1] in vocabulary.negations
    ):
        phrase.pop()
    for at, word in enumerate(phrase):
        if word in vocabulary.articles:
            phrase = phrase[at + 1 :]
            break
    for at, word in enumerate(phrase):
        if word in vocabulary.prepositions:
            return tuple(phrase[:at])
    return tuple(phrase)


def stated(sentence: str, vocabulary: StateWords = ENGLISH) -> tuple[Stated, ...]:
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
    >>> [(s.thing, s.opened) for s in stated("A caixa está aberta.", PORTUGUESE)][:1]
    [(('caixa',), True)]
    """
    words = [w.replace("’", "'") for w in _WORD.findall(sentence.casefold())]
    if vocabulary.maybe.intersection(words):
        return ()
    told: dict[Stated, None] = {}
    for at, word in enumerate(words):
        if word not in vocabulary.states:
            continue
        axis, opened = vocabulary.states[word]
        before, after = words[:at], words[at + 1 :]
        negated = bool(vocabulary.negations.intersection(before[-3:]))
        readings = [(_subject(before, vocabulary), opened != negated)]
        if after and after[0] in vocabulary.articles and not negated:
            joint = vocabulary.conjunction
            end = after.index(joint) if joint in after else len(after)
            readings.append((_subject(after[:end], vocabulary), opened))
        for thing, side in readings:
            if thing:
                told[Stated(thing, axis, side)] = None
                if side == (axis == "open"):  # open implies unlocked, locked implies shut
                    told[Stated(thing, "lock" if axis == "open" else "open", side)] = None
    return tuple(told)


class States:
    """The known things and the state each is in, updated sentence by sentence."""

    def __init__(self, facts: Iterable[str], vocabulary: StateWords = ENGLISH) -> None:
        self.vocabulary = vocabulary
        self.state: dict[tuple[tuple[str, ...], Axis], bool] = {}
        self.things: set[tuple[str, ...]] = set()
        for fact in facts:
            for told in _sentences_stated(fact, vocabulary):
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
        for told in stated(sentence, self.vocabulary):
            thing = self.known(told.thing)
            if thing is not None and self.state.get((thing, told.axis), told.opened) != (
                told.opened
            ):
                found.append(thing)
        return found

    def tell(self, text: str) -> None:
        """Take the states `text` tells as the things' own."""
        for told in _sentences_stated(text, self.vocabulary):
            thing = self.known(told.thing)
            if thing is not None:
                self.state[thing, told.axis] = told.opened


def _sentences_stated(text: str, vocabulary: StateWords = ENGLISH) -> tuple[Stated, ...]:
    return tuple(told for a, b in sentence_spans(text) for told in stated(text[a:b], vocabulary))


def _named_by(thing: tuple[str, ...], attempt: str) -> bool:
    words = set(_WORD.findall(attempt.casefold()))
    return any(len(w) >= 3 and w in words for w in thing)


def drop_state_flips(
    d: DirectorDecision, ctx: ClampContext
) -> tuple[DirectorDecision, list[ClampChange]]:
    """Cut each event sentence that turns a standing thing's state over when no attempt
    awaiting the beat names the thing."""
    vocabulary = PORTUGUESE if ctx.language == "pt-BR" else ENGLISH
    if not any(vocabulary.states.keys() & words(ev.text) for ev in d.events):
        return d, []  # most decisions: no state told
    states = States(ctx.scene.facts, vocabulary)
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
