"""The guards' clamps: redact what a beat shows of words its viewers never perceived.

`redact_visible` knows which fields of a decision are shown to whom; the clamps
`thought_guard` and `perception_guard` redact through it, reading `guards.knowledge_of`;
`masked_on_stage` is what they mask in a stage text, for a clamp that runs before them.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING

from tavern.physics.redaction import redact
from tavern.records import ClampChange, DirectorDecision

if TYPE_CHECKING:
    from tavern.physics.clamps import ClampContext

Changes = list[ClampChange]


def redact_visible(
    d: DirectorDecision,
    rule: str,
    hide_in_event: Callable[[int], AbstractSet[str]],
    everywhere: AbstractSet[str],
) -> tuple[DirectorDecision, Changes]:
    """Redact event texts (per event) and the texts everyone present sees (facts, a new
    location, new zone labels, moods); one change per redacted text, under `rule`.

    The one place that knows which fields of a decision are shown to whom: every guard
    redacts through it.

    Example:
        >>> d = DirectorDecision(mood_updates={"C1": "hums the 4471 tune"})
        >>> out, changes = redact_visible(d, "demo", lambda _i: set(), {"4471"})
        >>> out.mood_updates, [c.path for c in changes]
        ({'C1': 'hums the [...] tune'}, ['mood_updates.C1'])
    """
    changes: Changes = []

    def scrub(path: str, text: str, tokens: AbstractSet[str]) -> str:
        new = redact(text, tokens)
        if new != text:
            changes.append(ClampChange(rule=rule, path=path, before=text, after=new))
        return new

    # Every guard runs this on every decision and most find nothing: copy only what changed.
    events = [
        ev
        if (text := scrub(f"events[{i}].text", ev.text, hide_in_event(i))) == ev.text
        else ev.model_copy(update={"text": text})
        for i, ev in enumerate(d.events)
    ]
    delta = d.scene
    facts = [scrub(f"scene.add_facts[{i}]", f, everywhere) for i, f in enumerate(delta.add_facts)]
    location = delta.new_location and scrub("scene.new_location", delta.new_location, everywhere)
    moves = [
        m
        if not m.new_zone_label
        or (label := scrub(f"zone_moves[{i}].new_zone_label", m.new_zone_label, everywhere))
        == m.new_zone_label
        else m.model_copy(update={"new_zone_label": label})
        for i, m in enumerate(d.zone_moves)
    ]
    moods = {k: scrub(f"mood_updates.{k}", v, everywhere) for k, v in d.mood_updates.items()}
    if not changes:
        return d, changes  # every text came back equal
    new_delta = delta.model_copy(update={"add_facts": facts, "new_location": location})
    update = {"events": events, "scene": new_delta, "zone_moves": moves, "mood_updates": moods}
    return d.model_copy(update=update), changes


def masked_on_stage(ctx: ClampContext) -> frozenset[str]:
    """The words the guards mask in a text everyone present sees (a new fact, location or
    zone label, a mood): what only thoughts carried (`thought_guard`) and what some present
    character never perceived (`perception_guard`). A clamp running before the guards reads
    such a text through it, so a second pass over the clamped decision judges what the
    first pass left (clamp `agency_move`).

    Example:
        >>> from tavern.physics.clamps import ClampContext
        >>> from tavern.records import Audience, Scene, ThoughtRecord
        >>> t = ThoughtRecord(seq=0, turn_number=1, speaker="C1", author="character",
        ...                   text="the belfry", audience=Audience(origin="private",
        ...                   perceivers=["C1"]))
        >>> sorted(masked_on_stage(ClampContext(scene=Scene(location="inn", present=["C1"]),
        ...                                     history=[t])))
        ['belfry']
    """
    known = ctx.knowledge
    return known.thought_only | known.unknown_to_any(ctx.present)


def thought_guard(d: DirectorDecision, ctx: ClampContext) -> tuple[DirectorDecision, Changes]:
    """Redact tokens found so far only in private thoughts from everything the beat shows.

    Every event text is covered whoever witnesses it: events also feed the prose renderer,
    which must never receive a thought's content.
    """
    secret = ctx.knowledge.thought_only
    return redact_visible(d, "thought_guard", lambda _i: secret, secret)


def perception_guard(d: DirectorDecision, ctx: ClampContext) -> tuple[DirectorDecision, Changes]:
    """Redact from each event the words one of its witnesses never perceived, and from the
    stage texts those one present character never perceived (`guards.Knowledge`).

    Publication is relative to perceivers: a whisper's word said aloud in the hall is known
    to the hall, not to a sealed cellar; an attempt made in the cellar is known to the
    cellar. An event with no witness still reaches the prose renderer (and so the reader),
    so it counts as shown to everyone present.
    """
    known = ctx.knowledge
    present = ctx.present
    everywhere = known.unknown_to_any(present)

    def for_event(i: int) -> frozenset[str]:
        witnesses = d.events[i].witness_ids
        return known.unknown_to_any(witnesses) if witnesses else everywhere

    return redact_visible(d, "perception_guard", for_event, everywhere)
