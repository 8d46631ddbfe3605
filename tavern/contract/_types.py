"""The contract's shared types: a violation and a registered rule."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from tavern.contract._cache import MessageCache
from tavern.records import ChatMessage
from tavern.records.views import ContractWarning

RuleKind = Literal["lexical", "structural"]


@dataclass(frozen=True)
class Violation:
    """One place where a prompt reveals (or may reveal) that a human drives a character.

    Attributes:
        rule: Name of the rule that fired.
        span: `(start, end)` character offsets inside the message content (or text).
        excerpt: The offending text, `content[start:end]`.
        message_index: Index of the message in the checked list; -1 for `check_text`.
    """

    rule: str
    span: tuple[int, int]
    excerpt: str
    message_index: int

    def as_warning(self, where: str) -> ContractWarning:
        """This violation as the record the server shows next to a scenario or sheet."""
        return ContractWarning(rule=self.rule, where=where, excerpt=self.excerpt)


Detector = Callable[[Sequence[ChatMessage], Sequence[str], MessageCache], list[Violation]]
"""(messages, cast names, the cache for per-message results) -> violations."""


@dataclass(frozen=True)
class Rule:
    """A named detector. `RULES` lists them all so a mutation test can remove any one."""

    name: str
    kind: RuleKind
    detect: Detector
    doc: str
