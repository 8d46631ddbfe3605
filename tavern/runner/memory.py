"""Ledger memory capture and name learning, after each beat and before its commit.

Each character gains one digest line per record of the beat it perceived (content or bare
awareness of a whisper), rendered in its own names and redacted for it. Narration never
enters memory: characters do not perceive reader-facing prose, and prose could retell what
a whisper's outsiders must not know. A thought enters its owner's memory only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet

from tavern.agents import character
from tavern.agents.render import tokens_in
from tavern.physics.guards import cast_public_texts, hidden_tokens_for
from tavern.physics.identity import name_learner, renderer
from tavern.physics.observation import digest_line
from tavern.physics.perception import perceives
from tavern.physics.redaction import salient_tokens
from tavern.records import (
    ActionRecord,
    Character,
    EventRecord,
    HistoryRecord,
    PerspectiveLedger,
    Scene,
    SpeechRecord,
    ThoughtRecord,
)

_DIGESTED = (SpeechRecord, ActionRecord, EventRecord)
"""Records a digest line tells (a tuple, not a union built per record in `_shows_secret`)."""
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
) -> dict[str, PerspectiveLedger]:
    """Every ledger after the beat: names learned and one digest line per perceived record.

    Args:
        ledgers: Ledgers before the beat.
        cast: The session cast.
        beat: This beat's records, in order.
        context: Recent history including the beat (for the secret-token guards).
        scene: The stage after the beat.
        budget_chars: Memory budget of a Character prompt, in characters (`evict`).

    Returns:
        New ledgers (unchanged ones are the same objects).
    """
    out = dict(ledgers)
    secret = _secret_tokens(context)
    names = _name_tokens(cast) if secret else frozenset()
    public: list[str] | None = None  # the cast's public words, listed once a call
    for viewer in cast:
        perceived = [r for r in beat if perceives(r, viewer) != "none"]
        ledger = ledgers.get(viewer) or PerspectiveLedger(owner=viewer)
        if not perceived:
            continue
        hidden: frozenset[str] = frozenset()
        if secret and _shows_secret(secret, names, perceived):
            # The same public words as the viewer's observation (`physics.observe`): its
            # memory line of a record then masks exactly what its view of it masked.
            public = cast_public_texts(cast) if public is None else public
            hidden = hidden_tokens_for(context, scene, viewer, public)
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


def _secret_tokens(context: Sequence[HistoryRecord]) -> set[str]:
    """Tokens of thoughts and whispers: the only ones the per-viewer guard can ever hide."""
    return set().union(*map(_record_secrets, context))


def _record_secrets(record: HistoryRecord) -> frozenset[str]:
    if isinstance(record, ThoughtRecord) or (
        isinstance(record, SpeechRecord) and record.audience.origin == "whisper"
    ):
        return salient_tokens(record.text)
    return frozenset()


def _shows_secret(
    secret: set[str], names: AbstractSet[str], perceived: Sequence[HistoryRecord]
) -> bool:
    """Whether a viewer's digests of `perceived` can contain a `secret` token: the tokens
    they can hold are their texts' plus `names`, those of every name or description a digest
    may insert (`_name_tokens`). Tested text by text, stopping at the first hit.

    When none of them is a secret token, redaction is a no-op for that viewer and the costly
    per-viewer guard set is skipped.
    """
    return not secret.isdisjoint(names) or any(
        not secret.isdisjoint(salient_tokens(r.text)) for r in perceived if isinstance(r, _DIGESTED)
    )


def _name_tokens(cast: Mapping[str, Character]) -> frozenset[str]:
    return tokens_in(
        [
            *(c.body.display_name for c in cast.values()),
            *(c.body.description_ref for c in cast.values()),
        ]
    )
