"""A narration sentence telling again, under another subject, what an earlier narration or
event told (`agents.retold_subject`)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tavern.agents import prose
from tavern.agents.retold_subject import drop_retold_subjects, predicate_keys
from tavern.agents.told import told_sentences
from tavern.records import NARRATOR, Audience, EventRecord, NarrationRecord

NAMES = {"C1": "Ilse Brandt", "C2": "Maren Holt", "C3": "Teodor Vask"}
TURN_2 = (
    "Ilse Brandt makes an attempt, walking slowly to the nearest window and looking outside."
    " She sees a tall window with a small lamp on it, its lights flickering in the sunlight."
)
"""Toll-house soak #29 (seed 43), turn 2: the narration (its first sentence is cut by the
marker rule)."""
TURN_5 = (
    "Ilse Brandt reaches for the handle. Ilse Brandt sees a tall window with a small lamp on"
    " it, its lights flickering in the sunlight."
)
"""Turn 5 of the same run, its first sentence changed to one nobody told."""


def _narration(text: str, turn: int) -> NarrationRecord:
    return NarrationRecord(
        seq=turn * 10, turn_number=turn, speaker=NARRATOR, author="renderer", text=text,
        audience=Audience(origin="public"),
    )  # fmt: skip


def _event(text: str, turn: int) -> EventRecord:
    return EventRecord(
        seq=turn * 10 + 1, turn_number=turn, speaker="C1", author="director",
        event_kind="action_outcome", text=text, actor_id="C1",
        audience=Audience(origin="zone", perceivers=list(NAMES)),
    )  # fmt: skip


def _parse(text: str, earlier: list[NarrationRecord | EventRecord], events: list[str]) -> str:
    told = told_sentences(earlier, NAMES)
    return prose.parse({"narration": text}, told, names=list(NAMES.values()), events=events)


def test_the_live_retelling_under_her_name_goes() -> None:
    assert _parse(TURN_5, [_narration(TURN_2, 2)], []) == "Ilse Brandt reaches for the handle."


def test_negative_control_without_the_rule_the_retelling_stays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(prose, "drop_retold_subjects", lambda text, *_: text)
    assert _parse(TURN_5, [_narration(TURN_2, 2)], []) == TURN_5


def test_an_earlier_events_act_told_of_a_pronoun_goes() -> None:
    earlier = [_event("C1 walks slowly to the nearest window and looks outside.", 2)]
    text = "She walks slowly to the nearest window and looks outside. The lamp gutters low."
    assert _parse(text, earlier, []) == "The lamp gutters low."


def test_this_beats_event_may_be_told_though_an_earlier_one_said_it() -> None:
    """Maren repeats Ilse's act of turn 2: her beat's narration tells it."""
    earlier = [_event("C1 walks slowly to the nearest window and looks outside.", 2)]
    now = "Maren Holt walks slowly to the nearest window and looks outside."
    assert _parse(now, earlier, [now]) == now


@pytest.mark.parametrize(
    "text",
    [
        "Maren Holt nods slowly.",  # a short predicate recurs in earnest
        "She sees a small lamp flickering on the counting table tonight.",  # another predicate
    ],
)
def test_short_or_new_predicates_stay(text: str) -> None:
    assert _parse(text, [_narration(TURN_2, 2)], []) == text


SUBJECTS = st.sampled_from(["Ilse Brandt", "Ilse", "She", "He", "They", "Maren Holt"])
PREDICATES = st.sampled_from(
    [
        "walks slowly to the nearest window and looks outside",
        "sets the candle on the coffin's edge and waits",
    ]
)


@given(SUBJECTS, SUBJECTS, PREDICATES)
def test_any_subject_swap_of_a_told_predicate_goes(first: str, second: str, said: str) -> None:
    names = list(NAMES.values())
    told = predicate_keys([f"{first} {said}."], names)
    assert drop_retold_subjects(f"{second} {said}. Rain falls.", told, names) == "Rain falls."


TH_42 = (
    "Ilse Brandt walks slowly to the nearest window and looks outside. He walks slowly to the"
    " nearest window and looks outside."
)
"""Toll-house #42 (seed 56), turn 2: the whole narration, after the beat's one event."""
TH_42_EVENT = "Ilse Brandt walks slowly to the nearest window and looks outside."


def test_a_predicate_told_twice_in_one_narration_is_told_once() -> None:
    assert _parse(TH_42, [], [TH_42_EVENT]) == TH_42_EVENT


def test_negative_control_without_the_rule_the_second_telling_stays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(prose, "drop_retold_subjects", lambda text, *_: text)
    assert _parse(TH_42, [], [TH_42_EVENT]) == TH_42


@given(SUBJECTS, SUBJECTS, PREDICATES, PREDICATES)
def test_within_a_narration_only_a_predicate_told_before_goes(
    first: str, second: str, said: str, then: str
) -> None:
    text = f"{first} {said}. {second} {then}."
    kept = drop_retold_subjects(text, frozenset(), list(NAMES.values()))
    assert kept == (f"{first} {said}." if said == then else text)
