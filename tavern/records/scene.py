"""The physical stage: a location, a zone graph, and who stands where."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from tavern.records._base import Record

LinkState = Literal["open", "sealed"]
ZONE_ID_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,47}$"


class Zone(Record):
    """One acoustic and visual region of the scene."""

    id: str = Field(pattern=ZONE_ID_PATTERN)
    """Stable zone id, e.g. `hall`, `cellar`."""
    label: str
    """Public description of the zone ("the low stone cellar")."""


class ZoneLink(Record):
    """A directed perception path: a character in `target` perceives what happens in `source`.

    Two zones with no link between them cannot perceive each other at all. Links are
    directed so that, for example, a balcony may overhear the hall while the hall cannot
    hear the balcony.
    """

    source: str
    """Zone whose events travel along the link."""
    target: str
    """Zone that perceives them."""
    sound: LinkState = "open"
    """Whether speech and noise travel from source to target."""
    sight: LinkState = "open"
    """Whether actions are seen from target."""


class Scene(Record):
    """The canonical public stage of a session or scenario."""

    location: str
    """Where the whole scene takes place."""
    description: str = ""
    """Public description of the location."""
    zones: list[Zone] = Field(default_factory=list)
    """Zones of the stage; an empty list means one flat zone."""
    links: list[ZoneLink] = Field(default_factory=list)
    """Directed perception links between zones."""
    positions: dict[str, str] = Field(default_factory=dict)
    """Character slot id -> zone id for every present character (empty for flat scenes)."""
    present: list[str] = Field(default_factory=list)
    """Slot ids of the characters present in the scene, in cast order."""
    facts: list[str] = Field(default_factory=list)
    """Public, established scene facts ("the lamp is out")."""
