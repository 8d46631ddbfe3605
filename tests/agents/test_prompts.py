"""The prompt builders in isolation: what each role sees, schemas, parsing."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tavern.agents import character, director, openings, prose, reviser, suggest
from tavern.contract import check_prompt
from tavern.llm.fake import generate_answer
from tavern.llm.provider import ProviderRequest
from tavern.physics.observation import observe
from tavern.records import (
    Audience,
    ChatMessage,
    EventRecord,
    HistoryRecord,
    NarrationRecord,
    SessionState,
    SpeechRecord,
    ThoughtRecord,
)
from tavern.store import Library, materialize_session

HALL = Audience(origin="zone", perceivers=["C1", "C2", "C4", "C5"])


@pytest.fixture
def state(tavern_data_dir: Path) -> SessionState:
    library = Library(tavern_data_dir)
    return materialize_session(library.get_scenario("the-vintners-wake"), library, "s-test")


def _history() -> list[HistoryRecord]:
    return [
        SpeechRecord(seq=1, turn_number=1, speaker="C1", author="human", audience=HALL,
                     text="The cellar key is Ambergris42."),
        ThoughtRecord(seq=2, turn_number=1, speaker="C1", author="human",
                      audience=Audience(origin="private", perceivers=["C1"]),
                      text="Caspar forged the will, Velvetine."),
        EventRecord(seq=3, turn_number=1, speaker="C2", author="director", audience=HALL,
                    event_kind="action_outcome", actor_id="C2",
                    text="Caspar repeats Ambergris42 under his breath."),
        NarrationRecord(seq=4, turn_number=1, speaker="Narrator", author="renderer",
                        audience=Audience(origin="public"), text="Candles gutter. Lumenfall."),
    ]  # fmt: skip


def _text(messages: list[ChatMessage]) -> str:
    return "\n".join(m.content for m in messages)


def test_director_sees_minds_and_marks_thoughts_but_not_narration(state: SessionState) -> None:
    text = _text(director.build_messages(state, _history(), director.DirectorBeat()))
    assert "PRIVATE THOUGHT of Agnese Corvo (C1)" in text and "Velvetine" in text
    assert all(c.mind.personality in text for c in state.cast.values())
    assert "Lumenfall" not in text  # narration is derived; the window leaves it out
    assert not check_prompt(director.build_messages(state, _history(), director.DirectorBeat()),
                            [c.body.display_name for c in state.cast.values()])  # fmt: skip


def test_director_prompt_ignores_the_controlled_id_and_the_author(state: SessionState) -> None:
    history = _history()
    base = director.build_messages(state, history, director.DirectorBeat())
    other = state.model_copy(update={"controlled_id": "C4"})
    authored = [r.model_copy(update={"author": "character"}) for r in history]
    assert director.build_messages(other, authored, director.DirectorBeat()) == base


def test_prose_never_receives_words_thoughts_or_minds(state: SessionState) -> None:
    history = _history()
    text = _text(prose.build_messages(state, history[:2], history[2:]))
    assert "Ambergris42" not in text  # spoken, and copied into an event by the Director
    assert "Velvetine" not in text
    assert "(Agnese Corvo speaks.)" in text
    assert all(c.mind.personality not in text for c in state.cast.values())
    assert "C2" not in text  # ids become names for the reader


def test_a_scenario_fact_stays_readable_when_a_character_repeats_it(state: SessionState) -> None:
    """Live: Dorotea repeated the opening fact 'shut and bolted from the hall side', and the
    prose then read 'shut and [...] from the hall [...]' and narrated the markers."""
    fact = "The trapdoor to the cellar is shut and bolted from the hall side."
    assert state.opening_facts == state.scene.facts and fact in state.opening_facts
    words = "The trapdoor is bolted from the hall side, and Quoinwick knows."
    said = SpeechRecord(
        seq=9, turn_number=2, speaker="C4", author="character", audience=HALL, text=words
    )
    text = _text(prose.build_messages(state, [said], []))
    assert fact in text
    assert "Quoinwick" not in text  # what was only spoken stays masked
    # A fact the Director added is no scenario fact: copying speech there launders nothing.
    added = state.scene.model_copy(update={"facts": [*state.scene.facts, "Quoinwick is here."]})
    text = _text(prose.build_messages(state.model_copy(update={"scene": added}), [said], []))
    assert "Quoinwick" not in text
    # Control: a session opened before opening facts were kept masks the fact's words.
    old = state.model_copy(update={"opening_facts": []})
    assert fact not in _text(prose.build_messages(old, [said], []))


def test_every_character_prompt_has_the_same_shape(state: SessionState) -> None:
    history = _history()
    shapes = set()
    for slot in ("C2", "C4", "C5"):
        messages = character.build_messages(observe(state, history, slot), state.cast[slot], 1)
        shapes.add(tuple(line for line in _text(messages).splitlines() if line.startswith("##")))
        assert "Velvetine" not in _text(messages)
    assert len(shapes) == 1


FOURTH_WALL = re.compile(
    r"\b(?:story|stories|fiction\w*|characters?|role\w*|play(?:s|ing|er)?|game|scene|"
    r"narrat\w*|script|plot|author|simulat\w*)\b",
    re.IGNORECASE,
)
"""Words that tell a person it is in a story. A live 0.5B model told it was "a person inside a
story" answered "I'm just a character in a story"."""


def _template_words(messages: list[ChatMessage], state: SessionState, history: list[Any]) -> str:
    """The prompt with every text that comes from the scenario, the sheets or the history
    removed: what is left is the builder's own wording."""
    text = _text(messages)
    authored = [state.world, state.scene.description, state.scene.location, *state.scene.facts]
    for c in state.cast.values():
        authored += [c.mind.personality, *c.mind.secrets, *c.mind.goals, c.body.appearance]
        authored += [c.body.display_name, c.body.description_ref]
    authored += [z.label for z in state.scene.zones] + [r.text for r in history]
    for piece in sorted(filter(None, authored), key=len, reverse=True):
        text = text.replace(piece, " ").replace(piece[:1].upper() + piece[1:], " ")
    return text


def test_a_character_is_never_told_it_lives_in_a_story(state: SessionState) -> None:
    history = _history()
    for slot in ("C2", "C4", "C5"):
        messages = character.build_messages(observe(state, history, slot), state.cast[slot], 1)
        own = _template_words(messages, state, history)
        assert not FOURTH_WALL.findall(own), slot
    # Control: the wording that produced the live answer is caught.
    old = "You are Mara, a person inside a story. Stay in character and speak for yourself."
    assert FOURTH_WALL.findall(old) == ["story", "character"]


def _reviser_messages(state: SessionState, slot: str) -> list[ChatMessage]:
    """A reviser prompt folding the slot's memory of `_history()`."""
    from tavern.runner.memory import capture_memory, reviser_prompt

    history = _history()
    ledgers = capture_memory(state.ledgers, state.cast, history, history, state.scene)
    captured = state.model_copy(update={"ledgers": ledgers})
    ledger = ledgers[slot]
    return reviser_prompt(captured, slot, ledger, ledger.memory, None)[0]


def test_every_reviser_prompt_keeps_the_contract_and_the_same_shape(state: SessionState) -> None:
    history = _history()
    shapes = set()
    for slot in ("C1", "C2", "C4", "C5"):
        messages = _reviser_messages(state, slot)
        assert not check_prompt(messages), slot
        shapes.add(tuple(line for line in _text(messages).splitlines() if line.startswith("##")))
        assert "Velvetine" not in _text(messages) or slot == "C1"  # a thought: its owner's
        assert not FOURTH_WALL.findall(_template_words(messages, state, history)), slot
    assert len(shapes) == 1
    assert "Ambergris42" in _text(_reviser_messages(state, "C4"))  # a line it heard


def test_a_reply_is_parsed_as_written_and_an_empty_one_refused() -> None:
    reply = character.parse({"speech": " *draws a knife* Stay back. ", "thought": None,
                             "action_intent": None})  # fmt: skip
    assert reply.speech == "*draws a knife* Stay back." and reply.action_intent is None
    with pytest.raises(ValueError):
        character.parse({"speech": " ", "thought": None, "action_intent": None})


@pytest.mark.parametrize("module", [director, prose, character, suggest, openings, reviser])
def test_schemas_are_valid_and_generated_answers_parse(module: Any) -> None:
    jsonschema.Draft202012Validator.check_schema(module.OUTPUT_SCHEMA)
    for mode in ("parrot", "adversary"):
        request = ProviderRequest(
            agent="x", messages=[ChatMessage(role="user", content="Mara lifts the lamp C2.")]
        )
        value = generate_answer(module.OUTPUT_SCHEMA, request, mode)
        jsonschema.validate(value, module.OUTPUT_SCHEMA)
        if module is not character or any(value.values()):
            module.parse(value)


def test_suggest_asks_generically_from_the_character_prompt(state: SessionState) -> None:
    obs = observe(state, _history(), "C1")
    system, user = suggest.build_messages(obs, state.cast["C1"], 1)
    base_system, base_user = character.build_messages(obs, state.cast["C1"], 1)
    assert system == base_system
    assert user.content.split("## Your turn")[0] == base_user.content.split("## Your turn")[0]
    assert not check_prompt([system, user], [c.body.display_name for c in state.cast.values()])


def test_openings_use_the_public_scenario_only(state: SessionState) -> None:
    text = _text(openings.build_messages(state))
    assert state.scene.location in text
    assert all(s not in text for c in state.cast.values() for s in c.mind.secrets)


def test_prose_transcript_lines_never_change_after_they_were_recorded(
    state: SessionState,
) -> None:
    """An event keeps the reader text masked when it was recorded; a word spoken later does
    not reach back into it (the transcript stays a cacheable prefix). A record from before
    reader texts existed is masked with today's spoken words instead."""
    said_later = SpeechRecord(seq=3, turn_number=2, speaker="C2", author="character",
                              audience=HALL, text="The Quillbrook seal!")  # fmt: skip

    def event(seq: int, reader_text: str | None) -> EventRecord:
        return EventRecord(seq=seq, turn_number=1, speaker="C1", author="director",
                           audience=HALL, event_kind="action_outcome", actor_id="C1",
                           text="The Quillbrook seal falls.", reader_text=reader_text)  # fmt: skip

    kept = event(1, "The Quillbrook seal falls.")
    recorded = _text(prose.build_messages(state, [kept, said_later], []))
    assert "(event) The Quillbrook seal falls." in recorded
    legacy = _text(prose.build_messages(state, [event(1, None), said_later], []))
    assert "(event) The [...] [...] falls." in legacy  # masked with the words spoken since
