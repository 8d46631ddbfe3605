"""An event may not open or shut a standing thing that nobody tried (`physics.fact_state`)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tavern.physics.clamps as clamps_module
from tavern.physics import ClampContext, clamp_decision
from tavern.physics.fact_state import States, stated
from tavern.records import (
    NARRATOR,
    DirectorDecision,
    EventRecord,
    HistoryRecord,
    PerceptionEvent,
    Scene,
)

from .test_rules import CAST, EVERYONE, attempt


def without_state_flips(text: str, facts: list[str], events: list[str]) -> str:
    """The filter rule `state_flip` on a narration, after `events` (texts)."""
    from tavern.filters import FilterContext, apply_rules
    from tavern.filters.state_flip import RULE
    from tavern.records import Audience

    told = tuple(
        EventRecord(seq=i, turn_number=1, speaker="world", author="director",
                    audience=Audience(origin="public"), event_kind="world_event", text=t)
        for i, t in enumerate(events)
    )  # fmt: skip
    ctx = FilterContext(facts=tuple(facts), history=told)
    return apply_rules([RULE], {"narration": text}, ctx, {RULE.name}).texts.get("narration", "")


TOLL_FACTS = [
    "The river is too high to cross until dawn.",
    "The toll box sits locked on the counting table.",
    "The lamp has perhaps two hours of oil.",
]
WAKE_FACTS = [
    "The trapdoor to the cellar is shut and bolted from the hall side.",
    "The will is in the notary's satchel.",
    "The coffin lies open in the middle of the hall.",
]
HALL = ["C1", "C2", "C3"]
OPENED = "The toll box is now open on the counting table."
LOCKED = "The toll box is now locked on the counting table."
LIVE = [
    "The toll house at Low Water starts to open for the day.",
    OPENED,
    LOCKED,
]
"""Toll-house soak #53 (seed 67), turn 2: the Director's events, while the human walked to the
window and Maren Holt tried to "sign book"; the open box was committed and narrated. LOCKED,
the standing fact told with "is" for "sits", goes as a restatement (clamp `restated_event`)."""
LIVE_ATTEMPTS = [
    ("C1", "walks slowly to the nearest window and looks outside"),
    ("C2", "sign book"),
]


def _event(text: str, actor: str | None = "C1") -> PerceptionEvent:
    return PerceptionEvent(kind="world_event", text=text, actor_id=actor, witness_ids=HALL)


def _told(
    texts: list[str],
    attempts: list[tuple[str, str]] = LIVE_ATTEMPTS,
    facts: list[str] = TOLL_FACTS,
    before: list[str] = (),  # type: ignore[assignment]
) -> list[str]:
    history: list[HistoryRecord] = [
        EventRecord(
            seq=i + 1, turn_number=1, speaker="World", author="director", event_kind="world_event",
            text=text, audience=EVERYONE,
        )
        for i, text in enumerate(before)
    ]  # fmt: skip
    history += [attempt(100 + i, who, what, turn=2) for i, (who, what) in enumerate(attempts)]
    scene = Scene(location="the toll house", present=HALL, facts=facts)
    ctx = ClampContext(scene=scene, cast=CAST, history=history, turn_number=3)
    proposal = DirectorDecision(events=[_event(t) for t in texts], next_speakers=[NARRATOR])
    out, changes = clamp_decision(proposal, ctx)
    assert clamp_decision(out, ctx) == (out, [])
    assert all(c.after is None or isinstance(c.after, str) for c in changes)
    return [e.text for e in out.events]


@pytest.mark.parametrize(
    ("text", "flips"),
    [
        ("The trapdoor swings open.", True),
        ("The trapdoor to the cellar is unbolted.", True),
        ("The trapdoor is still shut.", False),
        ("The coffin is closed.", True),
        ("The coffin is no longer open.", True),
        ("The coffin lies open under the candles.", False),
        ("The coffin is locked.", True),  # locked implies shut
        ("Someone tries to open the trapdoor.", False),
        ("The wind opens the trapdoor.", True),
        ("The chapel door is open.", False),  # no such standing thing
    ],
)
def test_the_wake_facts_states(text: str, flips: bool) -> None:
    assert bool(States(WAKE_FACTS).flips(text)) is flips
    assert _told([text], attempts=[], facts=WAKE_FACTS) == ([] if flips else [text])


SIDES = {
    "open": True,
    "ajar": True,
    "unlocked": True,
    "shut": False,
    "closed": False,
    "locked": False,
    "bolted": False,
}
LINKS = st.sampled_from(["is", "lies", "sits", "is now", "stands", "remains"])
THINGS = st.sampled_from(["toll box", "box", "trapdoor", "coffin"])
FACT_OF = {"toll box": 1, "box": 1, "trapdoor": 0, "coffin": 2}


@given(THINGS, LINKS, st.sampled_from(sorted(SIDES)), st.booleans())
def test_a_state_goes_exactly_when_it_turns_the_fact_over_unattempted(
    thing: str, link: str, state: str, tried: bool
) -> None:
    facts = [WAKE_FACTS[0], TOLL_FACTS[1], WAKE_FACTS[2]]
    fact = facts[FACT_OF[thing]]
    axis = "lock" if state in ("unlocked", "locked", "bolted") else "open"
    standing = {(s.axis, s.opened) for s in stated(fact)}
    contradicts = (axis, not SIDES[state]) in standing
    text = f"The {thing} {link} {state}."
    attempts = [("C2", f"tries the {thing.split()[-1]}")] if tried else []
    assert _told([text], attempts=attempts, facts=facts) == (
        [] if contradicts and not tried else [text]
    )


def test_negative_control_without_the_rule_the_live_box_opens(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rules = [r for r in clamps_module.CLAMP_RULES if r.name != "fact_flip"]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", rules)
    assert _told(LIVE) == [LIVE[0], OPENED]


# Narration: the renderer tells what the events confirmed.

LIVE_NARRATION = "The toll box is now open, and the lamp is on a hook."
"""Toll-house #53 (seed 67), turn 3: the renderer's sentence a beat after the Director's
unattempted opening (which the clamp now drops)."""


def test_a_narrated_flip_goes_unless_an_event_told_it() -> None:
    text = f"Rain drips from the shutters. {LIVE_NARRATION}"
    assert without_state_flips(text, TOLL_FACTS, []) == "Rain drips from the shutters."
    assert without_state_flips(text, TOLL_FACTS, [OPENED]) == text
    assert without_state_flips(text, TOLL_FACTS, [OPENED, LOCKED]) == (
        "Rain drips from the shutters."
    )
