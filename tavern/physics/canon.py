"""Canon: applying an already clamped decision's stage changes to the scene.

`apply_canon` is defensive (it skips anything invalid instead of raising) so that it is safe
even on an unclamped decision, but the runner always clamps first.
"""

from __future__ import annotations

from collections.abc import Sequence

from tavern.physics.zones import FLAT_ZONE, declare_zone, find_link, zone_ids, zone_of
from tavern.records import DirectorDecision, LinkUpdate, Scene, ZoneLink, ZoneMove


def preview_zone_ids(scene: Scene, moves: Sequence[ZoneMove]) -> list[str]:
    """Zone ids that exist once `moves` (with their new-zone declarations) apply.

    Example:
        >>> preview_zone_ids(Scene(location="inn"), [])
        ['main']
    """
    ids = zone_ids(scene)
    for move in moves:
        if move.new_zone_label and move.to_zone not in ids:
            ids.append(move.to_zone)
    return ids


def _apply_moves(scene: Scene, moves: Sequence[ZoneMove]) -> Scene:
    for move in moves:
        origin = zone_of(scene, move.character_id)
        if origin is None:
            continue
        if move.to_zone not in zone_ids(scene):
            if not move.new_zone_label:
                continue
            scene = declare_zone(scene, move.to_zone, move.new_zone_label, origin)
        if scene.zones:
            positions = {**scene.positions, move.character_id: move.to_zone}
            scene = scene.model_copy(update={"positions": positions})
    return scene


def _apply_links(scene: Scene, updates: Sequence[LinkUpdate]) -> Scene:
    known = set(zone_ids(scene)) if scene.zones else set()
    links = list(scene.links)
    for up in updates:
        if up.source == up.target or not {up.source, up.target} <= known:
            continue
        old = find_link(scene.model_copy(update={"links": links}), up.source, up.target)
        # A link created by an update opens only the channels it names: never widen by default.
        base = old or ZoneLink(source=up.source, target=up.target, sound="sealed", sight="sealed")
        new = base.model_copy(
            update={"sound": up.sound or base.sound, "sight": up.sight or base.sight}
        )
        links = [lk for lk in links if lk is not old] + [new]
    return scene.model_copy(update={"links": links})


def apply_canon(scene: Scene, decision: DirectorDecision) -> Scene:
    """Apply a clamped decision's scene deltas, zone moves, new zones and link updates.

    A new location means the whole scene moved: the stage becomes flat at the new place and
    only this beat's added facts hold there.

    Example:
        >>> from tavern.records import SceneDelta
        >>> d = DirectorDecision(scene=SceneDelta(add_facts=["the lamp is out"]))
        >>> apply_canon(Scene(location="inn"), d).facts
        ['the lamp is out']
    """
    delta = decision.scene
    if delta.new_location:
        return scene.model_copy(
            update={
                "location": delta.new_location,
                "description": "",
                "zones": [],
                "links": [],
                "positions": {},
                "facts": list(dict.fromkeys(delta.add_facts)),
            }
        )
    scene = _apply_moves(scene, decision.zone_moves)
    scene = _apply_links(scene, decision.link_updates)
    facts = [f for f in scene.facts if f not in set(delta.remove_facts)]
    facts += [f for f in delta.add_facts if f not in facts]
    return scene.model_copy(update={"facts": facts})


__all__ = ["FLAT_ZONE", "apply_canon", "preview_zone_ids"]
