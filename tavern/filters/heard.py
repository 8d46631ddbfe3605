"""What a Character heard and saw, said back: the reply side of the rule `retold`.

Nobody repeats a whole line back by accident; a small model does, and its listeners see a
broken echo. Lines are compared by the sentence key (`MIN_ECHO_WORDS` words or more), among
the records the speaker perceived (`physics.perception.perceives`); a line behind one of the
kernel's memory labels ("Ilse Brandt said", "You thought") is the line.

- speech: sentences that are a line heard, an attempt seen, a question of
  `BEAT_ECHO_WORDS`+ words asked this beat, a first-person recital of an appearance
  (`LOOK_RUN`) or `SECRET_RUN` words in a row of its own secrets, go;
- thought: a line perceived (its own thoughts included) and appearance recitals go;
- action_intent: event sentences perceived go; the intent goes when it is an attempt seen
  or opens with `HEAD_ECHO_WORDS`+ words of one.

Example (heard: "Good evening to you all. Let's get on with it."): speech "Good evening to
you all. Sit." -> "Sit."
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tavern.filters.context import FilterContext, Target
from tavern.physics.outcomes import act_stem
from tavern.physics.perception import perceives
from tavern.records import (
    ActionRecord,
    EventRecord,
    HistoryRecord,
    SpeechRecord,
    ThoughtRecord,
)
from tavern.text import Lexicon, kept_sentences, sentence_spans, word_runs, words, words_key

MIN_ECHO_WORDS = 5
BEAT_ECHO_WORDS = 3
"""A question said back whole in the beat it was asked counts from three words ("Who are
you, exactly?"); a statement said back ("I do not know.") may be said in earnest."""
LABEL_WORDS = 5
"""Most words before a copied line that read as its label whatever they are ("You thought",
"Ilse Brandt said"); up to `DESCRIBED_LABEL_WORDS` when they hold one of `LABEL_VERBS`
("The woman in the black veil said")."""
DESCRIBED_LABEL_WORDS = 12
LABEL_VERBS = frozenset(("said", "whispered", "attempted", "think", "thought"))
"""The verbs of the perceived and remembered lines' labels (`physics.observation`)."""
HEAD_ECHO_WORDS = 6
"""Words of a seen attempt that, opening an intent, make it an echo whatever follows."""
LOOK_RUN = 6
"""Words in a row of an appearance that make a first-person sentence a recital of it."""
SECRET_RUN = 8
"""Words in a row of a secret that make a copy, not a telling."""
FIRST_PERSON = {
    "en": re.compile(r"\s*[\"'‘“]?I(?:(?:\s+am|['’]m)\s+(?:[^,.!?]{1,40},\s*)?an?\s|\s+look\b)"),
    "pt-BR": re.compile(
        r"\s*[\"'‘“]?(?:eu\s+)?(?:sou\s+(?:[^,.!?]{1,40},\s*)?uma?\s|pare[cç]o\b)",
        re.IGNORECASE,
    ),
}
"""A sentence opening with the speaker saying what they are or look like."""
_LINES = (SpeechRecord, EventRecord, ActionRecord, ThoughtRecord)


def act_stem_for(word: str, language: str) -> str:
    """One form for a verb and its inflections, as attempts compare: English drops "-s"/"-es"
    (`physics.attempt_told.act_stem`), Portuguese keeps three letters ("abre", "abrir").

    >>> act_stem_for("reaches", "en"), act_stem_for("caminhar", "pt-BR")
    ('reach', 'cam')
    """
    return act_stem(word) if language == "en" else word[:3]


def _key(said: list[str], lex: Lexicon) -> str:
    return words_key(said, lex)


def _act_key(said: list[str], lex: Lexicon) -> str:
    return " ".join(act_stem_for(w, lex.language) for w in _key(said, lex).split())


def _label_ends(said: list[str], short_labels: bool) -> list[int]:
    """Where a line of `said` may begin after a label (see `LABEL_WORDS`), 0 first."""
    last = min(DESCRIBED_LABEL_WORDS, len(said) - 1)
    if last < 0:
        return []
    short_end = min(LABEL_WORDS, last) if short_labels else 0
    verb = next((i for i, w in enumerate(said[:last]) if w in LABEL_VERBS), last)
    return [*range(short_end + 1), *range(max(short_end, verb) + 1, last + 1)]


def _tails(text: str, lex: Lexicon, *, short_labels: bool, acts: bool = False) -> set[str]:
    """The keys of `text` after each label it may open with, of `MIN_ECHO_WORDS` or more."""
    said = words(text)
    key = _act_key if acts else _key
    return {
        key(said[i:], lex)
        for i in _label_ends(said, short_labels)
        if len(said) - i >= MIN_ECHO_WORDS
    }


def _line_keys(text: str, lex: Lexicon, least: int = MIN_ECHO_WORDS) -> set[str]:
    """The keys of `text` whole and of each of its sentences, of `least` words or more."""
    parts = [words(text), *(words(text[a:b]) for a, b in sentence_spans(text))]
    return {words_key(said, lex) for said in parts if len(said) >= least}


def _perceived(ctx: FilterContext, kinds: tuple[type, ...]) -> Iterator[HistoryRecord]:
    """The records of `kinds` the speaker perceived with their content, oldest first."""
    assert ctx.speaker is not None
    viewer = ctx.speaker.slot
    for record in ctx.history:
        if isinstance(record, kinds) and perceives(record, viewer) == "content":
            yield record


_NOT_A_QUESTION_MARK = ".,;:!…\"'“”‘’()[]—–-* "


def _is_question(text: str) -> bool:
    return text.rstrip().rstrip(_NOT_A_QUESTION_MARK).endswith("?")


def _asked_this_beat(speech: str, ctx: FilterContext) -> bool:
    """Whether `speech`, whole, is a question someone else asked in the last record's beat."""
    said = words(speech)
    if len(said) < BEAT_ECHO_WORDS or not ctx.history or not _is_question(speech):
        return False
    assert ctx.speaker is not None
    beat, key = ctx.history[-1].turn_number, _key(said, ctx.lexicon)
    for record in reversed(ctx.history):
        if record.turn_number != beat:
            return False
        if (
            isinstance(record, SpeechRecord)
            and record.speaker != ctx.speaker.slot
            and _is_question(record.text)
            and _key(words(record.text), ctx.lexicon) == key
            and perceives(record, ctx.speaker.slot) == "content"
        ):
            return True
    return False


def _recites_look(sentence: str, ctx: FilterContext) -> bool:
    if not FIRST_PERSON[ctx.language].match(sentence):
        return False
    looks = {r for c in ctx.cast.values() for r in word_runs(words(c.body.appearance), LOOK_RUN)}
    return not looks.isdisjoint(word_runs(words(sentence), LOOK_RUN))


def _copies_secret(sentence: str, ctx: FilterContext) -> bool:
    assert ctx.speaker is not None
    runs = {r for s in ctx.speaker.secrets for r in word_runs(words(s), SECRET_RUN)}
    return not runs.isdisjoint(word_runs(words(sentence), SECRET_RUN))


def _speech(text: str, ctx: FilterContext) -> str:
    lex = ctx.lexicon
    if _asked_this_beat(text, ctx):
        return ""
    heard: set[str] = set()
    seen: set[str] = set()
    for record in _perceived(ctx, (SpeechRecord, ActionRecord)):
        if isinstance(record, SpeechRecord):
            heard |= _line_keys(record.text, lex)
        elif len(words(record.text)) >= MIN_ECHO_WORDS:
            seen.add(_act_key(words(record.text), lex))
    if _tails(text, lex, short_labels=False) & heard:
        return ""
    spans = sentence_spans(text)
    gone = []
    for a, b in spans:
        sentence = text[a:b]
        gone.append(
            bool(_tails(sentence, lex, short_labels=False) & heard)
            or bool(_tails(sentence, lex, short_labels=True, acts=True) & seen)
            or _recites_look(sentence, ctx)
            or _copies_secret(sentence, ctx)
        )
    return text if not any(gone) else kept_sentences(text, spans, gone)


def _thought(text: str, ctx: FilterContext) -> str:
    lex = ctx.lexicon
    lines = {
        _key(words(r.text), lex)
        for r in _perceived(ctx, _LINES)
        if len(words(r.text)) >= MIN_ECHO_WORDS
    }
    if _tails(text, lex, short_labels=True) & lines:
        return ""
    spans = sentence_spans(text)
    gone = [_recites_look(text[a:b], ctx) for a, b in spans]
    return text if not any(gone) else kept_sentences(text, spans, gone)


def _intent(text: str, ctx: FilterContext) -> str:
    lex = ctx.lexicon
    events: set[str] = set()
    seen: set[str] = set()
    for record in _perceived(ctx, (EventRecord, ActionRecord)):
        if isinstance(record, EventRecord):
            events |= _line_keys(record.text, lex)
        elif len(words(record.text)) >= MIN_ECHO_WORDS:
            seen.add(_act_key(words(record.text), lex))
    spans = sentence_spans(text)
    gone = [
        len(words(text[a:b])) >= MIN_ECHO_WORDS and _key(words(text[a:b]), lex) in events
        for a, b in spans
    ]
    if any(gone):
        text = kept_sentences(text, spans, gone)
    mine = _act_key(words(text), lex) if len(words(text)) >= MIN_ECHO_WORDS else ""
    if mine and any(
        mine == k or (mine.startswith(f"{k} ") and k.count(" ") + 1 >= HEAD_ECHO_WORDS)
        for k in seen
        if k
    ):
        return ""
    return text


def said_back(text: str, target: Target, ctx: FilterContext) -> str:
    """`text` (a reply's `target` field) without what its speaker heard or saw said back
    (see the module); "" when nothing is left."""
    if ctx.speaker is None:
        return text
    if target == "speech":
        return _speech(text, ctx)
    if target == "thought":
        return _thought(text, ctx)
    return _intent(text, ctx)
