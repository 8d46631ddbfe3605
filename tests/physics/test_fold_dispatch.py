"""`SecretFold.feed` reads each record by a kind looked up from its class, not by isinstance
tests through the record models' metaclass. Folds fed generated histories (every record
class, words shared between secret and public records, in one feed or continued on a copy)
and the recorded play's windows equal folds fed by the isinstance form it replaced. The
negative control plants a whisper read as plain speech, and the same check catches it.

A filed walk's thought owners are its fold's own dict, no longer a copy: walks filed among
prefixes, extensions and branches of one history keep the answers they were filed with; the
negative control continues a fold without copying it, and is caught.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.physics import guards, secret_fold
from tavern.physics.redaction import salient_tokens, tokens_of
from tavern.physics.secret_fold import _NOBODY, SecretFold, _with_owner
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

from .played import played
from .worlds import World, worlds


def _reference_feed(fold: SecretFold, history: Iterable[HistoryRecord]) -> None:
    """`SecretFold.feed` before the kind lookup (isinstance tests)."""
    base, added, owners, whispers = fold._base, fold._added, fold.owners, fold.whispers
    for record in history:
        if isinstance(record, ThoughtRecord):
            speaker = record.speaker
            for token in salient_tokens(record.text) - base - added:
                owners[token] = _with_owner(owners.get(token, _NOBODY), speaker)
        elif isinstance(record, SpeechRecord) and record.audience.origin == "whisper":
            payload = salient_tokens(record.text) - base - added
            for token in payload:
                owners.pop(token, None)
            whispers.append((record.seq, frozenset(record.audience.perceivers), payload))
        elif isinstance(record, SpeechRecord | ActionRecord):
            said = salient_tokens(record.text)
            added |= said
            for token in said:
                owners.pop(token, None)
            for i, (seq, who, payload) in enumerate(whispers):
                if not payload.isdisjoint(said):
                    whispers[i] = (seq, who, payload - said)
        elif isinstance(record, EventRecord | SystemRecord):
            added.update(
                salient_tokens(record.text).difference(owners, *(p for _s, _w, p in whispers))
            )


def _state(fold: SecretFold) -> tuple[object, ...]:
    return dict(fold.owners), list(fold.whispers), fold.public


def _folds_agree(public: Iterable[str], history: Sequence[HistoryRecord], cut: int) -> bool:
    """Fed in one go and fed up to `cut` then continued on a copy (as a walk continues a
    remembered one), the fold equals the reference fed the same way."""
    words = tokens_of(list(public))
    got, want = SecretFold(words), SecretFold(words)
    got.feed(history[:cut])
    _reference_feed(want, history[:cut])
    if _state(got) != _state(want):
        return False
    got, want = got.copy(), want.copy()
    got.feed(history[cut:])
    _reference_feed(want, history[cut:])
    return _state(got) == _state(want)


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


@settings(max_examples=300, deadline=None)
@given(
    _HISTORIES,
    st.lists(st.sampled_from(_WORDS), max_size=2),
    st.integers(0, 16),
)
def test_fold_equals_its_reference_on_generated_records(
    history: list[HistoryRecord], public: list[str], cut: int
) -> None:
    assert _folds_agree(public, history, cut)


@settings(max_examples=80, deadline=None)
@given(worlds(), st.integers(0, 14))
def test_fold_equals_its_reference_on_generated_worlds(world: World, cut: int) -> None:
    assert _folds_agree([world.state.scene.location], world.history, cut)


def _recorded_disagreements() -> list[int]:
    """Indexes of the recorded clamp calls whose window the fold reads otherwise."""
    found = []
    for i, (_decision, ctx) in enumerate(played().clamps):
        history = list(ctx.history)
        if not _folds_agree(ctx.all_public_texts, history, len(history) // 2):
            found.append(i)
    return found


def test_fold_equals_its_reference_on_the_recorded_play() -> None:
    assert played().clamps
    assert _recorded_disagreements() == []
    history = played().history
    assert all(_folds_agree([], history, cut) for cut in range(0, len(history), 7))


def test_negative_control_a_whisper_read_as_speech_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Planted: speech records all read as said aloud, whispers too (their payloads then
    become public words). The recorded play has a whisper, and the check goes red."""
    monkeypatch.setattr(secret_fold, "_KINDS", {SpeechRecord: secret_fold._SAID})
    assert _recorded_disagreements() != []


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
