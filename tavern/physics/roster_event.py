"""Clamp `roster_event`: an event that only lists cast members, the Director's roster copied.

The Director's prompt lists who is present. Live (vintners-wake #40, seed 56, turn 1), the
embedded Director answered the human's greeting with the event "Agnese Corvo, Brother
Caspar, Lio Mendez, Dorotea Sand, Felix Aubert": nothing happened, yet the hall witnessed it
and the human's screen showed it, and the renderer then opened two narrations with the list.

An event whose words are all names (or ids, or words) of two cast members or more, with
"and" between them, goes. A list with a verb ("Ilse Brandt and Maren Holt nod.") tells
something and stays. The rule runs after the guards, on the texts as they will be shown: a
secret word beside the names, masked, leaves a list (the idempotence property found "[...]
Ana Prado Bruno" kept by a rule that ran before the mask and dropped by the next pass).
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


def is_roster(text: str, cast: Mapping[str, Character]) -> bool:
    """Whether `text` names two cast members or more and says nothing else.

    >>> from tavern.records import Body, Mind
    >>> cast = {s: Character(id=s.lower(), mind=Mind(),
    ...                      body=Body(display_name=n, description_ref="someone"))
    ...         for s, n in [("C1", "Ilse Brandt"), ("C2", "Maren Holt")]}
    >>> is_roster("Ilse Brandt, Maren Holt.", cast), is_roster("Ilse and C2", cast)
    (True, True)
    >>> is_roster("Ilse Brandt and Maren Holt nod.", cast), is_roster("Ilse Brandt.", cast)
    (False, False)
    """
    words = [w.casefold() for w in _WORD.findall(text)]
    owners = _owners(tuple((slot, c.body.display_name) for slot, c in cast.items()))
    named = {owner for w in words for owner in owners.get(w, ())}
    return len(named) >= 2 and all(w in owners or w in _JOINERS for w in words)


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
    cast = ctx.cast
    return drop_events(d, "roster_event", lambda ev: is_roster(ev.text, cast))
