"""Clamps `location` and `unanswered_question` (`physics.structure`): properties and negative
controls; the incidents are rows of their case tables. (The other structural rules are
covered by `test_rules.py` and `test_properties.py`.)"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tavern.physics.clamps as clamps_module
import tavern.physics.structure as structure
from tavern.physics import ClampContext, audience_for, clamp_decision
from tavern.physics.structure import MAX_LOCATION_WORDS, _place_words, asks
from tavern.records import NARRATOR, Audience, DirectorDecision, Scene, SceneDelta, SpeechRecord

from .test_rules import CAST, FLAT, ctx

TOLL = Scene(
    location="the toll house at the river crossing",
    description="A single low room of tarred timber: a hearth of flat river stones, a counting"
    " table with a toll box and a ledger, a lamp on a hook, rain drumming on the shutters.",
    present=["C1", "C2", "C3"],
    facts=["The river is too high to cross until dawn.", "The lamp has perhaps two hours of oil."],
)
STAGE_WORDS = sorted({w for t in (TOLL.location, TOLL.description, *TOLL.facts) for w in t.split()})
SMALL = st.sampled_from(["the", "at", "of", "by", "near", "a", "da", "no"])
NEW = st.sampled_from(["landing", "chapel", "mill", "orchard", "quay", "moinho"])


def _moved(new_location: str) -> str | None:
    context = ClampContext(scene=TOLL, public_texts=["The Toll House at Low Water"])
    proposal = DirectorDecision(
        scene=SceneDelta(new_location=new_location), next_speakers=[NARRATOR]
    )
    out, _ = clamp_decision(proposal, context)
    assert clamp_decision(out, context) == (out, [])
    return out.scene.new_location


@given(st.lists(st.sampled_from(STAGE_WORDS) | SMALL, min_size=1, max_size=10))
def test_a_proposal_of_stage_words_never_moves_the_scene(words: list[str]) -> None:
    assert _moved(" ".join(words)) is None


@given(st.lists(st.sampled_from(STAGE_WORDS) | SMALL, max_size=10), NEW, st.integers(0))
def test_a_short_name_with_a_word_of_its_own_moves_it(words: list[str], new: str, at: int) -> None:
    words.insert(at % (len(words) + 1), new)
    proposal = " ".join(words)
    fits = len(_place_words(proposal)) <= MAX_LOCATION_WORDS
    assert _moved(proposal) == (proposal if fits else None)


def test_negative_control_without_the_stage_test_a_restatement_moves(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert _moved("Low Water at Low Water") is None
    monkeypatch.setattr(structure, "restates_the_stage", lambda *_: False)
    assert _moved("Low Water at Low Water") == "Low Water at Low Water"


SLOTS = ["C1", "C2", "C3"]
WHO = "Who are you, exactly?"


def _said(speaker: str, text: str, to: list[str] | None = None) -> SpeechRecord:
    return SpeechRecord(
        seq=1, turn_number=1, speaker=speaker, author="human", text=text,
        audience=audience_for(FLAT, speaker, "speech", to or ()),
    )  # fmt: skip


@given(
    st.sampled_from(SLOTS),
    st.sampled_from([WHO, "Well?", "Rain. Is it late?", "Keep it down.", "Quem é você?"]),
    st.lists(st.sampled_from([*SLOTS, NARRATOR, "C9"]), max_size=4),
    st.lists(st.sampled_from(SLOTS), unique=True),
)
def test_a_question_leaves_a_hearer_queued_first_and_the_clamp_idempotent(
    asker: str, text: str, queue: list[str], whisper_to: list[str]
) -> None:
    said = _said(asker, text, [s for s in whisper_to if s != asker] or None)
    context = ctx(FLAT, history=[said], cast=CAST, turn_number=1)
    out, _ = clamp_decision(DirectorDecision(next_speakers=queue), context)
    hearers = set(said.audience.perceivers) - {asker}
    assert 1 <= len(out.next_speakers) <= 3
    if asks(text) and hearers:
        first = next(s for s in out.next_speakers if s in hearers)
        if asker in out.next_speakers:
            assert out.next_speakers.index(first) < out.next_speakers.index(asker)
    assert clamp_decision(out, context) == (out, [])


def test_the_hearer_goes_first_within_the_bound() -> None:
    scene = Scene(location="the inn", present=["C1", "C2", "C3", "C4", "C5"])
    asked = SpeechRecord(
        seq=1, turn_number=1, speaker="C1", author="human", text=WHO,
        audience=Audience(origin="whisper", perceivers=["C1", "C5"]),
    )  # fmt: skip
    context = ctx(scene, history=[asked], cast=CAST, turn_number=1)
    out, _ = clamp_decision(DirectorDecision(next_speakers=["C2", "C3", "C4"]), context)
    assert out.next_speakers == ["C5", "C2", "C3"]


def test_negative_control_without_the_rule_the_question_hangs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    context = ctx(FLAT, history=[_said("C1", WHO)], cast=CAST, turn_number=1)
    proposal = DirectorDecision(next_speakers=[NARRATOR])
    assert clamp_decision(proposal, context)[0].next_speakers == ["C2"]
    without = [r for r in clamps_module.CLAMP_RULES if r.name != "unanswered_question"]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", without)
    assert clamp_decision(proposal, context)[0].next_speakers == [NARRATOR]
