"""Turn a library scenario into a fresh session state (a snapshot, independent of the library)."""

from __future__ import annotations

from tavern.records.scenario import Scenario
from tavern.records.session import (
    IdentityEntry,
    NarrativeClock,
    PerspectiveLedger,
    SessionState,
    utc_now,
)
from tavern.store.errors import StoreError
from tavern.store.ids import check_session_id
from tavern.store.library import Library

INITIAL_MOOD = "neutral"


def materialize_session(
    scenario: Scenario,
    library: Library,
    session_id: str,
    controlled_slot: str | None = None,
) -> SessionState:
    """Build the turn-0 state of a new session from `scenario`.

    The cast is snapshotted (later library edits do not reach the session). Every character
    starts knowing each other present character only by its `description_ref`, except the
    names `scenario.introductions` grants that viewer. The clock starts at tick 0 with the
    scenario's act deadlines.

    Args:
        scenario: The scenario template.
        library: Where the cast's characters are read from.
        session_id: Id of the new session.
        controlled_slot: Slot the human controls; the scenario's default when None.

    Raises:
        StoreError: the controlled slot or a staged slot is not in the cast.
        NotInLibrary: a cast character is missing.
    """
    check_session_id(session_id)
    controlled = controlled_slot or scenario.default_controlled_slot
    if controlled not in scenario.cast:
        raise StoreError(f"slot {controlled!r} is not in the cast of {scenario.id!r}")
    cast = {slot: library.get_character(char_id) for slot, char_id in scenario.cast.items()}
    scene = scenario.scene.model_copy(deep=True)
    if not scene.present:
        scene.present = list(cast)
    strays = [s for s in [*scene.present, *scene.positions] if s not in cast]
    if strays:
        raise StoreError(f"scene of {scenario.id!r} names slots outside the cast: {strays}")
    ledgers: dict[str, PerspectiveLedger] = {}
    for viewer in cast:
        known = set(scenario.introductions.get(viewer, []))
        ledgers[viewer] = PerspectiveLedger(
            owner=viewer,
            identities={
                other: IdentityEntry(
                    name=cast[other].body.display_name if other in known else None,
                    description_ref=cast[other].body.description_ref,
                )
                for other in scene.present
                if other != viewer
            },
        )
    return SessionState(
        id=session_id,
        scenario_id=scenario.id,
        title=scenario.title,
        created_at=utc_now(),
        world=scenario.world,
        tone_directives=list(scenario.tone_directives),
        language=scenario.language,
        cast=cast,
        controlled_id=controlled,
        scene=scene,
        opening_facts=list(scene.facts),
        moods=dict.fromkeys(cast, INITIAL_MOOD),
        clock=NarrativeClock(deadlines=[d.model_copy() for d in scenario.act_deadlines]),
        ledgers=ledgers,
    )
