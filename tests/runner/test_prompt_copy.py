"""An event sentence that is one of the Director's own prompt sentences goes
(`physics.prompt_copy`): nothing in it happened."""

from __future__ import annotations

import pytest

from tavern.agents import outcome
from tavern.physics import clamps as clamps_module
from tavern.physics import prompt_copy
from tavern.physics.clamps import ClampContext, clamp_decision
from tavern.physics.prompt_copy import copies_a_prompt_sentence, prompt_keys
from tavern.records import NARRATOR, DirectorDecision, PerceptionEvent, Scene
from tavern.runner.turn import PROMPT_SENTENCES

from .kit import KitFactory, events_committed

STAGE_COPY = "Everyone present sees and hears everyone."
QUESTION_COPY = "No dialogue, no thoughts."
"""Toll-house #49 (seed 63), turn 2: the events the human saw, and the renderer narrated."""
KEYS = prompt_keys(outcome.prompt_sentences())


@pytest.mark.parametrize("text", [STAGE_COPY, QUESTION_COPY, "No dialogue, no thoughts"])
def test_the_live_copies_are_known(text: str) -> None:
    assert copies_a_prompt_sentence(text, KEYS)


@pytest.mark.parametrize(
    "text",
    [
        "Everyone hears the bell toll.",
        "The trapdoor opens.",
        "Nobody moves.",
        "Maren Holt sees the toll box and hears the rain.",
        "Ilse Brandt reaches the window; the shutters hold.",
        "This attempts fail.",  # vintners-wake #47 (seed 63), turn 2: the walk's outcome
        "Her attempts fail.",
    ],
)
def test_events_of_the_story_stay(text: str) -> None:
    assert not copies_a_prompt_sentence(text, KEYS)


def test_the_runner_gives_the_clamps_its_prompts_sentences() -> None:
    assert PROMPT_SENTENCES == outcome.prompt_sentences()
    assert any("No dialogue and no thoughts" in s for s in PROMPT_SENTENCES)


def test_a_copied_sentence_goes_and_the_rest_of_its_event_stays() -> None:
    events = [
        PerceptionEvent(kind="arrival", text=STAGE_COPY, witness_ids=["C1"]),
        PerceptionEvent(
            kind="world_event", text=f"The bell tolls. {QUESTION_COPY}", witness_ids=["C1"]
        ),
    ]
    ctx = ClampContext(scene=Scene(location="x", present=["C1"]), prompt_sentences=PROMPT_SENTENCES)
    out, changes = clamp_decision(DirectorDecision(events=events, next_speakers=[NARRATOR]), ctx)
    assert [e.text for e in out.events] == ["The bell tolls."]
    assert {c.rule for c in changes} == {"prompt_copy"}
    assert clamp_decision(out, ctx) == (out, [])


COPIES = [
    {"kind": "arrival", "text": text, "actor_id": "C1",
     "witness_ids": ["C1", "C2", "C4", "C5"], "utterance_ref": None}
    for text in (STAGE_COPY, QUESTION_COPY)
]  # fmt: skip


def _events(make_kit: KitFactory) -> list[str]:
    return events_committed(make_kit, COPIES)


def test_the_live_events_are_not_committed(make_kit: KitFactory) -> None:
    assert _events(make_kit) == []


def test_negative_control_without_the_rule_they_are_witnessed(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    without = [r for r in clamps_module.CLAMP_RULES if r.name != "prompt_copy"]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", without)
    assert _events(make_kit) == [STAGE_COPY, QUESTION_COPY]


def test_negative_control_without_the_outcome_words_an_outcome_reads_as_a_copy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(prompt_copy, "_OUTCOME_WORDS", frozenset())
    assert copies_a_prompt_sentence("This attempts fail.", KEYS)


TITLED = [
    "The toll House at Low Water arrives at the river crossing.",  # #62 (seed 76), turn 9
    "The toll house at Low Water opens with a small sigh and an audible voice.",  # #61, turn 1
    "The toll House at Low Water is now open.",  # #59 (seed 73), turn 1
]
"""The toll-house's title as an event's subject, live."""
TOLL_HOUSE = Scene(location="the toll house at the river crossing", present=["C1"])


def _clamped_titled(texts: list[str], title: str, scene: Scene = TOLL_HOUSE) -> list[str]:
    events = [PerceptionEvent(kind="world_event", text=t, witness_ids=["C1"]) for t in texts]
    ctx = ClampContext(scene=scene, title=title)
    out, _ = clamp_decision(DirectorDecision(events=events, next_speakers=[NARRATOR]), ctx)
    return [e.text for e in out.events]


def test_the_title_as_a_subject_goes_and_a_place_named_by_it_stays() -> None:
    title = "The Toll House at Low Water"
    kept = ["Rain falls on the toll house at Low Water.", "The toll house creaks."]
    assert _clamped_titled([*TITLED, *kept], title) == kept
    inn = Scene(location="the Sleeping Fox Inn by the road", present=["C1"])
    opens = "The Sleeping Fox Inn shakes in the wind."
    assert _clamped_titled([opens], "The Sleeping Fox Inn", inn) == [opens]


def test_the_runner_gives_the_clamps_the_title(make_kit: KitFactory) -> None:
    titled = [{**COPIES[0], "text": "The Vintner's Wake arrives at the hall."}]
    assert events_committed(make_kit, titled) == []


def test_negative_control_without_the_title_the_live_subjects_are_events() -> None:
    assert _clamped_titled(TITLED, "") == TITLED


BLEND = "The moment is exhausted, so no one needs to."
"""Toll-house #63 (seed 77), turn 9: the follow-up outcome's second sentence, committed as an
event of the human's character: two instruction lines in one."""


@pytest.mark.parametrize(
    ("text", "copy"),
    [
        (BLEND, True),
        ("The moment passes, and the bell tolls.", False),
        ("Ilse Brandt waits, and the moment is exhausted.", False),  # "waits" is the story's
        ("The fire dies, so nobody needs to speak of it.", False),
    ],
)
def test_a_blend_of_instruction_lines_is_a_copy(text: str, copy: bool) -> None:
    assert copies_a_prompt_sentence(text, KEYS) is copy


def test_negative_control_without_blends_the_live_sentence_is_story(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(prompt_copy, "_blends", lambda *args: False)
    assert not copies_a_prompt_sentence(BLEND, KEYS)
