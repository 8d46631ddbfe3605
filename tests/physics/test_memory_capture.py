"""`capture_memory` learns names through one `name_learner` per viewer (the cast's names and
their memo key read once, not per record) and lists the cast's public words once a call.
Its ledgers equal those of `capture_memory` as first written (`learn_names` per record, the
public words per viewer), beat by beat over generated worlds and on every capture of the
recorded play. The negative control plants a learner keyed without its viewer, and is caught.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import pytest
from hypothesis import HealthCheck, given, settings

from tavern.agents import character
from tavern.physics import identity
from tavern.physics.guards import cast_public_texts, hidden_tokens_for
from tavern.physics.identity import initial_identities, renderer
from tavern.physics.observation import digest_line
from tavern.physics.perception import perceives
from tavern.records import (
    Audience,
    Body,
    Character,
    HistoryRecord,
    Mind,
    PerspectiveLedger,
    Scene,
    SpeechRecord,
    ThoughtRecord,
)
from tavern.runner import memory
from tavern.runner.memory import capture_memory, evict

from .played import played
from .worlds import World, worlds


def learn_names_as_it_was(
    ledger: PerspectiveLedger, record: HistoryRecord, cast: Mapping[str, Character], viewer: str
) -> PerspectiveLedger:
    """`identity.learn_names` as first written (it now calls `name_learner`)."""
    if not isinstance(record, SpeechRecord):
        return ledger
    names = identity._cast_names(cast)
    lessons = identity._LESSONS.get(
        record,
        identity._LESSONS.number((viewer, names)),
        lambda r: identity._lessons(r, cast, viewer, names),
    )
    for slot, name, seq in lessons:
        ledger = identity._teach(ledger, slot, name, seq)
    return ledger


def _reference_capture(
    ledgers: Mapping[str, PerspectiveLedger],
    cast: Mapping[str, Character],
    beat: Sequence[HistoryRecord],
    context: Sequence[HistoryRecord],
    scene: Scene,
    budget_chars: int = character.MEMORY_BUDGET_TOKENS * 4,
) -> dict[str, PerspectiveLedger]:
    """`capture_memory` as first written."""
    out = dict(ledgers)
    for viewer in cast:
        perceived = [r for r in beat if perceives(r, viewer) != "none"]
        ledger = ledgers.get(viewer) or PerspectiveLedger(owner=viewer)
        if not perceived:
            continue
        hidden = hidden_tokens_for(context, scene, viewer, cast_public_texts(cast))
        lines = []
        render, rendering = renderer(viewer, ledger, cast), ledger
        for record in perceived:
            ledger = learn_names_as_it_was(ledger, record, cast, viewer)
            if rendering is not ledger:
                render, rendering = renderer(viewer, ledger, cast), ledger
            line = digest_line(record, viewer, ledger, cast, hidden, render)
            if isinstance(record, ThoughtRecord) and record.speaker == viewer:
                line = "You thought: " + render(record.text)
            if line:
                lines.append(line)
        kept = evict([*ledger.memory, *lines], budget_chars)
        out[viewer] = ledger.model_copy(update={"memory": kept})
    return out


def _differing_beats(
    cast: Mapping[str, Character], scene: Scene, history: list[HistoryRecord], budget: int
) -> list[int]:
    """Ends of the beats (three records each) whose captured ledgers differ from the
    reference's, each beat captured into the ledgers of the one before."""
    ledgers = initial_identities(cast)
    found = []
    for end in range(1, len(history) + 1, 3):
        beat, context = history[max(0, end - 3) : end], history[:end]
        got = capture_memory(ledgers, cast, beat, context, scene, budget)
        if got != _reference_capture(ledgers, cast, beat, context, scene, budget):
            found.append(end)
        ledgers = got
    return found


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(worlds())
def test_captures_equal_their_reference_on_generated_worlds(world: World) -> None:
    state = world.state
    assert _differing_beats(state.cast, state.scene, world.history, 600) == []


def test_captures_equal_their_reference_on_the_recorded_play() -> None:
    captures = played().captures
    assert captures
    assert [
        i for i, call in enumerate(captures) if capture_memory(**call) != _reference_capture(**call)
    ] == []


def test_negative_control_a_learner_keyed_without_its_viewer_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Planted: lessons filed per cast names alone. The speaker learns nothing from its own
    introduction, and that empty lesson is then served to its hearers."""
    cast = {
        s: Character(
            id=s.lower(), mind=Mind(), body=Body(display_name=n, description_ref="the stranger")
        )
        for s, n in [("C1", "Ana"), ("C2", "Rui")]
    }
    both = Audience(origin="public", perceivers=["C1", "C2"])
    history: list[HistoryRecord] = [
        SpeechRecord(seq=1, turn_number=1, speaker="C1", author="character",
                     text="Call me Lobo.", audience=both),
    ]  # fmt: skip
    scene = Scene(location="the inn", present=["C1", "C2"])
    assert _differing_beats(cast, scene, history, 600) == []

    def planted(
        cast: Mapping[str, Character], viewer: str
    ) -> Callable[[PerspectiveLedger, HistoryRecord], PerspectiveLedger]:
        names = identity._cast_names(cast)
        key = identity._LESSONS.number(("planted", names))  # no viewer

        def learn(ledger: PerspectiveLedger, record: HistoryRecord) -> PerspectiveLedger:
            lessons = identity._LESSONS.get(
                record, key, lambda r: identity._lessons(r, cast, viewer, names)
            )
            for slot, name, seq in lessons:
                ledger = identity._teach(ledger, slot, name, seq)
            return ledger

        return learn

    monkeypatch.setattr(memory, "name_learner", planted)
    assert _differing_beats(cast, scene, history, 600) != []
