"""Scenario library: list, read, write user copies, delete; built-ins are read-only."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Response

from tavern.app.deps import IdPath, LibraryDep
from tavern.app.routes._library import attachment, require_matching_id
from tavern.app.schemas import ScenarioExport, ScenarioPublic, ScenariosPublic
from tavern.records import Scenario
from tavern.store import Library, NotInLibrary

router = APIRouter(prefix="/scenarios", tags=["scenarios"])


def scenario_problems(scenario: Scenario, library: Library) -> list[str]:
    """Why a scenario could never be played (empty when it can)."""
    problems: list[str] = []
    if scenario.default_controlled_slot not in scenario.cast:
        problems.append(f"default_controlled_slot {scenario.default_controlled_slot!r} not in cast")
    for slot, character_id in scenario.cast.items():
        try:
            library.get_character(character_id)
        except (NotInLibrary, ValueError):
            problems.append(f"cast.{slot}: unknown character {character_id!r}")
    zone_ids = {z.id for z in scenario.scene.zones}
    for slot in scenario.scene.present:
        if slot not in scenario.cast:
            problems.append(f"scene.present: {slot!r} not in cast")
    for slot, zone in scenario.scene.positions.items():
        if slot not in scenario.cast:
            problems.append(f"scene.positions: {slot!r} not in cast")
        if zone not in zone_ids:
            problems.append(f"scene.positions.{slot}: unknown zone {zone!r}")
    return problems


def _public(scenario: Scenario, library: Library) -> ScenarioPublic:
    return ScenarioPublic(scenario=scenario, builtin=library.is_builtin_scenario(scenario.id))


@router.get("")
def list_scenarios(library: LibraryDep) -> ScenariosPublic:
    """Every scenario, built-ins and user copies."""
    data = [_public(s, library) for s in library.list_scenarios()]
    return ScenariosPublic(data=data, count=len(data))


@router.get("/{scenario_id}")
def get_scenario(scenario_id: IdPath, library: LibraryDep) -> ScenarioPublic:
    """One scenario."""
    return _public(library.get_scenario(scenario_id), library)


@router.get("/{scenario_id}/export")
def export_scenario(scenario_id: IdPath, library: LibraryDep, response: Response) -> ScenarioExport:
    """The scenario and the characters its cast names, as one file (`<id>.tavern.json`)."""
    scenario = library.get_scenario(scenario_id)
    characters = [library.get_character(c) for c in dict.fromkeys(scenario.cast.values())]
    attachment(response, f"{scenario_id}.tavern.json")
    return ScenarioExport(scenario=scenario, characters=characters)


@router.put("/{scenario_id}")
def put_scenario(scenario_id: IdPath, body: Scenario, library: LibraryDep) -> ScenarioPublic:
    """Create or replace a user scenario.

    `revision` is the revision the client last read (0 for a new one); a stale one is a 409,
    as is any write to a built-in. An unplayable scenario is a 422 and nothing is written.
    """
    require_matching_id(scenario_id, body.id)
    problems = scenario_problems(body, library)
    if problems:
        raise HTTPException(422, "; ".join(problems))
    exists = scenario_id in {s.id for s in library.list_scenarios()}
    stored = library.put_scenario(body, body.revision if exists else None)
    return _public(stored, library)


@router.delete("/{scenario_id}")
def delete_scenario(scenario_id: IdPath, library: LibraryDep) -> ScenarioPublic:
    """Delete a user scenario; answers with what was deleted."""
    scenario = library.get_scenario(scenario_id)
    library.delete_scenario(scenario_id)
    return ScenarioPublic(scenario=scenario, builtin=False)
