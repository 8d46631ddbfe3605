"""Typed prompt blocks assembled in a cache-friendly order.

Provider prompt caches (llama.cpp slots, DeepSeek's disk cache) reuse the longest common
prefix of consecutive prompts. Every role therefore builds its prompt from blocks tagged by
how often they change, and `assemble` lays them out identity first, slowly changing state
next, the volatile tail last. A block's position never depends on its content, so two
prompts of the same role share everything up to the first block that really changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from tavern.records import ChatMessage


class Stability(IntEnum):
    """How often a block changes; lower values are laid out first."""

    IDENTITY = 0
    """Role instructions, output rules, sheets: fixed for the whole session."""
    SLOW = 1
    """State that changes every few turns (summary, zone graph, append-only logs)."""
    VOLATILE = 2
    """What changes every turn: the current beat, staging, the request itself."""


@dataclass(frozen=True)
class PromptBlock:
    """One titled section of a prompt."""

    title: str
    """Section heading, rendered as `## title`."""
    body: str
    """Section text; an empty body renders the heading with `(none)`."""
    stability: Stability
    """Where the block goes in the assembled prompt."""

    def render(self) -> str:
        """Render the block as a Markdown section.

        >>> PromptBlock("Cast", "", Stability.IDENTITY).render()
        '## Cast\\n(none)'
        """
        return f"## {self.title}\n{self.body.strip() or '(none)'}"


def assemble(blocks: list[PromptBlock]) -> list[ChatMessage]:
    """Lay blocks out as a system message (identity) and a user message (everything else).

    The sort is stable, so blocks of equal stability keep the order the builder gave them.

    Args:
        blocks: The role's blocks, in the builder's preferred order within each stability.

    Returns:
        Two chat messages: `system` with the identity blocks, `user` with the rest.

    >>> msgs = assemble([PromptBlock("Now", "x", Stability.VOLATILE),
    ...                  PromptBlock("Role", "y", Stability.IDENTITY)])
    >>> [m.role for m in msgs], msgs[0].content
    (['system', 'user'], '## Role\\ny')
    """
    ordered = sorted(blocks, key=lambda b: b.stability)
    system = [b.render() for b in ordered if b.stability is Stability.IDENTITY]
    user = [b.render() for b in ordered if b.stability is not Stability.IDENTITY]
    return [
        ChatMessage(role="system", content="\n\n".join(system)),
        ChatMessage(role="user", content="\n\n".join(user)),
    ]


def snapped_start(
    keys: list[int],
    sizes: list[int],
    budget: int,
    stride: int,
    *,
    truncated: bool = False,
    each: int = 0,
) -> int:
    """Index of the first item of a size-bounded tail window, snapped to a key stride.

    Keeping the window's start fixed until it must move (and then moving it by whole
    strides of the absolute key, e.g. a record's seq) keeps consecutive prompts sharing a
    long prefix, instead of sliding the window by one item every turn. Snapping on the
    absolute key, not the list index, keeps the start stable however long a tail the
    caller loaded.

    Args:
        keys: Increasing absolute position of each item (seq), oldest first.
        sizes: Size of each item (never negative).
        budget: Maximum total size of the window.
        stride: Granularity of the first kept key.
        truncated: The items are a tail of a longer sequence (so even a window that fits
            whole must start on a stride, or it would slide with the caller's tail).
        each: Size every item adds beside its own (a line's newline).

    Returns:
        Index of the first kept item (`len(keys)` when nothing fits).

    >>> snapped_start(list(range(10)), [10] * 10, budget=100, stride=4)
    0
    >>> snapped_start(list(range(10)), [10] * 10, budget=55, stride=4)
    8
    >>> snapped_start(list(range(5, 15)), [10] * 10, budget=100, stride=4, truncated=True)
    3
    >>> snapped_start(list(range(5, 15)), [10] * 10, budget=100, stride=64, truncated=True)
    0
    >>> snapped_start(list(range(10)), [9] * 10, budget=55, stride=4, each=1)
    8
    """
    total = sum(sizes) + each * len(sizes)
    start = 0
    while total > budget and start < len(sizes):
        total -= sizes[start] + each
        start += 1
    if (start == 0 and not truncated) or start >= len(keys):
        return start
    floor_key = -(-keys[start] // stride) * stride
    snapped = start
    while snapped < len(keys) and keys[snapped] < floor_key:
        snapped += 1
    # A tail shorter than a stride would lose everything to the snap: keep it whole instead.
    if start == 0 and snapped >= len(keys):
        return 0
    return snapped


def start_in_sums(
    keys: list[int],
    fed: list[int],
    budget: int,
    stride: int,
    *,
    truncated: bool = False,
    each: int = 0,
) -> int:
    """`snapped_start` given the running sums of the sizes, `fed[i]` the first `i` items'
    (`len(fed) == len(keys) + 1`), for the Director's window.

    >>> start_in_sums(list(range(10)), list(range(0, 101, 10)), budget=55, stride=4)
    8
    """
    sizes = [b - a for a, b in zip(fed, fed[1:], strict=False)]
    return snapped_start(keys, sizes, budget, stride, truncated=truncated, each=each)
