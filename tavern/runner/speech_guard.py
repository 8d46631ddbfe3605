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
    number = _PUBLIC_NUMBERS.get(frozen)
    if number is None:
        if len(_PUBLIC_NUMBERS) >= 256:
            _PUBLIC_NUMBERS.clear()
            _PAYLOADS.clear()  # numbers restart: no old entry may answer for a new one
        number = _PUBLIC_NUMBERS[frozen] = len(_PUBLIC_NUMBERS)
    out = []
    for record in context:
        if isinstance(record, SpeechRecord) and record.audience.origin != "whisper":
            slot = (id(record), number)
            hit = _PAYLOADS.get(slot)
            if hit is None or hit[0] is not record:
                if len(_PAYLOADS) >= 1 << 14:
                    _PAYLOADS.clear()
                payload = (
                    frozenset(record.audience.perceivers),
                    cached_tokens(record.text) - frozen,
                )
                hit = _PAYLOADS[slot] = (record, payload)
            if hit[1][1]:
                out.append(hit[1])
    return out


# Per (record, public words): a spoken line's payload is the same on every beat it stays in
# the context. Records are frozen and each entry keeps its record alive, so an identity in a
# live key always means the same record.
_PAYLOADS: dict[tuple[int, int], tuple[SpeechRecord, tuple[frozenset[str], frozenset[str]]]] = {}
_PUBLIC_NUMBERS: dict[frozenset[str], int] = {}


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
    present = set(state.scene.present)
    everywhere = {t for audience, toks in payloads if not present <= audience for t in toks}

    def hidden_in_event(i: int) -> set[str]:
        witnesses = set(decision.events[i].witness_ids)
        return {
            t
            for audience, toks in payloads
            if not witnesses or not witnesses <= audience
            for t in toks
        }

    return redact_visible(decision, RULE, hidden_in_event, everywhere)
