"""The labels of the Director's window (`physics.prompt_labels`) are the ones clamp
`prompt_label` knows, and schema words leave events and narration; the clamp's cases are rows
of its case table."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from tavern.agents import director
from tavern.llm.provider import ProviderRequest
from tavern.physics import prompt_labels
from tavern.physics.prompt_labels import copies_a_label
from tavern.records import (
    Audience,
    EventRecord,
    ThoughtRecord,
)
from tavern.runner.follow_up import AGENT as FOLLOW_UP

from .kit import KitFactory, director_answer

LIVE = "PRIVATE THOUGHT of Agnese Corvo (interiority, nobody else perceives it)"
"""The-vintners-wake soak #19 (seed 33), turn 4: an event of a thought-only beat."""


def test_the_rule_knows_the_labels_the_director_window_renders(make_kit: KitFactory) -> None:
    kit = make_kit("parrot")
    state = kit.state(kit.create())
    thought = ThoughtRecord(
        seq=7, turn_number=1, speaker="C1", author="human", text="the letter burns",
        audience=Audience(origin="private", perceivers=["C1"]), tick=2,
    )  # fmt: skip
    line = director.render_record(state, thought)
    head, rest = line.split("] ", 1)
    label, note = rest.split(" | ")[0].split(" (C1) ")
    assert copies_a_label(head + "]") and copies_a_label(label) and copies_a_label(note)


@pytest.mark.parametrize(
    "text",
    [
        "She keeps a private thought to herself.",
        "The hall's interior is dim.",
        "Candle 12 gutters at the third hour.",
    ],
)
def test_ordinary_events_stay(text: str) -> None:
    assert not copies_a_label(text)


def _answers(request: ProviderRequest) -> Any:
    if request.agent == "director":
        event = {
            "kind": "world_event",
            "text": LIVE,
            "actor_id": "C1",
            "witness_ids": ["C1", "C2", "C4", "C5"],
            "utterance_ref": None,
        }
        return director_answer([], events=[event])
    if request.agent == FOLLOW_UP:
        return {"outcome": "Nothing comes of it."}
    if request.agent.startswith("character"):  # a question of the human's gets a hearer
        return {"speech": "Not tonight.", "thought": None, "action_intent": None}
    return {"narration": "Candles gutter."}


def _events(
    make_kit: KitFactory, answers: Callable[[ProviderRequest], Any], **said: Any
) -> list[str]:
    kit = make_kit(fn=answers)
    sid = kit.create()
    kit.play(sid, **said)
    return [r.text for r in kit.history(sid) if isinstance(r, EventRecord)]


def _events_after_a_thought(make_kit: KitFactory) -> list[str]:
    return _events(make_kit, _answers, thought="Someone here is lying to me.")


LIVE_SCHEMA = "tries the toll box world_event."
"""Toll-house soak #22 (seed 39), turn 2: "Ilse Brandt tries the toll box world_event.", and
its narration told it so."""
EVENT_SCHEMA = "tries the toll box world_event, but it holds."
"""The event with an outcome told (a bare "tries the toll box" tells none, clamp
`retold_attempt`)."""


def _schema_answers(request: ProviderRequest) -> Any:
    if request.agent == "director":
        events = [
            {"kind": "action_outcome", "text": f"C1 {EVENT_SCHEMA}", "actor_id": "C1",
             "witness_ids": ["C1", "C2", "C4"], "utterance_ref": None},
            {"kind": "world_event", "text": "talk_event", "actor_id": None,
             "witness_ids": ["C1", "C2", "C4"], "utterance_ref": None},
        ]  # fmt: skip
        return director_answer([], events=events)
    if request.agent == FOLLOW_UP:
        return {"outcome": "Nothing comes of it."}
    return {"narration": f"Agnese Corvo {LIVE_SCHEMA} Candles gutter."}


def _schema_turn(make_kit: KitFactory) -> tuple[list[str], list[str]]:
    kit = make_kit(fn=_schema_answers)
    sid = kit.create()
    kit.play(sid, action="tries the toll box")
    history = kit.history(sid)
    events = [r.text for r in history if isinstance(r, EventRecord)]
    return events, [r.text for r in history if r.kind == "narration"]


def test_a_schema_word_is_taken_out_of_events_and_narration(make_kit: KitFactory) -> None:
    events, narration = _schema_turn(make_kit)
    assert events == ["C1 tries the toll box, but it holds."]
    assert narration == ["Agnese Corvo tries the toll box. Candles gutter."]


def test_negative_control_without_the_schema_word_it_is_committed(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(prompt_labels, "SCHEMA_WORD", re.compile(r"(?!)"))
    events, narration = _schema_turn(make_kit)
    assert events == [f"C1 {EVENT_SCHEMA}", "talk_event"]
    assert "world_event" in narration[0]


@pytest.mark.parametrize(
    ("text", "zones", "kept"),
    [
        ("Maren Holt climbs down to the river_bank.", {"river_bank"}, None),
        ("The well-kept ledger lies open.", set(), None),
        ("Maren_Holt stands.", set(), None),
        ("Maren Holt's action_intent, spoken aloud.", set(), "Maren Holt's, spoken aloud."),
    ],
)
def test_only_schema_words_go(text: str, zones: set[str], kept: str | None) -> None:
    assert prompt_labels.without_schema_words(text, zones) == (kept or text)


LIVE_WHISPER = "Ilse Brandt whispers by Ilse Brandt to Maren Holt (C2)"
"""Toll-house soak #30 (seed 44), turn 8: the Director's event two beats after her whisper."""


def test_the_speech_labels_the_director_window_renders_are_known(make_kit: KitFactory) -> None:
    kit = make_kit("parrot")
    sid = kit.create()
    kit.play(sid, speech="Keep your voice down.", whisper_to=["C2"])
    kit.play(sid, speech="Good evening.")
    state = kit.state(sid)
    lines = [director.render_record(state, r) for r in kit.history(sid) if r.kind == "speech"]
    labels = [line.split("] ", 1)[1].split(" | ")[0] for line in lines]
    assert any(label.startswith("whisper by") for label in labels)
    assert any(label.startswith("speech by") for label in labels)
    assert all(copies_a_label(label) for label in labels)


@pytest.mark.parametrize(
    "text",
    [
        LIVE_WHISPER,
        "whisper by C1 to C2",
        "Maren Holt makes a speech by Teodor Vask.",
        "The bell tolls (perceived by C1, C2).",
    ],
)
def test_a_copied_speech_or_event_label_goes(text: str) -> None:
    assert copies_a_label(text)


@pytest.mark.parametrize(
    "text",
    [
        "Ilse Brandt whispers by the door.",
        "Maren Holt whispers something to Teodor Vask.",
        "The speech by the river is long forgotten.",
        "The lamp is perceived by everyone as dim.",
    ],
)
def test_whispers_and_speech_in_ordinary_words_stay(text: str) -> None:
    assert not copies_a_label(text)


def _events_after_a_question(make_kit: KitFactory) -> list[str]:
    """Events committed when the Director answers a question with the live whisper label."""
    event = {"kind": "action_outcome", "text": LIVE_WHISPER, "actor_id": "C1",
             "witness_ids": ["C4"], "utterance_ref": None}  # fmt: skip

    def answers(request: ProviderRequest) -> Any:
        if request.agent == "director":
            return director_answer([], events=[event])
        return _answers(request)

    return _events(make_kit, answers, speech="Who are you, exactly?")


def _events_after_a_skip(make_kit: KitFactory) -> list[str]:
    """Events committed when, a beat after a time skip, the Director answers with the skip
    line's text as an event (toll-house #48, seed 62, turn 7)."""
    told = {"kind": "utterance", "text": "Time passes.", "actor_id": "C1",
            "witness_ids": ["C2", "C4", "C5"], "utterance_ref": None}  # fmt: skip
    beats = iter([([], [], 2), ([], [told], 0)])

    def answers(request: ProviderRequest) -> Any:
        if request.agent == "director":
            speakers, events, skip = next(beats)
            return director_answer(speakers, events=events, time_skip_ticks=skip)
        return _answers(request)

    kit = make_kit(fn=answers)
    sid = kit.create()
    kit.play(sid, skip=True)
    kit.play(sid, skip=True)
    lines = [director.render_record(kit.state(sid), r) for r in kit.history(sid)]
    assert any(line.endswith(f"time_skip | {prompt_labels.TIME_PASSES}") for line in lines)
    return [r.text for r in kit.history(sid) if isinstance(r, EventRecord)]
