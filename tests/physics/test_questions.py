"""Clamp `unanswered_question`: a question of the beat that no queued speaker heard gets a
hearer, chosen from the records alone."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tavern.physics.clamps as clamps_module
from tavern.physics import audience_for, clamp_decision
from tavern.physics.questions import asks
from tavern.records import NARRATOR, Audience, DirectorDecision, Scene, SpeechRecord

from .test_rules import CAST, FLAT, ZONED, ctx

WHO = "Who are you, exactly?"
"""The human's line of toll-house and vintners-wake soaks' turn 8: of 12 such beats, 7 called
no Character."""


def _said(
    seq: int, speaker: str, text: str, scene: Scene, to: list[str] | None = None
) -> SpeechRecord:
    return SpeechRecord(
        seq=seq, turn_number=1, speaker=speaker, author="human" if seq else "character",
        text=text, audience=audience_for(scene, speaker, "speech", to or ()),
    )  # fmt: skip


def _queue(history: list[SpeechRecord], queue: list[str], scene: Scene = FLAT) -> list[str]:
    d = DirectorDecision(next_speakers=queue)
    out, _ = clamp_decision(d, ctx(scene, history=history, cast=CAST, turn_number=1))
    return out.next_speakers


def test_a_question_no_one_was_queued_for_gets_a_hearer() -> None:
    assert _queue([_said(1, "C1", WHO, FLAT)], [NARRATOR]) == ["C2"]
    assert _queue([_said(1, "C1", WHO, FLAT)], []) == ["C2"]


def test_the_hearer_is_the_one_named_else_the_last_to_speak_else_the_first() -> None:
    assert _queue([_said(1, "C1", "Tomas, who are you?", FLAT)], [NARRATOR]) == ["C3"]
    assert _queue([_said(1, "C1", "Who is Lopes?", FLAT)], [NARRATOR]) == ["C2"]
    spoke = _said(0, "C3", "The ferry is late.", FLAT)
    assert _queue([spoke, _said(1, "C1", WHO, FLAT)], [NARRATOR]) == ["C3"]
    assert _queue([_said(1, "C2", WHO, FLAT)], [NARRATOR]) == ["C1"]


def test_a_queued_hearer_or_a_statement_changes_nothing() -> None:
    assert _queue([_said(1, "C1", WHO, FLAT)], ["C3"]) == ["C3"]
    assert _queue([_said(1, "C1", "Keep your voice down.", FLAT)], [NARRATOR]) == [NARRATOR]


def test_only_who_heard_the_question_answers_it() -> None:
    whisper = _said(1, "C1", WHO, FLAT, to=["C3"])
    assert _queue([whisper], ["C2"]) == ["C3", "C2"]
    # In ZONED, C3 is in the cellar, which hears the hall, and the hall hears nothing of it.
    assert _queue([_said(1, "C1", WHO, ZONED)], ["C3"], ZONED) == ["C3"]
    assert _queue([_said(1, "C3", WHO, ZONED)], [NARRATOR], ZONED) == [NARRATOR]
    alone = Scene(location="the inn", present=["C1"])
    assert _queue([_said(1, "C1", WHO, alone)], [NARRATOR], alone) == [NARRATOR]


def test_the_hearer_goes_first_within_the_bound() -> None:
    scene = Scene(location="the inn", present=["C1", "C2", "C3", "C4", "C5"])
    asked = SpeechRecord(
        seq=1, turn_number=1, speaker="C1", author="human", text=WHO,
        audience=Audience(origin="whisper", perceivers=["C1", "C5"]),
    )  # fmt: skip
    assert _queue([asked], ["C2", "C3", "C4"], scene) == ["C5", "C2", "C3"]


def test_negative_control_without_the_rule_the_question_hangs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    without = [r for r in clamps_module.CLAMP_RULES if r.name != "unanswered_question"]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", without)
    assert _queue([_said(1, "C1", WHO, FLAT)], [NARRATOR]) == [NARRATOR]


SLOTS = ["C1", "C2", "C3"]


@given(
    st.sampled_from(SLOTS),
    st.sampled_from([WHO, "Well?", "Rain. Is it late?", "Keep it down.", "It is late."]),
    st.lists(st.sampled_from([*SLOTS, NARRATOR, "C9"]), max_size=4),
    st.lists(st.sampled_from(SLOTS), unique=True),
)
def test_a_question_leaves_a_hearer_queued_and_the_clamp_idempotent(
    asker: str, text: str, queue: list[str], whisper_to: list[str]
) -> None:
    to = [s for s in whisper_to if s != asker] or None
    said = _said(1, asker, text, FLAT, to)
    context = ctx(FLAT, history=[said], cast=CAST, turn_number=1)
    out, _ = clamp_decision(DirectorDecision(next_speakers=queue), context)
    hearers = set(said.audience.perceivers) - {asker}
    assert 1 <= len(out.next_speakers) <= 3
    if asks(text) and hearers:
        first = next(s for s in out.next_speakers if s in hearers)
        assert asker not in out.next_speakers or out.next_speakers.index(
            first
        ) < out.next_speakers.index(asker)
    assert clamp_decision(out, context) == (out, [])


def test_a_hearer_queued_after_the_asker_moves_first() -> None:
    """Toll-house #41 (seed 55), turn 8: the Director queued the asker, then both hearers."""
    assert _queue([_said(1, "C1", WHO, FLAT)], ["C1", "C2", "C3"]) == ["C2", "C1", "C3"]
    assert _queue([_said(1, "C1", WHO, FLAT)], ["C2", "C1"]) == ["C2", "C1"]
    assert _queue([_said(1, "C1", WHO, FLAT)], ["C1"]) == ["C2", "C1"]


def test_a_question_a_hearer_spoke_after_is_no_longer_waiting() -> None:
    """Toll-house #43 (seed 57), turn 8: Maren Holt's question of the last beat, then the
    human's own; the Director queued Maren Holt, and the old rule put the human's character
    before her for Maren's question, ending the beat at once."""
    theirs = SpeechRecord(
        seq=0, turn_number=0, speaker="C2", author="character", text="Where is the key?",
        audience=audience_for(FLAT, "C2", "speech"),
    )  # fmt: skip
    assert _queue([theirs, _said(1, "C1", WHO, FLAT)], ["C2"]) == ["C2"]
    assert _queue([theirs], [NARRATOR]) == ["C1"]  # unanswered, it still queues a hearer
