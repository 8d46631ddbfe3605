"""`perceives` reads each record by a kind looked up from its class, not by isinstance tests
through the record models' metaclass. It answers what the isinstance form answered for
generated records of every class (any origin, perceivers and aware lists, viewers inside
and outside them) and for every record of the recorded play and every viewer. The negative
control plants thoughts read as noticed records, and the same check catches it.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.physics import perception
from tavern.physics.perception import Perception, perceives
from tavern.records import (
    ActionRecord,
    Audience,
    EventRecord,
    HistoryRecord,
    NarrationRecord,
    SpeechRecord,
    SystemRecord,
    ThoughtRecord,
)

from .played import played

_SLOTS = ["C1", "C2", "C3", "C9"]


def _reference_perceives(record: HistoryRecord, viewer: str) -> Perception:
    """`perceives` as first written (isinstance tests)."""
    if isinstance(record, NarrationRecord | SystemRecord):
        return "none"
    if isinstance(record, ThoughtRecord):
        return "content" if viewer == record.speaker else "none"
    if viewer in record.audience.perceivers:
        return "content"
    if isinstance(record, SpeechRecord | ActionRecord | EventRecord) and (
        viewer in record.audience.aware
    ):
        return "aware"
    return "none"


def _record(kind: str, speaker: str, audience: Audience) -> HistoryRecord:
    base = {"seq": 1, "turn_number": 1, "speaker": speaker, "text": "the ledger"}
    if kind == "thought":
        return ThoughtRecord(**base, author="character", audience=audience)
    if kind == "speech":
        return SpeechRecord(**base, author="character", audience=audience)
    if kind == "action":
        return ActionRecord(**base, author="character", audience=audience)
    if kind == "event":
        return EventRecord(**base, author="director", event_kind="world_event", audience=audience)
    if kind == "system":
        return SystemRecord(**base, author="kernel", marker="dawn", audience=audience)
    return NarrationRecord(**base, author="renderer", audience=audience)


_AUDIENCES = st.builds(
    Audience,
    origin=st.sampled_from(["public", "zone", "whisper", "private"]),
    perceivers=st.lists(st.sampled_from(_SLOTS), max_size=3),
    aware=st.lists(st.sampled_from(_SLOTS), max_size=3),
)
_RECORDS = st.builds(
    _record,
    st.sampled_from(["thought", "speech", "action", "event", "system", "narration"]),
    st.sampled_from(_SLOTS),
    _AUDIENCES,
)


def _disagreements(records: Sequence[HistoryRecord], viewers: Sequence[str]) -> list[object]:
    return [
        (record.seq, viewer)
        for record in records
        for viewer in viewers
        if perceives(record, viewer) != _reference_perceives(record, viewer)
    ]


@settings(max_examples=400, deadline=None)
@given(st.lists(_RECORDS, min_size=1, max_size=4))
def test_perceives_equals_its_reference_on_generated_records(
    records: list[HistoryRecord],
) -> None:
    assert _disagreements(records, _SLOTS) == []


def test_perceives_equals_its_reference_on_the_recorded_play() -> None:
    history = played().history
    viewers = [*played().state.cast, "C9"]
    assert {type(r) for r in history} >= {SpeechRecord, ThoughtRecord, EventRecord}
    assert _disagreements(history, viewers) == []


def test_negative_control_thoughts_read_as_noticed_are_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Planted: a thought read as a noticed record, so whoever its stored audience names
    perceives it. The recorded play's thoughts list their owner only, so a generated
    thought with a wider stored audience shows it."""
    monkeypatch.setattr(perception, "_KINDS", {ThoughtRecord: perception._NOTICED})
    wide = Audience(origin="private", perceivers=["C1", "C2"])
    assert _disagreements([_record("thought", "C1", wide)], _SLOTS) != []
