"""Words of a non-Latin script are cut from the Director's answers before any parser reads
them (`filters.foreign_script`, applied by `AgentCaller`; the narration and the replies get
the filter rule of the same name); the journal keeps the raw answer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tavern.filters.foreign_script import answer_without_foreign_script
from tavern.llm.provider import ProviderRequest
from tavern.records import TurnInput
from tavern.runner import calls
from tavern.runner.limits import KernelLimits

from .kit import director_answer, recording_runner, run

LIVE = "Agnese Corvo looks around; the coffin lies open in the中间"
"""Vintners-wake seed 40, rerun at stop 20: the Director's outcome of her look."""


def test_every_string_of_an_answer_is_cleaned_and_its_keys_kept() -> None:
    answer = {"speech": "Wait中间.", "events": [{"text": "Rain。", "witness_ids": ["C1"]}], "n": 2}
    assert answer_without_foreign_script(answer) == {
        "speech": "Wait.", "events": [{"text": "Rain.", "witness_ids": ["C1"]}], "n": 2,
    }  # fmt: skip


def _director(request: ProviderRequest) -> Any:
    if request.agent == "director":
        event = {"kind": "action_outcome", "text": LIVE, "actor_id": "C1",
                 "witness_ids": ["C1", "C2", "C4"], "utterance_ref": None}  # fmt: skip
        return director_answer([], events=[event])
    return {"narration": "Rain on the shutters."}


def _committed_events(tmp_path: Path) -> tuple[list[str], list[str]]:
    runner, store, lines = recording_runner(tmp_path, _director, KernelLimits())
    sid = run(runner.create_session("the-vintners-wake", "C1")).id
    run(runner.play_turn(sid, TurnInput(action="looks around the chapel")))
    events = [r.text for r in store.history(sid) if r.kind == "event"]
    raw = [line.response or "" for line in lines if line.agent == "director"]
    return events, raw


def test_a_directors_foreign_word_never_reaches_the_history(tmp_path: Path) -> None:
    events, raw = _committed_events(tmp_path)
    # Its clause, left broken off by the cut ("... lies open in the"), goes too (clamp
    # `unfinished_sentence`).
    assert events == ["Agnese Corvo looks around"]
    assert any("中间" in r for r in raw)  # the journal keeps what the model wrote


def test_negative_control_without_the_cut_the_word_is_committed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(calls, "answer_without_foreign_script", lambda answer: answer)
    events, _ = _committed_events(tmp_path)
    assert events == [LIVE]
