"""Scenarios: a world, a stage and a cast of library characters."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from tavern.records._base import Record
from tavern.records.scene import Scene

Language = Literal["en", "pt-BR"]
SCENARIO_ID_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,63}$"
SLOT_ID_PATTERN = r"^C[1-9][0-9]?$"


class ActDeadline(Record):
    """A scheduled world event the narrative clock stages when its tick arrives."""

    id: str
    """Stable id, recorded once the deadline fires."""
    at_tick: int = Field(ge=1)
    """Clock tick at (or after) which the event is staged."""
    event: str
    """Public description of what happens ("the bell of the watch tower rings")."""


class Scenario(Record):
    """A playable scenario template; sessions snapshot it at creation."""

    id: str = Field(pattern=SCENARIO_ID_PATTERN)
    """Library id: lowercase slug."""
    title: str
    """Human-facing title."""
    world: str
    """World premise, shared with the Director."""
    tone_directives: list[str] = Field(default_factory=list)
    """Style and tone directions for the Director and the prose renderer."""
    scene: Scene
    """The initial scene; its positions and presence use slot ids."""
    cast: dict[str, str]
    """Ordered slot id (`C1`, `C2`, ...) -> library character id."""
    default_controlled_slot: str = Field(pattern=SLOT_ID_PATTERN)
    """Slot the human controls unless the session says otherwise."""
    language: Language = "en"
    """Default response language."""
    act_deadlines: list[ActDeadline] = Field(default_factory=list)
    """Scheduled world events for the narrative clock."""
    introductions: dict[str, list[str]] = Field(default_factory=dict)
    """Viewer slot -> slots whose names that viewer already knows when the session starts."""
    revision: int = 0
    """Optimistic-concurrency counter of the library copy."""
