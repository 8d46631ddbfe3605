"""The human's screen: what their character perceived this beat, labelled with display names.

The one place records are turned into the human's view; slot ids are internal and the
words of a whisper the character only noticed stay hidden.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tavern.physics import identity
from tavern.physics.identity import SLOT_ID
from tavern.physics.perception import perceives
from tavern.records import EventRecord, HistoryRecord, NarrationRecord, SessionState

WHISPER_MARKER = "(whispered)"
"""What the human reads of a whisper their character only noticed."""


def perceived_by(
    records: Sequence[HistoryRecord], viewer: str, names: Mapping[str, str] | None = None
) -> list[HistoryRecord]:
    """The human's view: what their character perceived, their own records, and narration.

    A whisper the character only noticed keeps its speaker and audience but not its words.
    With `names` (slot id -> display name, the names the human's screen labels speakers with),
    a slot id the Director wrote into an event's text reads as that name: ids are internal.
    """
    out: list[HistoryRecord] = []
    for r in records:
        if r.speaker == viewer or isinstance(r, NarrationRecord):
            seen = "content"
        else:
            seen = perceives(r, viewer)
        if seen == "aware":
            out.append(r.model_copy(update={"text": WHISPER_MARKER}))
        elif seen == "content":
            out.append(_named_ids(r, names) if names and isinstance(r, EventRecord) else r)
    return out


def display_names(state: SessionState) -> dict[str, str]:
    """Slot id -> display name for the session's cast (the human's labels)."""
    return identity.display_names(state.cast)


def _named_ids(record: EventRecord, names: Mapping[str, str]) -> EventRecord:
    text = SLOT_ID.sub(lambda m: names.get(m.group(), m.group()), record.text)
    return record if text == record.text else record.model_copy(update={"text": text})
