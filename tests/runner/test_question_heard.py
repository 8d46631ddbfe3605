"""A question the human asks aloud reaches a Character even when the Director queues no one
(clamp `unanswered_question`): live, 17 of 25 such beats of the soaks called no Character."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import tavern.physics.clamps as clamps_module
from tavern.llm.provider import ProviderRequest
from tavern.records import SpeechRecord, TurnInput
from tavern.runner.follow_up import AGENT as FOLLOW_UP
from tavern.runner.limits import KernelLimits

from .kit import director_answer, recording_runner, run

ANSWER = "A ferryman, waiting out the water like you."


def _answers(request: ProviderRequest) -> Any:
    if request.agent == "director":
        return director_answer([])  # the live Director's empty queue
    if request.agent == "prose":
        return {"narration": "The lamp gutters."}
    if request.agent == FOLLOW_UP:
        return {"outcome": "Nothing comes of it."}
    return {"speech": ANSWER, "thought": None, "action_intent": None}


def _replies(tmp_path: Path, speech: str) -> tuple[list[str], list[str]]:
    """(Character agents called, Character lines committed) on one turn of `speech`."""
    runner, store, calls = recording_runner(tmp_path, _answers, KernelLimits())
    sid = run(runner.create_session("the-toll-house")).id
    run(runner.play_turn(sid, TurnInput(speech=speech)))
    called = [c.agent for c in calls if c.agent.startswith("character:")]
    said = [
        r.text
        for r in store.history(sid)
        if isinstance(r, SpeechRecord) and r.author == "character"
    ]
    return called, said


def test_the_live_question_gets_an_answer(tmp_path: Path) -> None:
    called, said = _replies(tmp_path, "Who are you, exactly?")
    assert len(called) == 1 and said == [ANSWER]


def test_a_statement_calls_no_one(tmp_path: Path) -> None:
    assert _replies(tmp_path, "Keep your voice down.") == ([], [])


def test_negative_control_without_the_rule_no_character_is_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    without = [r for r in clamps_module.CLAMP_RULES if r.name != "unanswered_question"]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", without)
    assert _replies(tmp_path, "Who are you, exactly?") == ([], [])
