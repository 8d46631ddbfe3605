"""A Character field that says one of its clauses again ends before the repetition
(`runner.loops`), before the echo rule reads it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tavern.agents.stutter import without_stutter
from tavern.llm.provider import ProviderRequest
from tavern.records import ActionRecord, CharacterReply, TurnInput
from tavern.runner import echo, loops, replies
from tavern.runner.follow_up import AGENT as FOLLOW_UP
from tavern.runner.limits import KernelLimits
from tavern.runner.loops import (
    MIN_CLAUSE_WORDS,
    before_repeated_clause,
    clause_key,
    without_loops,
)

from .kit import director_answer, recording_runner, run

WINDOW = "walk slowly to the nearest window and look outside"
LIVE_LOOP = ", ".join([WINDOW] + [f"{WINDOW} again"] * 3)
"""Toll-house soak #13 (seed 31), turn 4: Maren Holt's intent."""
HUMANS = "walks slowly to the nearest window and looks outside"
"""The human's attempt of turn 2 that it copies."""


def test_the_live_loop_is_cut_to_its_first_saying() -> None:
    assert before_repeated_clause(LIVE_LOOP) == WINDOW


@pytest.mark.parametrize(
    "text",
    [
        "No, no, no!",
        "Open it, open it.",
        "He took the key. She took the key.",
        "I walk to the door, and then I walk back to the fire.",
        "Walk to the door and wait; the door opens.",
    ],
)
def test_short_repeats_and_different_clauses_stay(text: str) -> None:
    assert before_repeated_clause(text) == text


def test_every_field_is_cut() -> None:
    reply = CharacterReply(speech="I think we should go. I think we should go.", thought="Why?")
    assert without_loops(reply) == CharacterReply(speech="I think we should go.", thought="Why?")
    assert without_loops(CharacterReply(thought="Why?")) == CharacterReply(thought="Why?")


WORD = st.sampled_from(["walk", "the", "door", "window", "slowly", "lamp", "open", "key", "to"])
CLAUSE = st.lists(WORD, min_size=MIN_CLAUSE_WORDS, max_size=8).map(" ".join)
UNSTUTTERED = CLAUSE.filter(lambda clause: without_stutter(clause) == clause)
"""Clauses without a run of words said twice in a row ("walk walk walk walk"), which
`without_stutter` says once before any clause is compared (tested apart)."""


# Distinct as clauses compare (articles and idle adverbs aside): a fresh clone's Hypothesis
# drew "walk walk walk the" and "walk walk the walk", one clause to `clause_key`.
@given(st.lists(UNSTUTTERED, min_size=1, max_size=5, unique_by=clause_key), st.data())
def test_a_repeated_clause_is_cut_back_to_the_text_before_it(
    clauses: list[str], data: st.DataObject
) -> None:
    original = ", ".join(clauses)
    assert before_repeated_clause(original) == original
    again = data.draw(st.sampled_from(clauses))
    tail = data.draw(st.sampled_from([f"{again}", f"and {again} again", f"then {again.upper()}"]))
    looped = f"{original}, {tail}, " + data.draw(CLAUSE)
    assert before_repeated_clause(looped) == original
    assert before_repeated_clause(before_repeated_clause(looped)) == original


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
    monkeypatch.setattr(replies, "without_loops", lambda reply: reply)
    # The looped copy opens with the human's attempt: the echo's head rule would drop it too.
    monkeypatch.setattr(echo, "_repeats", lambda key, seen: key in seen)
    assert _c2_attempts(tmp_path) == [LIVE_LOOP]


NOW_LOOP = (
    "The trapdoor to the cellar is shut and bolted from the hall side. The trapdoor is now"
    " unlocked, and the trapdoor is sealed. The trapdoor is now closed. The trapdoor is now"
    " sealed. The trapdoor is now,"
)
"""Vintners-wake soak #27 (seed 41), turn 2: an event looping with "now" between copies."""


def test_clauses_differing_in_an_idle_word_are_a_loop() -> None:
    assert (
        before_repeated_clause(NOW_LOOP)
        == NOW_LOOP[: NOW_LOOP.index(" The trapdoor is now sealed")]
    )
    kept = "The trapdoor is sealed, the trapdoor is not sealed."
    assert before_repeated_clause(kept) == kept


def test_negative_control_with_idle_words_compared_the_loop_stays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(loops, "IDLE_WORDS", frozenset())
    assert before_repeated_clause(NOW_LOOP) == NOW_LOOP
