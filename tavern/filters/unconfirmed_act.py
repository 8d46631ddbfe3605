"""Rule `unconfirmed_act`: a narration tells only the acts this beat's events confirm.

The renderer must not decide for a character (for the human's, that is the one thing no
model may do), and the rule is the same for every character. A sentence whose subject is a
cast member (`physics.acts`) and whose verb is an act goes unless an event sentence of this
beat confirms an act of that character sharing a content word with it. Verbs of perceiving
or undergoing (the language's `perceiving`: "sees", "vê", "is", "está"), negated verbs and
bare verbs of speaking by someone who spoke stay; a sentence whose pronoun named only a
dropped subject goes with it. Also cut: an opening pronoun when the beat has no single
actor, a bare whisper nobody whispered, and an attempt of this beat or the last retold as
an attempt.

Example (beat events: "Maren Holt opens the toll box."): "Maren Holt opens the toll box.
Teodor Vask draws his knife." -> "Maren Holt opens the toll box."
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from tavern.filters.context import FilterContext, Target
from tavern.filters.rule import BOTH, TextRule
from tavern.physics.acts import Act, Names, named, read_acts
from tavern.physics.awaiting import recent_acts
from tavern.physics.copied import COPY_WINDOW
from tavern.physics.outcomes import act_stem
from tavern.records import ActionRecord, Character, EventRecord, HistoryRecord, SpeechRecord
from tavern.text import Lexicon, kept_sentences, sentence_spans, without_sentences, words

BARE_WORDS = {
    "en": frozenset(
        "something softly quietly aloud again briefly voice himself herself themselves".split()
    ),
    "pt-BR": frozenset("algo baixinho baixo alto novamente brevemente voz si mesmo mesma".split()),
}
"""What a sentence of speaking may add to names and small words and still say only that
someone spoke."""
_HEARER = {
    "en": frozenset("to at into in ear the a an his her their".split()),
    "pt-BR": frozenset("para a o no na ao à em ouvido de do da seu sua".split()),
}
"""Words a bare whisper may add before its hearer ("... whispers something into Ana's ear")."""
_PRONOUN_OPENING = {
    "en": re.compile(r"\s*(?:He|She|They|His|Her|Their)\b"),
    "pt-BR": re.compile(r"\s*(?:Ele|Ela|Eles|Elas|Seu|Sua|Seus|Suas)\b"),
}
_MAKING_AN_ATTEMPT = {
    "en": frozenset("make makes made making an to".split()),
    "pt-BR": frozenset("faz fez fazendo uma de a".split()),
}
"""Words around a verb of attempting in a retelling ("makes an attempt to", "faz uma
tentativa de")."""


_JOINS = {
    "pt-BR": re.compile(r",\s*(?:e|mas|então|entao)\s+|;\s+|\s+e\s+(?:então\s+)?"),
}
"""Where a later clause may start with a subject of its own, in a language whose joining
words `physics.acts` (written for English) does not split at."""


def _acts(
    sentence: str, names: Names, before: str | None, lex: Lexicon
) -> tuple[list[Act], str | None]:
    """The acts of `sentence` (`physics.acts.read_acts`), and of each later clause after a
    joining word of the language; who a following pronoun names."""
    acts, after = read_acts(sentence, names, before)
    joins = _JOINS.get(lex.language)
    if joins is not None:
        for clause in joins.split(sentence)[1:]:
            more, after = read_acts(clause, names, after)
            acts += [a for a in more if a not in acts]
    return acts, after


def _content(text: str, lex: Lexicon) -> set[str]:
    return {w for w in words(text) if len(w) >= 4 and w not in lex.stop_words}


def _shares(one: set[str], other: set[str]) -> bool:
    return any(a in b or b in a for a in one for b in other)


class _Support:
    """Whether an act is backed by what its subjects did this beat."""

    def __init__(
        self,
        confirmed: Mapping[str, Sequence[str]],
        spoke: frozenset[str],
        whispered: frozenset[str],
        names: Names,
        lex: Lexicon,
    ) -> None:
        self.confirmed, self.spoke, self.whispered = confirmed, spoke, whispered
        self.names, self.lex = names, lex

    def __call__(self, act: Act, sentence: str) -> bool:
        said = _content(sentence, self.lex) - self.names.words
        return all(self._backs(slot, act, said) for slot in act.subjects)

    def _backs(self, slot: str, act: Act, said: set[str]) -> bool:
        lex = self.lex
        speakers = self.whispered if act.verb in lex.whispering else self.spoke
        bare = said - lex.speaking - BARE_WORDS[lex.language]
        if act.verb in lex.speaking and slot in speakers and not bare:
            return True
        return any(_shares(said, _content(t, lex)) for t in self.confirmed.get(slot, ()))


TAG_ONLY = {
    "en": frozenset(
        "continue continues continued begin begins began add adds added repeat repeats"
        " repeated".split()
    ),
    "pt-BR": frozenset("continua continuou acrescenta acrescentou repete repetiu".split()),
}
"""Verbs of speaking only in a dialogue tag; joined to an act ("and then continues"), they
move."""


def _joined_speech(sentence: str, acts: list[Act], lex: Lexicon) -> list[Act]:
    """A verb of speaking joined by "and" to a cast member's act is theirs too ("Ilse Brandt
    sees the toll box and asks who is on it.")."""
    if not acts:
        return []
    said = words(sentence)
    speaking = lex.speaking - TAG_ONLY[lex.language]
    for before, word in zip(said, said[1:], strict=False):
        if before in ("and", "e") and word in speaking:
            if any(act.verb == word for act in acts):
                return []
            return [Act(acts[0].subjects, word, acts[0].by_pronoun)]
    return []


def unsupported(text: str, names: Names, support: _Support, actor: str | None, lex: Lexicon) -> str:
    """`text` without its sentences stating an act `support` refuses (see the module), and
    without a next sentence whose pronoun named only a dropped one's subject; repeated until
    nothing more goes (a dropped sentence can change whom a later pronoun names)."""
    while True:
        spans = sentence_spans(text)
        gone: list[bool] = []
        before: str | None = actor
        dropped: tuple[str, ...] = ()
        for a, b in spans:
            sentence = text[a:b]
            acts, before = _acts(sentence, names, before, lex)
            acts += _joined_speech(sentence, acts, lex)
            orphan = any(act.by_pronoun and set(act.subjects) <= set(dropped) for act in acts)
            unbacked = [
                act
                for act in acts
                if act.verb not in lex.perceiving
                and not _no_act(act.verb, words(sentence), lex)
                and not support(act, sentence)
            ]
            gone.append(orphan or bool(unbacked))
            dropped = tuple(slot for act in acts for slot in act.subjects) if gone[-1] else ()
        if not any(gone):
            return text
        text = kept_sentences(text, spans, gone)


def _no_act(verb: str, said: list[str], lex: Lexicon) -> bool:
    """Whether `verb`, read as a sentence's act, states none: a possessive read as a verb
    ("Maren Holt's pen stops"), a negation ("não"), or a verb negated right after it or
    right before it ("does not reach", "never reaches").

    >>> from tavern.text import lexicon_for
    >>> en = lexicon_for("en")
    >>> _no_act("does", "teodor vask does not reach for it".split(), en)
    True
    >>> _no_act("reaches", "teodor vask reaches for it".split(), en)
    False
    """
    if "'" in verb or "’" in verb or verb in lex.negations:
        return True
    at = said.index(verb) if verb in said else -1
    near = said[at - 1 : at] + said[at + 1 : at + 2] if at >= 0 else []
    return not lex.negations.isdisjoint(near)


def _confirmed(event: EventRecord, names: Names, lex: Lexicon) -> list[tuple[str, str]]:
    """(slot, sentence) for each sentence of `event` confirming an act of that slot: one
    stating the act, or one about no cast member, which tells its actor's outcome. A sentence
    in which someone perceives or undergoes confirms no act of theirs."""
    found = []
    before = event.actor_id
    for sentence in (event.text[a:b] for a, b in sentence_spans(event.text)):
        acts, before = _acts(sentence, names, before, lex)
        if not acts and event.actor_id is not None and not named(words(sentence), names):
            found.append((event.actor_id, sentence))
        for act in acts:
            if act.verb not in lex.perceiving:
                found.extend((slot, sentence) for slot in act.subjects)
    return found


def without_pronoun_opening(text: str, language: str) -> str:
    """`text` without the sentences opening it on a pronoun (see the module).

    >>> without_pronoun_opening("She is in the hall. She walks. The trapdoor is shut.", "en")
    'The trapdoor is shut.'
    >>> without_pronoun_opening("Ela está no salão. O alçapão está fechado.", "pt-BR")
    'O alçapão está fechado.'
    """
    opening = _PRONOUN_OPENING[language]
    if not opening.match(text):
        return text
    for a, b in sentence_spans(text):
        if not opening.match(text[a:b]):
            return text[a:].strip()
    return ""


def without_phantom_whispers(text: str, names: Names, lex: Lexicon) -> str:
    """`text` without its sentences saying only that someone whispers (for a beat nobody
    whispered in: the runner's rule checks that).

    >>> from tavern.text import lexicon_for
    >>> en = lexicon_for("en")
    >>> without_phantom_whispers("The vintner whispers something. Rain.", Names.of({}), en)
    'Rain.'
    >>> without_phantom_whispers("The vintner whispers that the will is forged.", Names.of({}), en)
    'The vintner whispers that the will is forged.'
    """
    allowed = BARE_WORDS[lex.language] | _HEARER[lex.language] | names.words

    def bare(sentence: str) -> bool:
        said = [w.removesuffix("'s") for w in words(sentence)]
        at = next((i for i, w in enumerate(said[:5]) if w in lex.whispering), None)
        return at is not None and at >= 1 and set(said[at + 1 :]) <= allowed

    return without_sentences(text, bare)


def _stem(word: str, language: str) -> str:
    return act_stem(word) if language == "en" else word[:3]


def retells_attempt(sentence: str, name: str, attempts: Sequence[str], lex: Lexicon) -> bool:
    """Whether `sentence` is `name`, a verb of attempting and one of `attempts`, nothing else.

    >>> from tavern.text import lexicon_for
    >>> en = lexicon_for("en")
    >>> retells_attempt("Ilse Brandt makes an attempt to walk to the window.", "Ilse Brandt",
    ...                 ["walks to the window"], en)
    True
    >>> retells_attempt("Ilse Brandt tries the window, but it sticks.", "Ilse Brandt",
    ...                 ["walks to the window"], en)
    False
    >>> retells_attempt("Ilse Brandt tries the box.", "Ilse Brandt", ["tries the box"], en)
    False
    """
    said, own = words(sentence), words(name)
    if said[: len(own)] != own:
        return False
    rest = said[len(own) :]
    lead = 0
    while lead < len(rest) and (
        rest[lead] in lex.attempting or rest[lead] in _MAKING_AN_ATTEMPT[lex.language]
    ):
        lead += 1
    if not lex.attempting.intersection(rest[:lead]):
        return False
    if lex.language == "en" and rest[lead - 1] != "to":
        return False  # "tries the box" tells what was tried; "tries to open it" an attempt
    told = [_stem(w, lex.language) for w in rest[lead:]]
    for attempt in attempts:
        act = words(attempt)
        while act and (act[0] in lex.attempting or act[0] in _MAKING_AN_ATTEMPT[lex.language]):
            act = act[1:]
        if act and told == [_stem(w, lex.language) for w in act]:
            return True
    return False


def _retold_attempts(
    text: str,
    cast: Mapping[str, Character],
    recent: Sequence[HistoryRecord],
    turn: int,
    lex: Lexicon,
) -> str:
    tried: dict[str, list[str]] = {}
    for r in recent:
        if isinstance(r, ActionRecord) and r.turn_number >= turn - 1 and r.speaker in cast:
            tried.setdefault(r.speaker, []).append(r.text)
    if not tried:
        return text
    names = {slot: cast[slot].body.display_name for slot in tried}
    return without_sentences(
        text,
        lambda s: any(retells_attempt(s, names[slot], t, lex) for slot, t in tried.items()),
    )


def _repair(text: str, target: Target, ctx: FilterContext) -> str:
    if not ctx.cast:
        return text
    lex, turn = ctx.lexicon, ctx.turn
    names = Names.of(ctx.cast)
    recent = [*ctx.history[-COPY_WINDOW:], *ctx.beat]
    confirmed: dict[str, list[str]] = {}
    actors: set[str] = set()
    for r in ctx.beat:
        if isinstance(r, EventRecord):
            for slot, sentence in _confirmed(r, names, lex):
                confirmed.setdefault(slot, []).append(sentence)
            if r.actor_id is not None and r.actor_id in ctx.cast:
                actors.add(r.actor_id)
    _, spoke = recent_acts(recent, turn)
    whispered = frozenset(
        r.speaker
        for r in recent
        if isinstance(r, SpeechRecord) and r.turn_number == turn and r.audience.origin == "whisper"
    )
    support = _Support(confirmed, spoke, whispered, names, lex)
    # A narration opening on a pronoun tells of the beat's actor when it has one only.
    actor = next(iter(actors)) if len(actors) == 1 else None
    kept = unsupported(text, names, support, actor, lex)
    if not whispered:
        kept = without_phantom_whispers(kept, names, lex)
    if actor is None:
        kept = without_pronoun_opening(kept, ctx.language)
    return _retold_attempts(kept, ctx.cast, recent, turn, lex)


RULE = TextRule("unconfirmed_act", frozenset(("narration",)), BOTH, _repair)
