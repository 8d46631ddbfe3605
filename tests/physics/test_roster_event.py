"""Clamp `roster_event`: an event that only lists cast members goes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tavern.physics.clamps as clamps_module
from tavern.physics import ClampContext, clamp_decision, roster_event
from tavern.physics.roster_event import drop_roster_events
from tavern.records import Body, Character, DirectorDecision, Mind, PerceptionEvent, Scene, Zone

from .test_rules import CAST as INN
from .test_rules import FLAT, ctx, thought

NAMES = {
    "C1": "Agnese Corvo", "C2": "Brother Caspar", "C3": "Lio Mendez", "C4": "Dorotea Sand",
    "C5": "Felix Aubert",
}  # fmt: skip
CAST = {
    slot: Character(
        id=slot.lower(), mind=Mind(), body=Body(display_name=name, description_ref="a guest")
    )
    for slot, name in NAMES.items()
}
CONTEXT = ClampContext(scene=Scene(location="the hall", present=list(NAMES)), cast=CAST)
LIVE = "Agnese Corvo, Brother Caspar, Lio Mendez, Dorotea Sand, Felix Aubert"
"""Vintners-wake #40 (seed 56), turn 1: the Director's one event after the human's greeting."""


def _decision(*texts: str) -> DirectorDecision:
    return DirectorDecision(
        events=[PerceptionEvent(kind="world_event", text=t, witness_ids=list(NAMES)) for t in texts]
    )


def _events(*texts: str) -> list[str]:
    return [e.text for e in clamp_decision(_decision(*texts), CONTEXT)[0].events]


def test_the_live_roster_event_goes_and_events_with_news_stay() -> None:
    kept = ["Brother Caspar and Lio Mendez are soaked to the bone.", "The bell tolls."]
    assert _events(LIVE, *kept) == kept


def test_negative_control_without_the_rule_the_roster_is_witnessed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    without = [r for r in clamps_module.CLAMP_RULES if r.name != "roster_event"]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", without)
    assert _events(LIVE) == [LIVE]


@given(
    st.lists(st.sampled_from([*NAMES.values(), *NAMES, "Agnese", "Caspar"]), min_size=1),
    st.sampled_from([", ", " and ", ", and "]),
    st.sampled_from(["", " wait", " nod at the coffin"]),
)
def test_a_list_goes_only_when_it_names_two_and_says_nothing(
    names: list[str], joiner: str, verb: str
) -> None:
    text = joiner.join(names) + verb + "."
    slots = {s for s, n in NAMES.items() for name in names if name in (s, n, *n.split())}
    gone = drop_roster_events(_decision(text), CONTEXT)[0].events == []
    assert gone == (len(slots) >= 2 and not verb)


def test_a_list_left_by_the_guards_goes_at_once() -> None:
    """The idempotence property's find: a secret word beside two names, masked by the thought
    guard, left "[...] Ana Tomas", which a rule running before the guards kept. Names and a
    mask are now an emptied event (`redacted_event`), which runs before this rule."""

    context = ctx(FLAT, history=[thought(0, "C2", "the Quillfeather ledger")], cast=INN)
    d = DirectorDecision(
        events=[PerceptionEvent(kind="world_event", text="Quillfeather Ana Tomas",
                                witness_ids=["C1", "C2", "C3"])]
    )  # fmt: skip
    clamped, changes = clamp_decision(d, context)
    assert clamped.events == [] and "redacted_event" in {c.rule for c in changes}
    assert clamp_decision(clamped, context) == (clamped, [])


STAGING = (
    "Present: Agnese Corvo (C1) in hall; Brother Caspar (C2) in hall; Lio Mendez (C3) in"
    " cellar; Dorotea Sand (C4) in hall; Felix Aubert (C5) in balcony"
)
"""Vintners-wake #61 (seed 77), turn 7: the Director's scene line as an event."""
ZONED = Scene(
    location="the vintner's house",
    zones=[
        Zone(id="hall", label="the long hall with the open coffin"),
        Zone(id="cellar", label="the vaulted wine cellar beneath the hall"),
        Zone(id="balcony", label="the narrow balcony above the hall"),
    ],
    positions={"C1": "hall", "C2": "hall", "C3": "cellar", "C4": "hall", "C5": "balcony"},
    present=list(NAMES),
)


def _zoned_events(*texts: str) -> list[str]:
    context = ClampContext(scene=ZONED, cast=CAST)
    return [e.text for e in clamp_decision(_decision(*texts), context)[0].events]


def test_the_staging_line_as_an_event_goes_and_news_in_a_zone_stays() -> None:
    kept = [
        "Lio Mendez and Dorotea Sand are soaked to the bone in the hall.",
        "Agnese Corvo and Felix Aubert hear the bell in the hall.",
        "In the hall, the candles gutter.",
    ]
    assert _zoned_events(STAGING, *kept) == kept


def test_negative_control_without_the_places_the_staging_line_is_witnessed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(roster_event, "place_words", lambda ctx: frozenset())
    assert _zoned_events(STAGING) != []
