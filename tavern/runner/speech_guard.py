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
from itertools import compress
from operator import itemgetter

from tavern.agents.render import cached_tokens, tokens_in
from tavern.physics.clamps import redact_visible
from tavern.physics.continued import Continued
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
        tokens = cached_tokens(record.text) - frozen
        return (frozenset(record.audience.perceivers), tokens) if tokens else None

    key = _PAYLOADS.number(frozen)
    return list(filter(None, _PAYLOADS.all(context, key, payload)))


_PAYLOADS: RecordMemo[tuple[frozenset[str], frozenset[str]] | None] = RecordMemo()
"""A spoken line's (audience, payload) per public word set, None when it has no payload: the
same on every beat the line stays in the context."""


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


Payload = tuple[frozenset[str], frozenset[str]]
_POOLS: Continued[Payload, dict[frozenset[str], frozenset[str]]] = Continued(kept=4)
"""The last few contexts' payloads and their pools: a turn's context is the last turn's,
its beat's lines committed (new records, equal payloads), with this turn's lines appended.
Pools are never changed once remembered (an extension pools into a copy)."""


def _pooled(payloads: list[Payload]) -> dict[frozenset[str], frozenset[str]]:
    """Each audience of `payloads` and every token it heard; payloads continuing a
    remembered context's (compared by value, in C) pool only their new lines into its pools."""
    found = _POOLS.find(payloads)
    by_audience, tail = (dict(found[0]), payloads[found[1] :]) if found else ({}, payloads)
    # Lines share a handful of audiences: every test of the guard is per audience, so the
    # tokens are pooled per audience once instead of walked per line for each event (one
    # C-level pass per audience over the lines picks its own).
    heard_by, tokens = list(map(itemgetter(0), tail)), list(map(itemgetter(1), tail))
    for audience in dict.fromkeys(heard_by):
        heard = frozenset().union(*compress(tokens, map(audience.__eq__, heard_by)))
        known = by_audience.get(audience)
        by_audience[audience] = heard if known is None else known | heard
    return _POOLS.put(payloads, by_audience)


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
