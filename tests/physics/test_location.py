"""Clamp `location`: a new location must name a place that is not already the stage."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tavern.physics.location as location_module
from tavern.physics import ClampContext, clamp_decision
from tavern.physics.location import MAX_LOCATION_WORDS, content_words
from tavern.records import NARRATOR, DirectorDecision, Scene, SceneDelta, Zone

TOLL = Scene(
    location="the toll house at the river crossing",
    description="A single low room of tarred timber: a hearth of flat river stones, a counting"
    " table with a toll box and a ledger, a lamp on a hook, rain drumming on the shutters.",
    present=["C1", "C2", "C3"],
    facts=["The river is too high to cross until dawn.", "The lamp has perhaps two hours of oil."],
)
WAKE = Scene(
    location="the vintner's house on the hill",
    description="A stone house: a long hall with the open coffin under candles, a narrow balcony"
    " above it, and a vaulted cellar below reached by a trapdoor in the hall floor, now shut.",
    zones=[
        Zone(id="hall", label="the long hall with the open coffin"),
        Zone(id="cellar", label="the vaulted wine cellar beneath the hall"),
        Zone(id="balcony", label="the narrow balcony above the hall"),
    ],
    positions={"C1": "hall", "C2": "hall"},
    present=["C1", "C2"],
    facts=["The trapdoor to the cellar is shut and bolted from the hall side."],
)
TITLES = {id(TOLL): "The Toll House at Low Water", id(WAKE): "The Vintner's Wake"}

LIVE = [
    # `scene.new_location` of the eight stop-14 soaks: 65 of 70 beats proposed one.
    (TOLL, "Low Water"),
    (TOLL, "Low Water at Low Water"),
    (TOLL, "the toll house at Low Water"),
    (TOLL, "Low Water, one open space, everyone present sees and hears everyone."),
    (WAKE, "hall"),
    (WAKE, "hall to balcony"),
    (WAKE, "hall, cellar"),
    (WAKE, "The vintner's house on the hill"),
    (WAKE, "The trapdoor to the cellar is shut and bolted from the hall side."),
    (
        WAKE,
        "The vintner's house on the hill, a stone house: a long hall with the open coffin under"
        " candles, a narrow balcony aboveit",
    ),
]


def _clamped(scene: Scene, new_location: str) -> str | None:
    ctx = ClampContext(scene=scene, public_texts=[TITLES[id(scene)]])
    proposal = DirectorDecision(
        scene=SceneDelta(new_location=new_location), next_speakers=[NARRATOR]
    )
    out, _ = clamp_decision(proposal, ctx)
    assert clamp_decision(out, ctx) == (out, [])
    return out.scene.new_location


@pytest.mark.parametrize(("scene", "proposal"), LIVE)
def test_the_live_restatements_are_no_move(scene: Scene, proposal: str) -> None:
    assert _clamped(scene, proposal) is None


@pytest.mark.parametrize(
    ("scene", "proposal"),
    [(TOLL, "the river landing"), (TOLL, "the guild hall in the city"), (WAKE, "the chapel")],
)
def test_a_new_place_is_a_move(scene: Scene, proposal: str) -> None:
    assert _clamped(scene, proposal) == proposal


STAGE_WORDS = sorted(
    {w for s in (TOLL,) for t in (s.location, s.description, *s.facts) for w in t.split()}
)
SMALL = st.sampled_from(["the", "at", "of", "by", "near", "a"])
NEW = st.sampled_from(["landing", "chapel", "mill", "orchard", "quay"])


@given(st.lists(st.sampled_from(STAGE_WORDS) | SMALL, min_size=1, max_size=10))
def test_a_proposal_of_stage_words_never_moves_the_scene(words: list[str]) -> None:
    assert _clamped(TOLL, " ".join(words)) is None


@given(st.lists(st.sampled_from(STAGE_WORDS) | SMALL, max_size=10), NEW, st.integers(0))
def test_a_short_name_with_a_word_of_its_own_moves_it(words: list[str], new: str, at: int) -> None:
    words.insert(at % (len(words) + 1), new)
    proposal = " ".join(words)
    moved = _clamped(TOLL, proposal)
    assert moved == (proposal if len(content_words(proposal)) <= MAX_LOCATION_WORDS else None)


def test_negative_control_without_the_stage_test_the_live_proposals_move(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(location_module, "restates_the_stage", lambda *_: False)
    assert _clamped(TOLL, "Low Water at Low Water") == "Low Water at Low Water"
