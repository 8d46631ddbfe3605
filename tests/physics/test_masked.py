"""Clamps `speech_guard` and `redacted_event` (`physics.masked`): properties and negative
controls; the incidents are rows of `cases/speech_guard.jsonl` and `cases/redacted_event.jsonl`."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tavern.physics.clamps as clamps_module
from benchmarks.clamps import beat
from tavern.physics import clamp_decision
from tavern.physics.clamps import ClampContext
from tavern.physics.masked import emptied_by_masks, heard_words, without_masked_sentences
from tavern.physics.redaction import MASK, salient_tokens
from tavern.records import DirectorDecision

from .worlds import hostile_decisions, worlds

CLEAN = st.sampled_from(["The door holds.", "Rain falls on the roof.", "Maren nods."])
MASKED = st.sampled_from([f"He takes the {MASK}.", f"Tomas reads the {MASK}'s {MASK}."])


@given(st.lists(st.tuples(st.booleans(), CLEAN, MASKED), min_size=1, max_size=6))
def test_masked_sentences_go_exactly_when_a_clean_one_stays(
    plan: list[tuple[bool, str, str]],
) -> None:
    told = [clean if is_clean else masked for is_clean, clean, masked in plan]
    text = " ".join(told)
    kept = [s for s in told if MASK not in s]
    assert without_masked_sentences(text) == (" ".join(kept) if kept else text)


WORDS = st.sampled_from(["the", "it", "of", "he", "lantern", "Maren", "4471", "bolt", MASK])


@given(st.lists(WORDS, min_size=1, max_size=8))
def test_an_event_goes_only_when_masked_and_without_a_salient_word(words: list[str]) -> None:
    salient = {"lantern", "Maren", "4471", "bolt"} & set(words)
    assert emptied_by_masks(" ".join(words)) == (MASK in words and not salient)


def _spoken_leaks(ctx: ClampContext, decision: DirectorDecision) -> list[str]:
    """Spoken tokens an event of `decision` shows to a witness set its hearers do not hold."""
    found = []
    for ev in decision.events:
        witnesses = set(ev.witness_ids)
        for hearers, tokens in heard_words(ctx).items():
            if not witnesses or not witnesses <= hearers:
                found += sorted(tokens & salient_tokens(ev.text))
    return found


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_no_event_carries_spoken_words_past_their_hearers(data: st.DataObject) -> None:
    world = data.draw(worlds())
    decision = data.draw(hostile_decisions(world))
    ctx = ClampContext(scene=world.state.scene, history=world.history, cast=world.state.cast)
    assert _spoken_leaks(ctx, clamp_decision(decision, ctx)[0]) == []


def test_negative_control_without_the_speech_guard_a_planted_copy_leaks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    planted = beat(
        {
            "id": "planted",
            "history": [{"kind": "speech", "text": "zephyrword"}],
            "decision": {"events": [{"text": "A zephyrword rises.", "witness_ids": []}]},
        }
    )
    assert _spoken_leaks(planted.ctx, clamp_decision(planted.decision, planted.ctx)[0]) == []
    without = [r for r in clamps_module.CLAMP_RULES if r.name != "speech_guard"]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", without)
    out, _ = clamp_decision(planted.decision, planted.ctx)
    assert _spoken_leaks(planted.ctx, out) == ["zephyrword"]
