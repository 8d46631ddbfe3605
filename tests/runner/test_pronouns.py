"""A narration's "He"/"She" for a cast member is the sheet's (`physics.pronouns`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tavern.physics.pronouns import sheet_pronoun, with_sheet_pronouns
from tavern.records import Body, Character, Mind
from tavern.runner import turn
from tavern.store import Library

from .kit import narrated_once


def _cast(scenario: str) -> dict[str, Character]:
    library = Library(Path("/nonexistent"))
    sheet = library.get_scenario(scenario)
    return {slot: library.get_character(ref) for slot, ref in sheet.cast.items()}


WAKE = _cast("the-vintners-wake")
TOLL = _cast("the-toll-house")
LIVE_WAKE = (
    "Agnese Corvo walks slowly to the nearest window and looks outside. He hears a crackle in"
    " the window, indicating that someone is outside."
)
"""Vintners-wake #49 (seed 65), turn 2."""
LIVE_TOLL = (
    "Ilse Brandt walks slowly to the nearest window and looks outside. He looks at the window"
    " and sees that it is a low room of tarred timber."
)
"""Toll-house #55 (seed 69), turn 2."""


def test_the_live_pronouns_follow_the_sheets() -> None:
    assert with_sheet_pronouns(LIVE_WAKE, WAKE) == LIVE_WAKE.replace(". He ", ". She ")
    assert with_sheet_pronouns(LIVE_TOLL, TOLL) == LIVE_TOLL.replace(". He ", ". She ")


@pytest.mark.parametrize(
    "text",
    [
        "Ilse Brandt waves to the ferryman. He waves back.",  # someone else it may name
        "Ilse Brandt nods to Teodor Vask. He nods back.",  # two of the cast
        "Ilse Brandt nods. She smiles.",  # already right
        "Rain falls. He waits.",  # no one named before
        "Teodor Vask sighs. He waits.",
        "Ilse Brandt nods. Hesitantly, Maren follows.",
    ],
)
def test_a_pronoun_that_may_name_another_stays(text: str) -> None:
    assert with_sheet_pronouns(text, TOLL) == text


def test_every_built_in_sheet_tells_a_pronoun() -> None:
    for cast in (WAKE, TOLL):
        for c in cast.values():
            assert sheet_pronoun(c.body.appearance, c.body.description_ref) in ("he", "she")


NAMED = st.sampled_from(sorted((c.body.display_name, slot) for slot, c in TOLL.items()))


@given(NAMED, st.sampled_from(["He", "She"]), st.sampled_from(["waits.", "looks out."]))
def test_the_pronoun_after_one_named_member_is_theirs(
    named: tuple[str, str], written: str, rest: str
) -> None:
    name, slot = named
    body = TOLL[slot].body
    wanted = sheet_pronoun(body.appearance, body.description_ref)
    assert wanted is not None
    text = f"{name} stands by the lamp. {written} {rest}"
    assert with_sheet_pronouns(text, TOLL) == f"{name} stands by the lamp. {wanted.title()} {rest}"


def test_a_sheet_without_a_gendered_word_changes_nothing() -> None:
    body = Body(display_name="Ash", appearance="Tall, in grey.", description_ref="the grey one")
    cast = {"C1": Character(id="ash", mind=Mind(), body=body)}
    assert with_sheet_pronouns("Ash waits. She sighs. He sighs.", cast) == (
        "Ash waits. She sighs. He sighs."
    )


def _narrated(tmp_path: Path, narration: str) -> list[str]:
    return narrated_once(tmp_path, narration)


QUIET = "Ilse Brandt is soaked to the knees. He hears the rain on the shutters."


def test_a_turn_narrates_the_sheets_pronoun(tmp_path: Path) -> None:
    assert _narrated(tmp_path, QUIET) == [QUIET.replace("He", "She")]


def test_negative_control_without_the_rule_the_wrong_pronoun_is_narrated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(turn, "with_sheet_pronouns", lambda text, cast: text)
    assert _narrated(tmp_path, QUIET) == [QUIET]


LIVE_REFLEXIVE = "Agnese Corvo whispers something to himself."
"""Vintners-wake #52 (seed 68), turn 6: the human had whispered to another."""


def test_a_reflexive_is_the_subjects_own() -> None:
    assert with_sheet_pronouns(LIVE_REFLEXIVE, WAKE) == LIVE_REFLEXIVE.replace("him", "her")
    for kept in [
        "Felix Aubert mutters to himself.",
        "Rain falls on the roof by itself.",
        "Agnese Corvo hands Brother Caspar the cane; he keeps it to himself.",
        "Agnese Corvo nods, and he keeps it to himself.",
        "Agnese Corvo watches the ferryman talk to himself.",
    ]:
        assert with_sheet_pronouns(kept, WAKE) == kept


def test_negative_control_without_reflexives_himself_stays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tavern.physics import pronouns

    monkeypatch.setattr(pronouns, "_REFLEXIVE", re.compile(r"(?!)"))
    assert with_sheet_pronouns(LIVE_REFLEXIVE, WAKE) == LIVE_REFLEXIVE
