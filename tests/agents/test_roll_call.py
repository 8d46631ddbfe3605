"""A narration's roll call: one sentence told again for each member of the cast."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tavern.agents import prose
from tavern.agents.roll_call import drop_roll_call, drop_roster

NAMES = ["Ilse Brandt", "Maren Holt", "Teodor Vask"]
LIVE = (
    "The lamp has perhaps two hours of oil. Ilse Brandt sees the toll box and realizes that it"
    " has been locked. Maren Holt sees the toll box and realizes that it has been locked."
    " Teodor Vask sees the toll box and realizes that it has been locked"
)
"""Toll-house soak #23 (seed 40), turn 3: the whole narration."""
TOLD_ONCE = (
    "The lamp has perhaps two hours of oil. Ilse Brandt sees the toll box and realizes that it"
    " has been locked."
)


def test_the_live_roll_call_keeps_its_first_telling() -> None:
    assert prose.parse({"narration": LIVE}, names=NAMES) == TOLD_ONCE


def test_short_reactions_and_different_sentences_stay() -> None:
    kept = "Ilse Brandt nods. Maren Holt nods. Teodor Vask opens the toll box with a bent nail."
    assert drop_roll_call(kept, NAMES) == kept
    # Unnamed repeats are `repetition.cut_runaway`'s to judge, not this rule's.
    assert drop_roll_call("Rain falls on the roof. Rain falls on the roof.", NAMES) == (
        "Rain falls on the roof. Rain falls on the roof."
    )


def test_negative_control_without_the_rule_every_telling_stays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(prose, "drop_roll_call", lambda text, _names: text)
    assert prose.parse({"narration": LIVE}, names=NAMES).count("sees the toll box") == 3


@given(
    st.permutations(NAMES),
    st.sampled_from(["sees the toll box is locked", "hears the rain on the roof"]),
)
def test_one_telling_stays_whoever_is_named(order: list[str], told: str) -> None:
    text = " ".join(f"{name} {told}." for name in order)
    assert drop_roll_call(text, NAMES) == f"{order[0]} {told}."


ROSTER = "Ilse Brandt, Maren Holt, Teodor Vask."
"""Toll-house seed 40 on the final code of stop 20, turn 7: the whole narration."""


def test_a_roster_of_names_is_no_narration() -> None:
    assert prose.parse({"narration": ROSTER}, names=NAMES) == ""
    kept = "Ilse Brandt, Maren Holt and Teodor Vask wait by the door. Maren Holt!"
    assert drop_roster(f"{ROSTER} {kept}", NAMES) == kept


def test_negative_control_without_the_roster_rule_the_names_are_shown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(prose, "drop_roster", lambda text, _names: text)
    assert prose.parse({"narration": ROSTER}, names=NAMES) == ROSTER
