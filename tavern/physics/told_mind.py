"""Clamp `told_mind`: an event tells what its witnesses perceive, and nobody perceives a thought.

Live (toll-house #62, seed 76, turn 5), the human's "reaches for the door" got the outcome
"Ilse Brandt reaches for the door, thinking he might have a reason to open the toll box.":
the Director wrote a thought for the human's character, and every witness would remember
perceiving it. A character's thoughts are its own agent's (a reply's `thought`, private to
the thinker and the Director), and the human's are the human's.

- A clause after a comma that opens with a verb of thinking in "-ing" (`THINKING`, adverbs
  before it allowed: "..., quietly wondering who ...") is cut, up to the sentence's end; the
  rest of the sentence stands ("Ilse Brandt reaches for the door.").
- A sentence whose subject is a cast member (named, or a pronoun after one) and whose verb is
  one of thinking (`THINKS`: "Maren Holt wonders who took the coin.") goes.
Verbs of perceiving, feeling and finding out ("notices", "feels", "hears", "realizing it is
empty") stay: they tell what a body undergoes, and the clamp `agency` reads them so too. Nor
is a finite "decides" or "plans" here: it announces an act, which `agency` judges against the
character's attempts. An event left empty goes.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tavern.physics.acts import Names, read_acts, sentence_spans
from tavern.physics.dropping import rewrite_events
from tavern.records import ClampChange, DirectorDecision

if TYPE_CHECKING:
    from tavern.physics.clamps import ClampContext

RULE = "told_mind"

THINKING = (
    "thinking wondering hoping wishing believing fearing deciding planning intending"
    " suspecting imagining remembering pondering considering musing guessing reasoning"
).split()
"""Verbs of a mind at work, as a participle opening a clause of its own."""
THINKS = frozenset(
    "thinks thought wonders wondered hopes hoped wishes wished believes believed fears feared"
    " suspects suspected imagines imagined remembers remembered ponders pondered muses mused"
    " guesses guessed".split()
)
"""Verbs of a mind at work, finite: a cast member doing one is told thinking."""

_THINKING_CLAUSE = re.compile(
    r",\s*(?:(?:[a-z]+ly)\s+)?(?:" + "|".join(THINKING) + r")\b[^.!?]*",
    re.IGNORECASE,
)
_MAY_THINK = re.compile(r"\b(?:" + "|".join(sorted(THINKS)) + r")\b")
"""One C-level search (of the lower-cased text: under IGNORECASE the engine cannot skip
ahead by literal, and took four times as long) before any sentence is read: most events tell
no thinking."""


def without_thinking_clauses(text: str) -> str:
    """`text` without its clauses telling someone thinking (see the module).

    >>> without_thinking_clauses("Ilse reaches for the door, thinking he might open the box.")
    'Ilse reaches for the door.'
    >>> without_thinking_clauses("Rain falls, drumming on the shutters.")
    'Rain falls, drumming on the shutters.'
    """
    return _THINKING_CLAUSE.sub("", text)


def without_told_thoughts(text: str, names: Names, actor: str | None = None) -> str:
    """`text` without its thinking clauses and its sentences of a cast member thinking; ""
    when nothing is left. A leading pronoun refers to `actor`."""
    text = without_thinking_clauses(text)
    if not _MAY_THINK.search(text.lower()):
        return text.strip()
    kept = []
    before = actor
    for a, b in sentence_spans(text):
        acts, before = read_acts(text[a:b], names, before)
        if not any(act.subjects and act.verb in THINKS for act in acts):
            kept.append(text[a:b])
    return "".join(kept).strip()


def drop_told_thoughts(
    d: DirectorDecision, ctx: ClampContext
) -> tuple[DirectorDecision, list[ClampChange]]:
    """Each event text without what it tells of anyone's thinking; an event left empty goes."""
    if not d.events:
        return d, []
    names = Names.of(ctx.cast or {})

    def rewrite(text: str, actor: str | None) -> str:
        kept = without_told_thoughts(text, names, actor)
        return text if kept == text.strip() else kept

    return rewrite_events(d, RULE, lambda ev: rewrite(ev.text, ev.actor_id))
