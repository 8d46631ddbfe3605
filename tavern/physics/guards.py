"""Secrets derived from history, never hard-coded: thought-only and whisper-payload tokens.

The clamps use these sets to redact a Director proposal; the per-viewer projection uses them
again so that a record persisted with the truth still reaches each viewer redacted.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tavern.physics.perception import perceives
from tavern.physics.redaction import salient_tokens, tokens_of
from tavern.records import (
    ActionRecord,
    EventRecord,
    HistoryRecord,
    Scene,
    SpeechRecord,
    SystemRecord,
    ThoughtRecord,
)


@dataclass(frozen=True)
class WhisperPayload:
    """The secret part of one whispered line and who may know it."""

    seq: int
    """Seq of the whispered speech record."""
    perceivers: frozenset[str]
    """Slot ids inside the whisper's audience."""
    tokens: frozenset[str]
    """Salient tokens of the whisper that no public record or scene text carries."""


def scene_texts(scene: Scene) -> list[str]:
    """Every public text of the stage: location, description, facts, zone labels."""
    return [scene.location, scene.description, *scene.facts, *(z.label for z in scene.zones)]


def _is_public(record: HistoryRecord) -> bool:
    """Records whose words are spoken or done in the open (not whispers, not thoughts)."""
    if isinstance(record, SpeechRecord):
        return record.audience.origin in ("public", "zone")
    return isinstance(record, ActionRecord | EventRecord | SystemRecord)


def public_tokens(
    history: Sequence[HistoryRecord], scene: Scene, public_texts: Iterable[str] = ()
) -> set[str]:
    """Tokens that already appeared in the open: public speech, actions, events, the stage.

    Narration is left out on purpose: it is model prose derived from the same decisions
    the guards police, so it must not launder a leaked token into "public".
    """
    texts = [r.text for r in history if _is_public(r)]
    return tokens_of([*texts, *scene_texts(scene), *public_texts])


def thought_only_tokens(
    history: Sequence[HistoryRecord], scene: Scene, public_texts: Iterable[str] = ()
) -> dict[str, frozenset[str]]:
    """Token -> owners, for tokens that so far appear only in private thoughts.

    Example:
        >>> from tavern.records import Audience
        >>> t = ThoughtRecord(seq=0, turn_number=1, speaker="C1", author="character",
        ...                   text="the ledger hides the 4471 code",
        ...                   audience=Audience(origin="private", perceivers=["C1"]))
        >>> sorted(thought_only_tokens([t], Scene(location="inn")))
        ['4471', 'code', 'hides', 'ledger']
    """
    seen = public_tokens(history, scene, public_texts)
    whispered = tokens_of(
        r.text for r in history if isinstance(r, SpeechRecord) and not _is_public(r)
    )
    owners: dict[str, set[str]] = {}
    for record in history:
        if isinstance(record, ThoughtRecord):
            for token in salient_tokens(record.text) - seen - whispered:
                owners.setdefault(token, set()).add(record.speaker)
    return {token: frozenset(who) for token, who in owners.items()}


def whisper_payloads(
    history: Sequence[HistoryRecord], scene: Scene, public_texts: Iterable[str] = ()
) -> list[WhisperPayload]:
    """The payload of every whispered line in history, in order.

    Example:
        >>> from tavern.records import Audience
        >>> w = SpeechRecord(seq=4, turn_number=1, speaker="C1", author="character",
        ...                  text="the inn is a trap", audience=Audience(
        ...                  origin="whisper", perceivers=["C1", "C2"]))
        >>> [(p.seq, sorted(p.tokens)) for p in whisper_payloads([w], Scene(location="the inn"))]
        [(4, ['trap'])]
    """
    seen = public_tokens(history, scene, public_texts)
    found = []
    for record in history:
        if isinstance(record, SpeechRecord) and record.audience.origin == "whisper":
            tokens = frozenset(salient_tokens(record.text) - seen)
            if tokens:
                found.append(
                    WhisperPayload(record.seq, frozenset(record.audience.perceivers), tokens)
                )
    return found


def hidden_tokens_for(
    history: Sequence[HistoryRecord],
    scene: Scene,
    viewer: str,
    public_texts: Iterable[str] = (),
) -> frozenset[str]:
    """Tokens `viewer` must never read outside its own thoughts and perceived speech.

    These are the thought-only tokens of other owners and the payloads of whispers the viewer
    was not inside, minus anything the viewer legitimately heard or thought itself.

    Example:
        >>> from tavern.records import Audience
        >>> w = SpeechRecord(seq=0, turn_number=1, speaker="C1", author="character",
        ...                  text="meet at the mill", audience=Audience(
        ...                  origin="whisper", perceivers=["C1", "C2"], aware=["C3"]))
        >>> sorted(hidden_tokens_for([w], Scene(location="inn"), "C3"))
        ['meet', 'mill']
        >>> sorted(hidden_tokens_for([w], Scene(location="inn"), "C2"))
        []
    """
    hidden: set[str] = set()
    for token, owners in thought_only_tokens(history, scene, public_texts).items():
        if viewer not in owners:
            hidden.add(token)
    for payload in whisper_payloads(history, scene, public_texts):
        if viewer not in payload.perceivers:
            hidden |= payload.tokens
    legit = tokens_of(
        r.text
        for r in history
        if isinstance(r, SpeechRecord | ThoughtRecord) and perceives(r, viewer) == "content"
    )
    return frozenset(hidden - legit)
