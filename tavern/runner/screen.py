"""The human's screen: what their character perceived this beat, labelled with display names.

The one place records are turned into the human's view; slot ids are internal and the
words of a whisper the character only noticed stay hidden.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tavern.physics import identity
from tavern.physics.identity import SLOT_ID
from tavern.physics.perception import audience_for, perceives
from tavern.records import (
    EventRecord,
    HistoryRecord,
    NarrationRecord,
    SessionState,
    SystemRecord,
)
from tavern.records.views import CastMember, TranscriptPage, TurnMark

WHISPER_MARKER = "(whispered)"
"""What the human reads of a whisper their character only noticed."""
QUIET_MARKER = "quiet"
"""The kernel marker of a legal silence (the Director admitted nothing material, no
narration was asked). The screen words it in the interface's language, never with its text."""
QUIET_TEXT = "Nothing material happens."
"""The marker's text: what later prompts read of the beat (the Director's window, the prose
renderer's transcript), in the words the prose prompt uses for an empty beat."""


def perceived_by(
    records: Sequence[HistoryRecord], viewer: str, names: Mapping[str, str] | None = None
) -> list[HistoryRecord]:
    """The human's view: what their character perceived, their own records, narration, and
    the marker of a quiet beat (`QUIET_MARKER`; other kernel markers stay internal).

    A whisper the character only noticed keeps its speaker and audience but not its words.
    With `names` (slot id -> display name, the names the human's screen labels speakers with),
    a slot id the Director wrote into an event's text reads as that name: ids are internal.
    """
    out: list[HistoryRecord] = []
    for r in records:
        if r.speaker == viewer or isinstance(r, NarrationRecord):
            seen = "content"
        elif isinstance(r, SystemRecord):
            seen = "content" if r.marker == QUIET_MARKER else "none"
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


def cast_members(state: SessionState) -> list[CastMember]:
    """The cast as the human's panel shows it: where each one stands, and who hears whom.

    Hearing is what `audience_for` gives speech said aloud now, from either side, so the panel
    says what the next line would reach, never what a model was told.
    """
    me = state.controlled_id
    scene = state.scene
    hears_me = set(audience_for(scene, me, "speech").perceivers)
    members = []
    for slot, character in state.cast.items():
        mine = slot == me
        members.append(
            CastMember(
                slot=slot,
                character_id=character.id,
                name=character.body.display_name,
                appearance=character.body.appearance,
                zone=scene.positions.get(slot),
                mood=state.moods.get(slot),
                controlled=mine,
                present=slot in scene.present,
                hears_you=None if mine else slot in hears_me,
                you_hear=None if mine else me in audience_for(scene, slot, "speech").perceivers,
            )
        )
    return members


def transcript_page(
    records: Sequence[HistoryRecord],
    ticks: Mapping[int, int],
    turns: range,
    viewer: str,
    names: Mapping[str, str],
) -> TranscriptPage:
    """The human's view of `turns` (every record of them given): what `viewer` perceived,
    and one mark per turn, so a turn that shows nothing still has its separator."""
    seen = perceived_by(records, viewer, names)
    counts: dict[int, int] = {}
    for record in seen:
        counts[record.turn_number] = counts.get(record.turn_number, 0) + 1
    marks = [TurnMark(turn_number=t, tick=ticks.get(t), visible=counts.get(t, 0)) for t in turns]
    first = turns.start
    return TranscriptPage(
        data=seen,
        turns=marks,
        first_turn=first,
        next_before=first if first > 0 else None,
    )
