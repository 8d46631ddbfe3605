"""A filed secrets walk's thought owners are its fold's own dict, not a copy: walks filed
among prefixes, extensions and branches of one history keep the answers they were filed
with; the negative control continues a fold without copying it, and is caught.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.physics import guards
from tavern.physics.secret_fold import SecretFold
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

_WORDS = ["ledger", "mill", "dagger", "ring", "seal", "cellar"]


def _record(kind: str, seq: int, words: list[str], speaker: str) -> HistoryRecord:
    text = "the " + " ".join(words)
    base = {"seq": seq, "turn_number": 1, "speaker": speaker, "text": text}
    two = Audience(origin="public", perceivers=[speaker, "C2"])
    if kind == "thought":
        audience = Audience(origin="private", perceivers=[speaker])
        return ThoughtRecord(**base, author="character", audience=audience)
    if kind == "whisper":
        audience = Audience(origin="whisper", perceivers=[speaker, "C2"])
        return SpeechRecord(**base, author="character", audience=audience)
    if kind == "speech":
        return SpeechRecord(**base, author="character", audience=two)
    if kind == "action":
        return ActionRecord(**base, author="character", audience=two)
    if kind == "event":
        return EventRecord(**base, author="director", event_kind="world_event", audience=two)
    if kind == "system":
        return SystemRecord(**base, author="kernel", marker="dawn", audience=two)
    return NarrationRecord(**base, author="renderer", audience=two)


_KINDS = ["thought", "whisper", "speech", "action", "event", "system", "narration"]
_HISTORIES = st.lists(
    st.builds(
        lambda kind, words, speaker: (kind, words, speaker),
        st.sampled_from(_KINDS),
        st.lists(st.sampled_from(_WORDS), min_size=1, max_size=3),
        st.sampled_from(["C1", "C2", "C3"]),
    ),
    max_size=16,
).map(lambda spec: [_record(k, i, w, s) for i, (k, w, s) in enumerate(spec)])


def _changed_walks(histories: list[list[HistoryRecord]]) -> list[int]:
    """Walk each history in turn (prefixes, extensions and branches of one another), noting
    each filed walk's answers as it is filed; the indexes of the walks whose answers have
    changed by the end. A walk's thought owners are its fold's own dict, not a copy: only
    a fold that is never fed after filing keeps them right."""
    guards._WALKS.clear()
    guards._LATEST.clear()
    filed: list[tuple[guards._Secrets, dict[str, frozenset[str]], frozenset[str]]] = []
    for history in histories:
        walk = guards._walk(history, _SCENE, ())
        filed.append((walk, dict(walk.thought_owners), walk.thought_words))
    return [
        i
        for i, (walk, owners, words) in enumerate(filed)
        if walk.thought_owners != owners or set(walk.thought_owners) != words
    ]


_SCENE = Scene(location="the inn")


@settings(max_examples=200, deadline=None)
@given(_HISTORIES, st.lists(st.tuples(st.integers(0, 16), _HISTORIES), min_size=1, max_size=4))
def test_filed_walks_never_change(
    history: list[HistoryRecord], branches: list[tuple[int, list[HistoryRecord]]]
) -> None:
    histories = [history] + [history[:cut] + branch for cut, branch in branches]
    assert _changed_walks(histories) == []


def test_negative_control_a_filed_fold_fed_again_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Planted: a fold continued without a copy. The filed walk's owners then take the
    continuation's records (its "ledger" said aloud leaves the thought owners)."""
    monkeypatch.setattr(SecretFold, "copy", lambda self: self)
    thought = _record("thought", 0, ["ledger"], "C1")
    said = _record("speech", 1, ["ledger"], "C2")
    assert _changed_walks([[thought], [thought, said]]) == [0]
