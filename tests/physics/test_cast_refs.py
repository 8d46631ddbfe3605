"""Names written where ids belong, and repeated events: the cast-reference clamps.

A live 0.5B Director wrote display names in `witness_ids` and `next_speakers` in most beats of a
ten-turn session, and the id clamps dropped them: witnesses perceived nothing and queued
speakers never spoke. These tests pin the mapping to ids, its limits (ambiguous names, names
outside the id fields), its equivalence with ids written directly, and a planted removal.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tavern.physics.clamps as clamps_module
import tavern.physics.duplicates as cast_refs_module
from tavern.physics import ClampContext, audience_for, clamp_decision
from tavern.physics.duplicates import merge_key
from tavern.physics.redaction import salient_tokens
from tavern.records import (
    NARRATOR,
    DirectorDecision,
    PerceptionEvent,
)

from .test_properties import SETTINGS, world_and_decision
from .test_rules import CAST, FLAT, attempt, speech

ATTEMPTS = [
    attempt(1, "C1", "drops a cup, nods, waits and goes to the main room"),
    attempt(2, "C2", "walks to the window and nods"),
    attempt(3, "C3", "walks to the window, bars the door and nods"),
]
"""What the fixtures' acts adjudicate (clamp `agency` drops an act nobody attempted)."""


def ctx(**kw: object) -> ClampContext:
    history = [*ATTEMPTS, *kw.pop("history", [])]  # type: ignore[misc]
    return ClampContext(
        scene=kw.pop("scene", FLAT),  # type: ignore[arg-type]
        cast=kw.pop("cast", CAST),  # type: ignore[arg-type]
        history=history,
        **kw,  # type: ignore[arg-type]
    )


# ---- repeated events


def test_an_event_repeated_in_a_beat_is_kept_once() -> None:
    bell = PerceptionEvent(kind="world_event", text="The bell tolls.", witness_ids=["C1", "C2"])
    proposal = DirectorDecision(events=[bell, bell, bell], next_speakers=[NARRATOR])
    out, changes = clamp_decision(proposal, ctx())
    assert out.events == [bell]
    assert [(c.rule, c.path, c.after) for c in changes] == [
        ("duplicate_event", "events[1]", None),
        ("duplicate_event", "events[2]", None),
    ]
    assert clamp_decision(out, ctx()) == (out, [])


def test_copies_with_other_witnesses_merge_into_the_first() -> None:
    """Live: the same 'walks to the window' event twice, with other witnesses and refs."""
    said = [
        speech(4, "C1", "Hello", audience_for(FLAT, "C1", "speech")),
        speech(5, "C2", "Psst", audience_for(FLAT, "C2", "speech", whisper_to=["C3"])),
    ]
    walk = PerceptionEvent(
        kind="action_outcome", text="Tomas walks to the window.", actor_id="C3",
        witness_ids=["C3"], utterance_ref=4,
    )  # fmt: skip
    again = walk.model_copy(
        update={"kind": "utterance", "witness_ids": ["C2", "C3"], "utterance_ref": 5}
    )
    thunder = PerceptionEvent(kind="world_event", text="Thunder.", witness_ids=["C1"])
    context = ctx(history=said)
    proposal = DirectorDecision(events=[walk, thunder, again], next_speakers=[NARRATOR])
    out, changes = clamp_decision(proposal, context)
    assert out.events == [
        walk.model_copy(update={"witness_ids": ["C3", "C2"], "utterance_ref": None}),
        thunder,
    ]
    assert {(c.rule, c.path) for c in changes} == {
        ("outcome_kind", "events[2].kind"),  # an utterance telling no speech: Tomas's walk
        ("duplicate_event", "events[2]"),
        ("duplicate_event", "events[0]"),
    }
    assert clamp_decision(out, context) == (out, [])
    same_ref = again.model_copy(update={"utterance_ref": 4, "witness_ids": ["C1", "C3"]})
    out, _ = clamp_decision(DirectorDecision(events=[walk, same_ref]), context)
    assert out.events == [walk.model_copy(update={"witness_ids": ["C3", "C1"]})]


def _words_seen(d: DirectorDecision, viewer: str | None) -> set[str]:
    """Words of the events `viewer` witnesses (None: of the unwitnessed events, which still
    reach the prose renderer)."""
    return {
        w
        for e in d.events
        if (viewer in e.witness_ids if viewer else not e.witness_ids)
        for w in e.text.split()
    }


def _shows_more(merged: DirectorDecision, unmerged: DirectorDecision, viewers: list[str]) -> bool:
    return any(not _words_seen(merged, v) <= _words_seen(unmerged, v) for v in [*viewers, None])


@SETTINGS
@given(world_and_decision())
def test_merging_repeats_never_shows_anyone_more(pair: tuple[object, object]) -> None:
    """Per viewer, the words of the events it witnesses only shrink when repeats merge."""
    world, proposal = pair
    assert isinstance(proposal, DirectorDecision)
    context = ClampContext(
        scene=world.state.scene,  # type: ignore[attr-defined]
        history=world.history,  # type: ignore[attr-defined]
    )
    merged, _ = clamp_decision(proposal, context)
    keys = [(e.text, e.actor_id) for e in merged.events]
    assert len(keys) == len(set(keys))
    unmerged, _ = _clamp_without(proposal, context, "duplicate_event")
    assert not _shows_more(merged, unmerged, list(world.state.cast))  # type: ignore[attr-defined]


def test_negative_control_a_widening_merge_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    bell = PerceptionEvent(kind="world_event", text="Bell", witness_ids=["C1"])
    proposal = DirectorDecision(events=[bell, bell])
    unmerged, _ = _clamp_without(proposal, ctx(), "duplicate_event")
    assert not _shows_more(clamp_decision(proposal, ctx())[0], unmerged, list(CAST))

    def widening(d: DirectorDecision, c: ClampContext) -> tuple[DirectorDecision, list[Any]]:
        everyone = [e.model_copy(update={"witness_ids": list(c.present)}) for e in d.events]
        return d.model_copy(update={"events": everyone[:1]}), []

    rules = [
        replace(r, apply=widening) if r.name == "duplicate_event" else r
        for r in clamps_module.CLAMP_RULES
    ]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", rules)
    assert _shows_more(clamp_decision(proposal, ctx())[0], unmerged, list(CAST))


def _clamp_without(
    proposal: DirectorDecision, context: ClampContext, rule: str
) -> tuple[DirectorDecision, list[object]]:
    changes: list[object] = []
    for each in clamps_module.CLAMP_RULES:
        if each.name != rule:
            proposal, found = each.apply(proposal, context)
            changes.extend(found)
    return proposal, changes


def test_negative_control_without_the_rule_repeats_survive(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bell = PerceptionEvent(kind="world_event", text="The bell tolls.", witness_ids=["C1"])
    # Both rules on repeats set aside: the later one would also take an exact copy.
    repeats = {"duplicate_event", "near_duplicate_event"}
    without = [r for r in clamps_module.CLAMP_RULES if r.name not in repeats]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", without)
    out, _ = clamp_decision(DirectorDecision(events=[bell, bell]), ctx())
    assert len(out.events) == 2


SHUT = "The trapdoor to the cellar is shut and bolted from the hall side."
SHUT_NOW = "The trapdoor to the cellar is now shut and bolted from the hall side."
"""Vintners-wake soak #26 (seed 40), turn 2: both committed in one beat."""


def test_repeats_differing_in_an_idle_word_merge() -> None:
    events = [
        PerceptionEvent(kind="world_event", text=t, witness_ids=["C1", "C2"])
        for t in (SHUT, SHUT_NOW, "The trapdoor to the cellar is not shut.")
    ]
    out, changes = clamp_decision(DirectorDecision(events=events, next_speakers=[NARRATOR]), ctx())
    assert [e.text for e in out.events] == [SHUT, "The trapdoor to the cellar is not shut."]
    assert ("duplicate_event", "events[1]") in [(c.rule, c.path) for c in changes]


def test_negative_control_exact_texts_keep_both(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cast_refs_module, "merge_key", lambda text: text)
    without = [r for r in clamps_module.CLAMP_RULES if r.name != "near_duplicate_event"]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", without)
    events = [
        PerceptionEvent(kind="world_event", text=t, witness_ids=["C1"]) for t in (SHUT, SHUT_NOW)
    ]
    out, _ = clamp_decision(DirectorDecision(events=events, next_speakers=[NARRATOR]), ctx())
    assert [e.text for e in out.events] == [SHUT, SHUT_NOW]


@given(
    st.lists(
        st.sampled_from(["the", "now", "door", "not", "shut", "[...]", "Maren", "still"]),
        max_size=8,
    )
)
def test_merge_keys_keep_every_word_a_guard_could_mask(words: list[str]) -> None:
    # Copies with one key show the same salient words and masks, in order: merging them
    # shows no witness a word its own copy hid.
    def shown(text: str) -> list[str]:
        return [w for w in text.split() if w == "[...]" or salient_tokens(w) or w == "not"]

    text = " ".join(words)
    assert merge_key(text).split() == [w.lower() for w in shown(text)]


THOUGHT_TOLD = (
    "The barefoot girl in the oilskin tried to walk slowly to the nearest window and looks"
    " outside. She failed."
)
"""Toll-house soak #23 (seed 40): C3's turn-3 thought, the Director's event of turn 4."""
