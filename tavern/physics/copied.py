"""Copies: an event made of text the Director was shown, not of anything that happened.

A small Director copies what it reads (lines, thoughts, minds, its instructions, labels,
directives, the roster) into events, and every witness then remembers it as a happening.
Each clamp takes one source out: `spoken_copy` (a line spoken among the last `COPY_WINDOW`
records), `thought_copy` (a recent thought), `mind_copy` (`RUN_WORDS` words in a row of a
mind no public text holds, also in added facts), `prompt_label` (a window label, or only
"Time passes."; schema words go alone), `prompt_copy` (a sentence made of one fixed prompt
sentence's content words, unless it tells an outcome, or one opening with the title),
`directive_copy` (`RUN_WORDS` in a row of a tone directive) and `roster_event` (an event
that only lists cast members or places them as the staging line does). They compare words
in a row and whole lines, so they handle every language.

Example: with the directive "Reveal secrets through action and slips.", the event "He tries
to reveal secrets through action and slips." goes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING

from tavern.physics.dropping import cut_sentences, drop_events, rewrite_events
from tavern.physics.guards import cast_public_texts, scene_texts
from tavern.physics.prompt_labels import copies_a_label, without_schema_words
from tavern.records import (
    Character,
    ClampChange,
    DirectorDecision,
    HistoryRecord,
    PerceptionEvent,
    SpeechRecord,
    ThoughtRecord,
)
from tavern.text import LANGUAGES, content_words, lexicon_for, sentences, words
from tavern.text import without_sentences as _without

if TYPE_CHECKING:
    from tavern.physics.clamps import ClampContext

Changes = list[ClampChange]
Run = tuple[str, ...]
COPY_WINDOW = 64
"""Records looked back over for what an event copies: copies seen live came from the same
beat or a few turns earlier; the clamp context holds hundreds of records."""
RUN_WORDS = 6
"""Words in a row of a mind or a directive that make a sentence its copy: shorter runs ("in
the middle of the") recur in any prose."""
MIN_PROMPT_WORDS = 2
"""Fewer content words say too little to be told apart from a prompt's ("Nobody moves.")."""
_QUOTES_AND_STOPS = " \"'“”‘’.,!?;:"


def line_key(text: str) -> str:
    """A text as copies of a line compare: case, spacing, quotes and end punctuation aside.

    >>> line_key('  "Shut the DOOR."  ')
    'shut the door'
    """
    return " ".join(text.split()).casefold().strip(_QUOTES_AND_STOPS)


def _lines(history: Sequence[HistoryRecord], kind: type[SpeechRecord | ThoughtRecord]) -> set[str]:
    return {line_key(r.text) for r in history[-COPY_WINDOW:] if isinstance(r, kind)}


def drop_spoken_copies(d: DirectorDecision, ctx: ClampContext) -> tuple[DirectorDecision, Changes]:
    """Drop each event whose text is a line spoken among the recent records."""
    if not d.events:
        return d, []
    spoken = _lines(ctx.history, SpeechRecord)
    return drop_events(d, "spoken_copy", lambda ev: line_key(ev.text) in spoken)


def drop_thought_copies(d: DirectorDecision, ctx: ClampContext) -> tuple[DirectorDecision, Changes]:
    """Drop each event whose text is a recent private thought."""
    if not d.events:
        return d, []
    thought = _lines(ctx.history, ThoughtRecord)
    return drop_events(d, "thought_copy", lambda ev: line_key(ev.text) in thought)


def word_runs(text: str, length: int) -> set[Run]:
    """Every `length` words in a row of `text` (`tavern.text.words`: folded).

    >>> sorted(word_runs("The bolt holds fast.", 3))
    [('bolt', 'holds', 'fast'), ('the', 'bolt', 'holds')]
    """
    said = words(text)
    return {tuple(said[i : i + length]) for i in range(len(said) - length + 1)}


def holds_run(text: str, runs: AbstractSet[Run], length: int) -> bool:
    """Whether `text` holds one of `runs` (each `length` words, as `word_runs` makes them).

    >>> holds_run("Rain. The bolt holds fast.", word_runs("bolt holds fast", 3), 3)
    True
    """
    return not runs.isdisjoint(word_runs(text, length))


def without_sentences_holding(
    text: str,
    runs: AbstractSet[Run],
    length: int,
    spans_of: Callable[[str], list[tuple[int, int]]] | None = None,
) -> str:
    """`text` without its sentences holding one of `runs` (by `spans_of`, the sentence
    spans of `text`; by default `tavern.text.sentences`); `text` itself when none does.

    >>> without_sentences_holding("Rain. The bolt holds fast.", word_runs("bolt holds fast", 3), 3)
    'Rain.'
    """
    if not runs or not holds_run(text, runs, length):
        return text
    if spans_of is None:
        return _without(text, lambda sentence: holds_run(sentence, runs, length))
    spans = spans_of(text)
    kept = [(a, b) for a, b in spans if not holds_run(text[a:b], runs, length)]
    return "".join(text[a:b] for a, b in kept).strip()


def _mind_texts(cast: Mapping[str, Character]) -> list[str]:
    return [t for c in cast.values() for t in (c.mind.personality, *c.mind.secrets, *c.mind.goals)]


_PERCEIVED = frozenset(("speech", "action", "event"))
"""Records whose words someone perceived: a thought is as private as a mind, and a narration
reaches only the reader."""


def drop_mind_copies(d: DirectorDecision, ctx: ClampContext) -> tuple[DirectorDecision, Changes]:
    """Cut the sentences of events and added facts that recite a private mind text."""
    if ctx.cast is None or not (d.events or d.scene.add_facts):
        return d, []
    private = {run for text in _mind_texts(ctx.cast) for run in word_runs(text, RUN_WORDS)}
    told = [*(ev.text for ev in d.events), *d.scene.add_facts]
    copied = {run for text in told for run in word_runs(text, RUN_WORDS)} & private
    if not copied:
        return d, []  # the usual answer: nothing recited, the window is never read
    public: Iterable[str] = (
        *scene_texts(ctx.scene),
        *ctx.public_texts,
        *cast_public_texts(ctx.cast),
        *(r.text for r in ctx.history[-COPY_WINDOW:] if r.kind in _PERCEIVED),
    )
    copied -= {run for text in public for run in word_runs(text, RUN_WORDS)}
    if not copied:
        return d, []
    return cut_sentences(d, "mind_copy", lambda s: holds_run(s, copied, RUN_WORDS), facts=True)


def drop_directive_copies(
    d: DirectorDecision, ctx: ClampContext
) -> tuple[DirectorDecision, Changes]:
    """Cut the event sentences that copy six words in a row of a tone directive."""
    if not d.events or not ctx.directives:
        return d, []
    runs = {run for text in ctx.directives for run in word_runs(text, RUN_WORDS)}
    return cut_sentences(d, "directive_copy", lambda s: holds_run(s, runs, RUN_WORDS))


def without_directive_copies(text: str, directives: Sequence[str]) -> str:
    """`text` (a narration) without its sentences that copy a run of one of `directives`.

    >>> without_directive_copies("Rain falls. Keep descriptions concrete: rain, rope, coin.",
    ...                          ["Keep descriptions concrete: rain, rope, coin, ink."])
    'Rain falls.'
    """
    runs = {run for text in directives for run in word_runs(text, RUN_WORDS)}
    return without_sentences_holding(text, runs, RUN_WORDS)


def drop_label_copies(d: DirectorDecision, ctx: ClampContext) -> tuple[DirectorDecision, Changes]:
    """Drop the events that copy a label of the Director's window, and take the schema
    words out of the others."""
    zone_ids = {zone.id for zone in ctx.scene.zones}

    def rewrite(ev: PerceptionEvent) -> str:
        return "" if copies_a_label(ev.text) else without_schema_words(ev.text, zone_ids)

    return rewrite_events(d, "prompt_label", rewrite)


_OUTCOME_WORDS = frozenset("fail fails failed failure succeed succeeds succeeded success".split())
"""An outcome the prompt's "Attempts may fail." words: "This attempts fail." answers one."""
_CLAUSE = re.compile(r"[,;]")


def prompt_keys(prompt_sentences: Iterable[str]) -> list[frozenset[str]]:
    """The content words of each sentence of the Director's fixed prompt texts."""
    keys = [
        frozenset(content_words(sentence))
        for text in prompt_sentences
        for sentence in sentences(" ".join(text.split()))
    ]
    return [key for key in keys if key]


def copies_a_prompt_sentence(
    sentence: str, prompt: Sequence[frozenset[str]], names: AbstractSet[str] = frozenset()
) -> bool:
    """Whether the `sentence`'s content words, `names` aside, are `MIN_PROMPT_WORDS` or
    more and all words of one `prompt` sentence, or all words of the prompt with a clause
    copying one of its sentences; an outcome word keeps it.

    >>> keys = prompt_keys(["One open space: everyone present sees and hears everyone."])
    >>> copies_a_prompt_sentence("Everyone present sees and hears everyone.", keys)
    True
    >>> copies_a_prompt_sentence("Everyone hears the bell.", keys)
    False
    """
    said = set(content_words(sentence)) - names
    if len(said) < MIN_PROMPT_WORDS or not said.isdisjoint(_OUTCOME_WORDS):
        return False
    if any(said <= key for key in prompt):
        return True
    if not _CLAUSE.search(sentence) or not said <= frozenset().union(*prompt):
        return False
    clauses = (set(content_words(c)) - names for c in _CLAUSE.split(sentence))
    return any(len(c) >= MIN_PROMPT_WORDS and any(c <= key for key in prompt) for c in clauses)


def _title_opening(title: str, places: str) -> re.Pattern[str] | None:
    """What a sentence opening with `title` begins with (any case and spacing); None when
    there is no title or the stage's `places` hold all its content words."""
    if not title.split() or set(content_words(title)) <= set(content_words(places)):
        return None
    return re.compile(r"\s*" + r"\s+".join(map(re.escape, title.split())) + r"\b", re.I)


def drop_prompt_copies(d: DirectorDecision, ctx: ClampContext) -> tuple[DirectorDecision, Changes]:
    """Cut the event sentences made of a fixed sentence of the Director's prompts, or
    opening with the session title."""
    if not d.events or not (ctx.prompt_sentences or ctx.title):
        return d, []
    keys = prompt_keys(ctx.prompt_sentences)
    names = {w for c in (ctx.cast or {}).values() for w in content_words(c.body.display_name)}
    scene = ctx.scene
    title = _title_opening(
        ctx.title, " ".join([scene.location, scene.description, *(z.label for z in scene.zones)])
    )

    def copies(sentence: str) -> bool:
        if title is not None and title.match(sentence):
            return True
        return copies_a_prompt_sentence(sentence, keys, names)

    return cut_sentences(d, "prompt_copy", copies)


def is_roster(
    text: str, cast: Mapping[str, Character], places: AbstractSet[str] = frozenset()
) -> bool:
    """Whether `text` names two cast members or more and says nothing else but conjunctions,
    or, with the stage's `places`, where they are as the staging line says it.

    >>> from tavern.records import Body, Mind
    >>> cast = {s: Character(id=s.lower(), mind=Mind(), body=Body(display_name=n,
    ...     description_ref="x")) for s, n in [("C1", "Ilse Brandt"), ("C2", "Maren Holt")]}
    >>> is_roster("Ilse Brandt, Maren Holt.", cast), is_roster("Ilse e C2", cast)
    (True, True)
    >>> is_roster("Ilse Brandt and Maren Holt nod.", cast)
    False
    """
    said = words(text)
    owners: dict[str, set[str]] = {}
    for slot, member in cast.items():
        for word in [slot.casefold(), *words(member.body.display_name)]:
            owners.setdefault(word, set()).add(slot)
    if len({slot for w in said for slot in owners.get(w, ())}) < 2:
        return False
    if places and said[0] == "present":
        said = said[1:]
    joiners: set[str] = set()
    placing: set[str] = set()
    for lex in map(lexicon_for, LANGUAGES):
        joiners |= lex.conjunctions
        placing |= lex.prepositions
    return all(
        w in owners or w in joiners or (bool(places) and (w in places or w in placing))
        for w in said
    )


def drop_roster_events(d: DirectorDecision, ctx: ClampContext) -> tuple[DirectorDecision, Changes]:
    """Drop each event that only lists cast members, as the prompt's roster does."""
    if not d.events or not ctx.cast:
        return d, []
    cast = ctx.cast
    places = {w for z in ctx.scene.zones for w in words(f"{z.id} {z.label}")}
    return drop_events(d, "roster_event", lambda ev: is_roster(ev.text, cast, places))
