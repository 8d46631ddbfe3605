"""Clamp `redacted_event`: an event the guards left with nothing to tell goes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tavern.physics.clamps as clamps_module
from tavern.physics import audience_for, clamp_decision
from tavern.physics.emptied import emptied_by_masks
from tavern.physics.redaction import MASK
from tavern.records import DirectorDecision, PerceptionEvent

from .test_rules import FLAT, ctx, speech, thought

WHISPER = speech(0, "C1", "Quillfeather mill", audience_for(FLAT, "C1", "speech", ["C2"]))


def _event(text: str, witnesses: list[str]) -> PerceptionEvent:
    return PerceptionEvent(kind="world_event", text=text, witness_ids=witnesses)


def _hostile() -> DirectorDecision:
    """The adversary fake's shape: a whisper's payload as the one word of an event for
    everyone in the room, beside an event that keeps a word of its own once masked."""
    return DirectorDecision(
        events=[
            _event("It is the Quillfeather.", ["C1", "C2", "C3"]),
            _event("Tomas repeats Quillfeather", ["C1", "C2", "C3"]),
        ]
    )


def test_an_event_emptied_by_the_whisper_guard_goes() -> None:
    out, changes = clamp_decision(_hostile(), ctx(FLAT, history=[WHISPER]))
    assert [e.text for e in out.events] == [f"Tomas repeats {MASK}"]
    assert [(c.rule, c.path) for c in changes if c.rule == "redacted_event"] == [
        ("redacted_event", "events[0]")
    ]
    # Inside the whisper's audience nothing is masked, and nothing goes.
    inside = [e.model_copy(update={"witness_ids": ["C1", "C2"]}) for e in _hostile().events]
    kept, _ = clamp_decision(DirectorDecision(events=inside), ctx(FLAT, history=[WHISPER]))
    assert [e.text for e in kept.events] == [e.text for e in inside]


def test_an_event_emptied_by_the_thought_guard_goes() -> None:
    history = [thought(0, "C2", "the ledger code 4471")]
    d = DirectorDecision(events=[_event("He [...] the 4471 ledger.", ["C1", "C2", "C3"])])
    out, changes = clamp_decision(d, ctx(FLAT, history=history))
    assert out.events == [] and {c.rule for c in changes} >= {"thought_guard", "redacted_event"}


def test_negative_control_without_the_rule_the_masks_are_committed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    without = [(n, r) for n, r in clamps_module.CLAMP_RULES if n != "redacted_event"]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", without)
    out, _ = clamp_decision(_hostile(), ctx(FLAT, history=[WHISPER]))
    assert [e.text for e in out.events] == [f"It is the {MASK}.", f"Tomas repeats {MASK}"]


WORDS = st.sampled_from(["the", "it", "of", "he", "lantern", "Maren", "4471", "bolt", MASK])


@given(st.lists(WORDS, min_size=1, max_size=8))
def test_an_event_goes_only_when_masked_and_without_a_salient_word(words: list[str]) -> None:
    text = " ".join(words)
    salient = {"lantern", "Maren", "4471", "bolt"} & set(words)
    assert emptied_by_masks(text) == (MASK in words and not salient)
