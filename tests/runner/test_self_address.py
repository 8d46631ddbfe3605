"""A Character greeting itself by its own name is not said (`runner.self_address`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tavern.records import CharacterReply
from tavern.runner import replies, self_address
from tavern.runner.self_address import without_self_greeting

from .kit import said_once

LIVE = [
    ("Hello there, Maren.", None),  # toll-house #64 (seed 78), turn 7
    ("Hello there, Maren Holt.", None),  # toll-house #64, turn 9
    ("Hello, Maren.", None),  # toll-house #65 (seed 79), turn 1
    ("Hey, Maren Holt! What brings everyone here tonight?", "What brings everyone here tonight?"),
]
"""Maren Holt's speech, as the model wrote it; the last, toll-house #65's turn 8, asked the
human's question back (which `runner.echo` judges)."""


@pytest.mark.parametrize(("speech", "kept"), LIVE)
def test_the_live_self_greetings_go(speech: str, kept: str | None) -> None:
    reply = without_self_greeting(CharacterReply(speech=speech, thought="Hm."), "Maren Holt")
    assert reply is not None and reply.speech == kept


@pytest.mark.parametrize(
    "speech",
    [
        "Hello, Ilse.",  # another's name
        "Hello, I am Maren Holt.",  # says more
        "Maren Holt keeps the keys. Good evening.",
        "Good evening to you all.",
    ],
)
def test_other_greetings_and_own_name_stay(speech: str) -> None:
    reply = CharacterReply(speech=speech)
    assert without_self_greeting(reply, "Maren Holt") == reply


def test_a_reply_of_only_a_self_greeting_says_nothing() -> None:
    assert without_self_greeting(CharacterReply(speech="Hello, Maren."), "Maren Holt") is None


def _said(tmp_path: Path) -> list[str]:
    greeting = {
        "speech": "Hey, Maren Holt! The river is high.",
        "thought": None,
        "action_intent": None,
    }
    return said_once(tmp_path, "the-toll-house", "C2", greeting, "Who are you, exactly?")


def test_a_turn_commits_no_self_greeting(tmp_path: Path) -> None:
    assert _said(tmp_path) == ["The river is high."]


def test_negative_control_without_the_rule_the_self_greeting_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(replies, "without_self_greeting", lambda reply, name: reply)
    assert _said(tmp_path) == ["Hey, Maren Holt! The river is high."]


LIVE_VOCATIVE = (
    "It's nice to meet you, Maren! I'm sorry to hear that the toll box is locked on the"
    " counting table."
)
"""Toll-house #67 (seed 81), turn 9: Maren Holt's speech, as the model wrote it (its last
sentence left out here)."""


def test_the_own_name_closing_a_sentence_goes() -> None:
    reply = without_self_greeting(CharacterReply(speech=LIVE_VOCATIVE), "Maren Holt")
    assert reply is not None
    assert reply.speech == LIVE_VOCATIVE.replace(", Maren!", "!")
    other = CharacterReply(speech="Sit down, Ilse. Thank you, Maren Holt, for the keys.")
    assert without_self_greeting(other, "Maren Holt") == other


def test_negative_control_without_the_vocative_rule_the_name_stays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(self_address, "without_own_vocative", lambda sentence, own: sentence)
    reply = CharacterReply(speech=LIVE_VOCATIVE)
    assert without_self_greeting(reply, "Maren Holt") == reply
