"""Speech guard: spoken words cannot travel further through a Director event than the
speech itself did.

The physics clamps already keep thought-only tokens and whisper payloads out of anything
visible beyond their owners. Words spoken aloud are bounded by the zone graph too (the
cellar does not hear the hall), but a Director (hostile, or just careless) could copy them
into an event witnessed from another zone, or into a public fact. The Director never
authors dialogue, so this guard redacts, from every event text, the tokens of any recent
speech whose audience does not hold all of that event's witnesses, and from stage texts
(facts, a new location, new zone labels, moods) those of any speech not heard by everyone
present (through `physics.clamps.redact_visible`, like the other guards). Tokens that
the stage or the cast sheets already carry in the open are never redacted.

This is a runner-level clamp because it needs the zone-bounded speech audiences the runner
just computed; it reports its changes like any physics clamp.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tavern.agents.render import tokens_in
from tavern.physics.clamps import redact_visible
from tavern.physics.guards import scene_texts
from tavern.physics.redaction import salient_tokens
from tavern.records import ClampChange, DirectorDecision, HistoryRecord, SessionState, SpeechRecord

RULE = "speech_guard"


Payload = tuple[frozenset[str], frozenset[str]]
"""(audience, tokens not otherwise public) of one spoken line."""


def _payloads(state: SessionState, context: Sequence[HistoryRecord]) -> list[Payload]:
    """The `Payload` of each spoken (non-whisper) line that has tokens of its own."""
    public = tokens_in(
        [
            *scene_texts(state.scene),
            state.world,
            *(c.body.display_name for c in state.cast.values()),
            *(c.body.appearance for c in state.cast.values()),
            *(c.body.description_ref for c in state.cast.values()),
        ]
    )
    payloads = []
    for record in context:
        if isinstance(record, SpeechRecord) and record.audience.origin != "whisper":
            tokens = salient_tokens(record.text) - public
            if tokens:
                payloads.append((frozenset(record.audience.perceivers), tokens))
    return payloads


@dataclass(frozen=True)
class SpokenWords:
    """The spoken-only tokens of a context, pooled per audience: what the guard of every
    decision of a beat reads (the Director's and each follow-up's share state and context)."""

    by_audience: dict[frozenset[str], frozenset[str]]
    """Each audience of a spoken line and every payload token it heard."""
    everywhere: frozenset[str]
    """Tokens some speech held from someone present: kept off the stage texts."""


def spoken_words(state: SessionState, context: Sequence[HistoryRecord]) -> SpokenWords:
    """The pooled spoken words `speech_guard` reads (see its arguments)."""
    by_audience = _pooled(_payloads(state, context))
    present = set(state.scene.present)
    everywhere = frozenset().union(
        *(toks for audience, toks in by_audience.items() if not present <= audience)
    )
    return SpokenWords(by_audience, everywhere)


def _pooled(payloads: list[Payload]) -> dict[frozenset[str], frozenset[str]]:
    """Each audience of `payloads` and every token it heard: lines share a handful of
    audiences, and every test of the guard is per audience."""
    by_audience: dict[frozenset[str], frozenset[str]] = {}
    for audience, tokens in payloads:
        by_audience[audience] = by_audience.get(audience, frozenset()) | tokens
    return by_audience


def speech_guard(
    decision: DirectorDecision,
    state: SessionState,
    context: Sequence[HistoryRecord],
    spoken: SpokenWords | None = None,
) -> tuple[DirectorDecision, list[ClampChange]]:
    """Redact spoken-only tokens wherever the decision would carry them past their hearers.

    Args:
        decision: The clamped decision.
        state: The session before the beat (stage and cast define what is public).
        context: Recent history plus this beat's records so far.
        spoken: `spoken_words(state, context)` when the caller already pooled them.

    Returns:
        The decision with redacted texts, and one change per redacted text.
    """
    pooled = spoken_words(state, context) if spoken is None else spoken
    by_audience = pooled.by_audience
    if not by_audience:
        return decision, []

    def hidden_in_event(i: int) -> frozenset[str]:
        witnesses = set(decision.events[i].witness_ids)
        return frozenset().union(
            *(
                toks
                for audience, toks in by_audience.items()
                if not witnesses or not witnesses <= audience
            )
        )

    return redact_visible(decision, RULE, hidden_in_event, pooled.everywhere)
