"""Small text renderers shared by the prompt builders.

Every renderer takes a `namer` so that each role decides how people are called: the
Director by true name plus id, the prose renderer by true name, a Character by what its
ledger taught it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from tavern.physics.redaction import salient_tokens
from tavern.records import Scene, SessionState

Namer = Callable[[str], str]

LOG = "· "
"""Prefix of every line of free text (records, memory, facts, narration) in any prompt.

Only roster lines may open with a character's name: a transcript line opening with one
would read as a character card to the prompt contract's structural rules, and history
(who happened to speak) would then look like one character being marked differently.
"""


def tokens_in(texts: Iterable[str]) -> frozenset[str]:
    """Union of `salient_tokens` over `texts`."""
    return frozenset().union(*map(salient_tokens, texts))


def log_lines(texts: Iterable[str]) -> str:
    """Free-text lines, one per text, each behind `LOG` (inner newlines folded).

    >>> log_lines(["a  b", "", "c\\nd"])
    '· a b\\n· c d'
    """
    return "\n".join(filter(None, map(_log_line, texts)))


def _log_line(text: str) -> str:
    folded = " ".join(text.split())
    return LOG + folded if folded else ""


def roster_line(state: SessionState, slot: str, *, with_mind: bool) -> str:
    """One cast line: id, name, appearance and, for the Director, the full mind.

    Every character gets exactly the same fields in the same form, whoever plays it.
    """
    c = state.cast[slot]
    line = f"- {slot}: {c.body.display_name}. Appearance: {c.body.appearance or '(plain)'}"
    if with_mind:
        line += (
            f"\n  Personality: {c.mind.personality or '(unremarkable)'}"
            f"\n  Secrets: {'; '.join(c.mind.secrets) or '(none)'}"
            f"\n  Goals: {'; '.join(c.mind.goals) or '(none)'}"
        )
    return line


def zone_graph_block(scene: Scene) -> str:
    """The zone graph: zones and directed perception links."""
    if not scene.zones:
        return "One open space: everyone present sees and hears everyone."
    lines = [f"- {z.id}: {z.label}" for z in scene.zones]
    for link in scene.links:
        lines.append(
            f"- from {link.source} to {link.target}: sound {link.sound}, sight {link.sight}"
        )
    return "\n".join(lines)


def scene_block(
    scene: Scene, namer: Namer, *, with_zone_ids: bool = True, with_place: bool = True
) -> str:
    """Location (unless `with_place=False`), facts and who is present where."""
    lines = []
    if with_place:
        lines.append(f"Location: {scene.location}")
        if scene.description:
            lines.append(scene.description)
    lines.append("Facts:\n" + (log_lines(scene.facts) or "(none)"))
    lines.append("Present: " + ("; ".join(staging(scene, namer, with_zone_ids)) or "nobody"))
    return "\n".join(lines)


def staging(scene: Scene, namer: Namer, with_zone_ids: bool = True) -> list[str]:
    """Who is present where, one part each ("Lio Mendez in cellar", or with the zone's label
    when `with_zone_ids=False`): the parts of `scene_block`'s "Present:" line."""
    labels = {z.id: z.label for z in scene.zones}
    present = []
    for slot in scene.present:
        zone = scene.positions.get(slot)
        where = ""
        if zone:
            # Zone ids are explained once by the zone graph; labels only where ids are not used.
            where = f" in {zone}" if with_zone_ids else f" in {labels.get(zone, zone)}"
        present.append(namer(slot) + where)
    return present
