"""The guards' clamps: redact what a beat shows of secrets found in history.

`redact_visible` knows which fields of a decision are shown to whom; the clamps
`thought_guard` and `whisper_guard` (and the runner's speech guard) redact through it.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING

from tavern.physics.guards import thought_only_words, whisper_payloads
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
    (thoughts, whispers, the runner's speech guard) redacts through it.

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


def thought_guard(d: DirectorDecision, ctx: ClampContext) -> tuple[DirectorDecision, Changes]:
    """Redact tokens found so far only in private thoughts from everything the beat shows.

    Every event text is covered whoever witnesses it: events also feed the prose renderer,
    which must never receive a thought's content.
    """
    secret = thought_only_words(ctx.history, ctx.scene, ctx.all_public_texts)
    return redact_visible(d, "thought_guard", lambda _i: secret, secret)


def whisper_guard(d: DirectorDecision, ctx: ClampContext) -> tuple[DirectorDecision, Changes]:
    """Redact whisper payload tokens from any event whose witnesses exceed that whisper's audience.

    An event with no witness still reaches the prose renderer (and so the reader), so it
    counts as exceeding every audience; stage texts are visible to all present and are
    redacted unless every present character was inside the whisper.
    """
    payloads = whisper_payloads(ctx.history, ctx.scene, ctx.all_public_texts)

    def for_event(i: int) -> set[str]:
        witnesses = set(d.events[i].witness_ids)
        hidden: set[str] = set()
        for p in payloads:
            if not witnesses or not witnesses <= p.perceivers:
                hidden |= p.tokens
        return hidden

    everywhere: set[str] = set()
    for p in payloads:
        if not set(ctx.present) <= p.perceivers:
            everywhere |= p.tokens
    return redact_visible(d, "whisper_guard", for_event, everywhere)
