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

from tavern.agents.render import cached_tokens, tokens_in
from tavern.physics.clamps import redact_visible
from tavern.physics.guards import scene_texts
from tavern.physics.record_memo import RecordMemo
from tavern.records import ClampChange, DirectorDecision, HistoryRecord, SessionState, SpeechRecord

RULE = "speech_guard"


def _payloads(
    state: SessionState, context: Sequence[HistoryRecord]
) -> list[tuple[frozenset[str], frozenset[str]]]:
    """(audience, tokens not otherwise public) of each spoken (non-whisper) line."""
    public = tokens_in(
        [
            *scene_texts(state.scene),
            state.world,
            *(c.body.display_name for c in state.cast.values()),
            *(c.body.appearance for c in state.cast.values()),
            *(c.body.description_ref for c in state.cast.values()),
        ]
    )
    frozen = frozenset(public)

    def payload(record: HistoryRecord) -> tuple[frozenset[str], frozenset[str]] | None:
        if not isinstance(record, SpeechRecord) or record.audience.origin == "whisper":
            return None
        return frozenset(record.audience.perceivers), cached_tokens(record.text) - frozen

    key = _PAYLOADS.number(frozen)
    return [p for p in _PAYLOADS.all(context, key, payload) if p is not None and p[1]]


_PAYLOADS: RecordMemo[tuple[frozenset[str], frozenset[str]] | None] = RecordMemo()
"""A spoken line's (audience, payload) per public word set: the same on every beat the
line stays in the context."""


def speech_guard(
    decision: DirectorDecision, state: SessionState, context: Sequence[HistoryRecord]
) -> tuple[DirectorDecision, list[ClampChange]]:
    """Redact spoken-only tokens wherever the decision would carry them past their hearers.

    Args:
        decision: The clamped decision.
        state: The session before the beat (stage and cast define what is public).
        context: Recent history plus this beat's records so far.

    Returns:
        The decision with redacted texts, and one change per redacted text.
    """
    payloads = _payloads(state, context)
    if not payloads:
        return decision, []
    # Lines share a handful of audiences: every test below is per audience, so the tokens
    # are pooled per audience once instead of walked per line for each event.
    by_audience: dict[frozenset[str], set[str]] = {}
    for audience, toks in payloads:
        by_audience.setdefault(audience, set()).update(toks)
    present = set(state.scene.present)
    everywhere = set().union(
        *(toks for audience, toks in by_audience.items() if not present <= audience)
    )

    def hidden_in_event(i: int) -> set[str]:
        witnesses = set(decision.events[i].witness_ids)
        return set().union(
            *(
                toks
                for audience, toks in by_audience.items()
                if not witnesses or not witnesses <= audience
            )
        )

    return redact_visible(decision, RULE, hidden_in_event, everywhere)
