"""The narration is judged against this beat's events as the renderer read them: with slot
ids shown as names (`TurnTransaction._narrate`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import tavern.filters.context as filter_context
from tavern.llm.provider import ProviderRequest
from tavern.records import NarrationRecord, TurnInput
from tavern.runner.follow_up import AGENT as FOLLOW_UP
from tavern.runner.limits import KernelLimits

from .kit import director_answer, recording_runner, run

WALK = "walks slowly to the nearest window and looks outside"


def _narrations_of_a_repeated_walk(tmp_path: Path) -> list[str]:
    """Beat 1 narrates her walk (with no event; "She" after a sentence, since a narration
    opening on a pronoun with no actor loses it); beat 2's event tells it again with her slot
    id (as the Director may write it), and the narration tells that event under her name."""
    narrations = iter([f"Rain falls. She {WALK}.", f"Agnese Corvo {WALK}."])
    outcomes = iter([[], [f"C1 {WALK}."]])

    def answer(request: ProviderRequest) -> Any:
        if request.agent == "director":
            events = [{"kind": "action_outcome", "text": text, "actor_id": "C1",
                       "witness_ids": ["C1", "C2"], "utterance_ref": None}
                      for text in next(outcomes)]  # fmt: skip
            return director_answer([], events=events)
        if request.agent == "prose":
            return {"narration": next(narrations)}
        if request.agent == FOLLOW_UP:
            # No outcome of the first walk, so no actor of that beat for "She" to name.
            return {"outcome": "   "}
        return {"speech": None, "thought": "Hm.", "action_intent": None}

    runner, store, _ = recording_runner(tmp_path, answer, KernelLimits())
    sid = run(runner.create_session("the-vintners-wake")).id
    run(runner.play_turn(sid, TurnInput(action=WALK)))
    run(runner.play_turn(sid, TurnInput(action=WALK)))
    return [r.text for r in store.history(sid) if isinstance(r, NarrationRecord)]


def test_this_beats_event_written_with_a_slot_id_may_be_told(tmp_path: Path) -> None:
    assert _narrations_of_a_repeated_walk(tmp_path)[-1] == f"Agnese Corvo {WALK}."


def test_negative_control_events_read_with_their_ids_lose_the_telling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(filter_context, "with_names", lambda text, names: text)
    assert _narrations_of_a_repeated_walk(tmp_path)[-1] != f"Agnese Corvo {WALK}."
