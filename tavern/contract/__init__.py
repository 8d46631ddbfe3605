"""The prompt contract: the one definition of revealing that a human drives a character.

Three readers share it: the server warns when a scenario or sheet violates it, the runner's
gate refuses prompts that violate it, and the harness sweeps journaled prompts with it.

Stable API:
    check_prompt(messages, cast_names=()) -> list[Violation]
    check_text(text, where) -> list[Violation]
    RULES: the registered rules, in order (a mutation test removes one at a time).
    MessageCache, clear_caches(): the per-message result cache (results never depend on it).
"""

from __future__ import annotations

from collections.abc import Sequence

from tavern.contract._cache import MESSAGE_CACHE, MessageCache
from tavern.contract._lexical import LEXICAL_RULES
from tavern.contract._structural import STRUCTURAL_RULES
from tavern.contract._types import Detector, Rule, Violation
from tavern.records import ChatMessage

RULES: list[Rule] = [*LEXICAL_RULES, *STRUCTURAL_RULES]
"""Every contract rule. Order is the report order."""

TEXT_RULES = ("structural_marker_tag", "structural_raw_id")
"""Structural rules that also apply to free text (sheets, scenarios); the rest need a prompt."""


def check_prompt(
    messages: Sequence[ChatMessage],
    cast_names: Sequence[str] = (),
    rules: Sequence[Rule] | None = None,
    cache: MessageCache | None = None,
) -> list[Violation]:
    """Check chat messages, as they would be sent, against the contract: violations sorted by
    message index, span and rule. `cast_names` are the names the prompt may mention (the
    structural rules compare tags, fields and lists with them); `rules` overrides the
    registered rules (tests remove one); `cache` keeps per-message results (default:
    `MESSAGE_CACHE`).

    Example:
        >>> msgs = [ChatMessage(role="system", content="Mara is controlled by the human.")]
        >>> [(v.rule, v.excerpt) for v in check_prompt(msgs, ["Mara"])]
        [('lexical_role', 'controlled by the human')]
    """
    found: list[Violation] = []
    for rule in RULES if rules is None else rules:
        found.extend(rule.detect(messages, cast_names, MESSAGE_CACHE if cache is None else cache))
    return sorted(set(found), key=lambda v: (v.message_index, v.span, v.rule))


def check_text(
    text: str, where: str = "", cast_names: Sequence[str] = (), rules: Sequence[Rule] | None = None
) -> list[Violation]:
    """Check a scenario or character sheet text (lexical rules, marker tags, raw ids): violations
    with `message_index == -1`. `where` names the text's origin
    (`character:mara.mind.personality`, for `Violation.as_warning`); `cast_names` are names
    the text may map slot ids to.

    Example:
        >>> [v.rule for v in check_text("Ela é o jogador.", "scenario:x.world")]
        ['lexical_noun']
    """
    chosen = [
        r
        for r in (RULES if rules is None else rules)
        if r.kind == "lexical" or r.name in TEXT_RULES
    ]
    message = [ChatMessage(role="user", content=text)]
    return [
        Violation(v.rule, v.span, v.excerpt, -1)
        for v in check_prompt(message, cast_names, rules=chosen)
    ]


def clear_caches() -> None:
    """Empty the per-message cache (results never depend on it; benchmarks start cold).

    Example:
        >>> clear_caches()
    """
    MESSAGE_CACHE.clear()


__all__ = [
    "MESSAGE_CACHE",
    "RULES",
    "Detector",
    "MessageCache",
    "Rule",
    "Violation",
    "check_prompt",
    "check_text",
    "clear_caches",
]
