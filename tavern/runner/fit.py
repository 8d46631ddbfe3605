"""Prompts that fit the model's context with room left for the answer.

A ten-turn live session on the embedded model (4,096 tokens a slot) failed its tenth turn: the
Director prompt had grown to 3,858 tokens, the answer was cut off after 238 and could not be
parsed, twice. Budgets set as shares of the context cannot know how large the sheets, the
stage and the answer are, and the journal's estimate (4 characters a token) undercounts
history lines, which tokenized at 3.3-3.5. So each prompt is measured as built, pessimistically,
and its history part shrinks until prompt plus answer fit, in steps of a grid (`FIT_LEVELS`).
"""

from __future__ import annotations

import math
import typing
from collections.abc import Callable

from tavern.llm.call_policy import policy_text
from tavern.records import ChatMessage
from tavern.records.scenario import Language

CHARS_PER_TOKEN_FLOOR = 3.0
"""Fewest characters a token is assumed to cover when fitting (measured on the embedded
model: 3.3-4.2 over every role's prompts of a live session)."""
MESSAGE_OVERHEAD_TOKENS = 8
"""Tokens a chat template adds around each message (role markers)."""

LANGUAGES: tuple[Language, ...] = typing.get_args(Language)
CALL_TIME_TOKENS = (
    math.ceil(max(len(policy_text(lang)) + 2 for lang in LANGUAGES) / CHARS_PER_TOKEN_FLOOR)
    + MESSAGE_OVERHEAD_TOKENS
)
"""What `llm.call_policy` adds to every prompt after it is built (its longest text, or a
system message of its own)."""
FIT_LEVELS = 8
"""A shrunk history budget is rounded down to a multiple of the configured budget over this.

The rest of a prompt (this beat's records, the stage) changes size every turn. Shrinking the
history to exactly what it leaves gave a new budget each turn, so the window's start (snapped
to a stride of the budget) moved each turn and the prompt lost its cacheable prefix: with the
embedded model's budgets, Director prompts shared 0.75 of the previous one and Character
prompts 0.78 (`benchmarks.kernel --limits local`). On a grid the budget holds for many turns.
"""


def prompt_tokens_ceiling(messages: list[ChatMessage]) -> int:
    """A pessimistic token count of `messages` (see `CHARS_PER_TOKEN_FLOOR`).

    >>> prompt_tokens_ceiling([ChatMessage(role="user", content="x" * 300)])
    108
    """
    chars = sum(len(m.content) for m in messages)
    return math.ceil(chars / CHARS_PER_TOKEN_FLOOR) + MESSAGE_OVERHEAD_TOKENS * len(messages)


def fitted(
    build: Callable[[int], list[ChatMessage]], budget: int, room: int | None
) -> list[ChatMessage]:
    """`build(budget)`, or, when that exceeds `room` tokens, the prompt with the history budget
    that the rest of the prompt leaves, rounded down onto the grid of `on_grid`.

    Args:
        build: Builds the prompt with a history budget in estimate tokens: its history part
            holds at most `4 * budget` characters, and nothing else depends on the budget
            (true of the Director's window, the prose transcript and a Character's memory).
        budget: The configured history budget.
        room: Tokens the prompt may take (the context minus the answer), or None: unbounded.

    Returns:
        A prompt within `room` whenever its part without history is; otherwise the one with
        no history (the sheets alone overflow: nothing more can be trimmed).

    Example:
        >>> def build(budget: int) -> list[ChatMessage]:
        ...     return [ChatMessage(role="user", content="s" * 90 + "h" * 4 * budget)]
        >>> len(fitted(build, 100, room=60)[0].content)
        138
    """
    messages = build(budget)
    if room is None or prompt_tokens_ceiling(messages) <= room:
        return messages
    bare = prompt_tokens_ceiling(build(0))
    # History characters count 1/3 token each at most; the budget counts 4 characters a
    # unit; one token of slack covers the joining newline and the rounding of the ceiling.
    allowed = max(0, int((room - bare - 1) * CHARS_PER_TOKEN_FLOOR) // 4)
    return build(min(budget, on_grid(allowed, budget)))


def on_grid(allowed: int, budget: int) -> int:
    """The largest multiple of `budget / FIT_LEVELS` (at least one unit) not above `allowed`.

    >>> on_grid(1500, 1638), on_grid(203, 1638), on_grid(5, 1638)
    (1428, 0, 0)
    """
    step = max(1, budget // FIT_LEVELS)
    return allowed // step * step
