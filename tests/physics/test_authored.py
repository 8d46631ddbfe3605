"""Clamp `authored_speech`: an event whose text is dialogue the Director wrote is dropped."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tavern.physics.authored as authored
import tavern.physics.clamps as clamps_module
from tavern.physics import ClampContext, clamp_decision
from tavern.physics.authored import SPOKEN_MARKS, is_authored_speech
from tavern.records import NARRATOR, DirectorDecision, PerceptionEvent, Scene

from .test_properties import SETTINGS, with_planted_event, world_and_decision
from .test_rules import CAST

SIGN = "A placard by the gate reads: Tolls paid in coin, never in kind."
SCENE = Scene(location="the toll house", present=["C1", "C2", "C3"], facts=[SIGN])

LIVE_DIALOGUE = [
    # Director event texts of the soaks' journals (stops 12 to 14), all 42 of these kinds.
    "I don't have any plans or goals yet. I'm just here to help you with what I need.",
    "I think we should open it now.",
    "I'm sorry, but I can't assist with that.",
    "We should open it now.",
    "Good evening to you all. What brings everyone here tonight? What brings you here tonight?"
    " What brings you here tonight? What brings you here tonight? What bring",
    "Who are you, exactly?",
    "Keep your voice down.",
    "Someone here is lying to me",
]
LIVE_EVENTS = [
    # Third-person events of the same journals: none has a first-person word.
    "The trapdoor to the cellar is shut and bolted from the hall side.",
    "Agnese Corvo walks slowly to the nearest window and looks outside.",
    "The will is in the notary's satchel.",
    "Dorotea Sand looks at the will and the trapdoor to the cellar.",
]


def _event(text: str, kind: str = "world_event") -> PerceptionEvent:
    return PerceptionEvent(kind=kind, text=text, witness_ids=["C1", "C2", "C3"])  # type: ignore[arg-type]


def _clamped(texts: list[str]) -> list[str]:
    ctx = ClampContext(scene=SCENE, cast=CAST)
    proposal = DirectorDecision(events=[_event(t) for t in texts], next_speakers=[NARRATOR])
    out, _ = clamp_decision(proposal, ctx)
    assert clamp_decision(out, ctx) == (out, [])
    return [e.text for e in out.events]


def test_the_live_dialogue_goes_and_the_live_events_stay() -> None:
    assert _clamped(LIVE_DIALOGUE + LIVE_EVENTS) == LIVE_EVENTS


@pytest.mark.parametrize(
    "text",
    [
        'Rui shouts "Open the gate at once!" from the stair.',
        "Ilse asks: 'Who rang the bell tonight?'",
        "Eu acho que devemos abrir agora.",
        "A porta é nossa, diz Rui.",
    ],
)
def test_quoted_or_first_person_words_are_dialogue(text: str) -> None:
    assert is_authored_speech(text)
    assert _clamped([text]) == []


@pytest.mark.parametrize(
    "text",
    [
        "Ilse taps the placard: 'Tolls paid in coin, never in kind.'",  # public scene text
        "The wind howls; a shutter bangs twice.",
        "The ostler names the horse 'Ash'.",  # a name, not speech
    ],
)
def test_public_quotes_and_neutral_text_stay(text: str) -> None:
    assert _clamped([text]) == [text]


WORD = st.sampled_from("the bell gate rain lamp stair rope horse coin bolt door".split())
PRONOUN = st.sampled_from(
    ["I", "me", "my", "we", "us", "our", "you", "your", "eu", "nós", "minha", "você", "?"]
)


@given(st.lists(WORD, min_size=2, max_size=10), PRONOUN, st.integers(min_value=0))
def test_a_first_or_second_person_word_or_a_question_anywhere_makes_dialogue(
    words: list[str], pronoun: str, at: int
) -> None:
    text = " ".join(words).capitalize() + "."
    assert not is_authored_speech(text)
    words.insert(at % (len(words) + 1), pronoun)
    assert is_authored_speech(" ".join(words) + ".")


@SETTINGS
@given(world_and_decision(), st.data())
def test_no_clamped_event_is_in_the_first_or_second_person(
    pair: tuple[object, object], data: st.DataObject
) -> None:
    world, proposal = pair
    assert isinstance(proposal, DirectorDecision)
    proposal = with_planted_event(proposal, "I think we should open it now.", data)
    ctx = ClampContext(scene=world.state.scene, history=world.history)  # type: ignore[attr-defined]
    clamped, _ = clamp_decision(proposal, ctx)
    assert not any(SPOKEN_MARKS.search(e.text) for e in clamped.events)


def test_negative_control_without_the_rule_the_dialogue_is_an_event(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    without = [r for r in clamps_module.CLAMP_RULES if r.name != "authored_speech"]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", without)
    assert _clamped(LIVE_DIALOGUE[:1]) == LIVE_DIALOGUE[:1]


MIXED = st.sampled_from(
    "I i me ME We you YOUR você VOCÊ Nós eu ? Item rain the Hello hello, Hey! there, .".split()
)


@given(st.lists(MIXED, max_size=8))
def test_the_lower_case_shortcut_agrees_with_the_pattern(words: list[str]) -> None:
    text = " ".join(words)
    assert is_authored_speech(text) == bool(SPOKEN_MARKS.search(text))


LIVE_GREETINGS = ["Hello, C3.", "Hello, C1.", "Hello, Maren Holt."]
"""Toll-house #65 (seed 79), turns 2-4 and 8-10: Director events, the second a line for the
human's character (C1)."""


def test_the_live_greetings_go() -> None:
    assert _clamped([*LIVE_GREETINGS, *LIVE_EVENTS]) == LIVE_EVENTS


@pytest.mark.parametrize(
    "text",
    [
        "Welcome news arrives from the ferry.",
        "Maren says hello and sits.",
        "Greetings are exchanged by the fire.",
        "A hey-wain creaks past the gate.",
    ],
)
def test_a_greeting_word_not_said_to_someone_stays(text: str) -> None:
    assert not is_authored_speech(text)


def test_negative_control_without_the_greeting_pattern_the_greetings_are_events(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pattern = authored.SPOKEN_MARKS.pattern.replace(authored.GREETING, "")
    monkeypatch.setattr(authored, "SPOKEN_MARKS", re.compile(pattern))
    lower = pattern.replace(r"\bI\b|", "", 1).replace("(?i:", "(?:")
    monkeypatch.setattr(authored, "_SPOKEN_LOWER", re.compile(lower))
    assert _clamped(LIVE_GREETINGS) == LIVE_GREETINGS
