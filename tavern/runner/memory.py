"""Ledger memory capture and name learning, after each beat and before its commit.

Each character gains one digest line per record of the beat it perceived (content or bare
awareness of a whisper), rendered in its own names and redacted for it. Narration never
enters memory: characters do not perceive reader-facing prose, and prose could retell what
a whisper's outsiders must not know. A thought enters its owner's memory only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tavern.agents import character
from tavern.physics.guards import cast_public_texts, knowledge_of
from tavern.physics.identity import name_learner, renderer
from tavern.physics.observation import digest_line
from tavern.physics.perception import perceives
from tavern.physics.redaction import Tokenizer, salient_tokens
from tavern.records import (
    Character,
    HistoryRecord,
    PerspectiveLedger,
    Scene,
    ThoughtRecord,
)

MEMORY_LOW_WATER = 0.2
"""Share of the memory budget a ledger keeps after an eviction.

A ledger whose lines outgrow the budget forgets its oldest lines at once, down to this
share, rather than one line per beat: between evictions the memory block only grows at its
end, so consecutive Character prompts share it as a cached prefix, and an eviction (the one
beat that re-reads the whole block) comes rarely and re-reads a short block. Measured by
`benchmarks.kernel` (cacheable share per role)."""


def capture_memory(
    ledgers: Mapping[str, PerspectiveLedger],
    cast: Mapping[str, Character],
    beat: Sequence[HistoryRecord],
    context: Sequence[HistoryRecord],
    scene: Scene,
    budget_chars: int = character.MEMORY_BUDGET_TOKENS * 4,
    tokens: Tokenizer = salient_tokens,
) -> dict[str, PerspectiveLedger]:
    """Every ledger after the beat: names learned and one digest line per perceived record.

    Args:
        ledgers: Ledgers before the beat.
        cast: The session cast.
        beat: This beat's records, in order.
        context: Recent history including the beat (for the secret-token guards).
        scene: The stage after the beat.
        budget_chars: Memory budget of a Character prompt, in characters (`evict`).
        tokens: What the guards tokenize texts with (the turn's `redaction.TokenTable`).

    Returns:
        New ledgers (unchanged ones are the same objects).
    """
    out = dict(ledgers)
    # The same public words as the viewer's observation (`physics.observe`): its memory
    # line of a record then masks exactly what its view of it masked.
    known = knowledge_of(context, scene, cast_public_texts(cast), tokens)
    for viewer in cast:
        perceived = [r for r in beat if perceives(r, viewer) != "none"]
        ledger = ledgers.get(viewer) or PerspectiveLedger(owner=viewer)
        if not perceived:
            continue
        hidden = known.hidden_from(viewer)
        lines = []
        learn = name_learner(cast, viewer)
        render, rendering = renderer(viewer, ledger, cast), ledger
        for record in perceived:
            ledger = learn(ledger, record)
            if rendering is not ledger:  # a ledger that learned nothing is the same object
                render, rendering = renderer(viewer, ledger, cast), ledger
            line = digest_line(record, viewer, ledger, cast, hidden, render)
            if isinstance(record, ThoughtRecord) and record.speaker == viewer:
                # Its own thought: the one private line its owner keeps (nobody else has it).
                line = "You thought: " + render(record.text)
            if line:
                lines.append(line)
        memory = evict([*ledger.memory, *lines], budget_chars)
        out[viewer] = ledger.model_copy(update={"memory": memory})
    return out


def evict(memory: list[str], budget_chars: int) -> list[str]:
    """`memory` unchanged while it fits `budget_chars`; else its newest lines that fit
    `MEMORY_LOW_WATER` of it (a line counts its length plus a newline).

    >>> evict(["a" * 9] * 4, 40)
    ['aaaaaaaaa', 'aaaaaaaaa', 'aaaaaaaaa', 'aaaaaaaaa']
    >>> evict(["a" * 9] * 6, 50)
    ['aaaaaaaaa']
    """
    total = sum(map(len, memory)) + len(memory)
    if total <= budget_chars:
        return memory
    target, start = budget_chars * MEMORY_LOW_WATER, 0
    while start < len(memory) and total > target:
        total -= len(memory[start]) + 1
        start += 1
    return memory[start:]
