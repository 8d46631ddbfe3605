"""`observe` shows a line built with its parts again when a new hidden set masks nothing in
it. Its lines equal those of `observe` as first written (each line built anew from its parts
and redacted), for every viewer of generated worlds, over windows that grow and move and
stages that make hidden words public, with the memos warm. The negative control plants a
line that skips redaction whenever the parts were remembered, and is caught.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tavern.physics import observation
from tavern.physics.guards import cast_public_texts, hidden_tokens_for
from tavern.physics.identity import initial_identities, learn_all, renderer
from tavern.physics.observation import ObservedLine, observe
from tavern.records import HistoryRecord, PerspectiveLedger, SessionState

from .worlds import World, worlds


def _reference_lines(
    state: SessionState, history: list[HistoryRecord], viewer: str
) -> tuple[ObservedLine, ...]:
    """The lines of `observe` as first written, with nothing remembered."""
    cast = state.cast
    ledger = state.ledgers.get(viewer) or initial_identities(cast).get(
        viewer, PerspectiveLedger(owner=viewer)
    )
    ledger = learn_all(ledger, history, cast, viewer)
    hidden = hidden_tokens_for(history, state.scene, viewer, cast_public_texts(cast))
    render = renderer(viewer, ledger, cast)
    lines = []
    for record in history:
        found = observation._line_parts(record, viewer, ledger, cast, render)
        if found is not None:
            mode, text = observation._redacted(found, hidden)
            lines.append(ObservedLine(record.seq, record.turn_number, record.kind, mode, text))
    return tuple(lines)


def _staged(state: SessionState, location: str) -> SessionState:
    return state.model_copy(update={"scene": state.scene.model_copy(update={"location": location})})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(worlds(), st.lists(st.tuples(st.integers(0, 12), st.integers(1, 12)), max_size=3))
def test_observed_lines_equal_their_reference(world: World, windows: list[Any]) -> None:
    history = list(world.history)
    secrets = " ".join([*world.thought_words, *world.whisper_words]) or "nothing"
    stages = [world.state, _staged(world.state, secrets), world.state]
    for lo, n in [(0, len(history)), *windows]:
        window = history[lo : lo + n]
        for state in stages:  # the same lines under other hidden sets
            for viewer in state.cast:
                assert observe(state, window, viewer).lines == _reference_lines(
                    state, window, viewer
                )


def test_negative_control_lines_shown_unredacted_are_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Planted: a remembered line is shown as it was built, whatever the hidden set masks."""
    from datetime import UTC, datetime

    from tavern.records import Audience, Body, Character, EventRecord, Mind, Scene, ThoughtRecord

    cast = {
        s: Character(id=s.lower(), mind=Mind(), body=Body(display_name=n, description_ref="x"))
        for s, n in [("C1", "Ana"), ("C2", "Rui")]
    }
    state = SessionState(
        id="s-lines", scenario_id="t", title="t", world="w", cast=cast, controlled_id="C1",
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
        scene=Scene(location="the inn", present=["C1", "C2"]),
    )  # fmt: skip
    thought = ThoughtRecord(
        seq=1, turn_number=1, speaker="C1", author="character", text="the ledger is forged",
        audience=Audience(origin="private", perceivers=["C1"]),
    )  # fmt: skip
    event = EventRecord(
        seq=2, turn_number=1, speaker="World", author="director", event_kind="world_event",
        text="The ledger burns.", audience=Audience(origin="public", perceivers=["C1", "C2"]),
    )  # fmt: skip
    history: list[HistoryRecord] = [thought, event]
    observe(_staged(state, "the ledger room"), history, "C2")  # remembers the parts, unmasked
    expected = _reference_lines(state, history, "C2")
    assert [x.text for x in expected] == ["The [...] burns."]
    monkeypatch.setattr(observation, "redact", lambda text, _hidden, **_: text)  # planted
    assert observe(state, history, "C2").lines != expected
