"""Clamp `mind_copy`: the Director never recites a character's private mind in an event or a
scene fact; it may still decide what happens, in its own words."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import tavern.physics.clamps as clamps_module
from tavern.physics import ClampContext, clamp_decision
from tavern.physics.duplicates import before_repeated_clause
from tavern.physics.mind_copy import MIN_RUN
from tavern.records import (
    NARRATOR,
    Audience,
    Body,
    Character,
    DirectorDecision,
    HistoryRecord,
    Mind,
    PerceptionEvent,
    Scene,
    SceneDelta,
)
from tavern.text import lexicon_for

from .test_rules import attempt, speech

SECRET = (
    "She found a brass seal ring in the bottom of her father's ferry an hour ago and has it in"
    " her pocket."
)
PERSONALITY = (
    "Watchful, blunt, fond of bargains. Speaks in short sentences and notices hands more than"
    " faces."
)
GOAL = "Learn whether the will is in the notary's satchel before midnight."
CAST = {
    "C1": Character(
        id="ilse-brandt",
        mind=Mind(personality=PERSONALITY, secrets=[SECRET], goals=[GOAL]),
        body=Body(display_name="Ilse Brandt", description_ref="the barefoot girl"),
    ),
    "C2": Character(
        id="maren-holt",
        mind=Mind(secrets=["Maren sold the ferry's papers to the guild for a silver mark."]),
        body=Body(display_name="Maren Holt", description_ref="the ferrywoman"),
    ),
}
FACT = "The will is in the notary's satchel."
SCENE = Scene(location="the toll house", present=["C1", "C2"], facts=[FACT])

LIVE_EVENT = (
    "Ilse Brandt walks slowly to the nearest window and looks outside. She finds a brass seal"
    " ring in the bottom of her father's ferry an hour ago and has it in her pocket."
)
"""Toll-house soak #5, turn 8 (29aa1e6): four such events, witnessed by C2 and C3."""
LIVE_PERSONALITY = "Ilse Brandt speaks in short sentences and notices hands more than faces."
"""Toll-house soak #2, turn 9 (stop 13)."""


ATTEMPT = attempt(0, "C1", "walks slowly to the nearest window and looks outside")
"""Ilse's attempt, which the fixtures' events adjudicate (clamp `agency` keeps her acts)."""


def _event(text: str) -> PerceptionEvent:
    return PerceptionEvent(
        kind="action_outcome", text=text, actor_id="C1", witness_ids=["C1", "C2"]
    )


def _clamped(
    texts: list[str],
    facts: list[str] = (),
    history: list[HistoryRecord] = (),  # type: ignore[assignment]
) -> tuple[list[str], list[str]]:
    ctx = ClampContext(scene=SCENE, cast=CAST, history=[ATTEMPT, *history])
    proposal = DirectorDecision(
        events=[_event(t) for t in texts],
        scene=SceneDelta(add_facts=list(facts)),
        next_speakers=[NARRATOR],
    )
    out, _ = clamp_decision(proposal, ctx)
    assert clamp_decision(out, ctx) == (out, [])
    return [e.text for e in out.events], out.scene.add_facts


def test_the_live_recitals_go_and_the_outcome_stays() -> None:
    events, _ = _clamped([LIVE_EVENT, LIVE_PERSONALITY])
    assert events == ["Ilse Brandt walks slowly to the nearest window and looks outside."]


def test_a_recited_fact_goes() -> None:
    assert _clamped([], ["Maren sold the ferry's papers to the guild.", "The lamp gutters."]) == (
        [],
        ["The lamp gutters."],
    )


@pytest.mark.parametrize(
    "text",
    [
        "A brass ring slips from Ilse's pocket and rolls across the floor.",  # own words
        "Ilse found a brass seal ring.",  # five words of the secret in a row
        "The will is in the notary's satchel, under the candle.",  # the goal quotes the stage
    ],
)
def test_own_words_short_overlaps_and_public_words_stay(text: str) -> None:
    assert _clamped([text]) == ([text], [])


def test_a_secret_said_aloud_is_no_longer_only_in_a_mind() -> None:
    said = speech(
        1,
        "C2",
        "Maren sold the ferry's papers to the guild for a silver mark, I saw it.",
        Audience(origin="public", perceivers=["C1", "C2"]),
    )
    text = "Ilse repeats that Maren sold the ferry's papers to the guild."
    assert _clamped([text], history=[said]) == ([text], [])
    assert _clamped([text]) == ([], [])


WORDS = st.lists(st.sampled_from("lamp rain bolt door coin rope cask".split()), min_size=2)
SENTENCE = WORDS.map(lambda w: " ".join(w).capitalize() + ".")
SECRETS = [SECRET, "Maren sold the ferry's papers to the guild for a silver mark."]


@given(st.lists(st.tuples(SENTENCE, st.booleans()), min_size=1, max_size=5), st.data())
def test_no_recital_survives_and_every_other_sentence_does(
    plan: list[tuple[str, bool]], data: st.DataObject
) -> None:
    secret = data.draw(st.sampled_from(SECRETS))
    words = secret.split()
    start = data.draw(st.integers(0, len(words) - MIN_RUN))
    end = data.draw(st.integers(start + MIN_RUN, len(words)))
    recital = " ".join(words[start:end]).rstrip(".").capitalize() + "."
    text = " ".join(recital if is_recital else s for s, is_recital in plan)
    expected = " ".join(s for s, is_recital in plan if not is_recital)
    assume(before_repeated_clause(text, lexicon_for("en")) == text)  # the loop rule's
    assert _clamped([text]) == ([expected] if expected else [], [])


def test_negative_control_without_the_rule_the_secret_is_an_event(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    without = [r for r in clamps_module.CLAMP_RULES if r.name != "mind_copy"]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", without)
    assert _clamped([LIVE_EVENT]) == ([LIVE_EVENT], [])


def test_a_run_across_a_sentence_break_is_no_recital() -> None:
    """'she found a brass seal ring' spans two sentences, neither of which recites."""
    text = "She found a brass.  Seal ring, the girl says softly."
    assert _clamped([text]) == ([text], [])
