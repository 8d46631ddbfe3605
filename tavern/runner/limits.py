"""The bounds the code owns whatever a model proposes: time skips, history windows and the
token budgets of each role's prompt."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from tavern.agents import character, director, prose
from tavern.runner.fit import CALL_TIME_TOKENS

ANSWER_TOKENS: dict[str, int] = {"director": 900, "prose": 700, "character": 600, "reviser": 500}
"""Tokens kept free for an answer when the provider's settings give no output limit: about
twice the longest answers of a live session (Director 757, prose 400, Character 61); a
reviser's summary is at most `reviser.SUMMARY_MAX_CHARS` (1,200) characters."""


@dataclass(frozen=True)
class KernelLimits:
    """Bounds the code owns, whatever a model proposes."""

    max_skip_ticks: int = 3
    """Largest time compression a Director may request on an ordinary beat."""
    skip_invite_ticks: int = 6
    """Largest time compression when the world is invited to move (skip without a hint)."""
    director_turns: int = 40
    """Turns of history loaded for the Director's window (then trimmed by token budget). It
    must hold well over one window stride of records, or the window slides every turn."""
    perception_turns: int = 8
    """Turns of history the observation and the secret guards look back over (at least;
    the window's start moves in steps of `window_step` turns)."""
    window_step: int = 8
    """The loaded history and the perception window start on a multiple of this many
    turns, so from one beat to the next they only grow at their end (up to this many extra
    turns): the secrets walk then continues the previous beat's instead of starting over."""
    director_history_tokens: int = director.HISTORY_BUDGET_TOKENS
    """Token budget of the Director's history window (raise it for large-context models)."""
    prose_transcript_tokens: int = prose.TRANSCRIPT_BUDGET_TOKENS
    """Token budget of the prose renderer's reader transcript."""
    character_memory_tokens: int = character.MEMORY_BUDGET_TOKENS
    """Token budget of the memory lines in a Character prompt; lines past it are folded into
    the ledger's summary (`runner.memory.revise_memory`). 0: no memory is kept at all."""
    context_tokens: int | None = None
    """The model's context per request. When set, each prompt's history part (the Director's
    window, the prose transcript, a Character's memory) shrinks until the prompt, counted
    pessimistically (`fit.prompt_tokens_ceiling`), leaves `answer_tokens` of its role free."""
    answer_tokens: Mapping[str, int] = field(default_factory=lambda: dict(ANSWER_TOKENS))
    """Tokens kept free for each role's answer (`director`, `prose`, `character`,
    `reviser`)."""
    revision_seconds: float = 120.0
    """Longest a ledger memory revision call may take; past it the revision fails and the
    turn goes on (`runner.memory.revise_memory`)."""

    def room(self, role: str) -> int | None:
        """Tokens a `role` prompt may take, or None when the context is not bounded."""
        if self.context_tokens is None:
            return None
        answer = self.answer_tokens.get(role, ANSWER_TOKENS[role])
        return self.context_tokens - answer - CALL_TIME_TOKENS

    @classmethod
    def for_context(
        cls, context_tokens: int, answer_tokens: Mapping[str, int] | None = None
    ) -> KernelLimits:
        """Budgets that keep every prompt (plus its answer) inside a model's context.

        The shares are starting budgets; `context_tokens` makes each prompt fit as built.
        `answer_tokens` are the configured output limits per role (`default` applies to
        roles without their own); unset roles keep `ANSWER_TOKENS`.

        >>> limits = KernelLimits.for_context(4096, {"default": 500, "director": 900})
        >>> limits.director_history_tokens, limits.room("director"), limits.room("prose")
        (1638, 3143, 3543)
        """
        given = dict(answer_tokens or {})
        fallback = given.pop("default", None)
        answers = {
            role: given.get(role, fallback if fallback is not None else tokens)
            for role, tokens in ANSWER_TOKENS.items()
        }
        return cls(
            director_history_tokens=int(context_tokens * 0.4),
            prose_transcript_tokens=int(context_tokens * 0.35),
            character_memory_tokens=int(context_tokens * 0.45),
            context_tokens=context_tokens,
            answer_tokens=answers,
        )
