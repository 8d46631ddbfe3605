"""A Character never says back, word for word, a line it heard (`runner.echo`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tavern.llm.provider import ProviderRequest
from tavern.records import (
    ActionRecord,
    Audience,
    CharacterReply,
    EventRecord,
    HistoryRecord,
    SpeechRecord,
    ThoughtRecord,
    TurnInput,
)
from tavern.runner import echo, replies
from tavern.runner.follow_up import AGENT as FOLLOW_UP
from tavern.runner.limits import KernelLimits

from .kit import director_answer, recording_runner, run

LINE = "I think we should open it now."
ATTEMPT = "walks slowly to the nearest window and looks outside"
LIVE_COPY = "walk slowly to the nearest window and looks outside"
"""The-vintners-wake soak #10, turns 3-5: Dorotea Sand's intent after the human's attempt."""


def _characters_answer(reply: dict[str, Any]) -> Callable[[ProviderRequest], Any]:
    def answer(request: ProviderRequest) -> Any:
        if request.agent == "director":
            return director_answer(["C2"])
        if request.agent == "prose":
            return {"narration": "Candles gutter."}
        if request.agent == FOLLOW_UP:  # the human's attempts get no outcome from the Director
            return {"outcome": "Nothing comes of it."}
        return {"speech": None, "thought": None, "action_intent": None} | reply

    return answer


def _beat(
    tmp_path: Path,
    reply: dict[str, Any],
    answers: Callable[[dict[str, Any]], Callable[[ProviderRequest], Any]] = _characters_answer,
    **said: Any,
) -> list[HistoryRecord]:
    """C2's records after one turn in which the human does `said` and C2 answers `reply`."""
    runner, store, _ = recording_runner(tmp_path, answers(reply), KernelLimits())
    sid = run(runner.create_session("the-vintners-wake")).id
    run(runner.play_turn(sid, TurnInput(**said)))
    return [r for r in store.history(sid) if r.speaker == "C2"]


def test_an_echoed_line_is_dropped_and_the_thought_kept(tmp_path: Path) -> None:
    said = _beat(tmp_path, {"speech": f'"{LINE.upper()}"', "thought": "Why now?"}, speech=LINE)
    assert [(type(r), r.text) for r in said] == [(ThoughtRecord, "Why now?")]


def test_an_echoed_sentence_is_dropped_and_the_rest_said(tmp_path: Path) -> None:
    """Live: the human's 'Good evening to you all. What brings everyone here tonight?' came
    back as 'Good evening to you all.'"""
    greeting = "Good evening to you all. What brings everyone here tonight?"
    reply = "Good evening to you all!  The rain brought me, as it brought you."
    said = _beat(tmp_path, {"speech": reply}, speech=greeting)
    assert [(type(r), r.text) for r in said] == [
        (SpeechRecord, "The rain brought me, as it brought you.")
    ]


def test_a_reply_that_is_only_an_echo_says_nothing(tmp_path: Path) -> None:
    assert _beat(tmp_path, {"speech": LINE}, speech=LINE) == []


def test_an_echo_behind_a_label_is_dropped(tmp_path: Path) -> None:
    """Toll-house soak #10's Character prompts replayed: "Ilese Brandt said: 'Good evening to
    you all." as speech, the memory line's label copied with the line."""
    greeting = "Good evening to you all. What brings everyone here tonight?"
    reply = "Ilese Brandt said: 'Good evening to you all. The rain brought me."
    said = _beat(tmp_path, {"speech": reply}, speech=greeting)
    assert [(type(r), r.text) for r in said] == [(SpeechRecord, "The rain brought me.")]


@pytest.mark.parametrize(
    ("heard", "reply"),
    [
        (LINE, "Open it now? Are you mad?"),  # an answer, not the line
        (LINE, "Yes, I think we should open it now."),  # agreeing, in the line's words
        ("Yes.", "Yes."),  # too short to be an echo
        ("I do not know.", "I do not know."),  # an everyday line, said again in earnest
    ],
)
def test_an_answer_or_a_short_line_is_said(tmp_path: Path, heard: str, reply: str) -> None:
    said = _beat(tmp_path, {"speech": reply}, speech=heard)
    assert [(type(r), r.text) for r in said] == [(SpeechRecord, reply)]


def test_a_line_the_character_did_not_hear_is_no_echo(tmp_path: Path) -> None:
    # Whispered to C4 only: C2 heard that something was said, not the words.
    said = _beat(tmp_path, {"speech": LINE}, speech=LINE, whisper_to=["C4"])
    assert [(type(r), r.text) for r in said] == [(SpeechRecord, LINE)]


@pytest.mark.parametrize(
    ("reply", "said"),
    [({"speech": LINE}, {"speech": LINE}), ({"action_intent": LIVE_COPY}, {"action": ATTEMPT})],
)
def test_negative_control_without_the_rule_the_echo_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reply: dict[str, str], said: dict[str, str]
) -> None:
    monkeypatch.setattr(replies, "without_echo", lambda reply, records, viewer: reply)
    assert [r.text for r in _beat(tmp_path, reply, **said)] == list(reply.values())


def test_an_echoed_attempt_is_dropped_and_the_speech_kept(tmp_path: Path) -> None:
    said = _beat(tmp_path, {"speech": "Careful.", "action_intent": LIVE_COPY}, action=ATTEMPT)
    assert [(type(r), r.text) for r in said] == [(SpeechRecord, "Careful.")]


def test_a_reply_that_only_echoes_an_attempt_does_nothing(tmp_path: Path) -> None:
    assert _beat(tmp_path, {"action_intent": LIVE_COPY.upper()}, action=ATTEMPT) == []


@pytest.mark.parametrize(
    "intent",
    [
        "walks to the fire and warms her hands",  # an attempt of its own
        "follows to the window",  # too short to be an echo
    ],
)
def test_an_attempt_of_its_own_is_made(tmp_path: Path, intent: str) -> None:
    said = _beat(tmp_path, {"action_intent": intent}, action=ATTEMPT)
    assert [(type(r).__name__, r.text) for r in said] == [("ActionRecord", intent)]


def test_its_own_repeated_attempt_is_dropped(tmp_path: Path) -> None:
    runner, store, _ = recording_runner(
        tmp_path,
        _characters_answer({"action_intent": "pulls at the bolt of the trapdoor"}),
        KernelLimits(),
    )
    sid = run(runner.create_session("the-vintners-wake")).id
    for _ in range(3):
        run(runner.play_turn(sid, TurnInput(speech="Well?")))
    history = store.history(sid)
    tries = [r.turn_number for r in history if r.speaker == "C2" and isinstance(r, ActionRecord)]
    assert tries == [1]


# -- thoughts ------------------------------------------------------------------------------
GREETING = "Good evening to you all. What brings everyone here tonight?"
BELL = "A stone bell tolls midnight somewhere above the hall."


def _world_answer(reply: dict[str, Any]) -> Callable[[ProviderRequest], Any]:
    """C2 answers `reply`; the Director tells one world event everyone in the hall sees."""
    event = {
        "kind": "world_event",
        "text": BELL,
        "actor_id": None,
        "witness_ids": ["C1", "C2", "C4", "C5"],
        "utterance_ref": None,
    }

    def answer(request: ProviderRequest) -> Any:
        if request.agent == "director":
            return director_answer(["C2"], events=[event])
        return _characters_answer(reply)(request)

    return answer


def _thoughts(tmp_path: Path, reply: dict[str, Any], **said: Any) -> list[tuple[str, str]]:
    return [(type(r).__name__, r.text) for r in _beat(tmp_path, reply, _world_answer, **said)]


@pytest.mark.parametrize(
    "thought",
    [
        f"Agnese Corvo said: '{GREETING}'",  # toll-house #10: a memory line, label and all
        f"The woman in black said: {GREETING.upper()}",
        f"The thin man by the door in the wet blue coat said: {GREETING}",  # a description
        GREETING,
        BELL,  # an event it saw
        f"You thought: {BELL}",
    ],
)
def test_a_thought_copying_a_line_it_perceived_is_dropped(tmp_path: Path, thought: str) -> None:
    said = _thoughts(tmp_path, {"speech": "Sit down, child.", "thought": thought}, speech=GREETING)
    assert said == [("SpeechRecord", "Sit down, child.")]


@pytest.mark.parametrize(
    "thought",
    [
        "Good evening to you all, she says, as if this were a feast.",  # its own words around it
        f"Of all the things to say over a coffin at midnight: {GREETING}",  # no label
        "Who brings a girl to a wake at midnight?",
    ],
)
def test_a_thought_of_its_own_is_kept(tmp_path: Path, thought: str) -> None:
    said = _thoughts(tmp_path, {"thought": thought}, speech=GREETING)
    assert said == [("ThoughtRecord", thought)]


def test_a_thought_copying_a_line_it_did_not_hear_is_kept(tmp_path: Path) -> None:
    said = _thoughts(tmp_path, {"thought": GREETING}, speech=GREETING, whisper_to=["C4"])
    assert said == [("ThoughtRecord", GREETING)]


def test_its_own_repeated_thought_is_dropped(tmp_path: Path) -> None:
    """Toll-house #10: one Character thought the same 37 words in four beats."""
    thought = "I have been thinking about the guild's suspicions and the lost seal ring."
    runner, store, _ = recording_runner(
        tmp_path, _characters_answer({"thought": thought}), KernelLimits()
    )
    sid = run(runner.create_session("the-vintners-wake")).id
    for _ in range(3):
        run(runner.play_turn(sid, TurnInput(speech="Well?")))
    assert [r.turn_number for r in store.history(sid) if r.speaker == "C2"] == [1]


def test_negative_control_without_the_thought_rule_the_copy_is_thought(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(echo, "echoed_thought", lambda thought, records, viewer: False)
    said = _thoughts(tmp_path, {"thought": f"You thought: {BELL}"}, speech=GREETING)
    assert said == [("ThoughtRecord", f"You thought: {BELL}")]


LIVE_SAID_ATTEMPT = "I'm trying to walk slowly to the nearest window and look outside."
"""Vintners-wake soak #25 (seed 38), turn 6: Brother Caspar's speech, the human's attempt of
turn 2 behind a few words."""


def test_speech_repeating_a_seen_attempt_is_dropped(tmp_path: Path) -> None:
    reply = {"speech": f"{LIVE_SAID_ATTEMPT} The rain will not stop."}
    said = _beat(tmp_path, reply, action=ATTEMPT)
    assert [(type(r), r.text) for r in said] == [(SpeechRecord, "The rain will not stop.")]


@pytest.mark.parametrize(
    "speech",
    [
        "Why would anyone walk slowly to a window on a night like this?",
        "The nearest window looks out on the river, and the river is rising.",
    ],
)
def test_speech_about_a_seen_attempt_is_said(tmp_path: Path, speech: str) -> None:
    said = _beat(tmp_path, {"speech": speech}, action=ATTEMPT)
    assert [r.text for r in said] == [speech]


def test_negative_control_without_attempt_tails_the_said_attempt_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(echo, "_attempt_tails", lambda key: frozenset())
    said = _beat(tmp_path, {"speech": LIVE_SAID_ATTEMPT}, action=ATTEMPT)
    assert [r.text for r in said] == [LIVE_SAID_ATTEMPT]


TOLD = (
    "Agnese Corvo attempts to open the trapdoor to the cellar and bolt it from the hall side."
    " This does not succeed because the trapdoor was already closed and bolted from the hall"
    " side."
)
"""Vintners-wake soak #29 (seed 44), turn 5: the outcome of the human's reach for the door."""
LIVE_INTENT = (
    "opens the trapdoor to the cellar and bolt it from the hall side. This does not succeed"
    " because the trapdoor was already closed and bolted from the hall side"
)
"""Turn 7 of the same soak: Brother Caspar's intent, its second sentence the event's."""


def _told(perceivers: list[str]) -> EventRecord:
    return EventRecord(
        seq=4, turn_number=5, speaker="C1", author="director", event_kind="action_outcome",
        text=TOLD, actor_id="C1", audience=Audience(origin="zone", perceivers=perceivers),
    )  # fmt: skip


def test_an_intents_sentence_telling_a_seen_event_is_dropped() -> None:
    reply = CharacterReply(speech="Let me try.", action_intent=LIVE_INTENT)
    kept = echo.without_echo(reply, [_told(["C1", "C2"])], "C2")
    assert kept is not None
    assert kept.action_intent == "opens the trapdoor to the cellar and bolt it from the hall side."
    assert kept.speech == "Let me try."


def test_an_intent_that_only_tells_a_seen_event_is_no_attempt() -> None:
    reply = CharacterReply(speech="Let me try.", action_intent=TOLD.split(". ")[1])
    kept = echo.without_echo(reply, [_told(["C1", "C2"])], "C2")
    assert kept == CharacterReply(speech="Let me try.")
    assert echo.without_echo(CharacterReply(action_intent=TOLD), [_told(["C2"])], "C2") is None


def test_an_event_the_character_did_not_perceive_is_no_copy() -> None:
    reply = CharacterReply(action_intent=LIVE_INTENT)
    assert echo.without_echo(reply, [_told(["C1"])], "C2") == reply


def test_negative_control_without_the_event_rule_the_intent_tells_the_outcome(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(echo, "without_told_events", lambda intent, records, viewer: intent)
    reply = CharacterReply(action_intent=LIVE_INTENT)
    assert echo.without_echo(reply, [_told(["C1", "C2"])], "C2") == reply


REACHES = "reaches for the latch of the window"
REACH_COPY = "reach for the latch of the window"
"""A verb in "-es": the stem every act rule shares (`outcomes.act_stem`) makes it one act."""


def test_an_echoed_attempt_in_es_is_dropped(tmp_path: Path) -> None:
    assert _beat(tmp_path, {"action_intent": REACH_COPY}, action=REACHES) == []


def test_negative_control_stripping_only_the_s_the_es_echo_is_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(echo, "act_stem", lambda word: word.removesuffix("s"))
    monkeypatch.setattr(echo, "attempt_key", echo.attempt_key.__wrapped__)  # nothing cached
    said = _beat(tmp_path, {"action_intent": REACH_COPY}, action=REACHES)
    assert [r.text for r in said] == [REACH_COPY]


LIVE_QUESTION = "Who are you, exactly?"
"""Vintners-wake #46 (seed 62), turn 8: Dorotea Sand said the human's question back."""


def test_a_question_said_back_in_its_beat_is_not_said(tmp_path: Path) -> None:
    said = _beat(
        tmp_path, {"speech": f'"{LIVE_QUESTION}"', "thought": "Odd."}, speech=LIVE_QUESTION
    )
    assert [(type(r), r.text) for r in said] == [(ThoughtRecord, "Odd.")]
    assert _beat(tmp_path / "b", {"speech": LIVE_QUESTION}, speech=LIVE_QUESTION) == []


@pytest.mark.parametrize(
    ("heard", "reply"),
    [
        ("I do not know.", "I do not know."),  # a statement, said back in earnest
        ("Who?", "Who?"),  # too short
        (LIVE_QUESTION, "Who am I? Who are you, exactly?"),  # more than the question
    ],
)
def test_a_statement_or_a_short_question_said_back_stays(
    tmp_path: Path, heard: str, reply: str
) -> None:
    said = _beat(tmp_path, {"speech": reply}, speech=heard)
    assert [r.text for r in said] == [reply]


def test_negative_control_without_the_beat_rule_the_question_is_said_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(echo, "echoes_the_beat", lambda speech, records, viewer: False)
    said = _beat(tmp_path, {"speech": LIVE_QUESTION}, speech=LIVE_QUESTION)
    assert [r.text for r in said] == [LIVE_QUESTION]


LIVE_HEADED = (
    "walk slowly to the nearest window and look outside, which shows her curiosity and"
    " determination."
)
"""Toll-house #54 (seed 68), turn 3: Maren Holt's intent, the human's attempt of turn 2 with a
comment on it."""


def test_an_intent_opening_with_a_seen_attempt_is_an_echo(tmp_path: Path) -> None:
    assert _beat(tmp_path, {"action_intent": LIVE_HEADED}, action=ATTEMPT) == []
    short = "walks to the window"
    kept = f"{short} and opens the shutters"  # opens with fewer words than the rule needs
    said = _beat(tmp_path, {"action_intent": kept}, action=short)
    assert [r.text for r in said] == [kept]


def test_negative_control_with_whole_attempts_only_the_headed_echo_is_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(echo, "_repeats", lambda key, seen: key in seen)
    said = _beat(tmp_path, {"action_intent": LIVE_HEADED}, action=ATTEMPT)
    assert [r.text for r in said] == [LIVE_HEADED]
