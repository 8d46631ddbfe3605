"""A Character's words that step out of the world are not said (`runner.in_world`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tavern.agents import out_of_world
from tavern.agents.out_of_world import OUT_OF_WORLD
from tavern.records import CharacterReply, SpeechRecord, ThoughtRecord
from tavern.runner import in_world as in_world_module
from tavern.runner import replies
from tavern.runner.in_world import in_world

from .test_echo import _beat

REFUSAL = "I'm sorry, but I can't assist with that."
LIVE_CONTEXT = (
    "I'm sorry, but I don't have any information about what just happened. I don't have"
    " enough context or information to respond to this question."
)
"""Vintners-wake soak #30 (seed 45), turn 8: Dorotea Sand's answer to "Who are you, exactly?"."""
LIVE_PERSONALITY = (
    "I'm sorry, I don't understand what you're trying to do. It seems like you're trying to do"
    " something that doesn't align with my personality."
)
"""Vintners-wake soak #31's rerun (seed 46), turn 8: Dorotea Sand's answer to the same."""
LIVE_ASKS = (
    "I'm sorry, but I don't have any information about what just happened that you just"
    " remembered. Could you please provide more context or clarify what you're looking for?"
)
"""Vintners-wake soak #33 (seed 48), turn 4: Dorotea Sand's speech, and her intent too."""
LIVE_OFFER = "Hello, everyone! How can I assist you today?"
LIVE_OTHER_TASKS = (
    "I'm sorry, but I am not able to answer this question as it pertains to a private matter. I"
    " would be happy to help you with any other information or tasks you have."
)
"""Toll-house #66 (seed 80), turn 5: Maren Holt's answer to "I think we should open it now."."""
"""Toll-house soak #48 (seed 62), turn 8: Maren Holt's answer to "Who are you, exactly?"."""
LIVE_NOT_HUMAN = "I am not a human, so I do not have an intent to do anything now."
"""Toll-house soak #50 (seed 64), turn 1: Maren Holt's intent."""
LIVE_CANT_HELP = "I'm sorry, but I can't help with that."
"""Toll-house soak #33 (seed 47), turn 5: Maren Holt's answer to "I think we should open it
now.", the assistant's refusal formula said whole."""


@pytest.mark.parametrize(
    "line",
    [
        REFUSAL,
        "As an AI language model, I cannot take part.",
        "I'm just a character in a story.",
        "Let's continue the roleplay.",
        "Como uma IA, não tenho opiniões.",
        "Desculpe, mas não posso ajudar com isso.",
        "Eu sou apenas um personagem.",
        "I'm not able to perform any actions or act as a person here.",  # toll-house #11, t8
        "I cannot perform physical actions.",
        "I don't have any personal thoughts about this. I'm just a digital assistant.",
        "Não consigo realizar ações.",
        "I'm sorry, but I'm just a computer program and don't have the ability to act.",
        LIVE_CONTEXT,
        "Não tenho contexto suficiente para responder.",
        LIVE_PERSONALITY,
        "Isso não está alinhado com a minha personalidade.",
        LIVE_CANT_HELP,
        "I'm sorry, but I cannot help with this request.",
        LIVE_ASKS,
        "Você poderia fornecer mais contexto?",
        LIVE_OFFER,
        LIVE_OTHER_TASKS,
        "I can help you with any further questions.",
        "What can I help you with today?",
        "Como posso ajudar hoje?",
        LIVE_NOT_HUMAN,
        "I'm not human, therefore I cannot act.",
        "Não sou humano, então não tenho intenção.",
    ],
)
def test_an_assistants_words_are_recognised(line: str) -> None:
    assert OUT_OF_WORLD.search(line)


@pytest.mark.parametrize(
    "line",
    [
        "Sorry, I can't help you with the door.",
        "He's quite a character, that notary.",
        "The notary's assistant waits by the coffin.",
        "We cannot comply with the guild's toll tonight.",
        "I play the lute, badly.",
        "Não posso ajudar você com a porta.",
        "I cannot take any action until the guild decides.",
        "The notary will perform the reading at midnight.",
        "You act as a person of rank, sir.",
        "He cannot perform the rite without the ring.",
        "I'm just a helpful neighbour, nothing more.",
        "I'm writing a computer program for the guild's ledgers.",
        "I'm sorry, but I don't have any information about what just happened.",
        "Without context, the will means nothing.",
        "I have not enough coin to pay the toll.",
        "I'm sorry, I don't understand what you're trying to do.",
        "Keep your voice in line with my orders.",
        "It fits my personality, they say.",
        "I'm sorry, but I can't help with that door, it is the guild's.",
        "Give me more light, and some bread.",
        "Tell me what you're looking for in the cellar.",
        "How can I help you?",
        "I'd be happy to help you with the bags.",
        "I can't help you with any other toll, only this one.",
        "What can I do for you, girl?",
        "I am not human.",
        "I am not a human being you can bribe.",
    ],
)
def test_words_a_person_says_are_kept(line: str) -> None:
    assert not OUT_OF_WORLD.search(line)


def test_a_refusal_is_not_said_and_the_thought_stays(tmp_path: Path) -> None:
    """Live: 'I'm sorry, but I can't assist with that.' from Maren Holt, turn 10."""
    said = _beat(tmp_path, {"speech": REFUSAL, "thought": "The river is rising."}, speech="Hello.")
    assert [(type(r), r.text) for r in said] == [(ThoughtRecord, "The river is rising.")]
    assert _beat(tmp_path / "b", {"speech": REFUSAL}, speech="Hello.") == []


def test_negative_control_without_the_guard_the_refusal_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(replies, "in_world", lambda reply: reply)
    said = _beat(tmp_path, {"speech": REFUSAL}, speech="Hello.")
    assert [(type(r), r.text) for r in said] == [(SpeechRecord, REFUSAL)]


LIVE_INSTRUCTION_ECHOES = [
    "do not state its outcome, the world decides what happens.",
    "do not state its outcome",
]
"""Vintners-wake soak #14, turn 1: two Characters' intents, copied from their instructions."""
REPLAYED_PROMPT_ECHOES = [
    "Nothing new since the last line you remember.",
    "No new information since the last line you remember.",
]
"""Thoughts drawn by the Character prompts of toll-house #10 and vintners-wake #15, replayed."""


@pytest.mark.parametrize("intent", LIVE_INSTRUCTION_ECHOES)
def test_a_copy_of_the_instructions_is_not_said(intent: str) -> None:
    reply = CharacterReply(speech="Evening.", action_intent=intent)
    assert in_world(reply) == CharacterReply(speech="Evening.")
    assert in_world(CharacterReply(action_intent=intent)) is None


@pytest.mark.parametrize("thought", REPLAYED_PROMPT_ECHOES)
def test_a_copy_of_the_prompts_other_lines_is_not_thought(thought: str) -> None:
    reply = CharacterReply(speech="Evening.", thought=thought)
    assert in_world(reply) == CharacterReply(speech="Evening.")


@pytest.mark.parametrize(
    "line",
    [
        "I will try to do what I can.",  # three words in a row of them
        "Mind the words you say, girl.",
        "The world decides nothing; we do.",
        "What do you do now?",  # the prompt's last line, and a question people ask
        "Nothing new since the bell.",
    ],
)
def test_words_the_instructions_also_hold_are_said(line: str) -> None:
    reply = CharacterReply(speech=line)
    assert in_world(reply) is reply


def test_negative_control_without_the_instruction_runs_the_copy_is_said(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(in_world_module, "_INSTRUCTION_RUNS", frozenset())
    for reply in (
        CharacterReply(action_intent=LIVE_INSTRUCTION_ECHOES[0]),
        CharacterReply(thought=REPLAYED_PROMPT_ECHOES[0]),
    ):
        assert in_world(reply) is reply


SHEET_RECITAL = (
    "I am Teodor Vask, a thin man in a rain-soaked blue greatcoat with brass buttons. A"
    " wax-sealed satchel held close, spectacles fogged from the cold. Personality: Courteous,"
    " precise, and lonely; believes every discrepancy has an honest explanation until proven"
    " otherwise. Secrets: He was sent because the river guild suspects someone at this"
    " crossing; his own post depends on finding a culprit."
)
"""Toll-house soak #16 (seed 33), turn 7: Teodor Vask's speech (and thought), his sheet."""


def test_a_recital_of_the_own_sheet_is_not_said(tmp_path: Path) -> None:
    reply = {"speech": SHEET_RECITAL, "thought": SHEET_RECITAL, "action_intent": "signs the book"}
    said = _beat(tmp_path, reply, speech="Who are you, exactly?")
    assert [r.text for r in said] == ["signs the book"]


@pytest.mark.parametrize(
    "line", ["My goals are my own.", "He has a personality.", "We all have secrets: all of us."]
)
def test_sheet_words_without_the_sheets_labels_are_said(line: str) -> None:
    reply = CharacterReply(speech=line)
    assert in_world(reply) is reply


OWN_LOOK_RECITAL = (
    "I'm a dry patient who quickly with numbers and slow to anger. I look like this: A"
    " broad-shouldered woman in her forties, grey wool shawl, a ring of iron keys at her belt,"
    " ink on her thumb."
)
"""Toll-house #59's rerun (seed 73), turn 8: Maren Holt's answer to "Who are you, exactly?",
committed and shown to the human."""


def test_a_sheet_label_in_the_first_person_is_not_said(tmp_path: Path) -> None:
    reply = {"speech": OWN_LOOK_RECITAL, "action_intent": "signs the book"}
    said = _beat(tmp_path, reply, speech="Who are you, exactly?")
    assert [r.text for r in said] == ["signs the book"]
    kept = CharacterReply(speech="I look like my mother, they say.")
    assert in_world(kept) is kept


@pytest.mark.parametrize(
    ("labels", "recital"), [("SHEET_LABELS", SHEET_RECITAL), ("OWN_LABELS", OWN_LOOK_RECITAL)]
)
def test_negative_control_without_the_labels_the_recital_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, labels: str, recital: str
) -> None:
    monkeypatch.setattr(in_world_module, labels, ())
    said = _beat(tmp_path, {"speech": recital}, speech="Who are you, exactly?")
    assert [r.text for r in said] == [recital]


def test_a_schema_word_is_taken_out_of_a_field() -> None:
    """Toll-house soak #22 (seed 39), turns 3, 6 and 7: the Characters' intent "talk_event"."""
    assert in_world(CharacterReply(speech="Evening.", action_intent="talk_event")) == (
        CharacterReply(speech="Evening.")
    )
    assert in_world(CharacterReply(action_intent="talk_event")) is None
    said = CharacterReply(speech="Sit by the fire world_event, friend.")
    assert in_world(said) == CharacterReply(speech="Sit by the fire, friend.")


LIVE_STEPS_OUT = [
    (LIVE_CONTEXT, "ENOUGH_CONTEXT", "Who are you, exactly?"),
    (LIVE_PERSONALITY, "OWN_MAKING", "Who are you, exactly?"),
    (LIVE_CANT_HELP, "REFUSAL_FORMULA", "I think we should open it now."),
    (LIVE_ASKS, "ASKS_FOR_CONTEXT", "Good evening to you all."),
    (LIVE_OFFER, "HELP_OFFER", "Who are you, exactly?"),
    (LIVE_OTHER_TASKS, "HELP_OFFER", "I think we should open it now."),
    (LIVE_NOT_HUMAN, "NOT_HUMAN", "Good evening to you all."),
]
"""Live answers (line, the part of `OUT_OF_WORLD` that knows it, what the human said)."""


@pytest.mark.parametrize(("line", "part", "asked"), LIVE_STEPS_OUT)
def test_the_live_lines_are_not_said(tmp_path: Path, line: str, part: str, asked: str) -> None:
    assert _beat(tmp_path, {"speech": line, "action_intent": line}, speech=asked) == []


@pytest.mark.parametrize(("line", "part", "asked"), LIVE_STEPS_OUT)
def test_negative_control_without_its_part_each_live_line_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, line: str, part: str, asked: str
) -> None:
    without = OUT_OF_WORLD.pattern.replace(getattr(out_of_world, part), "")
    monkeypatch.setattr(in_world_module, "OUT_OF_WORLD", re.compile(without, re.IGNORECASE))
    said = _beat(tmp_path, {"speech": line}, speech=asked)
    assert [r.text for r in said] == [line]
