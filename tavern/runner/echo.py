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
of `MIN_ECHO_WORDS` or more words count.

Attempts echoed too: live, a Character stated as its own intent the human's action of an
earlier beat ("walk slowly to the nearest window and looks outside", the-vintners-wake soak
#10 turns 3-5 and toll-house #5 turns 2, 4, 6), then the same intent again beat after beat;
the human's screen showed it each time. An intent that repeats an attempt the character saw
(its own included), word for word but for a verb's "-s", is dropped; the reply's speech and
thought stay.
"""

from __future__ import annotations

from collections.abc import Sequence

from tavern.agents.repetition import PUNCTUATION, sentence_spans, sentence_texts
from tavern.physics.perception import perceives
from tavern.physics.record_memo import RecordMemo
from tavern.records import ActionRecord, CharacterReply, HistoryRecord, SpeechRecord

MIN_ECHO_WORDS = 5
"""Everyday lines recur between people ("I don't know.", "What do you mean?"); the echoes seen
live were five words or more ("Good evening to you all.", "I think we should open it now.")."""
_PUNCTUATION = PUNCTUATION + "*"  # stage-direction asterisks too


def line_key(text: str) -> str:
    """The line's lower-case words without punctuation; "" below `MIN_ECHO_WORDS` words.

    >>> line_key('"Who are you, exactly, my friend?"')
    'who are you exactly my friend'
    >>> line_key("I don't know.")
    ''
    """
    words = [w for w in (w.strip(_PUNCTUATION) for w in text.lower().split()) if w]
    return " ".join(words) if len(words) >= MIN_ECHO_WORDS else ""


_KEYS: RecordMemo[frozenset[str]] = RecordMemo()


def _speech_keys(record: HistoryRecord) -> frozenset[str]:
    """The keys of a speech's whole line and of each of its sentences."""
    if not isinstance(record, SpeechRecord):
        return frozenset()
    return _keys(record.text)


def _keys(text: str) -> frozenset[str]:
    return frozenset(key for key in map(line_key, [text, *sentence_texts(text)]) if key)


def echoed(speech: str, records: Sequence[HistoryRecord], viewer: str) -> frozenset[str]:
    """The keys of `speech` (whole, or a sentence of it) that repeat a line or a sentence
    among `records` that `viewer` heard (its own too)."""
    mine = _keys(speech)
    found: set[str] = set()
    if mine:
        for record in records:
            if record.__class__ is not SpeechRecord:
                continue
            keys = _KEYS.get(record, 0, _speech_keys)
            if not mine.isdisjoint(keys) and perceives(record, viewer) == "content":
                found |= mine & keys
    return frozenset(found)


def attempt_key(text: str) -> str:
    """`line_key` with each word's final "s" dropped: "walks" and "walk" are one attempt.

    >>> attempt_key("Walks slowly to the nearest window and looks outside.")
    'walk slowly to the nearest window and look outside'
    """
    return " ".join(w.removesuffix("s") for w in line_key(text).split())


def _attempt_keys(record: HistoryRecord) -> frozenset[str]:
    return frozenset((attempt_key(record.text),)) if isinstance(record, ActionRecord) else _NONE


_NONE: frozenset[str] = frozenset()
_ATTEMPTS: RecordMemo[frozenset[str]] = RecordMemo()


def echoed_attempt(intent: str, records: Sequence[HistoryRecord], viewer: str) -> bool:
    """Whether `intent` repeats an attempt among `records` that `viewer` saw (its own too)."""
    key = attempt_key(intent)
    return bool(key) and any(
        record.__class__ is ActionRecord
        and key in _ATTEMPTS.get(record, 0, _attempt_keys)
        and perceives(record, viewer) == "content"
        for record in records
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
    if reply.action_intent and echoed_attempt(reply.action_intent, records, viewer):
        reply = reply.model_copy(update={"action_intent": None})
        if not (reply.speech or reply.thought):
            return None
    if not reply.speech:
        return reply
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
