"""Names written where ids belong, and repeated events: the cast-reference clamps.

A live 0.5B Director wrote display names in `witness_ids` and `next_speakers` in most beats of a
ten-turn session, and the id clamps dropped them: witnesses perceived nothing and queued
speakers never spoke. These tests pin the mapping to ids, its limits (ambiguous names, names
outside the id fields), its equivalence with ids written directly, and a planted removal.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tavern.physics.clamps as clamps_module
from tavern.physics import ClampContext, clamp_decision
from tavern.physics.cast_refs import name_index
from tavern.records import (
    NARRATOR,
    Body,
    Character,
    DirectorDecision,
    Mind,
    PerceptionEvent,
    ZoneMove,
)

from .test_properties import SETTINGS, world_and_decision
from .test_rules import CAST, FLAT, ZONED


def ctx(**kw: object) -> ClampContext:
    return ClampContext(scene=kw.pop("scene", FLAT), cast=kw.pop("cast", CAST), **kw)  # type: ignore[arg-type]


def test_names_in_every_id_field_become_ids() -> None:
    proposal = DirectorDecision(
        events=[
            PerceptionEvent(
                kind="action_outcome",
                text="The cup falls.",
                actor_id="ana",
                witness_ids=["Rui Lopes", " tomas ", "C1", "Nobody"],
            )
        ],
        next_speakers=["RUI  LOPES", "narrator"],
        mood_updates={"Tomas": "wary"},
        zone_moves=[ZoneMove(character_id="Ana", to_zone="main")],
    )
    out, changes = clamp_decision(proposal, ctx())
    assert out.events[0].actor_id == "C1"
    assert out.events[0].witness_ids == ["C2", "C3", "C1"]  # the unknown one is dropped
    assert out.next_speakers == ["C2"]  # the Narrator sentinel is dropped behind a speaker
    assert out.mood_updates == {"C3": "wary"}
    assert [m.character_id for m in out.zone_moves] == ["C1"]
    paths = {c.path for c in changes if c.rule == "cast_reference"}
    assert paths == {
        "events[0].actor_id",
        "events[0].witness_ids",
        "next_speakers",
        "mood_updates",
        "zone_moves[0].character_id",
    }
    assert clamp_decision(out, ctx()) == (out, [])


def test_a_lone_narrator_in_any_spelling_is_the_sentinel() -> None:
    out, changes = clamp_decision(DirectorDecision(next_speakers=["NARRATOR"]), ctx())
    assert out.next_speakers == [NARRATOR]
    assert [c.rule for c in changes] == ["cast_reference"]


def test_texts_keep_their_names() -> None:
    ev = PerceptionEvent(kind="world_event", text="Ana", witness_ids=["C1"])
    out, _ = clamp_decision(DirectorDecision(events=[ev], blocking="Ana by the door"), ctx())
    assert out.events[0].text == "Ana"
    assert out.blocking == "Ana by the door"


def test_a_shared_name_and_a_name_that_is_an_id_are_never_mapped() -> None:
    twins = {
        **CAST,
        "C4": Character(
            id="ana2", mind=Mind(), body=Body(display_name="ana", description_ref="the twin")
        ),
        "C5": Character(id="odd", mind=Mind(), body=Body(display_name="C2", description_ref="x")),
    }
    assert name_index(twins) == {"rui lopes": "C2", "tomas": "C3"}
    out, _ = clamp_decision(DirectorDecision(next_speakers=["Ana"]), ctx(cast=twins))
    assert out.next_speakers == [NARRATOR]


def test_without_a_cast_nothing_is_mapped() -> None:
    out, _ = clamp_decision(DirectorDecision(next_speakers=["Rui Lopes"]), ctx(cast=None))
    assert out.next_speakers == [NARRATOR]


def test_mapped_witnesses_still_meet_the_zone_clamp() -> None:
    ev = PerceptionEvent(
        kind="action_outcome",
        text="Ana drops a cup",
        actor_id="C1",
        witness_ids=["Rui Lopes", "Tomas"],
    )
    sealed = ZONED.model_copy(update={"links": []})
    out, _ = clamp_decision(DirectorDecision(events=[ev]), ctx(scene=sealed))
    assert out.events[0].witness_ids == ["C2"]  # Tomas is in the sealed cellar


@st.composite
def _spelling(draw: st.DrawFn, name: str) -> str:
    words = name.split()
    cased = [draw(st.sampled_from([w, w.lower(), w.upper()])) for w in words]
    gap = draw(st.sampled_from([" ", "  "]))
    return draw(st.sampled_from(["", " "])) + gap.join(cased)


@SETTINGS
@given(world_and_decision(), st.data())
def test_names_clamp_exactly_like_the_ids(pair: tuple[object, object], data: st.DataObject) -> None:
    """Any id written as its member's name (any case, any spacing) gives the same decision."""
    world, proposal = pair
    cast = world.state.cast  # type: ignore[attr-defined]
    names = {slot: name for name, slot in name_index(cast).items()}

    def named(value: str) -> str:
        if value in names and data.draw(st.booleans()):
            return data.draw(_spelling(cast[value].body.display_name))
        return value

    assert isinstance(proposal, DirectorDecision)
    variant = proposal.model_copy(
        update={
            "events": [
                e.model_copy(
                    update={
                        "actor_id": None if e.actor_id is None else named(e.actor_id),
                        "witness_ids": [named(w) for w in e.witness_ids],
                    }
                )
                for e in proposal.events
            ],
            "next_speakers": [named(s) for s in proposal.next_speakers],
            "mood_updates": {named(k): v for k, v in proposal.mood_updates.items()},
            "zone_moves": [
                m.model_copy(update={"character_id": named(m.character_id)})
                for m in proposal.zone_moves
            ],
        }
    )
    context = ClampContext(
        scene=world.state.scene,  # type: ignore[attr-defined]
        history=world.history,  # type: ignore[attr-defined]
        cast=cast,
    )
    expected, _ = clamp_decision(proposal, context)
    clamped, changes = clamp_decision(variant, context)
    assert clamped == expected
    assert clamp_decision(clamped, context) == (clamped, [])
    if variant != proposal:
        assert "cast_reference" in {c.rule for c in changes}


def test_negative_control_without_the_rule_a_named_witness_is_lost(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ev = PerceptionEvent(kind="world_event", text="A bell", witness_ids=["Rui Lopes"])
    proposal = DirectorDecision(events=[ev], next_speakers=["Rui Lopes"])
    assert clamp_decision(proposal, ctx())[0].events[0].witness_ids == ["C2"]
    without = [(n, r) for n, r in clamps_module.CLAMP_RULES if n != "cast_reference"]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", without)
    out, _ = clamp_decision(proposal, ctx())
    assert out.events[0].witness_ids == []
    assert out.next_speakers == [NARRATOR]


# ---- repeated events


def test_an_event_repeated_in_a_beat_is_kept_once() -> None:
    bell = PerceptionEvent(kind="world_event", text="The bell tolls.", witness_ids=["C1", "C2"])
    other = bell.model_copy(update={"witness_ids": ["C1"]})
    proposal = DirectorDecision(events=[bell, bell, other, bell], next_speakers=[NARRATOR])
    out, changes = clamp_decision(proposal, ctx())
    assert out.events == [bell, other]  # equal in every field: only then a repeat
    assert [(c.rule, c.path) for c in changes] == [
        ("duplicate_event", "events[1]"),
        ("duplicate_event", "events[3]"),
    ]
    assert clamp_decision(out, ctx()) == (out, [])


def test_events_equal_only_after_the_witness_clamp_are_repeats() -> None:
    a = PerceptionEvent(kind="world_event", text="Thunder.", witness_ids=["C1", "C9"])
    b = a.model_copy(update={"witness_ids": ["C1"]})
    out, _ = clamp_decision(DirectorDecision(events=[a, b]), ctx())
    assert out.events == [b]


def test_negative_control_without_the_rule_repeats_survive(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bell = PerceptionEvent(kind="world_event", text="The bell tolls.", witness_ids=["C1"])
    without = [(n, r) for n, r in clamps_module.CLAMP_RULES if n != "duplicate_event"]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", without)
    out, _ = clamp_decision(DirectorDecision(events=[bell, bell]), ctx())
    assert len(out.events) == 2
