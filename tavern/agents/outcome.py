"""The Director's follow-up: the outcome of one attempt its decision left without one.

The Director is asked to adjudicate every waiting attempt, and a small model often does not
(6 of the human's 8 attempts over four soaks); a line in the full decision prompt helped
little. This call asks one thing, with an answer of one sentence the schema makes it write,
beginning with the actor's name (`ask`).

It is the Director's own view, blind as that is: every block before "Now" is the Director
prompt's (`director.context_blocks`, same history, same budget), so a provider's cached
prefix of the decision just made serves it, and the "Now" block adds the events decided
this beat and the attempt. Which attempts are asked about is the runner's choice, made for
every character alike (`tavern.runner.follow_up`).
"""

from __future__ import annotations

from typing import Any

from tavern.agents import director
from tavern.agents.blocks import PromptBlock, Stability, assemble
from tavern.agents.render import zone_graph_block
from tavern.records import (
    ActionRecord,
    ChatMessage,
    HistoryRecord,
    PerceptionEvent,
    Scene,
    SessionState,
)

OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["outcome"],
    "properties": {"outcome": {"type": "string", "minLength": 1, "maxLength": 200}},
}
"""JSON Schema of the answer: one outcome sentence (the events' own length limit)."""


def ask(name: str) -> str:
    """The question, naming the actor as the Director knows them: told to begin with the
    actor's name, the embedded model named the actor in 9 replayed answers of 9 (5 of 9 when
    asked to "name who acts")."""
    return (
        f"Decide what physically happens when {name} tries this: one short sentence in the"
        f' present tense that begins with "{name}". It may succeed or fail. No dialogue and'
        ' no thoughts. Answer as {"outcome": "..."}.'
    )


def prompt_sentences() -> tuple[str, ...]:
    """The fixed sentences of the Director's prompts, its call's and this follow-up's, that an
    answer may copy as an event (clamp `prompt_copy`): the instructions, the questions and
    the stage line of a scene without zones."""
    return (
        director.INSTRUCTIONS,
        ask(""),
        ask_again(""),
        zone_graph_block(Scene(location="")),
    )


def ask_again(name: str) -> str:
    """The question of a second follow-up, after an answer that told no outcome.

    Worded apart from `ask`, so a seeded model samples anew, and without the rejected answer,
    which a small model would copy again; nor does it say "the attempt of", which a small
    model copies as its subject (clamp `retold_attempt`, row `toll-32-attempt-of`).
    """
    return (
        f"What comes of it when {name} does this? One short sentence in the present tense"
        f' that begins with "{name}" and says whether it works. Not words anyone says, not'
        ' thoughts. Answer as {"outcome": "..."}.'
    )


def build_messages(
    state: SessionState,
    history: list[HistoryRecord],
    attempt: ActionRecord,
    decided: list[PerceptionEvent],
    *,
    budget_tokens: int = director.HISTORY_BUDGET_TOKENS,
    again: bool = False,
    context: director.BeatContext | None = None,
) -> list[ChatMessage]:
    """Build the follow-up prompt.

    Args:
        state: The session (its controlled id is never read).
        history: The Director call's history, this turn's records so far included.
        attempt: The waiting attempt (an `ActionRecord` of `history`).
        decided: The clamped events of this beat so far.
        budget_tokens: Token budget of the history window (the Director call's).
        again: Ask a second time (`ask_again`): the first answer told no outcome.
        context: The beat's `director.BeatContext` of `state` and `history`, when kept.
    """
    lines = director.now_lines(state)
    lines.append("Decided this beat:")
    lines.extend(f"- {e.kind}: {e.text}" for e in decided)
    if not decided:
        lines.append("- (nothing yet)")
    lines.append(
        f"Waiting: [#{attempt.seq}] attempt by {director.named(state, attempt.speaker)}"
        f" | {attempt.text}"
    )
    name = director.true_name(state, attempt.speaker)
    lines.append(ask_again(name) if again else ask(name))
    now = PromptBlock("Now", "\n".join(lines), Stability.VOLATILE)
    blocks = (context or director.BeatContext(state, history))(budget_tokens)
    return assemble([*blocks, now])


def parse(data: dict[str, Any]) -> str:
    """The outcome sentence of a schema-valid answer, trimmed ('' when only blanks)."""
    return str(data["outcome"]).strip()
