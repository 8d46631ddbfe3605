"""The zone graph: where each present character stands and what reaches whom.

A flat scene (no zones) behaves as one zone named `FLAT_ZONE`. Links are directed: a link
`source -> target` lets characters standing in `target` perceive what happens in `source`.
Two different zones with no link cannot perceive each other at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from tavern.records import Scene, Zone, ZoneLink

FLAT_ZONE = "main"
"""The implicit single zone of a flat scene (and its id once a flat scene gets split)."""

Channel = Literal["sound", "sight"]


def zone_ids(scene: Scene) -> list[str]:
    """Ids of every zone of the scene; a flat scene has exactly `[FLAT_ZONE]`.

    Example:
        >>> zone_ids(Scene(location="inn"))
        ['main']
    """
    return [z.id for z in scene.zones] if scene.zones else [FLAT_ZONE]


def is_flat(scene: Scene) -> bool:
    """True when the scene declares no zones (everyone shares one zone)."""
    return not scene.zones


def zone_of(scene: Scene, slot: str) -> str | None:
    """Zone id where `slot` stands, or None when the character is not present.

    A present character with no recorded position stands in the first zone, so a
    half-filled `positions` map never makes someone imperceptible.

    Example:
        >>> zone_of(Scene(location="inn", present=["C1"]), "C1")
        'main'
    """
    if slot not in scene.present:
        return None
    if not scene.zones:
        return FLAT_ZONE
    zone = scene.positions.get(slot)
    known = zone_ids(scene)
    return zone if zone in known else known[0]


def find_link(scene: Scene, source: str, target: str) -> ZoneLink | None:
    """The directed link `source -> target`, if declared."""
    for link in scene.links:
        if link.source == source and link.target == target:
            return link
    return None


def zone_reaches(scene: Scene, source: str, target: str, channel: Channel) -> bool:
    """Whether what happens in zone `source` reaches a character in zone `target`.

    Example:
        >>> s = Scene(location="inn", zones=[Zone(id="a", label="A"), Zone(id="b", label="B")],
        ...           links=[ZoneLink(source="a", target="b", sound="sealed")])
        >>> zone_reaches(s, "a", "b", "sound"), zone_reaches(s, "a", "b", "sight")
        (False, True)
    """
    if source == target:
        return True
    link = find_link(scene, source, target)
    if link is None:
        return False
    return (link.sound if channel == "sound" else link.sight) == "open"


def can_hear(scene: Scene, listener: str, speaker_zone: str) -> bool:
    """Whether the present character `listener` hears sound made in `speaker_zone`.

    Example:
        >>> can_hear(Scene(location="inn", present=["C1"]), "C1", "main")
        True
    """
    zone = zone_of(scene, listener)
    return zone is not None and zone_reaches(scene, speaker_zone, zone, "sound")


def can_see(scene: Scene, viewer: str, actor_zone: str) -> bool:
    """Whether the present character `viewer` sees what happens in `actor_zone`.

    Example:
        >>> can_see(Scene(location="inn", present=["C1"]), "C2", "main")
        False
    """
    zone = zone_of(scene, viewer)
    return zone is not None and zone_reaches(scene, actor_zone, zone, "sight")


def perceivers_of_zone(scene: Scene, zone: str, channels: Sequence[Channel]) -> list[str]:
    """Present characters (in cast order) reached from `zone` through any of `channels`.

    Example:
        >>> perceivers_of_zone(Scene(location="inn", present=["C1", "C2"]), "main", ["sound"])
        ['C1', 'C2']
    """
    if not channels:
        return []
    # `zone_of` and `zone_reaches` per present character, with the zone ids and the links
    # looked up once: the witness clamp asks this for every event on two stages.
    flat = not scene.zones
    known = zone_ids(scene)
    positions = scene.positions
    links: dict[str, ZoneLink] = {}
    for link in scene.links:
        if link.source == zone:
            links.setdefault(link.target, link)  # the first one, as `find_link` finds it
    found = []
    for slot in scene.present:
        own = FLAT_ZONE if flat else positions.get(slot)
        if own not in known:
            own = known[0]
        if own == zone:
            found.append(slot)
        elif (to_own := links.get(own)) is not None and any(
            (to_own.sound if c == "sound" else to_own.sight) == "open" for c in channels
        ):
            found.append(slot)
    return found


def declare_zone(scene: Scene, zone_id: str, label: str, origin: str) -> Scene:
    """Return a scene with a new zone, open both ways to `origin` (sealing is explicit).

    A flat scene is first materialized as one `FLAT_ZONE` zone labelled with its location,
    with every present character placed in it, so the split keeps everyone where they were.

    Example:
        >>> s = declare_zone(Scene(location="inn", present=["C1"]), "cellar", "the cellar", "main")
        >>> zone_ids(s), s.positions
        (['main', 'cellar'], {'C1': 'main'})
    """
    if zone_id in zone_ids(scene) and scene.zones:
        return scene
    zones = list(scene.zones)
    positions = dict(scene.positions)
    if not zones:
        zones = [Zone(id=FLAT_ZONE, label=scene.location)]
        positions = dict.fromkeys(scene.present, FLAT_ZONE)
    zones.append(Zone(id=zone_id, label=label))
    links = list(scene.links)
    for source, target in ((origin, zone_id), (zone_id, origin)):
        if find_link(scene, source, target) is None:
            links.append(ZoneLink(source=source, target=target))
    return scene.model_copy(update={"zones": zones, "links": links, "positions": positions})
