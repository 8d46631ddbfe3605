"""Rule `stage_direction`: a stage direction written into speech becomes part of the intent.

A Character's speech holds only words said aloud; a small model writes the body's part into
it too ("*draws a knife* Stay back.", "(he falls)"). What the body does is an attempt, which
the next Director beat adjudicates, so the direction moves to the reply's action_intent
(joined to an intent already there by "; ") and the speech keeps its words. The rule reads
marks, not words: every language alike.

Example: speech "*draws a knife* Stay back." -> speech "Stay back.", intent "draws a knife".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tavern.filters.context import FilterContext, Target
from tavern.filters.rule import BOTH, Texts, cut
from tavern.records import FilterCut
from tavern.records.scenario import Language

_STAGE_DIRECTION = re.compile(r"\*[^*]+\*|\([^()]+\)|\[[^\[\]]+\]")


def split_directions(speech: str) -> tuple[str, str]:
    """`speech` without its stage directions, and the directions ("; "-joined).

    >>> split_directions("*draws a knife* Stay back.")
    ('Stay back.', 'draws a knife')
    >>> split_directions("Stay back.")
    ('Stay back.', '')
    """
    found = [m.group()[1:-1].strip() for m in _STAGE_DIRECTION.finditer(speech)]
    if not found:
        return speech, ""
    rest = re.sub(r"\s{2,}", " ", _STAGE_DIRECTION.sub(" ", speech)).strip()
    return rest, "; ".join(f for f in found if f)


@dataclass(frozen=True)
class StageDirection:
    """The rule (see the module): it moves words between two fields."""

    name: str = "stage_direction"
    targets: frozenset[Target] = frozenset(("speech", "action_intent"))
    languages: frozenset[Language] = BOTH

    def apply(self, texts: Texts, ctx: FilterContext) -> tuple[Texts, list[FilterCut]]:
        """`texts` with the speech's directions moved to the intent."""
        speech = texts.get("speech", "")
        rest, moved = split_directions(speech) if speech else (speech, "")
        if not moved and rest == speech:
            return texts, []
        out = dict(texts)
        out["speech"] = rest
        cuts = [cut(self.name, "speech", ctx, speech, rest)]
        if moved:
            intent = texts.get("action_intent", "")
            out["action_intent"] = "; ".join(x for x in (intent, moved) if x)
            cuts.append(cut(self.name, "action_intent", ctx, intent, out["action_intent"]))
        return out, cuts


RULE = StageDirection()
