"""A Character saying "I am" and reading out an appearance recites a sheet
(`runner.recited_look`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tavern.llm.provider import ProviderRequest
from tavern.records import CharacterReply, SpeechRecord, ThoughtRecord, TurnInput
from tavern.runner import recited_look, replies
from tavern.runner.limits import KernelLimits
from tavern.runner.recited_look import (
    look_runs,
    without_recited_look,
    without_recited_looks,
    without_recited_secrets,
)

from .kit import recording_runner, run, said_once, two_replies

MAREN_LOOK = (
    "A broad-shouldered woman in her forties, grey wool shawl, a ring of iron keys at her belt,"
    " ink on her thumb."
)
"""Maren Holt's appearance (the-toll-house, slot C2)."""
OWN_LOOK = (
    "I am Maren Holt. I am a young woman in her forties, grey wool shawl, a ring of iron keys at"
    " her belt, ink on her thumb."
)
"""Toll-house #64 (seed 78), turns 1 and 10: Maren Holt's speech."""
CLAIMED_LOOK = (
    "I'm Maren Holt, a young woman in my forties, grey wool shawl, a ring of iron keys at her"
    " belt, ink on her thumb."
)
"""Toll-house #64, turn 8: Teodor Vask's speech (his thought the same, opening "I am")."""
RENDERED = CLAIMED_LOOK.replace("Maren Holt", "the woman with the ring of keys")
"""The same, as Teodor's own view renders it when he never learned her name."""
RUNS = look_runs((MAREN_LOOK,))


def test_the_live_recitals_lose_the_look_and_keep_the_introduction() -> None:
    assert without_recited_look(OWN_LOOK, RUNS) == "I am Maren Holt."
    assert without_recited_look(CLAIMED_LOOK, RUNS) == ""
    assert without_recited_look(CLAIMED_LOOK.replace("I'm", "I am", 1), RUNS) == ""
    assert without_recited_look(RENDERED, RUNS) == ""


@pytest.mark.parametrize(
    "text",
    [
        "The woman with a ring of iron keys at her belt is lying.",  # a look, not "I am"
        "I am a woman in her forties, and tired.",  # own words: a short run
        "I'm sure the woman with a ring of iron keys at her belt took it.",  # not of oneself
        "Look at her: grey wool shawl, a ring of iron keys at her belt.",
    ],
)
def test_a_look_spoken_of_or_own_words_stay(text: str) -> None:
    assert without_recited_look(text, RUNS) == text


def test_a_reply_left_with_nothing_goes_and_an_intent_keeps_it() -> None:
    claimed = CharacterReply(speech=CLAIMED_LOOK, thought=CLAIMED_LOOK.replace("I'm", "I am"))
    assert without_recited_looks(claimed, RUNS) is None
    acting = claimed.model_copy(update={"action_intent": "sits by the fire"})
    assert without_recited_looks(acting, RUNS) == CharacterReply(action_intent="sits by the fire")


_answers = two_replies(
    {"speech": OWN_LOOK, "thought": None, "action_intent": None},
    {"speech": CLAIMED_LOOK, "thought": "Hm.", "action_intent": None},
)


def _said(tmp_path: Path, answers: Callable[[ProviderRequest], Any] = _answers) -> list[str]:
    runner, store, _ = recording_runner(tmp_path, answers, KernelLimits())
    sid = run(runner.create_session("the-toll-house", "C1")).id
    run(runner.play_turn(sid, TurnInput(speech="What brings everyone here tonight?")))
    return [
        f"{r.speaker}: {r.text}"
        for r in store.history(sid)
        if isinstance(r, SpeechRecord | ThoughtRecord) and r.author == "character"
    ]


def test_a_turn_commits_no_recited_look(tmp_path: Path) -> None:
    assert _said(tmp_path) == ["C2: I am Maren Holt.", "C3: Hm."]


def test_negative_control_without_the_rule_the_looks_are_committed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(replies, "without_recited_looks", lambda reply, runs: reply)
    assert _said(tmp_path) == [f"C2: {OWN_LOOK}", f"C3: {RENDERED}", "C3: Hm."]


def test_negative_control_without_the_first_person_test_nothing_is_cut(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The run alone is not the rule: a look spoken of stays only by the first-person test."""
    monkeypatch.setattr(recited_look, "_FIRST_PERSON", recited_look.re.compile(r"\s*The\b"))
    assert without_recited_look(OWN_LOOK, RUNS) == OWN_LOOK
    spoken_of = "The woman with a ring of iron keys at her belt is lying."
    assert without_recited_look(spoken_of, RUNS) == ""


CASPAR_SECRET = (
    "He is no friar: he is a forger hired by someone in the house to copy the vintner's hand."
)
"""Brother Caspar's first secret (the-vintners-wake, slot C2)."""
TOLD_SECRET = "I'm a forger hired by someone in the house to copy the vintner's hand."
"""Vintners-wake #63 (seed 79), turn 1: Brother Caspar's speech to the whole room."""


def test_the_live_secret_read_out_goes_and_own_words_stay() -> None:
    told = CharacterReply(speech=f"Evening. {TOLD_SECRET}", thought=TOLD_SECRET)
    kept = without_recited_secrets(told, (CASPAR_SECRET,))
    assert kept == CharacterReply(speech="Evening.", thought=TOLD_SECRET)  # a thought is his
    own_words = CharacterReply(speech="Someone here paid me to fake the old man's writing.")
    assert without_recited_secrets(own_words, (CASPAR_SECRET,)) == own_words


def _caspar_said(tmp_path: Path) -> list[str]:
    told = {"speech": TOLD_SECRET, "thought": "Careful.", "action_intent": None}
    return said_once(tmp_path, "the-vintners-wake", "C2", told, "What brings everyone here?")


def test_a_turn_commits_no_secret_read_out(tmp_path: Path) -> None:
    assert _caspar_said(tmp_path) == []


def test_negative_control_without_the_rule_the_secret_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(replies, "without_recited_secrets", lambda reply, secrets: reply)
    assert _caspar_said(tmp_path) == [TOLD_SECRET]
