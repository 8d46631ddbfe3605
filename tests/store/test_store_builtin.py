"""Every built-in scenario and character is valid, consistent and free of operator vocabulary."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tavern.records import Character, Scenario
from tavern.store import Library
from tavern.store.library import BUILTIN_DIR

OPERATOR_WORDS = re.compile(r"\b(players?|users?|humans?|operators?)\b", re.IGNORECASE)
SCENARIOS = sorted((BUILTIN_DIR / "scenarios").glob("*.json"))
CHARACTERS = sorted((BUILTIN_DIR / "characters").glob("*.json"))


def operator_words(text: str) -> list[str]:
    """Words in `text` that would reveal an operator behind a character."""
    return OPERATOR_WORDS.findall(text)


def scenario_problems(scenario: Scenario, library: Library) -> list[str]:
    """Inconsistencies between a scenario's cast, scene and introductions."""
    problems = []
    slots = set(scenario.cast)
    for char_id in scenario.cast.values():
        try:
            library.get_character(char_id)
        except KeyError:
            problems.append(f"missing character {char_id}")
    zones = {z.id for z in scenario.scene.zones}
    problems += [
        f"position of unknown slot {s}" for s in scenario.scene.positions if s not in slots
    ]
    problems += [f"unknown zone {z}" for z in scenario.scene.positions.values() if z not in zones]
    for link in scenario.scene.links:
        problems += [
            f"link to unknown zone {z}" for z in (link.source, link.target) if z not in zones
        ]
    problems += [f"unknown present slot {s}" for s in scenario.scene.present if s not in slots]
    for viewer, known in scenario.introductions.items():
        problems += [
            f"introduction of unknown slot {s}" for s in [viewer, *known] if s not in slots
        ]
    if scenario.default_controlled_slot not in slots:
        problems.append("default controlled slot outside the cast")
    if list(scenario.cast) != [f"C{i}" for i in range(1, len(slots) + 1)]:
        problems.append("slots are not C1, C2, ... in order")
    return problems


@pytest.mark.parametrize("path", SCENARIOS + CHARACTERS, ids=lambda p: p.name)
def test_builtin_file_is_valid_and_clean(path: Path) -> None:
    model = Scenario if path.parent.name == "scenarios" else Character
    item = model.model_validate_json(path.read_bytes())
    assert item.id == path.stem
    assert operator_words(path.read_text()) == []


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.name)
def test_builtin_scenario_is_consistent(path: Path, tavern_data_dir: Path) -> None:
    scenario = Scenario.model_validate_json(path.read_bytes())
    assert scenario_problems(scenario, Library(tavern_data_dir)) == []


def test_guards_catch_planted_violations(tavern_data_dir: Path) -> None:
    assert operator_words("The player controls the widow.") == ["player"]
    assert operator_words("a human-controlled character")
    assert operator_words("the usher waits") == []
    library = Library(tavern_data_dir)
    good = library.get_scenario("the-vintners-wake")
    bad = json.loads(good.model_dump_json())
    bad["scene"]["positions"]["C3"] = "attic"
    bad["cast"]["C9"] = "nobody-at-all"
    bad["introductions"]["C1"].append("C8")
    problems = scenario_problems(Scenario.model_validate(bad), library)
    assert "unknown zone attic" in problems
    assert "missing character nobody-at-all" in problems
    assert "introduction of unknown slot C8" in problems


def test_small_scenario_is_one_room_with_a_secret(tavern_data_dir: Path) -> None:
    library = Library(tavern_data_dir)
    small = library.get_scenario("the-toll-house")
    assert 2 <= len(small.cast) <= 3
    assert len(small.scene.zones) <= 1
    assert all(library.get_character(c).mind.secrets for c in small.cast.values())


def test_zoned_scenario_makes_zones_matter(tavern_data_dir: Path) -> None:
    library = Library(tavern_data_dir)
    wake = library.get_scenario("the-vintners-wake")
    assert {z.id for z in wake.scene.zones} == {"hall", "cellar", "balcony"}
    assert 4 <= len(wake.cast) <= 5
    assert len(set(wake.scene.positions.values())) == 3  # someone in every zone
    links = {(lk.source, lk.target): (lk.sound, lk.sight) for lk in wake.scene.links}
    assert links[("hall", "balcony")] == ("open", "open")  # the balcony overhears the hall
    assert links[("balcony", "hall")][0] == "sealed"  # ... but is not heard from it
    assert links[("hall", "cellar")] == ("sealed", "sealed")  # until the trapdoor opens
    assert len(wake.act_deadlines) == 1
    descriptions = [library.get_character(c).body.description_ref for c in wake.cast.values()]
    assert len(set(descriptions)) == len(descriptions)
