"""Clamp `redacted_event`: an event the guards left with nothing to tell goes, and so does a
masked sentence beside clean ones."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tavern.physics.clamps as clamps_module
import tavern.physics.emptied as emptied
from tavern.physics import audience_for, clamp_decision
from tavern.physics.emptied import drop_emptied_events, emptied_by_masks, without_masked_sentences
from tavern.physics.redaction import MASK
from tavern.records import DirectorDecision, PerceptionEvent

from .test_rules import CAST, FLAT, attempt, ctx, speech, thought

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
    masked, _ = clamp_decision(_masked_sentence(), ctx(FLAT, history=[LEDGER_THOUGHT]))
    assert [e.text for e in masked.events] == [f"The door stays shut. Tomas reads the {MASK}."]


TOLL_HOUSE_38 = (
    "Ilse Brandt's attempt at reaching the door was unsuccessful and caused the toll box to be"
    " locked. Teodor Vask is still working on the [...]'s [...]. Maren Holt is not involved in"
    " this attempt."
)
"""Toll-house soak #38 (seed 52), turn 5: the event as the guards left it and it was shown."""


def test_the_soak_events_masked_sentence_goes_and_its_clean_ones_stay() -> None:
    d = DirectorDecision(events=[_event(TOLL_HOUSE_38, ["C1", "C2", "C3"])])
    out, changes = drop_emptied_events(d, ctx(FLAT))
    assert [e.text for e in out.events] == [
        "Ilse Brandt's attempt at reaching the door was unsuccessful and caused the toll box"
        " to be locked. Maren Holt is not involved in this attempt."
    ]
    assert [(c.rule, c.path) for c in changes] == [("redacted_event", "events[0].text")]


LEDGER_THOUGHT = thought(0, "C2", "the ledger code Quillfeather")


def _masked_sentence() -> DirectorDecision:
    return DirectorDecision(
        events=[_event("The door stays shut. Tomas reads the Quillfeather.", ["C1", "C2", "C3"])]
    )


def test_a_sentence_the_thought_guard_masked_goes_beside_a_clean_one() -> None:
    out, changes = clamp_decision(_masked_sentence(), ctx(FLAT, history=[LEDGER_THOUGHT]))
    assert [e.text for e in out.events] == ["The door stays shut."]
    assert [c.rule for c in changes if c.rule != "speaker_queue"] == [
        "thought_guard",
        "redacted_event",
    ]


def test_an_event_masked_in_every_sentence_keeps_them() -> None:
    text = f"Maren hands over the {MASK}. Tomas pockets the {MASK} quickly."
    assert without_masked_sentences(text) == text
    d = DirectorDecision(events=[_event(text, ["C1", "C2"])])
    assert drop_emptied_events(d, ctx(FLAT)) == (d, [])


CLEAN = st.sampled_from(["The door holds.", "Rain falls on the roof.", "Maren nods."])
MASKED = st.sampled_from([f"He takes the {MASK}.", f"Tomas reads the {MASK}'s {MASK}."])


@given(st.lists(st.tuples(st.booleans(), CLEAN, MASKED), min_size=1, max_size=6))
def test_masked_sentences_go_exactly_when_a_clean_one_stays(
    plan: list[tuple[bool, str, str]],
) -> None:
    sentences = [clean if is_clean else masked for is_clean, clean, masked in plan]
    text = " ".join(sentences)
    kept = [s for s in sentences if MASK not in s]
    expected = " ".join(kept) if kept else text
    assert without_masked_sentences(text) == expected


WORDS = st.sampled_from(["the", "it", "of", "he", "lantern", "Maren", "4471", "bolt", MASK])


@given(st.lists(WORDS, min_size=1, max_size=8))
def test_an_event_goes_only_when_masked_and_without_a_salient_word(words: list[str]) -> None:
    text = " ".join(words)
    salient = {"lantern", "Maren", "4471", "bolt"} & set(words)
    assert emptied_by_masks(text) == (MASK in words and not salient)


LIVE_NAME_LEFT = "Rui Lopes does not work."
"""Toll-house #64 (seed 78), turn 5: the follow-up outcome "Ilse Brandt does not work.", whose
"work" stood only in another character's thought ("... my job at work."), here with a cast
name of these tests."""
WORK_THOUGHT = thought(0, "C3", "I am looking for someone to help me with my job at work.")


def _masked(text: str) -> list[str]:
    """The committed texts of `text` told as the outcome of Rui's waiting attempt."""
    reach = attempt(1, "C2", "reaches for the door")
    outcome = PerceptionEvent(
        kind="action_outcome", text=text, actor_id="C2", witness_ids=["C1", "C2", "C3"]
    )
    d = DirectorDecision(events=[outcome])
    out, _ = clamp_decision(d, ctx(FLAT, cast=CAST, history=[WORK_THOUGHT, reach], turn_number=1))
    return [e.text for e in out.events]


def test_an_event_left_with_only_a_name_and_masks_goes() -> None:
    assert _masked(LIVE_NAME_LEFT) == []
    assert _masked("Rui Lopes, C2, does not work.") == []


def test_an_event_with_a_word_of_its_own_beside_the_name_stays() -> None:
    assert _masked("Rui Lopes hands over the work.") == [f"Rui Lopes hands over the {MASK}."]


def test_negative_control_with_names_counted_as_told_the_name_and_mask_are_committed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(emptied, "name_tokens", lambda ctx: frozenset())
    assert _masked(LIVE_NAME_LEFT) == [f"Rui Lopes does not {MASK}."]
