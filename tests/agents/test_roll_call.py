"""A narration's roll call: one sentence told again for each member of the cast."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tavern.agents import prose, roll_call
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
    # A predicate told twice in one narration also goes as a retelling: set that rule aside.
    monkeypatch.setattr(prose, "drop_retold_subjects", lambda text, *_: text)
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
    monkeypatch.setattr(prose, "drop_roster", lambda text, *_context: text)
    assert prose.parse({"narration": ROSTER}, names=NAMES) == ROSTER


VW_NAMES = ["Agnese Corvo", "Brother Caspar", "Lio Mendez", "Dorotea Sand", "Felix Aubert"]
VW_STAGE = [
    "the vintner's house on the hill",
    "A stone house: a long hall with the open coffin under candles, a narrow balcony above it,"
    " and a vaulted cellar below reached by a trapdoor in the hall floor, now shut.",
]
"""The location and description of the renderer's prompt ("## Scene now")."""
VW_ROSTER = (
    "Agnese Corvo, Brother Caspar, Lio Mendez, Dorotea Sand, Felix Aubert are at the vintner's"
    " house on the hill, with a stone house inside."
)
"""Vintners-wake soak #36 (seed 51), turn 5: the narration's first sentence."""


BELL = "The chapel bell tolls over the coffin."


def _told_before_the_bell(
    copy: str, recited: Sequence[str] = (), staged: Sequence[str] = ()
) -> str:
    """The wake's narration of `copy` then `BELL`, as `prose.parse` commits it."""
    narration = {"narration": f"{copy} {BELL}"}
    return prose.parse(narration, names=VW_NAMES, recited=recited, staged=staged)


def test_the_live_roster_with_the_stage_is_no_narration() -> None:
    assert _told_before_the_bell(VW_ROSTER, recited=VW_STAGE) == BELL
    staged = ["Agnese Corvo in the long hall with the open coffin"]
    both_in_hall = "Agnese Corvo and Felix Aubert stand in the long hall. Rain."
    assert drop_roster(both_in_hall, VW_NAMES, staged) == "Rain."


@pytest.mark.parametrize(
    ("sentence", "events"),
    [
        # a place the stage does not name
        ("Agnese Corvo and Lio Mendez are at the window.", []),
        # a move of this beat, told
        ("Agnese Corvo and Lio Mendez are in the vaulted cellar.", ["Lio Mendez climbs down"
         " into the vaulted cellar with Agnese Corvo."]),
        # names doing something where the stage is
        ("Agnese Corvo and Lio Mendez argue in the long hall.", []),
        # one name only
        ("Agnese Corvo is in the long hall.", []),
    ],
)  # fmt: skip
def test_a_sentence_placing_names_stays_when_it_tells_something(
    sentence: str, events: list[str]
) -> None:
    assert drop_roster(sentence, VW_NAMES, VW_STAGE, events) == sentence


def test_negative_control_without_the_stage_the_live_roster_stays() -> None:
    assert drop_roster(VW_ROSTER, VW_NAMES) == VW_ROSTER
    assert drop_roster(VW_ROSTER, VW_NAMES, VW_STAGE) == ""


@given(
    st.sampled_from(["are", "stand", "remain", "wait", "argue", "sing"]),
    st.sampled_from(["in the long hall", "at the vintner's house", "by the open coffin"]),
)
def test_only_a_presence_verb_makes_a_placed_roster(verb: str, place: str) -> None:
    sentence = f"Agnese Corvo and Brother Caspar {verb} {place}."
    gone = drop_roster(sentence, VW_NAMES, VW_STAGE) == ""
    assert gone == (verb in {"are", "stand", "remain"})


TH_41 = "Ilse Brandt, Maren Holt, and Teodor Vask are present."
"""Toll-house #41 (seed 55), turn 8: the narration's first sentence, copying the event."""


def test_a_roster_that_only_says_they_are_there_goes_even_when_an_event_says_it() -> None:
    kept = prose.parse({"narration": f"{TH_41} The lamp gutters."}, names=NAMES, events=[TH_41])
    assert kept == "The lamp gutters."
    assert drop_roster("Maren Holt and Teodor Vask are all here. Rain.", NAMES) == "Rain."
    assert drop_roster("Maren Holt and Teodor Vask are late. Rain.", NAMES).startswith("Maren")


VW_STAGED = [
    "Agnese Corvo in the long hall with the open coffin",
    "Brother Caspar in the long hall with the open coffin",
    "Lio Mendez in the vaulted wine cellar beneath the hall",
    "Dorotea Sand in the long hall with the open coffin",
    "Felix Aubert in the narrow balcony above the hall",
]
"""The "Present:" line of the renderer's prompt (`prose.staging_parts`)."""
VW_60 = (
    "Lio Mendez in the vaulted wine cellar beneath the hall, Brother Caspar in the vaulted wine"
    " cellar beneath the hall, Dorootea Sand in the long hall with the open coffin, Felix Aubert"
    " in the narrow balcony above the hall."
)
"""Vintners-wake #60 (seed 76), turn 3, as the renderer wrote it (one name one letter off)."""


def test_the_staging_line_told_as_a_sentence_is_no_narration() -> None:
    assert _told_before_the_bell(VW_60, staged=VW_STAGED) == BELL
    story = "Lio Mendez in the cellar hears Felix Aubert on the balcony."
    assert drop_roster(story, VW_NAMES, VW_STAGED) == story


@pytest.mark.parametrize(
    "without",
    ["staging form", "respelling"],
)
def test_negative_control_the_live_staging_line_needs_both_rules(
    without: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if without == "respelling":
        monkeypatch.setattr(prose, "respelt_names", lambda text, names: text)
    else:
        monkeypatch.setattr(roll_call, "PLACE_WORDS", frozenset(("and",)))
    kept = prose.parse({"narration": VW_60}, names=VW_NAMES, staged=VW_STAGED)
    assert "Felix Aubert in the narrow balcony" in kept
