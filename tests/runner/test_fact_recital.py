"""Narration never recites the standing facts as a list, nor tells a fact twice
(`agents.fact_recital`): live in toll-house #35 (seed 49), turns 2, 7 and 8."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tavern.agents import fact_recital
from tavern.agents.fact_recital import STATE_ADVERBS
from tavern.llm.provider import ProviderRequest
from tavern.records import NarrationRecord, TurnInput
from tavern.runner import turn
from tavern.runner.limits import KernelLimits

from .kit import director_answer, recording_runner, run

RAIN = "Rain drums on the roof."
LIVE_TURN_7 = (
    "The toll box sits locked on the counting table, the lamp has perhaps two hours of oil."
)
LIVE_TURN_8 = (
    "The toll box sits locked on the counting table, and the lamp has perhaps two hours of oil."
    " The river is too high to cross until dawn, and the toll box sits locked on the counting"
    " table, and the lamp has perhaps two hours of oil."
)
LAMP = "The lamp has perhaps two hours of oil."
NEW_FACT = "A ferry bell rings twice across the dark water."


def _answers(narrations: list[str], new_facts: list[str]) -> Callable[[ProviderRequest], Any]:
    beats = iter(narrations)

    def answer(request: ProviderRequest) -> Any:
        if request.agent == "director":
            scene = {"add_facts": new_facts, "remove_facts": [], "new_location": None}
            return director_answer([], scene=scene)
        if request.agent == "prose":
            return {"narration": next(beats)}
        if request.agent.startswith("character"):  # "Well?" is a question: someone answers
            return {"speech": "Not tonight.", "thought": None, "action_intent": None}
        return {"outcome": "Nothing comes of it."}

    return answer


def _narrated(
    tmp_path: Path,
    *narrations: str,
    new_facts: tuple[str, ...] = (),
    scenario: str = "the-toll-house",
) -> list[str]:
    """The committed narrations of one speech turn per narration of the renderer's."""
    answers = _answers(list(narrations), list(new_facts))
    runner, store, _ = recording_runner(tmp_path, answers, KernelLimits())
    sid = run(runner.create_session(scenario)).id
    for _ in narrations:
        run(runner.play_turn(sid, TurnInput(speech="Well?")))
    return [r.text for r in store.history(sid) if isinstance(r, NarrationRecord)]


@pytest.mark.parametrize("recital", [LIVE_TURN_7, LIVE_TURN_8])
def test_a_list_of_the_standing_facts_is_cut(tmp_path: Path, recital: str) -> None:
    assert _narrated(tmp_path, f"{RAIN} {recital}") == [RAIN]


def test_negative_control_without_the_rule_the_live_recital_is_narrated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(turn, "drop_fact_recitals", lambda text, *_: text)
    assert _narrated(tmp_path, f"{RAIN} {LIVE_TURN_7}") == [f"{RAIN} {LIVE_TURN_7}"]


VINTNERS_WAKE_38 = (
    "The trapdoor to the cellar is shut and bolted from the hall side. The will is in the"
    " notary's satchel. The coffin lies open in the middle of the hall."
)
"""Vintners-wake #38 (seed 54), turn 8: the whole narration, the prompt's facts in order."""


def test_facts_listed_one_sentence_each_are_cut(tmp_path: Path) -> None:
    narrated = _narrated(tmp_path, f"{VINTNERS_WAKE_38} {RAIN}", scenario="the-vintners-wake")
    assert narrated == [RAIN]
    facts = VINTNERS_WAKE_38.split(". ")
    one = f"{facts[0]}. {RAIN}"
    assert fact_recital.drop_fact_recitals(one, facts, []) == one


def test_negative_control_without_the_rule_the_listed_facts_are_narrated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(turn, "drop_fact_recitals", lambda text, *_: text)
    narrated = _narrated(tmp_path, VINTNERS_WAKE_38, scenario="the-vintners-wake")
    assert narrated == [VINTNERS_WAKE_38]


def test_one_fact_is_told_once(tmp_path: Path) -> None:
    again = "The lamp has perhaps two hours of oil left now."
    assert _narrated(tmp_path, f"{RAIN} {LAMP}", f"Wind. {again}") == [f"{RAIN} {LAMP}", "Wind."]


def test_facts_the_beat_added_are_news(tmp_path: Path) -> None:
    told = f"{NEW_FACT[:-1]}, and the toll box sits locked on the counting table."
    assert _narrated(tmp_path, told, new_facts=(NEW_FACT,)) == [told]


@given(st.text(alphabet=st.characters(max_codepoint=0x4FF) | st.sampled_from("—–…“”‘’")))
def test_the_fast_word_split_reads_the_words_the_regex_reads(text: str) -> None:
    words = re.findall(r"[^\W\d_]+", text.casefold())
    assert fact_recital._words(text) == [w for w in words if w not in STATE_ADVERBS]


VW_FACTS = [f"{fact}." for fact in VINTNERS_WAKE_38.rstrip(".").split(". ")]
FILLERS = ["Rain drums on the roof.", "Agnese Corvo waits.", "Candles gutter low."]


@given(st.lists(st.sampled_from(VW_FACTS + FILLERS), min_size=1, max_size=6, unique=True))
def test_a_fact_sentence_stays_only_when_it_is_the_narrations_only_fact(
    sentences: list[str],
) -> None:
    told = [s for s in sentences if s in VW_FACTS]
    kept = fact_recital.drop_fact_recitals(" ".join(sentences), VW_FACTS, [])
    expected = sentences if len(told) < 2 else [s for s in sentences if s not in VW_FACTS]
    assert kept == " ".join(expected)


TOLL_HOUSE_61 = [
    "The toll house is too high to cross until dawn.",
    "Ilse Brandt fails, leaving the toll house too high to cross until dawn.",
]
"""Toll-house #61 (seed 75), turns 4 and 5: the river's fact told of the toll house."""


def test_a_fact_told_of_another_thing_is_cut(tmp_path: Path) -> None:
    narrations = [f"{RAIN} {TOLL_HOUSE_61[0]}", f"Wind. {TOLL_HOUSE_61[1]}"]
    assert _narrated(tmp_path, *narrations) == [RAIN, "Wind."]


@pytest.mark.parametrize(
    "kept",
    [
        "The river is now too high to cross until dawn.",  # the fact itself, told once
        "Teodor Vask keeps his hand in the notary's satchel.",  # only a place
        "The box is locked and the lamp is low.",  # a predicate too short
    ],
)
def test_a_fact_of_its_own_subject_or_a_short_predicate_stays(kept: str) -> None:
    facts = [*VW_FACTS, "The river is too high to cross until dawn."]
    assert fact_recital.without_misattributed(kept, facts) == kept


def test_a_misattribution_an_event_of_the_beat_says_stays() -> None:
    event = "The ford is too high to cross until dawn."
    facts = ["The river is too high to cross until dawn."]
    told = f"{RAIN} {event}"
    assert fact_recital.without_misattributed(told, facts, [event]) == told


def test_negative_control_without_the_tails_the_live_misattribution_is_narrated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fact_recital, "_fact_tails", lambda facts: ())
    assert _narrated(tmp_path, f"{RAIN} {TOLL_HOUSE_61[0]}") == [f"{RAIN} {TOLL_HOUSE_61[0]}"]
