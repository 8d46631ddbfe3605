"""A Character whose words and attempt were all cut as echoes is asked again once, saying
so (`character.ECHO_AGAIN`): live (toll-house #59, seed 73), 6 of 7 replies committed
nothing. The second ask shares the first one's prompt as its prefix, and is bounded."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tavern.agents import character
from tavern.contract import check_prompt
from tavern.llm.client import LlmClient
from tavern.llm.fake import FakeProvider
from tavern.llm.provider import ProviderRequest
from tavern.llm.wrappers import RetryPolicy
from tavern.records import LlmCallLine, TurnInput
from tavern.runner import Runner, turn
from tavern.runner.follow_up import AGENT as FOLLOW_UP
from tavern.runner.limits import KernelLimits
from tavern.store import JournalWriter, Library, SessionStore

from .kit import director_answer, recording_runner, run

GREETING = "Good evening to you all. What brings everyone here tonight?"
"""The human's line of turn 1 that C3 said back, whole, on turn 9 of toll-house #59."""
OWN = "The river keeps us all here tonight."


def _asking(first: dict[str, Any], again: dict[str, Any]) -> Any:
    def answer(request: ProviderRequest) -> Any:
        if request.agent == "director":
            return director_answer(["C2"])
        if request.agent == "prose":
            return {"narration": "Rain."}
        if request.agent == FOLLOW_UP:
            return {"outcome": "Nothing comes of it."}
        asked_again = request.messages[-1].content.endswith(character.ECHO_AGAIN)
        return {"speech": None, "thought": None, "action_intent": None} | (
            again if asked_again else first
        )

    return answer


def _beat(
    tmp_path: Path, first: dict[str, Any], again: dict[str, Any]
) -> tuple[list[tuple[str, str]], list[LlmCallLine]]:
    """C2's records and its calls after one turn in which the human greets the room."""
    runner, store, calls = recording_runner(tmp_path, _asking(first, again), KernelLimits())
    sid = run(runner.create_session("the-toll-house")).id
    run(runner.play_turn(sid, TurnInput(speech=GREETING)))
    said = [(r.kind, r.text) for r in store.history(sid) if r.speaker == "C2"]
    return said, [c for c in calls if c.agent == "character:C2"]


def test_an_answer_of_echoes_alone_is_asked_again_and_the_new_one_said(tmp_path: Path) -> None:
    said, calls = _beat(tmp_path, {"speech": GREETING}, {"speech": OWN})
    assert said == [("speech", OWN)]
    first, again = (c.request.messages for c in calls)
    assert again[:-1] == first[:-1]
    assert again[-1].content == f"{first[-1].content}\n{character.ECHO_AGAIN}"
    assert check_prompt(again) == []  # the note tells no model who plays whom
    assert again[-1].content.startswith(first[-1].content)  # the cached prefix holds


def test_the_second_ask_draws_with_seeds_of_its_own(tmp_path: Path) -> None:
    """With the client's seed (as the local model runs), the ask again draws another sample
    than the first ask and its own retry (offsets 0 and 1) would."""
    store = SessionStore(tmp_path, synchronous="OFF")
    journal = JournalWriter(tmp_path, durable=False)
    calls: list[LlmCallLine] = []
    client = LlmClient(
        FakeProvider("function", fn=_asking({"speech": GREETING}, {"speech": OWN})),
        sink=calls.append,
        retry=RetryPolicy(max_attempts=1),
        seed=7,
    )
    runner = Runner(store, Library(tmp_path), journal, client)
    sid = run(runner.create_session("the-toll-house")).id
    run(runner.play_turn(sid, TurnInput(speech=GREETING)))
    seeds = [c.request.seed for c in calls if c.agent == "character:C2"]
    assert seeds == [7, 9]


def test_an_echo_asked_again_is_bounded_to_one_more_call(tmp_path: Path) -> None:
    said, calls = _beat(tmp_path, {"speech": GREETING}, {"speech": GREETING})
    assert said == []
    assert len(calls) == 2


def test_an_answer_with_words_of_its_own_is_asked_once(tmp_path: Path) -> None:
    said, calls = _beat(tmp_path, {"speech": f"Good evening to you all. {OWN}"}, {})
    assert said == [("speech", OWN)]
    assert len(calls) == 1


def test_a_thought_alone_was_no_echo_and_is_not_asked_again(tmp_path: Path) -> None:
    said, calls = _beat(tmp_path, {"thought": "She is early."}, {"speech": OWN})
    assert said == [("thought", "She is early.")]
    assert len(calls) == 1


def test_an_echo_beside_a_thought_is_asked_again(tmp_path: Path) -> None:
    """The thought stays private: the human sees nothing of a reply of one."""
    said, calls = _beat(tmp_path, {"speech": GREETING, "thought": "Again?"}, {"speech": OWN})
    assert said == [("speech", OWN)]
    assert len(calls) == 2


def test_the_note_is_a_prompt_line_a_reply_may_not_copy(tmp_path: Path) -> None:
    said, _ = _beat(tmp_path, {"speech": GREETING}, {"speech": character.ECHO_AGAIN})
    assert said == []


def test_negative_control_without_the_second_ask_the_echo_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(turn, "_says_or_tries", lambda reply: False)
    said, calls = _beat(tmp_path, {"speech": GREETING}, {"speech": OWN})
    assert said == []
    assert len(calls) == 1
