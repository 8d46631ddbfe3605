"""Clamp `duplicate_event` (`physics.duplicates`): merging repeats never shows anyone more,
and a planted widening merge is caught; the incidents are rows of its case table."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tavern.physics.clamps as clamps_module
from tavern.physics import ClampContext, clamp_decision
from tavern.physics.duplicates import _merge_key
from tavern.records import (
    DirectorDecision,
    PerceptionEvent,
)
from tavern.text import lexicon_for

from .test_properties import SETTINGS, world_and_decision
from .test_rules import CAST, FLAT, attempt

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


@given(
    st.lists(
        st.sampled_from(["the", "now", "door", "not", "shut", "[...]", "Maren", "still", "a"]),
        max_size=8,
    )
)
def test_repeats_merge_only_when_they_show_the_same_words_and_masks(words: list[str]) -> None:
    # Copies with one key show the same salient words and masks, in order: merging them
    # shows no witness a word its own copy hid.
    en = lexicon_for("en")
    text = " ".join(words)
    plain = " ".join(w for w in words if w not in ("the", "a", "now", "still"))
    assert _merge_key(text, en) == _merge_key(plain, en)
    for at in range(len(words)):
        other = " ".join([*words[:at], "bolt", *words[at + 1 :]])
        if words[at] not in ("the", "a", "now", "still", "bolt"):
            assert _merge_key(text, en) != _merge_key(other, en)
