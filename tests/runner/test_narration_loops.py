"""A looping narration stops at its first repeat and is committed cut (`agents.repetition`,
`llm.early_stop`); the journal keeps the answer so far."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tavern.agents import prose, told
from tavern.agents.repetition import cut_runaway, repeats_a_sentence
from tavern.llm.provider import ProviderRequest
from tavern.records import LlmCallLine, NarrationRecord, TurnInput
from tavern.runner import turn as turn_module
from tavern.runner.limits import KernelLimits

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


def _loop_turn(tmp_path: Path) -> tuple[list[str], list[LlmCallLine]]:
    runner, store, calls = recording_runner(tmp_path, _looping_prose, KernelLimits())
    sid = run(runner.create_session("the-vintners-wake")).id
    result = run(runner.play_turn(sid, TurnInput(speech="Good evening.")))
    narration = [r.text for r in store.history(sid) if isinstance(r, NarrationRecord)]
    assert all(text in [getattr(r, "text", None) for r in result.records] for text in narration)
    return narration, [c for c in calls if c.agent == "prose"]


@pytest.fixture(autouse=True)
def _facts_may_be_listed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The loops here are the scene's facts, one sentence each, which would also go as a list
    of facts (`agents.fact_recital`, tested on its own): that rule is set aside, so each
    test sees its own."""
    monkeypatch.setattr(turn_module, "drop_fact_recitals", lambda text, *_: text)


def test_the_narration_stops_at_its_first_repeat_and_is_committed_cut(tmp_path: Path) -> None:
    """The fake streams its answer word by word, as a server would (`llm.early_stop`)."""
    narration, calls = _loop_turn(tmp_path)
    assert narration == [cut_runaway(CYCLE)]
    assert [(c.stopped_early, c.response.count("The trapdoor")) for c in calls] == [(True, 2)]
    assert calls[0].response is not None
    said = json.loads(calls[0].response)["narration"]
    assert CYCLE.startswith(said) and repeats_a_sentence(said)
    assert not repeats_a_sentence(said[: said.rindex("The trapdoor")])  # stopped at once


def test_negative_control_without_the_stop_the_loop_runs_to_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(prose, "runaway", lambda answer_so_far: False)
    narration, calls = _loop_turn(tmp_path)
    assert narration == [cut_runaway(CYCLE)]  # cut all the same, after the whole answer
    assert [(c.stopped_early, c.response.count("The trapdoor")) for c in calls] == [(False, 8)]


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
    monkeypatch.setattr(turn_module, "told_sentences", lambda earlier, names=None: frozenset())
    assert all(text.startswith(FACTS.strip()) for text in _narrations(tmp_path, 3))


SOAKED = "C2 is soaked from the rain outside."
RETOLD = "Brother Caspar is soaked from the rain outside."


def _event_retelling_prose() -> Any:
    """Turn 1: an event, and a narration of something else; turn 2: the event told."""
    asked: dict[str, int] = {}

    def answer(request: ProviderRequest) -> Any:
        first = asked.setdefault(request.agent, 0) == 0
        asked[request.agent] += 1
        if request.agent == "director":
            event = {"kind": "world_event", "text": SOAKED, "actor_id": None,
                     "witness_ids": ["C1", "C2", "C4"], "utterance_ref": None}  # fmt: skip
            return director_answer([], events=[event] if first else [])
        return {"narration": NEWS[0] if first else f"{RETOLD} {NEWS[1]}"}

    return answer


def _event_narrations(tmp_path: Path) -> list[str]:
    runner, store, _ = recording_runner(tmp_path, _event_retelling_prose(), KernelLimits())
    sid = run(runner.create_session("the-vintners-wake")).id
    for turn in range(2):
        run(runner.play_turn(sid, TurnInput(speech=f"Turn {turn}, friends.")))
    return [r.text for r in store.history(sid) if isinstance(r, NarrationRecord)]


def test_a_narration_does_not_retell_an_event_of_an_earlier_beat(tmp_path: Path) -> None:
    """Live (toll-house #18, seed 35): the turn-1 event "Ilse Brandt is presented to Maren
    Holt and Teodor Vask in the toll house at the river crossing." was the whole narration of
    turn 5 (turn 1 had no narration). A later beat's narration does not tell it, the slot id
    read as the name the renderer knows."""
    assert _event_narrations(tmp_path) == [NEWS[0], NEWS[1]]


def test_negative_control_without_the_events_the_old_event_is_retold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(told, "EventRecord", type("NoEvent", (), {}))  # no event is read
    assert _event_narrations(tmp_path)[1] == f"{RETOLD} {NEWS[1]}"


def test_negative_control_ids_read_as_written_the_old_event_is_retold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    told_as_written = told.told_sentences
    monkeypatch.setattr(
        turn_module, "told_sentences", lambda earlier, names=None: told_as_written(earlier)
    )
    assert _event_narrations(tmp_path)[1] == f"{RETOLD} {NEWS[1]}"
