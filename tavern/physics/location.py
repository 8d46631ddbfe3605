"""Whether a proposed new location is a move at all.

`scene.new_location` moves the whole scene to another place. Live, the embedded 0.5B
Director filled it in 65 of 70 beats of eight soaks (stop 14), almost never for a move: a zone
id ("hall", "hall to balcony"), the place renamed after the session title ("Low Water",
"Low Water at Low Water"), a standing fact ("The trapdoor to the cellar is shut and bolted
..."). Each became the stage's location: the reader's scene header changed beat after beat,
and every prompt holding the stage lost its cached prefix from there on.

A proposal restates the stage when it has no word of its own, every content word already on
the stage (location, description, facts, zone ids and labels) or in the other public texts
(the session title, the cast's names and bodies), or when it runs past
`MAX_LOCATION_WORDS` content words: a place has a name, not a paragraph. A real move names a
new place ("the river landing", "the guild hall in the city").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from tavern.physics.canon import apply_canon
from tavern.physics.guards import scene_texts
from tavern.physics.zones import zone_of
from tavern.records import ClampChange, DirectorDecision

if TYPE_CHECKING:
    from tavern.physics.clamps import ClampContext

MAX_LOCATION_WORDS = 8
"""Content words of a place name ("the tavern of the Seven Sisters on the north road": 5)."""

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_SMALL = frozenset(
    "the a an at of to on in into by near with and or from over under above below beside".split()
)


def content_words(text: str) -> list[str]:
    """Lower-cased words of `text` without articles, prepositions and conjunctions."""
    return [w for w in _WORD.findall(text.casefold()) if w not in _SMALL]


def restates_the_stage(new_location: str, stage_texts: Iterable[str]) -> bool:
    """Whether `new_location` names no place that is not already the stage (see the module).

    >>> stage = ["the toll house at the river crossing", "The Toll House at Low Water"]
    >>> restates_the_stage("Low Water at Low Water", stage)
    True
    >>> restates_the_stage("the river landing", stage)
    False
    """
    words = content_words(new_location)
    if not words or len(words) > MAX_LOCATION_WORDS:
        return True
    stage = {w for text in stage_texts for w in content_words(text)}
    return stage.issuperset(words)


def clamp_location(
    d: DirectorDecision, ctx: ClampContext
) -> tuple[DirectorDecision, list[ClampChange]]:
    """Admit a new location only when it names a place that is not already the stage
    (`restates_the_stage`) and every present character ends in one zone."""
    if not d.scene.new_location:
        return d, []
    stage = [*scene_texts(ctx.scene), *(z.id for z in ctx.scene.zones), *ctx.all_public_texts]
    if not restates_the_stage(d.scene.new_location, stage):
        after = apply_canon(ctx.scene, d.model_copy(update={"scene": type(d.scene)()}))
        if len({zone_of(after, slot) for slot in ctx.present}) <= 1:
            return d, []
    change = ClampChange(
        rule="location", path="scene.new_location", before=d.scene.new_location, after=None
    )
    scene = d.scene.model_copy(update={"new_location": None})
    return d.model_copy(update={"scene": scene}), [change]
