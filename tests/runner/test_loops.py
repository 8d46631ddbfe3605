"""A field or an event that says one of its clauses again ends before the repetition (filter
rule `loop` for a reply, the clamp `duplicate_event` for a Director event), before retelling
is judged."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tavern.filters.loop import MIN_SENTENCE_WORDS, before_repeated_clause, without_stutter
from tavern.llm.provider import ProviderRequest
from tavern.physics import clamps
from tavern.records import ActionRecord, CommitLine, TurnInput
from tavern.runner.follow_up import AGENT as FOLLOW_UP
from tavern.runner.limits import KernelLimits
from tavern.store import journal_path, read_journal
from tavern.text import lexicon_for, sentence_key

from .kit import director_answer, recording_runner, run, without_filters

EN = lexicon_for("en")

WINDOW = "walk slowly to the nearest window and look outside"
LIVE_LOOP = ", ".join([WINDOW] + [f"{WINDOW} again"] * 3)
"""Toll-house soak #13 (seed 31), turn 4: Maren Holt's intent."""
HUMANS = "walks slowly to the nearest window and looks outside"
"""The human's attempt of turn 2 that it copies."""


WORD = st.sampled_from(["walk", "the", "door", "window", "slowly", "lamp", "open", "key", "to"])
CLAUSE = st.lists(WORD, min_size=MIN_SENTENCE_WORDS, max_size=8).map(" ".join)
UNSTUTTERED = CLAUSE.filter(lambda clause: without_stutter(clause) == clause)
"""Clauses without a run of words said twice in a row ("walk walk walk walk"), which
`without_stutter` says once before any clause is compared (tested apart)."""


# Distinct as clauses compare (articles and idle adverbs aside): a fresh clone's Hypothesis
# drew "walk walk walk the" and "walk walk the walk", one clause to `clause_key`.
@given(
    st.lists(UNSTUTTERED, min_size=1, max_size=5, unique_by=lambda c: sentence_key(c, EN)),
    st.data(),
)
def test_a_repeated_clause_is_cut_back_to_the_text_before_it(
    clauses: list[str], data: st.DataObject
) -> None:
    original = ", ".join(clauses)
    assert before_repeated_clause(original, EN) == original
    again = data.draw(st.sampled_from(clauses))
    tail = data.draw(st.sampled_from([f"{again}", f"and {again} again", f"then {again.upper()}"]))
    looped = f"{original}, {tail}, " + data.draw(CLAUSE)
    assert before_repeated_clause(looped, EN) == original
    assert before_repeated_clause(before_repeated_clause(looped, EN), EN) == original


def _answers(intent: str) -> Any:
    def answer(request: ProviderRequest) -> Any:
        if request.agent == "director":
            return director_answer(["C2"])
        if request.agent == FOLLOW_UP:
            return {"outcome": "Agnese Corvo looks out at the rain."}
        if request.agent == "prose":
            return {"narration": "Candles gutter."}
        return {"speech": None, "thought": None, "action_intent": intent}

    return answer


def _c2_attempts(tmp_path: Path) -> list[str]:
    runner, store, _ = recording_runner(tmp_path, _answers(LIVE_LOOP), KernelLimits())
    sid = run(runner.create_session("the-vintners-wake")).id
    run(
        runner.play_turn(
            sid, TurnInput(action="walks slowly to the nearest window and looks outside")
        )
    )
    return [r.text for r in store.history(sid) if isinstance(r, ActionRecord) and r.speaker == "C2"]


def test_a_looped_copy_of_the_humans_attempt_is_cut_then_dropped_as_an_echo(
    tmp_path: Path,
) -> None:
    assert _c2_attempts(tmp_path) == []


def test_negative_control_without_the_cut_the_loop_is_attempted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The looped copy opens with the human's attempt: the rule `retold` would drop it too.
    without_filters(monkeypatch, "loop", "retold")
    assert _c2_attempts(tmp_path) == [LIVE_LOOP]


LIVE_EVENT = (
    "The trapdoor to the cellar is sealed with a page. The trapdoor is sealed with a page, and"
    " the trapdoor is sealed with a page."
)
"""Vintners-wake soak #23 (seed 36), turn 7: a Director event saying its clause again."""
CUT_EVENT = "The trapdoor to the cellar is sealed with a page. The trapdoor is sealed with a page"


def _looping_director(request: ProviderRequest) -> Any:
    if request.agent == "director":
        event = {"kind": "world_event", "text": LIVE_EVENT, "actor_id": None,
                 "witness_ids": ["C1", "C2", "C4"], "utterance_ref": None}  # fmt: skip
        return director_answer([], events=[event])
    return {"narration": "Rain."}


def _events(tmp_path: Path) -> tuple[list[str], list[str]]:
    runner, store, _ = recording_runner(tmp_path, _looping_director, KernelLimits())
    sid = run(runner.create_session("the-vintners-wake", "C1")).id
    run(runner.play_turn(sid, TurnInput(speech="Good evening.")))
    events = [r.text for r in store.history(sid) if r.kind == "event"]
    lines = read_journal(journal_path(tmp_path, sid))
    rules = [c.rule for line in lines if isinstance(line, CommitLine) for c in line.clamp_changes]
    return events, rules


def test_a_directors_looping_event_is_cut(tmp_path: Path) -> None:
    events, rules = _events(tmp_path)
    assert events == [CUT_EVENT] and "duplicate_event" in rules


def test_negative_control_without_the_cut_the_event_loops(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept = [rule for rule in clamps.CLAMP_RULES if rule.name != "duplicate_event"]
    monkeypatch.setattr(clamps, "CLAMP_RULES", kept)
    assert _events(tmp_path)[0] == [LIVE_EVENT]


NOW_LOOP = (
    "The trapdoor to the cellar is shut and bolted from the hall side. The trapdoor is now"
    " unlocked, and the trapdoor is sealed. The trapdoor is now closed. The trapdoor is now"
    " sealed. The trapdoor is now,"
)
"""Vintners-wake soak #27 (seed 41), turn 2: an event looping with "now" between copies."""


def test_clauses_differing_in_a_filler_are_a_loop() -> None:
    assert (
        before_repeated_clause(NOW_LOOP, EN)
        == NOW_LOOP[: NOW_LOOP.index(" The trapdoor is now sealed")]
    )
    kept = "The trapdoor is sealed, the trapdoor is not sealed."
    assert before_repeated_clause(kept, EN) == kept


def test_negative_control_with_fillers_compared_the_loop_stays() -> None:
    from dataclasses import replace

    assert before_repeated_clause(NOW_LOOP, replace(EN, fillers=frozenset())) == NOW_LOOP
