"""Ledger memory capture and name learning, after each beat and before its commit.

Each character gains one digest line per record of the beat it perceived (content or bare
awareness of a whisper), rendered in its own names and redacted for it. Narration never
enters memory: characters do not perceive reader-facing prose, and prose could retell what
a whisper's outsiders must not know. A thought enters its owner's memory only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tavern.agents import character
from tavern.agents.render import tokens_in
from tavern.physics.guards import hidden_tokens_for
from tavern.physics.identity import learn_names, render_for_viewer
from tavern.physics.observation import digest_line
from tavern.physics.perception import perceives
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
MEMORY_CAP = 128
"""Most digest lines a ledger keeps; beyond it the oldest `MEMORY_EVICT` go at once."""
MEMORY_EVICT = character.MEMORY_STRIDE_LINES
"""Evicting in chunks keeps the memory block's prefix stable between evictions; the chunk is
the Character prompt's window stride, so an eviction never moves a window by itself."""


def capture_memory(
    ledgers: Mapping[str, PerspectiveLedger],
    cast: Mapping[str, Character],
    beat: Sequence[HistoryRecord],
    context: Sequence[HistoryRecord],
    scene: Scene,
) -> dict[str, PerspectiveLedger]:
    """Every ledger after the beat: names learned and one digest line per perceived record.

    Args:
        ledgers: Ledgers before the beat.
        cast: The session cast.
        beat: This beat's records, in order.
        context: Recent history including the beat (for the secret-token guards).
        scene: The stage after the beat.

    Returns:
        New ledgers (unchanged ones are the same objects).
    """
    out = dict(ledgers)
    secret = _secret_tokens(context)
    for viewer in cast:
        perceived = [r for r in beat if perceives(r, viewer) != "none"]
        ledger = ledgers.get(viewer) or PerspectiveLedger(owner=viewer)
        if not perceived:
            continue
        hidden: frozenset[str] = frozenset()
        if secret and secret & _shown_tokens(cast, perceived):
            hidden = hidden_tokens_for(context, scene, viewer)
        lines = []
        for record in perceived:
            ledger = learn_names(ledger, record, cast, viewer)
            line = digest_line(record, viewer, ledger, cast, hidden)
            if isinstance(record, ThoughtRecord) and record.speaker == viewer:
                # Its own thought: the one private line its owner keeps (nobody else has it).
                line = "You thought: " + render_for_viewer(record.text, viewer, ledger, cast)
            if line:
                lines.append(line)
        memory = [*ledger.memory, *lines]
        if len(memory) > MEMORY_CAP:
            memory = memory[MEMORY_EVICT:]
        out[viewer] = ledger.model_copy(update={"memory": memory})
    return out


def _secret_tokens(context: Sequence[HistoryRecord]) -> set[str]:
    """Tokens of thoughts and whispers: the only ones the per-viewer guard can ever hide."""
    return tokens_in(
        r.text
        for r in context
        if isinstance(r, ThoughtRecord)
        or (isinstance(r, SpeechRecord) and r.audience.origin == "whisper")
    )


def _shown_tokens(cast: Mapping[str, Character], perceived: Sequence[HistoryRecord]) -> set[str]:
    """Tokens a viewer's digests of `perceived` can contain (texts plus inserted names).

    When none of them is a secret token, redaction is a no-op for that viewer and the costly
    per-viewer guard set is skipped.
    """
    return tokens_in(
        [
            *(
                r.text
                for r in perceived
                if isinstance(r, SpeechRecord | ActionRecord | EventRecord)
            ),
            *(c.body.display_name for c in cast.values()),
            *(c.body.description_ref for c in cast.values()),
        ]
    )
