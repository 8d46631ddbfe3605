"""Prompts read back as the blocks `tavern.agents.blocks.assemble` laid out.

A role's prompt is its `PromptBlock`s rendered as `## Title` sections joined by a blank line,
identity blocks in the system message and the rest in the user message. Split at the same
separator, two prompts of one agent compare block by block: the first block that differs is
where the provider's reusable prefix ends (the shared prefix can reach into that block, so
`common_prefix_chars` measures it exactly).

Example:
    >>> from tavern.agents.blocks import PromptBlock, Stability, assemble
    >>> msgs = assemble([PromptBlock("Role", "r", Stability.IDENTITY),
    ...                  PromptBlock("Now", "n", Stability.VOLATILE)])
    >>> [title for title, _ in split_blocks(msgs)]
    ['system: Role', 'user: Now']
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tavern.records import ChatMessage

BLOCK_SEPARATOR = "\n\n## "
"""What `assemble` puts between two rendered blocks (a blank line, then the next heading)."""
_TITLE = re.compile(r"^(?:## )?([^\n]*)")


def split_blocks(messages: Sequence[ChatMessage]) -> list[tuple[str, str]]:
    """`(role: title, text)` of every block of every message, in prompt order."""
    out = []
    for message in messages:
        for text in message.content.split(BLOCK_SEPARATOR):
            match = _TITLE.match(text)
            out.append((f"{message.role}: {match.group(1) if match else ''}", text))
    return out


def prompt_text(messages: Sequence[ChatMessage]) -> str:
    """The messages' contents joined by newlines: the text two prompts' prefixes compare."""
    return "\n".join(m.content for m in messages)


def common_prefix_chars(a: str | None, b: str | None) -> int | None:
    """Length of the longest common prefix of two strings (None when one is missing).

    Binary search over slice comparisons, which run in C: a prompt is tens of kilobytes.

    >>> common_prefix_chars("## Role\\nabc", "## Role\\nabd"), common_prefix_chars("x", None)
    (10, None)
    """
    if a is None or b is None:
        return None
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo
