"""Clamp `near_duplicate_event`: one happening told twice in a beat, in other words.

`duplicate_event` merges copies whose words are the same; the embedded Director also tells
one happening twice with a word or two changed. Live: toll-house #35's rerun (seed 49, turn
2) committed "Ilse Brandt walks slowly to the nearest window and looks outside" and "Ilse
Brandt tries this, walks slowly to the nearest window and looks outside." in one beat, and
every witness remembered both.

A later event goes when it has the same actor as an earlier one of the beat, says no salient
word the earlier one does not (stems compared: "drops" ~ "drop"; a verb of attempting aside,
`ATTEMPTING`), leaves out few of its words (`SAME_SHARE`), negates as it does, and reaches
nobody the earlier one does not: its witnesses lose a second wording, never a happening. A
later event with a word of its own ("... and smashes it") stays, and so does a shorter one
that may tell another outcome ("Ana opens the will." after "Ana tries to open the will, but
the seal holds."). Unlike an exact copy it is not merged: other words may not be shown to
others.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tavern.physics.attempt_told import act_stem
from tavern.physics.dropping import drop_events
from tavern.physics.redaction import salient_tokens
from tavern.records import ClampChange, DirectorDecision, PerceptionEvent

if TYPE_CHECKING:
    from tavern.physics.clamps import ClampContext

ATTEMPTING = frozenset(("attempt", "attempted", "trie", "tried", "try", "trying"))
"""Verbs of attempting in `act_stem` form: "tries this, walks ..." tells the walk again."""
SAME_SHARE = 0.75
"""Shared stems over both texts' stems: the live pair shares 8 of 9. "The lamp flickers and
the hearthstone drops." after "The light in the lamp flickers and the hearthstone begins to
drop." (4 of 6) stays: a shorter text may leave out what made the first one true."""
NEGATIONS = frozenset(("not", "no", "never", "nor", "nothing", "nobody", "none", "cannot"))
"""Stopwords (never salient) that turn a text around: "is not shut" is not "is shut"."""
_NEGATION = re.compile(r"\b(?:" + "|".join(NEGATIONS) + r")\b|n[’']t\b", re.IGNORECASE)


def _stems(text: str) -> frozenset[str]:
    return frozenset(act_stem(w) for w in salient_tokens(text))


def told_again(later: str, earlier: str) -> bool:
    """Whether `later` says nothing `earlier` did not (see the module).

    >>> told_again("Ilse tries this, walks to the nearest window and looks outside.",
    ...            "Ilse walks to the nearest window and looks outside")
    True
    >>> told_again("Maren lifts the lamp and smashes it", "Maren lifts the lamp")
    False
    >>> told_again("The trapdoor to the cellar is not shut", "The trapdoor to the cellar is shut")
    False
    """
    words, told = _stems(later), _stems(earlier)
    if not words or not words - told <= ATTEMPTING:
        return False
    if len(words & told) < SAME_SHARE * len(words | told):
        return False
    return _negated(later) == _negated(earlier)


def _negated(text: str) -> int:
    return len(_NEGATION.findall(text))


def drop_near_duplicates(
    d: DirectorDecision, ctx: ClampContext
) -> tuple[DirectorDecision, list[ClampChange]]:
    """Drop each event that tells an earlier event of the beat again (see the module)."""
    del ctx
    kept: list[PerceptionEvent] = []

    def again(ev: PerceptionEvent) -> bool:
        for earlier in kept:
            if (
                earlier.actor_id == ev.actor_id
                and set(ev.witness_ids) <= set(earlier.witness_ids)
                and told_again(ev.text, earlier.text)
            ):
                return True
        kept.append(ev)
        return False

    return drop_events(d, "near_duplicate_event", again)
