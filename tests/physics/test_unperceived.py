"""Clamps `told_mind` and `authored_speech` (`physics.unperceived`): properties in both
languages and negative controls; the incidents are rows of their case tables."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tavern.physics import ClampContext, clamp_decision
from tavern.physics.unperceived import _gerunds, speaks, without_thinking_clauses
from tavern.records import DirectorDecision
from tavern.text import lexicon_for

from .test_properties import SETTINGS, with_planted_event, world_and_decision

EN, PT = lexicon_for("en"), lexicon_for("pt-BR")
WORDS = {  # no determiner: after one, "nós" is a noun
    "en": "bell gate rain lamp stair rope horse coin bolt door".split(),
    "pt-BR": "sino portão chuva lâmpada escada corda cavalo moeda porta".split(),
}
PERSON = {
    "en": ["I", "me", "my", "we", "us", "our", "you", "your", "?"],
    "pt-BR": ["eu", "nós", "minha", "você", "vocês", "teu", "comigo", "?"],
}


@pytest.mark.parametrize("language", ["en", "pt-BR"])
@given(data=st.data())
def test_a_person_word_or_a_question_anywhere_makes_dialogue(
    language: str, data: st.DataObject
) -> None:
    lex = lexicon_for(language)
    said = data.draw(st.lists(st.sampled_from(WORDS[language]), min_size=2, max_size=10))
    assert not speaks(" ".join(said).capitalize() + ".", lex)
    at = data.draw(st.integers(0, len(said)))
    said.insert(at, data.draw(st.sampled_from(PERSON[language])))
    assert speaks(" ".join(said) + ".", lex)


def test_negative_control_a_lexicon_without_the_second_person_misses_you() -> None:
    from dataclasses import replace

    assert speaks("The rope is yours.", EN)
    assert not speaks("The rope is yours.", replace(EN, second_person=frozenset()))


@SETTINGS
@given(world_and_decision(), st.data())
def test_no_clamped_event_is_a_speakers(pair: tuple[object, object], data: st.DataObject) -> None:
    world, proposal = pair
    assert isinstance(proposal, DirectorDecision)
    proposal = with_planted_event(proposal, "I think we should open it now.", data)
    ctx = ClampContext(scene=world.state.scene, history=world.history)  # type: ignore[attr-defined]
    clamped, _ = clamp_decision(proposal, ctx)
    assert not any(speaks(e.text, EN) for e in clamped.events)


@pytest.mark.parametrize("language", ["en", "pt-BR"])
@given(data=st.data())
def test_a_thinking_clause_never_survives_and_cutting_is_idempotent(
    language: str, data: st.DataObject
) -> None:
    lex = lexicon_for(language)
    head = data.draw(st.sampled_from(["Rain falls", "A chuva cai", "The lamp gutters low"]))
    verb = data.draw(st.sampled_from(_gerunds(lex)))
    text = f"{head}, {verb} about the coin."
    cut = without_thinking_clauses(text, lex)
    assert cut == f"{head}."
    assert without_thinking_clauses(cut, lex) == cut


def test_every_language_has_gerunds_of_thinking() -> None:
    assert "thinking" in _gerunds(EN) and "pensando" in _gerunds(PT)
