"""A Director that recites the human's character's secret: the turn commits the beat without
it, and no prompt after the Director's own holds it (clamp `mind_copy`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import tavern.physics.clamps as clamps_module
from tavern.llm.provider import ProviderRequest
from tavern.records import TurnInput
from tavern.runner.limits import KernelLimits

from .kit import director_answer, recording_runner, run

RECITAL = "brass seal ring in the bottom of her father's ferry"
"""Words of Ilse Brandt's secret (the-toll-house's C1, whom a session controls by default)."""


def _reciting(request: ProviderRequest) -> Any:
    if request.agent == "director":
        event = {
            "kind": "action_outcome",
            "text": f"Ilse looks outside. She finds a {RECITAL} an hour ago.",
            "actor_id": "C1",
            "witness_ids": ["C2", "C3"],
            "utterance_ref": None,
        }
        return director_answer(["C2"], events=[event])
    if request.agent == "prose":
        return {"narration": "Rain streaks the window."}
    return {"speech": None, "thought": "Hm.", "action_intent": None}


def _prompts_after_the_director(tmp_path: Path, fn: Callable[[ProviderRequest], Any]) -> str:
    runner, store, calls = recording_runner(tmp_path, fn, KernelLimits())
    sid = run(runner.create_session("the-toll-house")).id
    run(runner.play_turn(sid, TurnInput(action="looks out of the window")))
    assert {c.agent for c in calls} == {"director", "prose", "character:C2"}
    prompts = [m.content for c in calls if c.agent != "director" for m in c.request.messages]
    records = [r.model_dump_json() for r in store.history(sid)]
    ledgers = store.load(sid).ledgers["C2"].model_dump_json()
    return "\n".join([*prompts, *records, ledgers])


def test_the_secret_reaches_no_prompt_record_or_memory(tmp_path: Path) -> None:
    seen = _prompts_after_the_director(tmp_path, _reciting)
    assert RECITAL not in seen
    assert "Ilse looks outside." in seen  # the outcome itself stays


def test_negative_control_without_the_rule_the_secret_spreads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    without = [r for r in clamps_module.CLAMP_RULES if r.name != "mind_copy"]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", without)
    assert RECITAL in _prompts_after_the_director(tmp_path, _reciting)
