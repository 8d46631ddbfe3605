"""Outcomes: an event that answers a waiting attempt is its outcome, and tells how it went.

The runner reads an attempt as answered by an `action_outcome` event of its actor and asks
the Director again (`runner.follow_up`) for one that got none. `outcome_kind`: an event of
another kind by an actor whose attempt waits, sharing a word with it, becomes an
action_outcome (an utterance telling speech keeps its kind). `retold_attempt`: a sentence
of an actor's event telling no outcome goes (it only says the actor attempts their own
attempt, does word for word what another attempted, or, in an outcome, makes a bare new
attempt). `borrowed_outcome`: a follow-up's answer (`ClampContext.asked`) keeps only its own
attempt's outcome. Acts are compared by stems (`act_stem`) in the session language's words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tavern.physics.acts import Names, named, words_of
from tavern.physics.awaiting import about_words, attempt_records, shares_a_word
from tavern.physics.copied import COPY_WINDOW
from tavern.physics.dropping import rewrite_events
from tavern.physics.identity import display_names, with_names
from tavern.physics.quotations import QUOTATION
from tavern.records import (
    ActionRecord,
    ClampChange,
    DirectorDecision,
    EventRecord,
    HistoryRecord,
    PerceptionEvent,
)
from tavern.text import Lexicon, lexicon_for, without_sentences, words

if TYPE_CHECKING:
    from tavern.physics.clamps import ClampContext

Changes = list[ClampChange]
_HISSING_E = ("che", "she", "xe", "sse", "ze")
_PT_ENDINGS = sorted(
    "ando endo indo aram eram iram avam ava ia ou iu eu ar er ir am em as es os a e o".split(),
    key=len,
    reverse=True,
)


def act_stem(word: str, language: str = "en") -> str:
    """One form for a word and its inflections, as acts are compared: in English a final
    "s" goes ("walks" ~ "walk"; "ss" stays), then an "e" after a hissing sound ("reaches" ~
    "reach"); in Portuguese a verb or noun ending goes ("abriu", "abre", "abrir" ~ "abr").

    >>> [act_stem(w) for w in ("walks", "pass", "passes", "reaches", "gazes")]
    ['walk', 'pass', 'pass', 'reach', 'gaz']
    >>> [act_stem(w, "pt-BR") for w in ("abriu", "abre", "abrir", "porta", "sol")]
    ['abr', 'abr', 'abr', 'port', 'sol']
    """
    if language == "pt-BR":
        if len(word) <= 3:
            return word
        ending = next((e for e in _PT_ENDINGS if word.endswith(e) and len(word) - len(e) >= 2), "")
        return word[: len(word) - len(ending)]
    if not word.endswith("ss"):
        word = word.removesuffix("s")
    return word[:-1] if word.endswith(_HISSING_E) else word


def label_outcomes(d: DirectorDecision, ctx: ClampContext) -> tuple[DirectorDecision, Changes]:
    """Make each event telling its actor's waiting attempt an action_outcome."""
    if not d.events:
        return d, []
    lex = lexicon_for(ctx.language)
    waiting: dict[str, list[set[str]]] = {}
    for attempt in attempt_records(ctx.history, ctx.turn_number):
        waiting.setdefault(attempt.speaker, []).append(about_words(attempt.text, lex))
    events, changes = list(d.events), []
    for i, ev in enumerate(events):
        attempts = waiting.get(ev.actor_id or "")
        if not attempts or ev.kind == "action_outcome":
            continue
        if ev.kind == "utterance" and (
            not lex.speaking.isdisjoint(words(ev.text)) or QUOTATION.search(ev.text)
        ):
            continue  # it stands for a spoken line
        said = about_words(ev.text, lex)
        if any(shares_a_word(said, told) for told in attempts):
            events[i] = ev.model_copy(update={"kind": "action_outcome"})
            changes.append(
                ClampChange(
                    rule="outcome_kind", path=f"events[{i}].kind", before=ev.kind,
                    after="action_outcome",
                )
            )  # fmt: skip
    if not changes:
        return d, []
    return d.model_copy(update={"events": events}), changes


def bare_outcome(text: str, actor_name: str, lex: Lexicon) -> bool:
    """Whether `text` is its actor's name and outcome words, nothing else ("Ilse Brandt
    fails."): a new attempt's outcome in an old one's words, no restatement.

    >>> bare_outcome("Ilse Brandt fails.", "Ilse Brandt", lexicon_for("en"))
    True
    >>> bare_outcome("A porta falha.", "Ilse", lexicon_for("pt-BR"))
    False
    """
    name = set(words(actor_name))
    said = [w for w in words(text) if w not in name]
    return bool(said) and len(said) < len(words(text)) and lex.outcomes.issuperset(said)


class _Acts:
    """How an actor's sentences retell attempts, in one language's stems (see the module)."""

    def __init__(self, lex: Lexicon) -> None:
        self.language = lex.language

        def stems(found: frozenset[str]) -> set[str]:
            return {act_stem(w, lex.language) for w in found}

        self.trying = stems(lex.attempting)
        self.determiners = stems(lex.articles | lex.possessives)
        self.leading = stems(lex.articles | lex.prepositions) | {"to"} | stems(_MAKING)
        self.how = stems(lex.conjunctions | lex.subordinators | lex.outcomes | lex.negations | _HOW)

    def stems(self, text: str) -> tuple[str, ...]:
        return tuple(act_stem(w, self.language) for w in words(text) if w.isalpha())

    def after_name(self, text: str, name: str) -> tuple[str, ...] | None:
        """The stems after `name` opening `text`, or after "The attempt of <name>" (given as
        an attempt); None when it opens otherwise."""
        said, named = self.stems(text), self.stems(name)
        if named and said[: len(named)] == named:
            return said[len(named) :]
        for at in range(1, 4):
            if said[at : at + len(named)] == named and self.trying & set(said[:at]):
                return ("try", *said[at + len(named) :])
        return None

    def attempting(self, act: tuple[str, ...], objects: bool = False) -> tuple[str, ...] | None:
        """`act` after an opening verb of attempting ("tries to", "makes an attempt to",
        "tenta", "faz uma tentativa de"), or None without one; with `objects`, also a verb
        of attempting with its object right after it ("tries the box")."""
        i = 0
        while i < len(act) and act[i] in self.leading and act[i] not in self.trying:
            i += 1
        if i >= len(act) or (act[i] not in self.trying and act[i] != "try"):
            return None
        i += 1
        if i < len(act) and act[i] in self.determiners and not objects:
            return None  # "tries the box": the box is tried, no act is retold
        while i < len(act) and act[i] in self.leading:
            i += 1
        return act[i:]

    def attempted(self, attempts: Sequence[str]) -> set[tuple[str, ...]]:
        """Each attempt's stems, and its act after an opening verb of attempting."""
        acts = {self.stems(a) for a in attempts}
        return acts | {a for a in map(self.attempting, acts) if a}


_MAKING = frozenset("make makes made making faz fez fazendo".split())
"""Verbs around an attempt told as a noun ("makes an attempt to", "faz uma tentativa de")."""
_HOW = frozenset("find finds found manage manages managed unable cannot consegue".split())
"""Words, beside conjunctions, outcomes and negations, after which a sentence tells how an
attempt went."""


def retells(
    sentence: str, name: str, own: Sequence[str], others: Sequence[str], outcome: bool, lex: Lexicon
) -> bool:
    """Whether `sentence`, of an actor called `name` whose recent attempts are `own` (and
    everyone else's `others`), tells no outcome (see the module); `outcome`: whether the
    event is an action_outcome.

    >>> en = lexicon_for("en")
    >>> retells("Ilse tries to open the door.", "Ilse", ["opens the door"], [], True, en)
    True
    >>> retells("Ilse tries to open the door, but it is locked.", "Ilse", ["opens the door"],
    ...         [], True, en)
    False
    >>> retells("Ilse tenta abrir a porta.", "Ilse", ["abre a porta"], [], True,
    ...         lexicon_for("pt-BR"))
    True
    """
    reader = _Acts(lex)
    act = reader.after_name(sentence, name)
    if act is None:
        return False
    mine = reader.attempted(own)
    tried = reader.attempting(act)
    if tried is not None and tried in mine:
        return True  # only says the actor attempts one of their own attempts
    if len(act) >= MIN_BORROWED_WORDS and act not in mine and act in reader.attempted(others):
        return True  # the actor doing, word for word, what another attempted
    if not outcome:
        return False
    core = sentence.strip().rstrip(".!")
    if tried and reader.how.isdisjoint(tried) and not re.search(r"[,;:]", core):
        return True  # a bare new attempt, no word of how it went
    for joint in [", ", *(f" {w} " for w in lex.joins & lex.conjunctions)]:
        first, found, second = core.partition(joint)
        head = reader.after_name(first, name) if found else None
        attempt = reader.attempting(head, objects=True) if head else None
        told = reader.stems(second)
        if attempt and told and reader.how.isdisjoint((*attempt, *told)):
            forms = [told] + [(verb, *told[1:]) for verb in _from_gerund(told[0])]
            if any(form in mine for form in forms):
                return True  # a new attempt joined to the actor's own, told again
    return False


def _from_gerund(word: str) -> list[str]:
    """The stems an English gerund may come from ("reaching" ~ "reach", "taking" ~ "take",
    "sitting" ~ "sit"); none for other words."""
    stem = word.removesuffix("ing")
    if stem == word or len(stem) < 2:
        return []
    return [stem, stem + "e", *([stem[:-1]] if stem[-1] == stem[-2] else [])]


MIN_BORROWED_WORDS = 3
"""Shorter acts ("sits down") may well be two characters' own."""


def drop_retold_attempts(
    d: DirectorDecision, ctx: ClampContext
) -> tuple[DirectorDecision, Changes]:
    """Cut each sentence of an actor's event that retells an attempt instead of telling how
    it went."""
    if not any(ev.actor_id for ev in d.events):
        return d, []
    lex = lexicon_for(ctx.language)
    names = display_names(ctx.cast or {})
    tried = [r for r in ctx.history[-COPY_WINDOW:] if isinstance(r, ActionRecord)]

    def rewrite(ev: PerceptionEvent) -> str:
        if ev.actor_id is None:
            return ev.text
        name = names.get(ev.actor_id, ev.actor_id)
        own = [a.text for a in tried if a.speaker == ev.actor_id]
        others = [a.text for a in tried if a.speaker != ev.actor_id]
        outcome = ev.kind == "action_outcome"
        return without_sentences(
            ev.text,
            lambda s: retells(with_names(s, names), name, own, others, outcome, lex),
        )

    return rewrite_events(d, "retold_attempt", rewrite)


COPY_WORDS = 3
"""Words of another attempt that make a sentence telling nothing but it a copy, and that
make another attempt of the actor's own, whole inside a sentence, borrowed. Shorter acts
("sits down") may well be an outcome and another attempt alike."""
OTHERS_WORDS = 2
"""Words of another actor's attempt that, whole inside a sentence holding no word of the
asked attempt, make that sentence a copy ("Agnese Corvo reads aloud." for "sits down by the
fire", another's "read aloud"). A one-word act ("read") proves no copy."""
RUN_WORDS = 7
"""Words in a row of another attempt or a recent event that make a sentence its copy. Six
would also take "the toll box on the counting table", which an outcome may well say."""
EVENT_TURNS = 8
"""Beats back whose events an answer may not copy."""
_PLACEHOLDERS = {
    "en": frozenset("this that it tried attempted did make makes made take takes taking action"
                    " actions act acts".split()),
    "pt-BR": frozenset("isto isso aquilo tentou fez faz fazer feito ação ações agir age"
                       " ato atos".split()),
}  # fmt: skip
"""Words beside the language's stop words and verbs of attempting with which a sentence
still tells nothing ("tries this", "takes action")."""


def _key(text: str, language: str, name: str = "") -> tuple[str, ...]:
    """The stems of `text`'s words, a leading actor `name` aside, as copies compare."""
    said = [act_stem(w, language) for w in words(text)]
    named_ = [act_stem(w, language) for w in words(name)]
    if named_ and said[: len(named_)] == named_:
        said = said[len(named_) :]
    return tuple(w for w in said if w)


def _runs(key: tuple[str, ...]) -> set[tuple[str, ...]]:
    return {key[i : i + RUN_WORDS] for i in range(len(key) - RUN_WORDS + 1)}


def borrowed(
    text: str,
    attempt: ActionRecord,
    history: Sequence[HistoryRecord],
    name: str,
    decided: Sequence[str],
    facts: Sequence[str],
    lex: Lexicon,
) -> str:
    """The answer `text` about `attempt`, by its actor called `name`, without its sentences
    that tell nothing, copy another attempt of `history` (whole, or `RUN_WORDS` words in a
    row), copy an event of the last `EVENT_TURNS` beats or of `decided` (this beat's), or
    tell a standing fact of `facts` and no word of the attempt.

    >>> en = lexicon_for("en")
    >>> door = ActionRecord(seq=1, turn_number=3, speaker="C1", author="human",
    ...                     audience={"origin": "zone"}, text="reaches for the door")
    >>> facts = ["The toll box sits locked on the counting table."]
    >>> said = "Ilse tries this. Ilse opens the toll box. Ilse pulls the handle; it holds."
    >>> borrowed(said, door, [door], "Ilse", [], facts, en)
    'Ilse pulls the handle; it holds.'
    """
    language = lex.language
    own = _key(attempt.text, language)
    turn = history[-1].turn_number if history else 0
    attempts: set[tuple[str, ...]] = set()
    others: set[tuple[str, ...]] = set()
    told = list(decided)
    for r in history:
        if isinstance(r, ActionRecord) and r.seq != attempt.seq:
            attempts.add(_key(r.text, language))
            if r.speaker != attempt.speaker:
                others.add(_key(r.text, language))
        elif isinstance(r, EventRecord) and r.turn_number > turn - EVENT_TURNS:
            told.append(r.text)
    attempts.discard(own)
    copied = set().union(*(_runs(k) for k in attempts), *(_runs(_key(t, language)) for t in told))
    copied -= _runs(own) | set().union(*(_runs(_key(f, language)) for f in facts))
    wholes = [
        f" {' '.join(k)} "
        for k in attempts
        if len(k) >= COPY_WORDS or (len(k) >= OTHERS_WORDS and k in others)
    ]
    empty = lex.stop_words | lex.attempting | _PLACEHOLDERS[language] | set(words(name))
    named_ = about_words(name, lex)
    mine = about_words(attempt.text, lex)
    standing = set().union(*(about_words(f, lex) for f in facts)) - named_

    def goes(sentence: str) -> bool:
        key = _key(sentence, language, name)
        said = about_words(sentence, lex) - named_
        return (
            all(w in empty for w in words(sentence))
            or (len(key) >= COPY_WORDS and key in attempts)
            or not _runs(key).isdisjoint(copied)
            or (
                not shares_a_word(said, mine)
                and (any(w in f" {' '.join(key)} " for w in wholes) or bool(said & standing))
            )
        )

    return without_sentences(text, goes)


def drop_borrowed_outcomes(
    d: DirectorDecision, ctx: ClampContext
) -> tuple[DirectorDecision, Changes]:
    """Cut what a follow-up's answer tells beside its attempt's outcome: a sentence telling
    nothing, another attempt or a recent event copied, a standing fact the attempt never
    touched; an answer naming someone of the cast and never its actor goes whole."""
    if not ctx.asked:
        return d, []
    asked = {
        r.speaker: r for r in attempt_records(ctx.history, ctx.turn_number) if r.seq in ctx.asked
    }
    lex = lexicon_for(ctx.language)
    cast = ctx.cast or {}
    names = display_names(cast)
    decided: list[str] = []
    events: list[PerceptionEvent] = []
    changes: Changes = []
    for i, ev in enumerate(d.events):
        attempt = asked.get(ev.actor_id or "")
        text = ev.text
        if attempt is not None and ev.kind == "action_outcome":
            name = names.get(attempt.speaker, attempt.speaker)
            text = borrowed(text, attempt, ctx.history, name, decided, ctx.scene.facts, lex)
            found = set(named(words_of(text), Names.of(cast)))
            if found and attempt.speaker not in found:
                text = ""  # it tells another's outcome
        decided.append(ev.text)
        if text == ev.text:
            events.append(ev)
        elif text:
            events.append(ev.model_copy(update={"text": text}))
            changes.append(ClampChange(rule="borrowed_outcome", path=f"events[{i}].text",
                                       before=ev.text, after=text))  # fmt: skip
        else:
            changes.append(ClampChange(rule="borrowed_outcome", path=f"events[{i}]",
                                       before=ev.model_dump(), after=None))  # fmt: skip
    return (d.model_copy(update={"events": events}) if changes else d), changes
