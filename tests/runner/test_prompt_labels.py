"""An event copying the labels of the Director's history lines goes (`physics.prompt_labels`):
nothing in it happened, and the thought label tells who has a secret thought."""

from __future__ import annotations

from typing import Any

import pytest

from tavern.agents import director
from tavern.llm.provider import ProviderRequest
from tavern.physics import clamps as clamps_module
from tavern.physics.prompt_labels import copies_a_label
from tavern.records import Audience, EventRecord, ThoughtRecord
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
    return {"narration": "Candles gutter."}


def _events_after_a_thought(make_kit: KitFactory) -> list[str]:
    kit = make_kit(fn=_answers)
    sid = kit.create()
    kit.play(sid, thought="Someone here is lying to me.")
    return [r.text for r in kit.history(sid) if isinstance(r, EventRecord)]


def test_the_live_event_is_not_committed(make_kit: KitFactory) -> None:
    assert _events_after_a_thought(make_kit) == []


def test_negative_control_without_the_rule_the_label_is_witnessed(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    without = [(n, r) for n, r in clamps_module.CLAMP_RULES if n != "prompt_label"]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", without)
    assert _events_after_a_thought(make_kit) == [LIVE]
