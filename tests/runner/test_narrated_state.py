"""Narration turns no standing thing over that no event did (`physics.fact_state`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tavern.llm.provider import ProviderRequest
from tavern.records import NarrationRecord, TurnInput
from tavern.runner import turn
from tavern.runner.limits import KernelLimits

from .kit import director_answer, recording_runner, run

RAIN = "Rain drips from the shutters."
LIVE = "The toll box is now open, and the lamp is on a hook."
"""Toll-house #53 (seed 67), turn 3: the renderer's sentence; no event had opened the box."""


def _narrated(tmp_path: Path, narration: str) -> list[str]:
    def answer(request: ProviderRequest) -> Any:
        if request.agent == "director":
            return director_answer([])
        if request.agent == "prose":
            return {"narration": narration}
        if request.agent.startswith("character"):
            return {"speech": "Not tonight.", "thought": None, "action_intent": None}
        return {"outcome": "Nothing comes of it."}

    runner, store, _ = recording_runner(tmp_path, answer, KernelLimits())
    sid = run(runner.create_session("the-toll-house")).id
    run(runner.play_turn(sid, TurnInput(speech="Well?")))
    return [r.text for r in store.history(sid) if isinstance(r, NarrationRecord)]


def test_the_live_open_box_is_not_narrated(tmp_path: Path) -> None:
    assert _narrated(tmp_path, f"{RAIN} {LIVE}") == [RAIN]


def test_negative_control_without_the_rule_the_open_box_is_narrated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(turn, "without_state_flips", lambda text, *_: text)
    assert _narrated(tmp_path, f"{RAIN} {LIVE}") == [f"{RAIN} {LIVE}"]
