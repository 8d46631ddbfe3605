"""Audiences: the one place that decides who perceives a record.

Public speech reaches everyone present who can hear the speaker's zone; a public action
reaches everyone who can see it. A whisper reaches exactly the speaker and the named targets
standing in the speaker's zone; others in that zone only notice that a whisper happened. A
reply inside a whispered exchange inherits that exchange's audience. A thought reaches its
owner only (the Director reads thoughts too, but it is not a character and never appears here).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from tavern.physics.zones import is_flat, perceivers_of_zone, zone_of
from tavern.records import (
    ActionRecord,
    Audience,
    EventRecord,
    HistoryRecord,
    NarrationRecord,
    Scene,
    SpeechRecord,
    SystemRecord,
    ThoughtRecord,
)

RecordKind = Literal["speech", "action", "thought"]
Perception = Literal["content", "aware", "none"]


def _ordered(scene: Scene, slots: set[str]) -> list[str]:
    """Slots in cast (presence) order, so audiences compare and serialize stably."""
    return [s for s in scene.present if s in slots]


def audience_for(
    scene: Scene,
    speaker: str,
    kind: RecordKind,
    whisper_to: Sequence[str] = (),
    reply_to: SpeechRecord | None = None,
) -> Audience:
    """The audience of a record of `kind` (`speech`, `action`, `thought`) `speaker` produces now.

    `whisper_to` targets a whispered speech; a speech answering a whisper (`reply_to`) its
    speaker was inside passes that whisper's audience on. An absent speaker perceives nothing
    and nobody perceives it, except its own thought.

    Example:
        >>> s = Scene(location="inn", present=["C1", "C2", "C3"])
        >>> a = audience_for(s, "C1", "speech", whisper_to=["C2"])
        >>> a.origin, a.perceivers, a.aware
        ('whisper', ['C1', 'C2'], ['C3'])
    """
    if kind == "thought":
        return Audience(origin="private", perceivers=[speaker])
    origin_zone = zone_of(scene, speaker)
    if kind == "speech" and reply_to is not None and reply_to.audience.origin == "whisper":
        inherited = reply_to.audience
        if speaker in inherited.perceivers and origin_zone is not None:
            return Audience(
                origin="whisper",
                perceivers=_ordered(scene, set(inherited.perceivers)),
                aware=_ordered(scene, set(inherited.aware) - set(inherited.perceivers)),
            )
    if origin_zone is None:
        return Audience(origin="zone", perceivers=[])
    if kind == "speech" and whisper_to:
        same_zone = {s for s in scene.present if zone_of(scene, s) == origin_zone}
        inner = ({speaker} | set(whisper_to)) & same_zone
        return Audience(
            origin="whisper",
            perceivers=_ordered(scene, inner),
            aware=_ordered(scene, same_zone - inner),
        )
    channel: Literal["sound", "sight"] = "sound" if kind == "speech" else "sight"
    return Audience(
        origin="public" if is_flat(scene) else "zone",
        perceivers=perceivers_of_zone(scene, origin_zone, [channel]),
    )


def event_audience(witness_ids: Sequence[str]) -> Audience:
    """The audience of a clamped Director event: exactly its (already clamped) witnesses.

    Example:
        >>> event_audience(["C2", "C1", "C2"]).perceivers
        ['C2', 'C1']
    """
    return Audience(origin="zone", perceivers=list(dict.fromkeys(witness_ids)))


def perceives(record: HistoryRecord, viewer: str) -> Perception:
    """How `viewer` perceives a persisted record: its content, only its occurrence, or not.

    Narration and kernel markers are reader-facing and never enter a character's perception.
    A thought is content to its owner only, whatever its stored audience claims.

    Example:
        >>> r = SpeechRecord(seq=0, turn_number=1, speaker="C1", author="character", text="hi",
        ...                  audience=Audience(origin="whisper", perceivers=["C1", "C2"],
        ...                                    aware=["C3"]))
        >>> perceives(r, "C2"), perceives(r, "C3"), perceives(r, "C4")
        ('content', 'aware', 'none')
    """
    if isinstance(record, NarrationRecord | SystemRecord):
        return "none"
    if isinstance(record, ThoughtRecord):
        return "content" if viewer == record.speaker else "none"
    if viewer in record.audience.perceivers:
        return "content"
    noticed = isinstance(record, SpeechRecord | ActionRecord | EventRecord)
    if noticed and viewer in record.audience.aware:
        return "aware"
    return "none"
