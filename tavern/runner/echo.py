"""A Character's speech that repeats, word for word, a line it heard is not said again; nor
is an attempt that repeats one it saw.

Live, the embedded 0.5B model answered for Characters with lines they had just heard: the
human's "I think we should open it now." came back from another character six turns later,
and "Who are you, exactly?" from the one it was asked of. Nobody repeats a whole sentence back
by accident, and a reader sees a broken echo. The echoed speech is dropped, sentence by
sentence ("Good evening to you all." came back from "Good evening to you all. What brings
everyone here tonight?"); the reply's thought and intent stay, and a reply left empty says
nothing this beat. The journal keeps the model's answer.

Short lines ("Yes.", "I don't know.") are said by many people in earnest: only lines and sentences
of `MIN_ECHO_WORDS` or more words count. A line behind a label saying who said it is an echo
too: replayed, the prompts of toll-house soak #10 drew "Ilese Brandt said: 'Good evening to
you all." as speech, a memory line copied with its label.

Speech may echo an attempt as well: live (vintners-wake soak #25, seed 38, turn 6), Brother
Caspar said "I'm trying to walk slowly to the nearest window and look outside.", the human's
attempt of turn 2 behind a few words. A sentence whose words, after up to `LABEL_WORDS` of
them, are an attempt the speaker saw (see `attempt_key`) is dropped like an echoed line.

Attempts echoed too: live, a Character stated as its own intent the human's action of an
earlier beat ("walk slowly to the nearest window and looks outside", the-vintners-wake soak
#10 turns 3-5 and toll-house #5 turns 2, 4, 6), then the same intent again beat after beat;
the human's screen showed it each time. An intent that repeats an attempt the character saw
(its own included), word for word but for a verb's "-s", is dropped, and so is one that opens
with such an attempt of `HEAD_ECHO_WORDS` words or more, whatever it adds; the reply's speech
and thought stay.

An intent may also tell an event: live (vintners-wake soak #29, seed 44, turn 7), Brother
Caspar's intent was "opens the trapdoor to the cellar and bolt it from the hall side. This does
not succeed because the trapdoor was already closed and bolted from the hall side", the second
sentence an event of two beats before; an attempt does not state its outcome, and the next
Director call copied it into an event again. An intent's sentence that is an event the
character perceived, or one of its sentences, is dropped; the rest of the intent stays.

Thoughts echoed too: live (toll-house soak #10, seed 31), seven of the eight thoughts the
Characters committed were copies: of an event they saw ("The toll box sits locked on the
counting table at 0:00 AM."), of a line of their own memory with its label ("Ilse Brandt said:
'Good evening to you all. What brings everyone here tonight?'", "You thought: The toll box sits
..."), or of their own earlier thought, the same 37 words in four beats. Each went into the
Director's window as interiority and into the thinker's memory as a new line ("You thought: You
thought: ..."). A thought whose words are those of a line the character perceived (its own
thoughts included), alone or after a label (see `LABEL_WORDS`), is dropped.

Asking a Character again when its speech and intent were all cut was tried on 2026-12-03 and
taken out: the prompt closed by "Those words were already said or done here. In your own
words: what do you say, think or try now?", under seeds of its own. On the embedded 0.5B model
the reruns of toll-house and vintners-wake soaks on seed 73 asked 5 replies again: 4 echoed
the same lines a second time, and the fifth answered the note itself ("I'm not sure what
you're thinking. You're just saying 'I'm not sure'."), which was committed as speech. More
calls, no better story.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from itertools import chain, compress, count, repeat
from operator import itemgetter
from typing import NamedTuple

from tavern.agents.repetition import PUNCTUATION, sentence_spans, sentence_texts
from tavern.physics.outcomes import act_stem
from tavern.physics.perception import perceives
from tavern.physics.record_memo import RecordMemo
from tavern.records import (
    ActionRecord,
    CharacterReply,
    EventRecord,
    HistoryRecord,
    SpeechRecord,
    ThoughtRecord,
)

MIN_ECHO_WORDS = 5
"""Everyday lines recur between people ("I don't know.", "What do you mean?"); the echoes seen
live were five words or more ("Good evening to you all.", "I think we should open it now.")."""
BEAT_ECHO_WORDS = 3
"""A question said back whole in the beat it was asked counts from three words: live
(vintners-wake #46, seed 62, turn 8), Dorotea Sand answered the human's "Who are you,
exactly?" with "Who are you, exactly?", and the soak report counted it as an answer. A
statement said back ("I do not know.") may be said in earnest, and stays."""
_PUNCTUATION = PUNCTUATION + "*"  # stage-direction asterisks too
LABEL_WORDS = 5
"""Most words before a copied line that read as its label whatever they are ("You thought",
"Ilse Brandt said"). Longer, up to `DESCRIBED_LABEL_WORDS`, when they hold a verb of the memory
lines' labels: "The woman in the black veil said" (a name the thinker has not learned is a
description)."""
DESCRIBED_LABEL_WORDS = 12
LABEL_VERBS = frozenset(("said", "whispered", "attempted", "think", "thought"))
"""The verbs of `physics.observation`'s and `runner.memory`'s line labels."""


def line_key(text: str, least: int = MIN_ECHO_WORDS) -> str:
    """The line's lower-case words without punctuation; "" below `least` words.

    >>> line_key('"Who are you, exactly, my friend?"')
    'who are you exactly my friend'
    >>> line_key("I don't know."), line_key("I don't know.", least=BEAT_ECHO_WORDS)
    ('', "i don't know")
    """
    words = list(filter(None, map(str.strip, text.lower().split(), repeat(_PUNCTUATION))))
    return " ".join(words) if len(words) >= least else ""


def echoes_the_beat(speech: str, records: Sequence[HistoryRecord], viewer: str) -> bool:
    """Whether `speech`, whole, is a question of `BEAT_ECHO_WORDS` words or more that someone
    else asked in the beat of the last of `records` and `viewer` heard."""
    key = line_key(speech, BEAT_ECHO_WORDS)
    if not key or not records or not _is_question(speech):
        return False
    beat = records[-1].turn_number
    for record in reversed(records):
        if record.turn_number != beat:
            return False
        if (
            record.__class__ is SpeechRecord
            and record.speaker != viewer
            and _is_question(record.text)
            and line_key(record.text, BEAT_ECHO_WORDS) == key
            and perceives(record, viewer) == "content"
        ):
            return True
    return False


def _is_question(text: str) -> bool:
    return text.rstrip().rstrip(_NOT_A_QUESTION_MARK).endswith("?")


_NOT_A_QUESTION_MARK = _PUNCTUATION.replace("?", "") + " "


def _speech_keys(record: HistoryRecord) -> frozenset[str]:
    """The keys of a speech's whole line and of each of its sentences."""
    if not isinstance(record, SpeechRecord):
        return frozenset()
    return _keys(record.text)


@lru_cache(maxsize=1024)  # a beat's records come back from the store as new objects
def _keys(text: str) -> frozenset[str]:
    return frozenset(key for key in map(line_key, [text, *sentence_texts(text)]) if key)


def echoed(speech: str, records: Sequence[HistoryRecord], viewer: str) -> frozenset[str]:
    """The keys of `speech` (whole, or a sentence of it) that repeat a line or a sentence
    among `records` that `viewer` heard (its own too), bare or behind a label that says who
    said it ("Ilse Brandt said: 'Good evening to you all.'"), or an attempt it saw behind a
    few words ("I'm trying to ...")."""
    mine = {key: _unlabelled(key, short_labels=False) for key in _keys(speech)}
    acted = {key: _attempt_tails(key) for key in mine}
    wanted = frozenset().union(*mine.values())
    wanted_acts = frozenset().union(*acted.values())
    found: set[str] = set()
    if not wanted:
        return frozenset(found)
    heard = _heard_of(records)
    # Most speech repeats no line: C-level passes over the window's remembered keys first.
    if _none_held(wanted, map(_SPEECH, heard)) and _none_held(wanted_acts, map(_ATTEMPT, heard)):
        return frozenset(found)
    for record, seen in zip(records, heard, strict=True):
        if record.__class__ is SpeechRecord:
            keys, tails_of = seen.speech, mine
            hit = not wanted.isdisjoint(keys)
        elif record.__class__ is ActionRecord:
            keys, tails_of = seen.attempt, acted
            hit = not wanted_acts.isdisjoint(keys)
        else:
            continue
        if hit and perceives(record, viewer) == "content":
            found |= {key for key, tails in tails_of.items() if not tails.isdisjoint(keys)}
    return frozenset(found)


def _none_held(wanted: frozenset[str], keys: Iterable[frozenset[str]]) -> bool:
    """Whether no key of `wanted` is among `keys` (the records' key sets)."""
    return wanted.isdisjoint(chain.from_iterable(keys))


def _attempt_tails(key: str) -> frozenset[str]:
    """The `attempt_key`s of what follows each of a line's first `LABEL_WORDS` words ("i'm
    trying to walk to the window" holds "walk to the window").

    `key` is a `line_key`, so the `line_key` of a tail is the tail itself, or "" below
    `MIN_ECHO_WORDS` words: each word is stemmed once, not once per tail.
    """
    words = key.split()
    stems = list(map(act_stem, words))
    return frozenset(
        " ".join(stems[i:])
        for i in _label_ends(words, short_labels=True)
        if len(words) - i >= MIN_ECHO_WORDS
    )


def _unlabelled(key: str, *, short_labels: bool) -> frozenset[str]:
    """`key`, and what follows each label it may open with (see `LABEL_WORDS`; with
    `short_labels` false, only labels holding one of `LABEL_VERBS`: a reply may well begin
    "Yes, ..." before a line it agrees with)."""
    words = key.split()
    return frozenset(" ".join(words[i:]) for i in _label_ends(words, short_labels=short_labels))


def _label_ends(words: list[str], *, short_labels: bool) -> list[int]:
    """Where a line of `words` may begin after a label (see `_unlabelled`), 0 first."""
    last = min(DESCRIBED_LABEL_WORDS, len(words) - 1)
    if last < 0:
        return []
    # Starts up to the short labels' end, then all after the first label verb (found in C).
    short_end = min(LABEL_WORDS, last) if short_labels else 0
    verb = next(compress(count(), map(LABEL_VERBS.__contains__, words[:last])), last)
    return [*range(short_end + 1), *range(max(short_end, verb) + 1, last + 1)]


@lru_cache(maxsize=4096)
def attempt_key(text: str) -> str:
    """`line_key` with each word in `act_stem` form: "walks" and "walk", "reaches" and
    "reach" are one attempt.

    >>> attempt_key("Walks slowly to the nearest window and reaches for the latch.")
    'walk slowly to the nearest window and reach for the latch'
    """
    return " ".join(map(act_stem, line_key(text).split()))


def _attempt_keys(record: HistoryRecord) -> frozenset[str]:
    return frozenset((attempt_key(record.text),)) if isinstance(record, ActionRecord) else _NONE


_NONE: frozenset[str] = frozenset()


HEAD_ECHO_WORDS = 6
"""Words of a seen attempt that, opening an intent, make it an echo whatever follows: live
(toll-house #54, seed 68, turn 3), Maren Holt's intent was "walk slowly to the nearest window
and look outside, which shows her curiosity and determination.", the human's attempt of
turn 2 with a comment on it, and was shown to the human as her attempt."""


def _repeats(key: str, seen: frozenset[str]) -> bool:
    """Whether the attempt `key` is one of `seen` or opens with one of `HEAD_ECHO_WORDS`."""
    return key in seen or any(
        key.startswith(f"{k} ") and k.count(" ") + 1 >= HEAD_ECHO_WORDS for k in seen
    )


def echoed_attempt(intent: str, records: Sequence[HistoryRecord], viewer: str) -> bool:
    """Whether `intent` repeats an attempt among `records` that `viewer` saw (its own too),
    alone or opening the intent (`HEAD_ECHO_WORDS`)."""
    key = attempt_key(intent)
    return bool(key) and any(
        record.__class__ is ActionRecord
        and _repeats(key, seen.attempt)
        and perceives(record, viewer) == "content"
        for record, seen in zip(records, _heard_of(records), strict=True)
    )


def _event_keys(record: HistoryRecord) -> frozenset[str]:
    return _keys(record.text) if isinstance(record, EventRecord) else _NONE


def without_told_events(intent: str, records: Sequence[HistoryRecord], viewer: str) -> str:
    """`intent` without its sentences that are an event among `records` that `viewer`
    perceived, or a sentence of one ("" when none is left)."""
    spans = sentence_spans(intent)
    keys = [line_key(intent[start:end]) for start, end in spans]
    if not any(keys):
        return intent
    mine = frozenset(keys)
    heard = _heard_of(records)
    if _none_held(mine, map(_EVENT, heard)):
        return intent  # most intents tell no event
    told: set[str] = set()
    for record, seen in zip(records, heard, strict=True):
        if record.__class__ is EventRecord:
            copied = mine.intersection(seen.event)
            if copied and perceives(record, viewer) == "content":
                told |= copied
    kept = [intent[a:b] for (a, b), key in zip(spans, keys, strict=True) if key not in told]
    return intent if len(kept) == len(spans) else "".join(kept).strip()


_PERCEIVED_LINE = (SpeechRecord, EventRecord, ActionRecord, ThoughtRecord)


def _line_key_of(record: HistoryRecord) -> str:
    return _record_line_key(record.text) if isinstance(record, _PERCEIVED_LINE) else ""


_record_line_key = lru_cache(maxsize=1024)(line_key)
"""`line_key` of a record's text: a beat's records come back from the store as new objects,
with the same texts (a cache of its own, which other texts do not churn)."""


class _Heard(NamedTuple):
    """What the echo rules compare of a record: the key of its line (a perceived line's),
    and the keys of its speech (`_speech_keys`), its attempt and its event."""

    line: str
    speech: frozenset[str]
    attempt: frozenset[str]
    event: frozenset[str]


_LINE, _SPEECH, _ATTEMPT, _EVENT = map(itemgetter, range(4))  # the fields, read in C
_HEARD: RecordMemo[_Heard] = RecordMemo()


def _heard(record: HistoryRecord) -> _Heard:
    return _Heard(
        _line_key_of(record), _speech_keys(record), _attempt_keys(record), _event_keys(record)
    )


def _heard_of(records: Sequence[HistoryRecord]) -> list[_Heard]:
    """Each record's `_Heard`, remembered per record: each rule asks it of the same window,
    and a window repeats the last one's records but for a beat's."""
    return _HEARD.all(records, 0, _heard)


def echoed_thought(thought: str, records: Sequence[HistoryRecord], viewer: str) -> bool:
    """Whether `thought` is the words of a line among `records` that `viewer` perceived (its
    own thoughts too), alone or after a label (see `LABEL_WORDS`).

    >>> from tavern.records import Audience
    >>> heard = SpeechRecord(seq=1, turn_number=1, speaker="C1", author="human",
    ...                      audience=Audience(origin="public", perceivers=["C1", "C2"]),
    ...                      text="Good evening to you all.")
    >>> echoed_thought("Ilse Brandt said: 'Good evening to you all.'", [heard], "C2")
    True
    >>> echoed_thought("Good evening to you all, she says, and smiles.", [heard], "C2")
    False
    """
    mine = line_key(thought)
    if not mine:
        return False
    tails = _unlabelled(mine, short_labels=True)
    heard = _heard_of(records)
    # Most thoughts copy no line: one C-level pass over the window's remembered keys.
    if tails.isdisjoint(map(_LINE, heard)):
        return False
    return any(
        record.__class__ in _PERCEIVED_LINE
        and seen.line in tails
        and perceives(record, viewer) == "content"
        for record, seen in zip(records, heard, strict=True)
    )


def without_echo(
    reply: CharacterReply, records: Sequence[HistoryRecord], viewer: str
) -> CharacterReply | None:
    """`reply` without the echoed sentences of its speech and without an echoed intent (see
    the module); None when nothing is left.

    >>> from tavern.records import Audience
    >>> heard = SpeechRecord(seq=1, turn_number=1, speaker="C1", author="human",
    ...                      audience=Audience(origin="public", perceivers=["C1", "C2"]),
    ...                      text="Good evening to you all. Let's get on with it.")
    >>> without_echo(CharacterReply(speech="let's get on with it", thought="Fine."), [heard], "C2")
    CharacterReply(speech=None, thought='Fine.', action_intent=None)
    >>> without_echo(CharacterReply(speech="Good evening to you all. Sit."), [heard], "C2")
    CharacterReply(speech='Sit.', thought=None, action_intent=None)
    """
    if reply.thought and echoed_thought(reply.thought, records, viewer):
        reply = reply.model_copy(update={"thought": None})
        if not (reply.speech or reply.action_intent):
            return None
    if reply.action_intent:
        intent = without_told_events(reply.action_intent, records, viewer)
        if not intent or echoed_attempt(intent, records, viewer):
            intent = ""
        if intent != reply.action_intent:
            reply = reply.model_copy(update={"action_intent": intent or None})
            if not (reply.speech or reply.thought or intent):
                return None
    if not reply.speech:
        return reply
    if echoes_the_beat(reply.speech, records, viewer):
        if not (reply.thought or reply.action_intent):
            return None
        return reply.model_copy(update={"speech": None})
    echoes = echoed(reply.speech, records, viewer)
    if not echoes:
        return reply
    speech = None
    if line_key(reply.speech) not in echoes:
        kept = [
            reply.speech[start:end]
            for start, end in sentence_spans(reply.speech)
            if line_key(reply.speech[start:end]) not in echoes
        ]
        speech = "".join(kept).strip() or None
    if not (speech or reply.thought or reply.action_intent):
        return None
    return reply.model_copy(update={"speech": speech})
