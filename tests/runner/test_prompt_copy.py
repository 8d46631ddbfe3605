"""The runner gives clamp `prompt_copy` (`physics.copied`) the Director's fixed prompt sentences
and the session title; the rule's cases are rows of `tests/physics/cases/prompt_copy.jsonl`."""

from __future__ import annotations

from tavern.agents import outcome
from tavern.physics.clamps import ClampContext, clamp_decision
from tavern.records import NARRATOR, DirectorDecision, PerceptionEvent, Scene
from tavern.runner.turn import PROMPT_SENTENCES

from .kit import KitFactory, events_committed

STAGE_COPY = "Everyone present sees and hears everyone."
QUESTION_COPY = "No dialogue, no thoughts."
"""Toll-house #49 (seed 63), turn 2: the events the human saw, and the renderer narrated."""


def test_the_runner_gives_the_clamps_its_prompts_sentences() -> None:
    assert PROMPT_SENTENCES == outcome.prompt_sentences()
    assert any("No dialogue and no thoughts" in s for s in PROMPT_SENTENCES)


COPIES = [
    {"kind": "arrival", "text": text, "actor_id": "C1",
     "witness_ids": ["C1", "C2", "C4", "C5"], "utterance_ref": None}
    for text in (STAGE_COPY, QUESTION_COPY)
]  # fmt: skip


def _events(make_kit: KitFactory) -> list[str]:
    return events_committed(make_kit, COPIES)


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


def test_the_runner_gives_the_clamps_the_title(make_kit: KitFactory) -> None:
    titled = [{**COPIES[0], "text": "The Vintner's Wake arrives at the hall."}]
    assert events_committed(make_kit, titled) == []


BLEND = "The moment is exhausted, so no one needs to."
"""Toll-house #63 (seed 77), turn 9: the follow-up outcome's second sentence, committed as an
event of the human's character: two instruction lines in one."""
