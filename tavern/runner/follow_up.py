"""Attempts the Director's decision left without an outcome get one follow-up call each.

An attempt (a human's action, a Character's action_intent) waits for the next Director call.
When the clamped decision holds no action_outcome by that actor, the runner asks the
Director once more, about that attempt only (`tavern.agents.outcome`), and the answer
becomes an action_outcome event by the actor, witnessed by whoever perceived the attempt,
which then goes through every clamp the decision went through, with the asked attempts
named (`ClampContext.asked`: clamp `borrowed_outcome` cuts what an answer borrowed). An
attempt whose answer was refused is asked about once more, worded apart, after the first
round (`MAX_ASKED_AGAIN`). A dropped or empty outcome then leaves the attempt as it was:
the code never writes an outcome itself.

Every waiting attempt is treated alike, whoever's it is: which character the human plays is
not an input here, so Director prompts stay the same whoever is controlled. Newest first:
an attempt made this beat before the last beat's replies, which the cap of `MAX_FOLLOW_UPS`
calls a beat (bounding the extra model time) otherwise spent first.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from tavern.agents import director, outcome
from tavern.physics.awaiting import attempt_records
from tavern.physics.clamps import ClampContext, clamp_decision
from tavern.records import (
    ActionRecord,
    ChatMessage,
    ClampChange,
    DirectorDecision,
    HistoryRecord,
    PerceptionEvent,
)
from tavern.runner.calls import AgentCaller
from tavern.runner.fit import fitted

AGENT = "director:outcome"
"""The follow-up's agent name: the Director's role, its own line in the journal."""
MAX_FOLLOW_UPS = 2
"""Follow-up calls a beat may make. A beat's waiting attempts are the human's and those of
the last beat's speakers (at most three), and each call costs a Director's prompt."""

MAX_ASKED_AGAIN = 1
"""Follow-up calls a beat may make again, after the first round, about an attempt whose
answer the clamps refused, so it still has no outcome (`outcome.ask_again`)."""
RESEED = 1
"""Added to the client's seed for the call asked again (`LlmClient.call_json`'s
`seed_offset`): under a fixed seed a prompt, even worded apart, draws the refused answer
again."""


def answered(decision: DirectorDecision, actor: str) -> bool:
    """Whether the decision holds an action_outcome by `actor`."""
    return any(e.kind == "action_outcome" and e.actor_id == actor for e in decision.events)


def unanswered(
    history: list[HistoryRecord], turn: int, decision: DirectorDecision
) -> list[ActionRecord]:
    """The attempts waiting for beat `turn` whose actor has no outcome in `decision`."""
    return [a for a in attempt_records(history, turn) if not answered(decision, a.speaker)]


def outcome_event(attempt: ActionRecord, text: str) -> PerceptionEvent:
    """The proposed outcome of `attempt`: by its actor, witnessed by who perceived it."""
    return PerceptionEvent(
        kind="action_outcome",
        text=text,
        actor_id=attempt.speaker,
        witness_ids=list(attempt.audience.perceivers),
    )


async def follow_up(
    caller: AgentCaller,
    context: director.BeatContext,
    decision: DirectorDecision,
    ctx: ClampContext,
    *,
    turn: int,
    budget_tokens: int,
    room: int | None,
) -> tuple[DirectorDecision, list[ClampChange]]:
    """Ask for the outcome of each attempt `decision` left unanswered (up to the bound).

    Args:
        caller: The turn's gated caller.
        context: The Director call's session before the beat, its history (this turn's
            records so far included) and its prompt's blocks.
        decision: The clamped decision.
        ctx: The clamps' context of the beat; the answers are clamped in it, with the
            attempts asked about as `asked`.
        turn: The beat's turn number.
        budget_tokens: The Director's history budget.
        room: Tokens the prompt may take (see `fitted`).

    Returns:
        The decision with the clamped outcomes added, and the clamps' changes.
    """
    waiting = unanswered(context.history, turn, decision)
    if not waiting:
        return decision, []
    asked = replace(ctx, asked=frozenset(a.seq for a in waiting), known=ctx.knowledge)
    beat = _Beat(caller, context, asked, turn, budget_tokens, room)
    changes: list[ClampChange] = []
    rejected: list[ActionRecord] = []
    for attempt in reversed(waiting):
        if beat.calls == MAX_FOLLOW_UPS:
            break
        if answered(decision, attempt.speaker):  # an earlier follow-up answered its actor
            continue
        decision, more = await beat.ask(decision, attempt)
        changes += more
        if more and not answered(decision, attempt.speaker):
            rejected.append(attempt)
    for attempt in rejected[:MAX_ASKED_AGAIN]:
        if not answered(decision, attempt.speaker):
            decision, more = await beat.ask(decision, attempt, again=True)
            changes += more
    return decision, changes


@dataclass
class _Beat:
    """What every follow-up call of one beat shares (see `follow_up`'s arguments)."""

    caller: AgentCaller
    context: director.BeatContext
    ctx: ClampContext
    turn: int
    budget_tokens: int
    room: int | None
    calls: int = 0

    async def ask(
        self, decision: DirectorDecision, attempt: ActionRecord, *, again: bool = False
    ) -> tuple[DirectorDecision, list[ClampChange]]:
        """One follow-up call about `attempt`: the decision with its clamped outcome added,
        and the clamps' changes (none when the answer was blank: nothing told or refused)."""
        context, events = self.context, decision.events

        def build(budget: int) -> list[ChatMessage]:
            return outcome.build_messages(
                context.state, context.history, attempt, events, budget_tokens=budget,
                again=again, context=context,
            )  # fmt: skip

        messages = fitted(build, self.budget_tokens, self.room)
        if not again:
            self.calls += 1
        answer = await self.caller.call(
            AGENT, messages, outcome.OUTPUT_SCHEMA, self.turn, seed_offset=RESEED if again else 0
        )
        text = outcome.parse(answer)
        if not text:
            return decision, []
        proposal = decision.model_copy(
            update={
                "events": [*decision.events, outcome_event(attempt, text)],
                "nothing_happens": False,
            }
        )
        return clamp_decision(proposal, self.ctx)
