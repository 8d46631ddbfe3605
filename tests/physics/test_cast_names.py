"""`identity._cast_names` builds the cast's (slot, display name) pairs in C-level passes,
once a call of `learn_names` / `learn_all` instead of once a record, and `learn_names`
answers a record other than speech without the memo. Both equal the code they replaced, on
generated casts in any slot order and generated histories of every record kind. The
negative controls plant pairs sorted by slot, and a shortcut that skips whispers too.
`guards.cast_public_texts` (also C-level passes now) equals its list comprehension; its
negative control plants the texts in another order.
"""

from __future__ import annotations

from collections.abc import Mapping
from operator import attrgetter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.physics import guards, identity
from tavern.physics.identity import initial_identities, learn_all, learn_names
from tavern.records import (
    Audience,
    Body,
    Character,
    HistoryRecord,
    Mind,
    PerspectiveLedger,
    SpeechRecord,
)

from .worlds import World, worlds


def _reference_cast_names(cast: Mapping[str, Character]) -> tuple[tuple[str, str], ...]:
    """The pairs as `_lessons_key` and `_lessons` built them before."""
    return tuple((s, c.body.display_name) for s, c in cast.items())


_NAMES = st.sampled_from(["Ana", "Rui", "Ana Sousa", "Vasco", "Lobo", "Ilse Brandt"])
_CASTS = st.dictionaries(st.sampled_from(["C3", "C1", "C2", "C4"]), _NAMES, max_size=4).map(
    lambda pairs: {
        slot: Character(
            id=slot.lower(), mind=Mind(), body=Body(display_name=name, description_ref="someone")
        )
        for slot, name in pairs.items()
    }
)


@settings(max_examples=200, deadline=None)
@given(_CASTS)
def test_cast_names_equal_their_reference(cast: dict[str, Character]) -> None:
    assert identity._cast_names(cast) == _reference_cast_names(cast)


@settings(max_examples=100, deadline=None)
@given(_CASTS, st.sampled_from(["Ana, wait.", "Call me Lobo.", "Rui and Ana Sousa, here!"]))
def test_lessons_through_cast_names_equal_a_cold_search(
    cast: dict[str, Character], text: str
) -> None:
    speaker = next(iter(cast), "C1")
    record = SpeechRecord(
        seq=1, turn_number=1, speaker=speaker, author="character", text=text,
        audience=Audience(origin="public", perceivers=[*cast]),
    )  # fmt: skip
    start = initial_identities(cast)
    for viewer in cast:
        warm = learn_names(start[viewer], record, cast, viewer)
        assert learn_all(start[viewer], [record], cast, viewer) == warm
        names = _reference_cast_names(cast)
        plain = identity._lessons(record, cast, viewer, names)
        ledger = start[viewer]
        for slot, name, seq in plain:
            ledger = identity._teach(ledger, slot, name, seq)
        assert warm == ledger


def test_negative_control_pairs_in_slot_order_are_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    cast = {
        s: Character(id=s.lower(), mind=Mind(), body=Body(display_name=n, description_ref="x"))
        for s, n in [("C2", "Rui"), ("C1", "Ana")]
    }
    real = identity._cast_names
    monkeypatch.setattr(identity, "_cast_names", lambda c: tuple(sorted(real(c))))
    assert identity._cast_names(cast) != _reference_cast_names(cast)


def _reference_learn_names(
    ledger: PerspectiveLedger, record: HistoryRecord, cast: Mapping[str, Character], viewer: str
) -> PerspectiveLedger:
    """`learn_names` before it answered a record other than speech without the memo."""
    names = _reference_cast_names(cast)
    lessons = identity._LESSONS.get(
        record,
        identity._LESSONS.number((viewer, names)),
        lambda r: identity._lessons(r, cast, viewer, names),
    )
    for slot, name, seq in lessons:
        ledger = identity._teach(ledger, slot, name, seq)
    return ledger


@settings(max_examples=100, deadline=None)
@given(worlds())
def test_learn_names_equals_its_reference_on_every_record_kind(world: World) -> None:
    cast = world.state.cast
    start = initial_identities(cast)
    for viewer in cast:
        ledger = reference = start[viewer]
        for record in world.history:
            ledger = learn_names(ledger, record, cast, viewer)
            reference = _reference_learn_names(reference, record, cast, viewer)
            assert ledger == reference


def test_negative_control_skipping_whispers_too_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted: a shortcut that also skips whispered speech, which does teach its hearers."""
    cast = {
        s: Character(id=s.lower(), mind=Mind(), body=Body(display_name=n, description_ref="x"))
        for s, n in [("C1", "Ana"), ("C2", "Rui")]
    }
    whisper = SpeechRecord(
        seq=1, turn_number=1, speaker="C1", author="character", text="Call me Lobo.",
        audience=Audience(origin="whisper", perceivers=["C1", "C2"]),
    )  # fmt: skip
    real = identity.learn_names

    def planted(ledger: Any, record: Any, cast: Any, viewer: str) -> Any:
        if record.audience.origin == "whisper":
            return ledger
        return real(ledger, record, cast, viewer)

    monkeypatch.setattr(identity, "learn_names", planted)
    start = initial_identities(cast)["C2"]
    reference = _reference_learn_names(start, whisper, cast, "C2")
    assert reference.identities["C1"].name == "Lobo"
    assert identity.learn_names(start, whisper, cast, "C2") != reference


def _reference_cast_public_texts(cast: Mapping[str, Character]) -> list[str]:
    """`guards.cast_public_texts` before its C-level passes."""
    return [
        t
        for c in cast.values()
        for t in (c.body.display_name, c.body.description_ref, c.body.appearance)
    ]


@settings(max_examples=100, deadline=None)
@given(worlds())
def test_cast_public_texts_equal_their_reference(world: World) -> None:
    cast = {
        slot: c.model_copy(
            update={"body": c.body.model_copy(update={"appearance": f"scarred {slot}"})}
        )
        if i % 2
        else c
        for i, (slot, c) in enumerate(world.state.cast.items())
    }
    assert guards.cast_public_texts(cast) == _reference_cast_public_texts(cast)
    assert guards.cast_public_texts({}) == _reference_cast_public_texts({}) == []


def test_negative_control_texts_in_another_order_are_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Planted: appearance before description (the texts' order reaches the walk contexts)."""
    monkeypatch.setattr(
        guards,
        "_PUBLIC_BODY_TEXTS",
        attrgetter("body.display_name", "body.appearance", "body.description_ref"),
    )
    cast = {
        "C1": Character(
            id="a", mind=Mind(), body=Body(display_name="Ana", description_ref="x", appearance="y")
        )
    }
    assert guards.cast_public_texts(cast) != _reference_cast_public_texts(cast)
