"""Clamp `roster_event`: an event that only lists cast members, the Director's roster copied.

The Director's prompt lists who is present. Live (vintners-wake #40, seed 56, turn 1), the
embedded Director answered the human's greeting with the event "Agnese Corvo, Brother Caspar,
Lio Mendez, Dorotea Sand, Felix Aubert": nothing happened, yet the hall witnessed it and the
human's screen showed it, and the renderer then opened two narrations with the list.

An event whose words are all names (or ids, or words) of two cast members or more, with "and"
between them, goes. So does one that places them as the prompt's staging line does, with "in"
or "at" and the words of the stage's zones (ids and labels), after a "Present" label or not:
live (vintners-wake #61, seed 77, turn 7), the event "Present: Agnese Corvo (C1) in hall;
Brother Caspar (C2) in hall; Lio Mendez (C3) in cellar; ..." was the Director's scene line,
witnessed by the hall and shown to the human. A list with a verb ("Ilse Brandt and Maren Holt
nod.") tells something and stays. The rule runs after the guards, on the texts as they will be
shown: a secret word beside the names, masked, leaves a list (the idempotence property found
"[...] Ana Prado Bruno" kept by a rule that ran before the mask and dropped by the next pass).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import TYPE_CHECKING

from tavern.physics.dropping import drop_events
from tavern.records import Character, ClampChange, DirectorDecision

if TYPE_CHECKING:
    from tavern.physics.clamps import ClampContext

_WORD = re.compile(r"[^\W_]+")
_JOINERS = frozenset(("and", "e"))
"""What a list may hold between names (English, Portuguese)."""


def is_roster(
    text: str, cast: Mapping[str, Character], places: frozenset[str] = frozenset()
) -> bool:
    """Whether `text` names two cast members or more and says nothing else, but where they
    are in the words of `places` (`place_words`).

    >>> from tavern.records import Body, Mind
    >>> cast = {s: Character(id=s.lower(), mind=Mind(),
    ...                      body=Body(display_name=n, description_ref="someone"))
    ...         for s, n in [("C1", "Ilse Brandt"), ("C2", "Maren Holt")]}
    >>> is_roster("Ilse Brandt, Maren Holt.", cast), is_roster("Ilse and C2", cast)
    (True, True)
    >>> is_roster("Ilse Brandt and Maren Holt nod.", cast), is_roster("Ilse Brandt.", cast)
    (False, False)
    >>> is_roster("Present: Ilse (C1) in hall; Maren (C2) in loft", cast, frozenset({"hall"}))
    False
    >>> is_roster("Present: Ilse (C1) in hall; Maren (C2) in hall", cast, frozenset({"hall"}))
    True
    """
    words = [w.casefold() for w in _WORD.findall(text)]
    owners = _owners(tuple((slot, c.body.display_name) for slot, c in cast.items()))
    named = {owner for w in words for owner in owners.get(w, ())}
    if len(named) < 2:
        return False
    if places and words[0] == "present":
        words = words[1:]
    return all(
        w in owners or w in _JOINERS or (bool(places) and (w in places or w in _PLACING))
        for w in words
    )


_PLACING = frozenset(("in", "at"))
"""How the staging line places a name: "Maren Holt (C2) in hall"."""


def place_words(ctx: ClampContext) -> frozenset[str]:
    """The words of the stage's zone ids and labels, case-folded (none for a flat stage)."""
    zones = ctx.scene.zones
    return frozenset(w.casefold() for z in zones for w in _WORD.findall(f"{z.id} {z.label}"))


@lru_cache(maxsize=16)
def _owners(cast: tuple[tuple[str, str], ...]) -> dict[str, frozenset[str]]:
    """Each name word or id (case-folded) -> the slots it may name."""
    found: dict[str, set[str]] = {}
    for slot, name in cast:
        for word in [slot, *_WORD.findall(name)]:
            found.setdefault(word.casefold(), set()).add(slot)
    return {word: frozenset(slots) for word, slots in found.items()}


def drop_roster_events(
    d: DirectorDecision, ctx: ClampContext
) -> tuple[DirectorDecision, list[ClampChange]]:
    """Drop each event that only lists cast members (`is_roster`)."""
    if not d.events or not ctx.cast:
        return d, []
    cast, places = ctx.cast, place_words(ctx)
    return drop_events(d, "roster_event", lambda ev: is_roster(ev.text, cast, places))
