"""Clamps `misspelt_name`, `cast_reference` and `cast_gloss` (`physics.references`):
properties and negative controls; the incidents are rows of their case tables."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tavern.physics.clamps as clamps_module
import tavern.physics.references as references
from tavern.physics import ClampContext, clamp_decision
from tavern.physics.identity import initial_identities, render_for_viewer
from tavern.physics.references import id_spellings, name_index, one_edit_apart, respelt
from tavern.records import (
    NARRATOR,
    Body,
    Character,
    DirectorDecision,
    Mind,
    PerceptionEvent,
)

from .test_properties import SETTINGS, world_and_decision
from .test_rules import CAST, FLAT, ZONED, attempt


def _member(name: str, description: str) -> Character:
    body = Body(display_name=name, description_ref=description)
    return Character(id=name.split()[0].lower(), mind=Mind(), body=body)


TOLL = {
    "C1": _member("Ilse Brandt", "the woman in grey"),
    "C2": _member("Maren Holt", "the ferrywoman"),
    "C3": _member("Teodor Vask", "the toll-keeper"),
}


def ctx(**kw: object) -> ClampContext:
    walks = [attempt(1, "C1", "drops a cup and goes to the main room")]
    return ClampContext(scene=kw.pop("scene", FLAT), cast=CAST, history=walks, **kw)  # type: ignore[arg-type]


@SETTINGS
@given(
    slot=st.sampled_from(sorted(TOLL)),
    which=st.integers(0, 1),
    edit=st.sampled_from(["add", "drop", "change", "swap"]),
    at=st.integers(1, 10),
    letter=st.sampled_from("aeiouxz"),
)
def test_any_single_edit_of_one_name_word_is_mended(
    slot: str, which: int, edit: str, at: int, letter: str
) -> None:
    name = TOLL[slot].body.display_name
    words = name.split()
    word = words[which]
    i = 1 + at % (len(word) - 2)  # never the capital, so the word stays capitalized
    words[which] = {
        "add": word[:i] + letter + word[i:],
        "drop": word[:i] + word[i + 1 :],
        "change": word[:i] + letter + word[i + 1 :],
        "swap": word[:i] + word[i + 1] + word[i] + word[i + 2 :],
    }[edit]
    text = f"Then {' '.join(words)} nods."
    assert respelt(text, TOLL) == (f"Then {name} nods." if words[which] != word else text)


def test_a_window_near_two_names_stays() -> None:
    twins = {"C1": _member("Ana Prado", "the cook"), "C2": _member("Ana Prato", "the maid")}
    assert respelt("Ana Prago laughs.", twins) == "Ana Prago laughs."
    assert respelt("Ana Prato laughs.", twins) == "Ana Prato laughs."  # a name as written


@given(st.text(alphabet="abcxyz", max_size=8), st.text(alphabet="abcxyz", max_size=8))
def test_one_edit_apart_is_symmetric_and_never_equal(a: str, b: str) -> None:
    assert one_edit_apart(a, b) == one_edit_apart(b, a)
    assert not one_edit_apart(a, a)


def test_the_mended_name_is_projected_for_a_stranger_negative_control(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stranger = initial_identities(TOLL)["C2"]
    told = render_for_viewer(respelt("Ilsse Brandt waits.", TOLL), "C2", stranger, TOLL)
    assert told == "The woman in grey waits."
    planted = render_for_viewer("Ilsse Brandt waits.", "C2", stranger, TOLL)
    assert planted.startswith("Ilsse the woman in grey")  # without the rule


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


def test_shared_names_names_that_are_ids_and_ids_folding_alike_are_never_mapped() -> None:
    twins = {
        **CAST,
        "C4": Character(id="ana2", mind=Mind(), body=Body(display_name="ana", description_ref="x")),
        "C5": Character(id="odd", mind=Mind(), body=Body(display_name="C2", description_ref="x")),
        "c1": CAST["C1"].model_copy(update={"id": "ana-twin"}),
    }
    assert name_index(twins) == {"rui lopes": "C2", "tomas": "C3"}
    assert "c1" not in id_spellings(twins) and id_spellings(twins)["c2"] == "C2"


@st.composite
def _spelling(draw: st.DrawFn, name: str) -> str:
    words = name.split()
    cased = [draw(st.sampled_from([w, w.lower(), w.upper()])) for w in words]
    return draw(st.sampled_from(["", " "])) + draw(st.sampled_from([" ", "  "])).join(cased)


@SETTINGS
@given(world_and_decision(), st.data())
def test_names_clamp_exactly_like_the_ids(pair: tuple[object, object], data: st.DataObject) -> None:
    """Any id written as its member's name (any case, any spacing), as itself in another
    case, or glossed, gives the same decision."""
    world, proposal = pair
    cast = world.state.cast  # type: ignore[attr-defined]
    names = {slot: name for name, slot in name_index(cast).items()}

    def named(value: str) -> str:
        if value in names and data.draw(st.booleans()):
            return data.draw(_spelling(cast[value].body.display_name))
        if value in cast and data.draw(st.booleans()):
            return data.draw(st.sampled_from([value.lower(), value.upper(), value.swapcase()]))
        if value in names and data.draw(st.booleans()):
            name = cast[value].body.display_name
            return data.draw(st.sampled_from([f"{name} ({value})", f"{value} ( {name} )"]))
        return value

    assert isinstance(proposal, DirectorDecision)
    events = [
        e.model_copy(
            update={
                "actor_id": None if e.actor_id is None else named(e.actor_id),
                "witness_ids": [named(w) for w in e.witness_ids],
            }
        )
        for e in proposal.events
    ]
    variant = proposal.model_copy(
        update={
            "events": events,
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
    clamped, changes = clamp_decision(variant, context)
    assert clamped == clamp_decision(proposal, context)[0]
    assert clamp_decision(clamped, context) == (clamped, [])
    if variant != proposal:
        assert "cast_reference" in {c.rule for c in changes}


def test_negative_control_without_the_gloss_lookup_a_glossed_witness_is_lost(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ev = PerceptionEvent(kind="world_event", text="A bell.", witness_ids=["Rui Lopes (C2)"])
    assert clamp_decision(DirectorDecision(events=[ev]), ctx())[0].events[0].witness_ids == ["C2"]
    monkeypatch.setattr(references, "_GLOSSED", re.compile(r"(?!)(x)(y)"))
    out, _ = clamp_decision(DirectorDecision(events=[ev]), ctx())
    assert out.events[0].witness_ids == []  # the live beat: an event nobody perceives


@SETTINGS
@given(
    slot=st.sampled_from(sorted(CAST)),
    name_first=st.booleans(),
    before=st.sampled_from(["", "Then ", "Present: "]),
    after=st.sampled_from(["", " sways.", ", then C1 waits"]),
)
def test_any_gloss_collapses_to_the_bare_id(
    slot: str, name_first: bool, before: str, after: str
) -> None:
    name = CAST[slot].body.display_name.upper()
    gloss = f"{name} ({slot})" if name_first else f"{slot} ( {name} )"
    proposal = DirectorDecision(next_speakers=[NARRATOR])
    proposal.scene.add_facts.append(before + gloss + after)
    out, _ = clamp_decision(proposal, ctx())
    assert out.scene.add_facts == [before + slot + after]


def test_negative_control_without_the_rules_names_stay_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    references_rules = {"misspelt_name", "cast_reference", "cast_gloss"}
    without = [r for r in clamps_module.CLAMP_RULES if r.name not in references_rules]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", without)
    out, _ = clamp_decision(DirectorDecision(next_speakers=["Rui Lopes"]), ctx())
    assert out.next_speakers == [NARRATOR]
