"""Words of a non-Latin script in the Director's answers are cut by the clamp
`foreign_script`, journaled with the commit (the narration and the replies get the filter
rule of the same name); the journal's call line keeps the raw answer. The helpers' answers,
never committed, are read without them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import tavern.physics.clamps as clamps_module
from tavern.agents import openings, suggest
from tavern.llm.provider import ProviderRequest
from tavern.records import CommitLine, TurnInput
from tavern.runner.limits import KernelLimits
from tavern.store import journal_path, read_journal

from .kit import director_answer, recording_runner, run

LIVE = "Agnese Corvo looks around; the coffin lies open in the中间"
"""Vintners-wake seed 40, rerun at stop 20: the Director's outcome of her look."""


def _director(request: ProviderRequest) -> Any:
    if request.agent == "director":
        event = {"kind": "action_outcome", "text": LIVE, "actor_id": "C1",
                 "witness_ids": ["C1", "C2", "C4"], "utterance_ref": None}  # fmt: skip
        return director_answer([], events=[event])
    return {"narration": "Rain on the shutters."}


def _played(tmp_path: Path) -> tuple[list[str], list[str], list[str]]:
    """The committed events, the Director's raw answers and the commit line's rules."""
    runner, store, lines = recording_runner(tmp_path, _director, KernelLimits())
    sid = run(runner.create_session("the-vintners-wake", "C1")).id
    run(runner.play_turn(sid, TurnInput(action="looks around the chapel")))
    events = [r.text for r in store.history(sid) if r.kind == "event"]
    raw = [line.response or "" for line in lines if line.agent == "director"]
    commits = [x for x in read_journal(journal_path(tmp_path, sid)) if isinstance(x, CommitLine)]
    return events, raw, [c.rule for c in commits[-1].clamp_changes]


def test_a_directors_foreign_word_never_reaches_the_history(tmp_path: Path) -> None:
    events, raw, rules = _played(tmp_path)
    # Its clause, left broken off by the cut ("... lies open in the"), goes too (clamp
    # `unfinished_sentence`).
    assert events == ["Agnese Corvo looks around"]
    assert "foreign_script" in rules
    assert any("中间" in r for r in raw)  # the journal keeps what the model wrote


def test_negative_control_without_the_clamp_the_word_is_committed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    without = [r for r in clamps_module.CLAMP_RULES if r.name != "foreign_script"]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", without)
    events, _, _ = _played(tmp_path)
    assert events == [LIVE]


def test_the_helpers_answers_lose_the_foreign_words() -> None:
    said = suggest.parse({"suggestions": [{"speech": "Wait中间.", "action": None}] * 3})
    assert [s.speech for s in said] == ["Wait."] * 3
    assert openings.parse({"openings": ["Rain。", "A bell.", "Дверь A knock."]}) == [
        "Rain.", "A bell.", "A knock.",
    ]  # fmt: skip
