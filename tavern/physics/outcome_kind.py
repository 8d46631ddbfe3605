"""Clamp `outcome_kind`: an actor's event that tells their waiting attempt is its outcome.

The runner reads an attempt as answered by an `action_outcome` event of its actor
(`runner.follow_up.answered`); the other rules that judge outcomes read the same kind. Live
(vintners-wake #42, seed 58, turn 2), the Director told the human's "walks slowly to the
nearest window and looks outside" as an "arrival" by her. With no action_outcome of hers, the
attempt stayed waiting, the follow-up call told the same walk again, and the human read it
twice.

An event of another kind (an utterance aside when it tells speech, a verb of speaking or a
quotation: it stands for a spoken line) by an actor who has an attempt waiting becomes an
action_outcome when it shares a content word with one of the actor's waiting attempts
(`restated.shares_a_word`, the test the agency rule backs an act with). Only the kind
changes: text, actor and witnesses stay, so nobody perceives anything new. Every such event
changes, even when the actor has an action_outcome already and beside the first such event: a
later rule may drop those (a spoken line copied, a recital of the facts), and the clamps must
change nothing when run again.

An utterance telling no speech is an act like any other: live (toll-house #67, seed 81, turn
9), the Director told the human's "sits down by the fire" as the utterance "Ilse Brandt sits
down by the fire.", the attempt stayed waiting, and the follow-up answered "Ilse Brandt
fails": the human read both.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tavern.physics.awaiting import attempt_records
from tavern.physics.quotations import QUOTATION
from tavern.physics.restated import content_words, shares_a_word
from tavern.physics.verbs import SPEAKING
from tavern.records import ClampChange, DirectorDecision, PerceptionEvent

if TYPE_CHECKING:
    from tavern.physics.clamps import ClampContext

RULE = "outcome_kind"

_SPEAKING_VERB = re.compile(r"\b(?:" + "|".join(sorted(SPEAKING)) + r")\b")


def _tells_speech(ev: PerceptionEvent) -> bool:
    """Whether an utterance event tells speech: a verb of speaking or a quotation
    (`physics.quotations.QUOTATION`; an apostrophe, "Ana’s", is none)."""
    if ev.kind != "utterance":
        return False
    return bool(_SPEAKING_VERB.search(ev.text.lower()) or QUOTATION.search(ev.text))


def label_outcomes(
    d: DirectorDecision, ctx: ClampContext
) -> tuple[DirectorDecision, list[ClampChange]]:
    """`d` with each event telling its actor's waiting attempt as an action_outcome."""
    if not d.events:
        return d, []
    waiting: dict[str, list[set[str]]] = {}
    for attempt in attempt_records(ctx.history, ctx.turn_number):
        waiting.setdefault(attempt.speaker, []).append(content_words(attempt.text))
    if not waiting:
        return d, []
    events = list(d.events)
    changes: list[ClampChange] = []
    for i, ev in enumerate(events):
        attempts = waiting.get(ev.actor_id or "")
        if not attempts or ev.kind == "action_outcome" or _tells_speech(ev):
            continue
        said = content_words(ev.text)
        if any(shares_a_word(said, words) for words in attempts):
            events[i] = ev.model_copy(update={"kind": "action_outcome"})
            changes.append(
                ClampChange(
                    rule=RULE, path=f"events[{i}].kind", before=ev.kind, after="action_outcome"
                )
            )
    if not changes:
        return d, []
    return d.model_copy(update={"events": events}), changes
