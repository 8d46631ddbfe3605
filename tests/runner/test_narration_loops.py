"""A looping narration is committed cut (`agents.repetition`); the journal keeps the answer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tavern.agents import prose
from tavern.agents.repetition import cut_runaway
from tavern.llm.provider import ProviderRequest
from tavern.records import NarrationRecord, TurnInput
from tavern.runner.turn import KernelLimits

from .kit import director_answer, recording_runner, run

FACTS = (
    "The trapdoor to the cellar is shut and bolted from the hall side. The will is in the "
    "notary's satchel. The coffin lies open in the middle of the hall. "
)
CYCLE = "In the long hall, the air is cold. " + FACTS * 8


def _looping_prose(request: ProviderRequest) -> Any:
    if request.agent == "director":
        return director_answer([])
    return {"narration": CYCLE[: prose.NARRATION_MAX_CHARS]}


def test_the_committed_narration_is_cut_and_the_journal_keeps_the_answer(
    tmp_path: Path,
) -> None:
    runner, store, calls = recording_runner(tmp_path, _looping_prose, KernelLimits())
    sid = run(runner.create_session("the-vintners-wake")).id
    result = run(runner.play_turn(sid, TurnInput(speech="Good evening.")))
    narration = [r for r in store.history(sid) if isinstance(r, NarrationRecord)]
    assert [r.text for r in narration] == [cut_runaway(CYCLE)]
    assert narration[0].text in [getattr(r, "text", None) for r in result.records]
    assert [c.response.count("The trapdoor") for c in calls if c.agent == "prose"] == [8]


NEWS = ["A door bangs upstairs.", "Rain begins on the roof.", "The candles gutter low."]


def _retelling_prose() -> Any:
    told = iter(NEWS * 2)

    def answer(request: ProviderRequest) -> Any:
        if request.agent == "director":
            return director_answer([])
        return {"narration": FACTS + next(told)}

    return answer


def _narrations(tmp_path: Path, turns: int) -> list[str]:
    runner, store, _ = recording_runner(tmp_path, _retelling_prose(), KernelLimits())
    sid = run(runner.create_session("the-vintners-wake")).id
    for turn in range(turns):
        run(runner.play_turn(sid, TurnInput(speech=f"Turn {turn}, friends.")))
    return [r.text for r in store.history(sid) if isinstance(r, NarrationRecord)]


def test_a_later_narration_does_not_retell_the_earlier_ones(tmp_path: Path) -> None:
    told = _narrations(tmp_path, 3)
    assert told == [FACTS + NEWS[0], NEWS[1], NEWS[2]]


def test_negative_control_without_the_told_sentences_the_facts_come_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(prose, "told_sentences", lambda earlier: frozenset())
    assert all(text.startswith(FACTS.strip()) for text in _narrations(tmp_path, 3))
