"""Typed errors of the LLM layer. `error_type` is what the journal's `error_type` field holds."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from tavern.llm.provider import ProviderResponse

ErrorType = Literal[
    "http_4xx",
    "http_5xx",
    "rate_limit",
    "timeout",
    "transport",
    "parse",
    "schema",
    "refused",
    "replay_mismatch",
    "replay_exhausted",
    "provider",
    "capability",
]

# Kinds worth another attempt: the next try may well succeed. A definitive 4xx, a refused
# live call or a replay mismatch will fail identically every time, so they fail fast.
RETRYABLE: frozenset[str] = frozenset(
    {"http_5xx", "rate_limit", "timeout", "transport", "parse", "schema", "capability"}
)


class LlmCallError(Exception):
    """A model call (or one attempt of it) failed.

    Attributes:
        error_type: one of `ErrorType`; written to the journal line of the attempt.
        message: human-readable cause, with the provider's own message for HTTP errors.
        status_code: HTTP status when the provider answered with one.
        attempts: how many attempts were made before the call gave up (set by the client).
        response: the provider's answer when one arrived but was unusable (parse/schema).
    """

    def __init__(
        self,
        error_type: ErrorType,
        message: str,
        *,
        status_code: int | None = None,
        response: ProviderResponse | None = None,
    ) -> None:
        super().__init__(f"{error_type}: {message}")
        self.error_type: ErrorType = error_type
        self.message = message
        self.status_code = status_code
        self.response = response
        self.attempts = 1

    @property
    def retryable(self) -> bool:
        """Whether another attempt could succeed."""
        return self.error_type in RETRYABLE


class UrlPolicyError(ValueError):
    """An api_base the provider's URL policy refuses."""
