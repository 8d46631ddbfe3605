"""A hostile Director cannot crowd out the story (issue 41, hole 3).

The `adversary` fake adds as many stage facts as the schema allows on every beat. Under the
embedded model's context (`KernelLimits.for_context(4096)`), facts stay bounded per beat and
in total, and every Director prompt still holds every record of its turn's human input,
whispers and thoughts included, however little room the rest of the prompt leaves.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import tavern.physics.clamps as clamps_module
from tavern.agents import director
from tavern.llm.fake import generate_answer
from tavern.llm.provider import ProviderRequest
from tavern.physics.clamps import MAX_FACTS
from tavern.records import HistoryRecord, SessionState, TurnInput
from tavern.runner.limits import KernelLimits

from .kit import recording_runner, run
from .sweeps import leaks

TURNS = 20
PACES = (
    "paces the long hall with the open coffin under candles, past the narrow balcony above "
    "it and the vaulted cellar below reached by a trapdoor in the hall floor"
)
"""An attempt in the stage's own words: the adversary copies it whole into a fact."""


def _adversary(request: ProviderRequest) -> Any:
    assert request.schema is not None
    return generate_answer(request.schema, request, "adversary")


def _play(data_dir: Path) -> tuple[list[list[str]], list[int]]:
    """Per turn: the canaries of its human input missing from its first Director prompt;
    and the number of stage facts after each turn."""
    runner, store, calls = recording_runner(data_dir, _adversary, KernelLimits.for_context(4096))
    sid = run(runner.create_session("the-vintners-wake")).id
    missing, facts = [], []
    for turn in range(1, TURNS + 1):
        said, thought = f"Psst{turn}x7 tonight", f"Brood{turn}x7 again"
        turn_input = TurnInput(speech=said, whisper_to=["C2"], thought=thought, action=PACES)
        run(runner.play_turn(sid, turn_input))
        [prompt] = [
            "\n".join(m.content for m in c.request.messages)
            for c in calls
            if c.agent == "director" and c.turn_number == turn and c.attempt_number == 1
        ][:1]
        missing.append([c for c in (said, thought, PACES) if not leaks(c, [prompt])])
        facts.append(len(store.load(sid).scene.facts))
    return missing, facts


def test_a_hostile_director_never_crowds_out_its_turns_human_input(tmp_path: Path) -> None:
    missing, facts = _play(tmp_path)
    assert missing == [[]] * TURNS
    assert max(facts) <= MAX_FACTS


def _window_without_this_turn(
    state: SessionState, history: list[HistoryRecord], budget_tokens: int
) -> str:
    """Planted: the window as the budget alone cuts it (this turn's records not kept)."""
    past = state.model_copy(update={"turn_number": 1 << 30})
    return real_window(past, history, budget_tokens)


real_window = director.history_window


def test_negative_control_without_the_fact_bound_facts_pile_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    without = [r for r in clamps_module.CLAMP_RULES if r.name != "fact_bound"]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", without)
    missing, facts = _play(tmp_path)
    assert max(facts) > 2 * MAX_FACTS
    assert missing == [[]] * TURNS  # the window still keeps this turn's records


def test_negative_control_without_either_bound_the_input_is_crowded_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    without = [r for r in clamps_module.CLAMP_RULES if r.name != "fact_bound"]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", without)
    monkeypatch.setattr(director, "history_window", _window_without_this_turn)
    missing, _ = _play(tmp_path)
    assert sum(map(bool, missing)) >= 3
