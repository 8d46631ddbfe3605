"""A Character's speech that repeats, word for word, a line it heard is not said again.

Live, the embedded 0.5B model answered for Characters with lines they had just heard: the
human's "I think we should open it now." came back from another character six turns later,
and "Who are you, exactly?" from the one it was asked of. Nobody repeats a whole sentence back
by accident, and a reader sees a broken echo. The echoed speech is dropped; the reply's
thought and intent stay, and a reply left empty says nothing this beat. The journal keeps the
model's answer.

Short lines ("Yes.", "Come in.") are said by many people in earnest: only lines of
`MIN_ECHO_WORDS` or more count.
"""

from __future__ import annotations

from collections.abc import Sequence

from tavern.physics.perception import perceives
from tavern.physics.record_memo import RecordMemo
from tavern.records import CharacterReply, HistoryRecord, SpeechRecord

MIN_ECHO_WORDS = 3
_PUNCTUATION = ".,;:!?…\"'“”‘’()[]—–-*"


def line_key(text: str) -> str:
    """The line's lower-case words without punctuation; "" below `MIN_ECHO_WORDS` words.

    >>> line_key('"Who are you, exactly?"') == line_key("who are you exactly")
    True
    """
    words = [w for w in (w.strip(_PUNCTUATION) for w in text.lower().split()) if w]
    return " ".join(words) if len(words) >= MIN_ECHO_WORDS else ""


_KEYS: RecordMemo[str] = RecordMemo()


def _speech_key(record: HistoryRecord) -> str:
    return line_key(record.text) if isinstance(record, SpeechRecord) else ""


def echoes(speech: str, records: Sequence[HistoryRecord], viewer: str) -> bool:
    """Whether `speech` repeats a line among `records` that `viewer` heard (its own too)."""
    key = line_key(speech)
    return bool(key) and any(
        _KEYS.get(r, 0, _speech_key) == key and perceives(r, viewer) == "content" for r in records
    )


def without_echo(
    reply: CharacterReply, records: Sequence[HistoryRecord], viewer: str
) -> CharacterReply | None:
    """`reply` without echoed speech (see the module); None when nothing else is left.

    >>> from tavern.records import Audience
    >>> heard = SpeechRecord(seq=1, turn_number=1, speaker="C1", author="human",
    ...                      audience=Audience(origin="public", perceivers=["C1", "C2"]),
    ...                      text="Let's get on with it.")
    >>> without_echo(CharacterReply(speech="let's get on with it", thought="Fine."), [heard], "C2")
    CharacterReply(speech=None, thought='Fine.', action_intent=None)
    """
    if not reply.speech or not echoes(reply.speech, records, viewer):
        return reply
    if not (reply.thought or reply.action_intent):
        return None
    return reply.model_copy(update={"speech": None})
