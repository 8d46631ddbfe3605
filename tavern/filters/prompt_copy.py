"""Rule `prompt_copy`: a model's text that copies its own prompt instead of telling a story.

Narration: a sentence that is only a transcript marker ("Teodor Vask makes an attempt.",
"Time passes.", a bare "Fails."), a labelled scene line ("Present: ..."), the word mask, a
zone link told as a fact, the session title, the staging line or roster, a bracketed
transcript line, a closing brace, or six words in a row of a tone directive goes. Reply: a
field holding a sheet label ("Personality:") or five words in a row of its instructions
goes whole. Schema identifiers ("world_event") go alone everywhere. Markers hold nothing
but names and the marker's words, so a story sentence never matches. The prompt is English
whatever the session's language, so English markers and their pt-BR renderings both count.

Example: "Teodor Vask makes an attempt. The lamp dies." -> "The lamp dies."
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tavern.filters.context import FilterContext, Target
from tavern.filters.rule import BOTH, EVERY, TextRule
from tavern.physics.acts import Names, named
from tavern.physics.prompt_labels import without_schema_words
from tavern.physics.redaction import MASK
from tavern.text import Lexicon, kept_sentences, sentence_spans, word_runs, words

DIRECTIVE_RUN = 6
"""Words in a row of a tone directive that make a copy; five would take a story's own "No
one is a villain here." from "No one is a villain; everyone is cornered."."""
INSTRUCTION_RUN = 5
"""Words in a row of a Character's instructions or stock lines that make a copy (the longest
run a reply otherwise shared with them over the kept soak records was three: "try to do")."""

PROMPT_LABEL = re.compile(
    r"\b(?:Location|Facts|Present|Local|Fatos|Presentes):|\(event\)|\bEvent:|^#{2,} "
    r"|(?:^|(?<=[.!?;] ))event (?=[A-Z])|" + re.escape(MASK),
    re.MULTILINE,
)
"""The scene block's labels, the transcript's event tag (also "Event:" and a bare "event"
before a capital), a prompt block's heading, and the mask of words the renderer may not
read."""
LINK_GAP_WORDS = 6
LINK_STAGING = {
    "en": re.compile(
        r"\b(?:sound|sight)s?\s+(?:sealed|open)\b"
        rf"|\b(?:sound|sight)s?\b(?:\s+[\w'’]+){{0,{LINK_GAP_WORDS}}}?\s+"
        r"(?:is|are|was|were|remains?|remained|stays?|stayed)\s+(?:still\s+|now\s+|also\s+)?"
        r"(?:sealed|open)\b",
        re.IGNORECASE,
    ),
    "pt-BR": re.compile(
        r"\b(?:som|sons|vis[aã]o|vista)\b(?:\s+[\w'’]+){0,6}?\s+"
        r"(?:est[aá]|est[aã]o|fica|ficam|permanece|permanecem|segue)\s+(?:ainda\s+|agora\s+)?"
        r"(?:selad[oa]s?|vedad[oa]s?|abert[oa]s?)\b",
        re.IGNORECASE,
    ),
}
"""The stage's zone links ("from hall to cellar: sound sealed") told as a fact; "No sound
came from the sealed cellar." stays."""
_BRACKETED = re.compile(r"(^|[.!?…]\s+|\n\s*)\(([^()]*?[.!?…])\)(?=\s|$)")


class Markers:
    """The words the renderer's prompt markers are made of, in a language: what a sentence
    copied from one holds besides names."""

    def __init__(self, lex: Lexicon, pt: bool) -> None:
        def both(en: str, pt_words: str) -> frozenset[str]:
            return frozenset((en + (" " + pt_words if pt else "")).split())

        self.attempt = both(
            "make makes made making an attempt attempts and then both each all also again to"
            " someone somebody he she they it",
            "faz fazem fez fizeram uma tentativa tentativas tenta tentam tentou e então ambos"
            " cada todos também de novo alguém ele ela eles elas",
        )
        self.making = both("make makes made making", "faz fazem fez fizeram")
        self.attempt_nouns = both("attempt attempts", "tentativa tentativas tenta tentam tentou")
        self.attempt_only = both("attempt attempts to and both", "tenta tentam tentou e ambos")
        self.empty_beat = both(
            "no nothing material happens happen happened here this beat",
            "nada de material acontece aconteceu aqui neste nesta momento",
        )
        self.material = both("material", "material")
        self.time = both(
            "the time passes passed pass some a little while then and",
            "o tempo passa passou passa-se algum um pouco então e",
        )
        self.time_nouns = both("time", "tempo")
        self.passing = both("passes passed pass", "passa passou")
        self.speech = both("speaks speak someone and", "fala falam alguém e")
        self.speaking = both("speaks speak", "fala falam")
        self.titled = both("speaks whispers something", "fala sussurra algo")
        self.pointing = both("it this that they", "isso isto ele ela eles")
        self.outcomes = lex.outcomes | frozenset(
            "fail fails failed succeed succeeds succeeded".split()
        )
        self.articles = lex.articles | frozenset(("the", "a", "an"))
        self.presence = lex.perceiving | both(
            "stand stands stood remain remains remained", "fica ficam ficou"
        )
        self.places = (
            lex.prepositions | lex.fillers | both("all together gathered", "todos juntos reunidos")
        )
        self.here = both("present here there", "presente presentes aqui ali lá")
        self.joins = lex.conjunctions | both("and", "e")


def without_brackets(text: str) -> str:
    """`text` with the parentheses taken off each run of whole sentences they enclose (the
    transcript's lines are so written); a parenthesis inside a sentence stays.

    >>> without_brackets("Rain. (Maren Holt opens the box. It is empty.) The lamp dies.")
    'Rain. Maren Holt opens the box. It is empty. The lamp dies.'
    >>> without_brackets("Maren (the keeper) nods.")
    'Maren (the keeper) nods.'
    """
    if "(" not in text:
        return text
    return _BRACKETED.sub(lambda m: m.group(1) + m.group(2), text)


def without_title_heading(text: str, title: str) -> str:
    """`text` with the session `title` taken off the front of each sentence it heads, before
    a dash, colon or comma.

    >>> without_title_heading("The Wake - the bell tolls. The Wake: rain.", "The Wake")
    'The bell tolls. Rain.'
    >>> without_title_heading("They speak of the wake, the bell, the will.", "The Wake")
    'They speak of the wake, the bell, the will.'
    """
    if not title or title.casefold() not in text.casefold():
        return text
    heading = re.compile(rf"(^\s*|[.!?…]\s+){re.escape(title)}\s*[-–—:,]\s*(\w)", re.IGNORECASE)
    return heading.sub(lambda m: m.group(1) + m.group(2).upper(), text)


def _copies_staging(sentence: str, name_words: frozenset[str], lex: Lexicon) -> bool:
    """Two or more `;`-separated parts in which a name word is followed by "in" ("em")."""
    placed = 0
    for part in sentence.split(";"):
        said = words(part)
        if any(w in name_words and nxt in ("in", "em", "no", "na") for w, nxt in zip(
            said, said[1:], strict=False
        )):  # fmt: skip
            placed += 1
    return placed >= 2


def _is_marker(said: list[str], rest: list[str], m: Markers, title_words: frozenset[str]) -> bool:
    """Whether a sentence of words `said` (`rest`: those that are no name) is a marker."""
    if title_words:
        spoken = [w for w in rest if w not in title_words]
        titled = {w for w in rest if w in title_words} >= title_words - m.articles
        if spoken and titled and m.titled.issuperset(spoken):
            return True
    if not m.material.isdisjoint(rest) and m.empty_beat.issuperset(rest):
        return True
    if not m.speaking.isdisjoint(rest) and m.speech.issuperset(rest):
        return True
    if (
        not m.time_nouns.isdisjoint(rest)
        and not m.passing.isdisjoint(rest)
        and m.time.issuperset(rest)
    ):
        return True
    if rest and len(rest) == len(said) and m.outcomes.issuperset(rest):
        return True  # "Fails.": an outcome event's word without anyone who failed
    if not m.attempt_nouns.isdisjoint(rest) and m.attempt_only.issuperset(rest):
        return True
    return (
        not m.attempt_nouns.isdisjoint(rest)
        and not m.making.isdisjoint(rest)
        and m.attempt.issuperset(rest)
    )


def _is_roster(said: list[str], names: Names, stage: set[str], news: set[str], m: Markers) -> bool:
    """Two or more names and nothing else (but joins), or names, a presence verb or a
    preposition, and a place told in the stage's words that this beat's events do not hold."""
    if len(named(said, names)) < 2:
        return False
    rest = [w for w in said if w not in names.words and w not in m.articles]
    while rest and rest[0] in m.joins:
        del rest[0]
    if not rest:
        return True
    if rest[0] in m.presence:
        rest = rest[1:]
    elif rest[0] not in m.places:
        return False
    place = [w for w in rest if w not in m.places and w not in m.articles]
    if all(w in m.here for w in place):
        return True
    return all(w in stage for w in place) and not all(w in news for w in place)


def _narration(text: str, ctx: FilterContext) -> str:
    lex = ctx.lexicon
    raw = text.rstrip()
    if raw.endswith("}"):
        text = raw.rstrip("}")
    text = without_schema_words(text)
    text = without_title_heading(without_brackets(text), ctx.title)
    m = Markers(lex, ctx.language == "pt-BR")
    names = Names.of(ctx.cast)
    name_words = frozenset(w for name in ctx.names for w in words(name))
    title_words = frozenset(words(ctx.title)) - name_words
    copies = {tuple(words(ctx.title))} | {tuple(words(part)) for part in ctx.staging}
    copies.discard(())
    stage = {w for t in (*ctx.stage, *ctx.staging) for w in words(t)}
    news = {w for t in ctx.beat_events() for w in words(t)}
    directive_runs = {r for d in ctx.directives for r in word_runs(words(d), DIRECTIVE_RUN)}
    links = LINK_STAGING[ctx.language]
    spans = sentence_spans(text)
    gone: list[bool] = []
    for a, b in spans:
        sentence = text[a:b]
        said = words(sentence)
        rest = [w for w in said if w not in name_words]
        opening = not any(not g for g in gone)
        gone.append(
            bool(PROMPT_LABEL.search(sentence.strip()))
            or bool(links.search(sentence))
            or _copies_staging(sentence, name_words, lex)
            or tuple(said) in copies
            or _is_marker(said, rest, m, title_words)
            or (
                opening
                and len(said) >= 2
                and said[0] in m.pointing
                and m.outcomes.issuperset(said[1:])
            )  # fmt: skip
            or _is_roster(said, names, stage, news, m)
            or not directive_runs.isdisjoint(word_runs(said, DIRECTIVE_RUN))
        )
    return text.strip() if not any(gone) else kept_sentences(text, spans, gone)


def copies_instructions(text: str, texts: Sequence[str], labels: Sequence[str]) -> bool:
    """Whether a reply's field holds a sheet label (or its first-person form) or
    `INSTRUCTION_RUN` words in a row of the prompt's fixed `texts`.

    >>> copies_instructions("do not state its outcome", ["Do not state its outcome."], [])
    True
    >>> copies_instructions("Personality: warm.", [], ["Personality:"])
    True
    """
    own = [label.replace("You ", "I ", 1) for label in labels if label.startswith("You ")]
    if any(label in text for label in (*labels, *own)):
        return True
    runs = {r for t in texts for r in word_runs(words(t), INSTRUCTION_RUN)}
    return not runs.isdisjoint(word_runs(words(text), INSTRUCTION_RUN))


def _repair(text: str, target: Target, ctx: FilterContext) -> str:
    if target == "narration":
        return _narration(text, ctx)
    kept = without_schema_words(text)
    if not kept or copies_instructions(kept, ctx.prompt_texts, ctx.sheet_labels):
        return ""
    return kept


RULE = TextRule("prompt_copy", EVERY, BOTH, _repair)
