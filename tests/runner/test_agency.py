"""No model acts for a character, the human's least of all: a turn commits no Director event
and no narration sentence in which a character does what it never attempted, and the rule is
blind (the committed beat is the same whichever character the human plays)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tavern.llm.provider import ProviderRequest
from tavern.records import EventRecord, NarrationRecord, TurnInput
from tavern.runner.limits import KernelLimits

from .kit import director_answer, recording_runner, run, without_filters

OPENS = "Agnese Corvo opens the notary's satchel and reads the will aloud."
"""An act for the character the human plays in the vintners' wake (C1)."""
BELL = "The chapel bell tolls midnight."
TAKES = "As Agnese Corvo speaks, she takes the will from the satchel."
"""Vintners-wake soak #12, turn 5, in kind: the renderer had her act."""


def _answers(request: ProviderRequest) -> Any:
    if request.agent == "director":
        events = [
            {"kind": "action_outcome", "text": f"{OPENS} {BELL}", "actor_id": "C1",
             "witness_ids": ["C1", "C2"], "utterance_ref": None},
        ]  # fmt: skip
        return director_answer(["Narrator"], events=events)
    if request.agent == "prose":
        return {"narration": f"{TAKES} {BELL}"}
    return {"speech": None, "thought": "Hm.", "action_intent": None}


def _beat(
    tmp_path: Path, controlled: str, fn: Callable[[ProviderRequest], Any] = _answers
) -> list[str]:
    runner, store, _ = recording_runner(tmp_path / controlled, fn, KernelLimits())
    sid = run(runner.create_session("the-vintners-wake", controlled)).id
    run(runner.play_turn(sid, TurnInput(skip=True)))
    return [r.text for r in store.history(sid) if isinstance(r, EventRecord | NarrationRecord)]


def test_a_skipped_beat_commits_no_act_of_anyone(tmp_path: Path) -> None:
    assert _beat(tmp_path, "C1") == [BELL, BELL]


def test_the_rule_is_blind_to_who_is_controlled(tmp_path: Path) -> None:
    assert _beat(tmp_path, "C1") == _beat(tmp_path, "C2") == _beat(tmp_path, "C3")


def test_an_attempt_backs_the_act_and_its_told_outcome(tmp_path: Path) -> None:
    runner, store, _ = recording_runner(tmp_path, _answers, KernelLimits())
    sid = run(runner.create_session("the-vintners-wake", "C1")).id
    run(runner.play_turn(sid, TurnInput(action="opens the satchel")))
    texts = [r.text for r in store.history(sid) if isinstance(r, EventRecord | NarrationRecord)]
    assert texts == [f"{OPENS} {BELL}", f"{TAKES} {BELL}"]


def test_negative_control_without_the_rules_the_acts_are_committed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tavern.physics.clamps as clamps_module

    without = [r for r in clamps_module.CLAMP_RULES if r.name != "agency"]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", without)
    without_filters(monkeypatch, "unconfirmed_act")
    assert _beat(tmp_path, "C1") == [f"{OPENS} {BELL}", f"{TAKES} {BELL}"]
