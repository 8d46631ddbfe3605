"""Secrets derived from history, never hard-coded: thought-only and whisper-payload tokens.

The clamps use these sets to redact a Director proposal; the per-viewer projection uses them
again so that a record persisted with the truth still reaches each viewer redacted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from tavern.physics.perception import perceives
from tavern.physics.redaction import salient_tokens, tokens_of
from tavern.records import (
    ActionRecord,
    Character,
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


def cast_public_texts(cast: Mapping[str, Character]) -> list[str]:
    """Words anyone may use about the cast: names, descriptions, appearances.

    Pass these as `public_texts` so that a thought mentioning a name or a description never
    turns that word into a secret to be redacted from every event.

    Example:
        >>> from tavern.records import Body, Mind
        >>> cast_public_texts({"C1": Character(id="a", mind=Mind(), body=Body(
        ...     display_name="Ana", description_ref="the innkeeper"))})
        ['Ana', 'the innkeeper', '']
    """
    return [
        t
        for c in cast.values()
        for t in (c.body.display_name, c.body.description_ref, c.body.appearance)
    ]


def scene_texts(scene: Scene) -> list[str]:
    """Every public text of the stage: location, description, facts, zone labels."""
    return [scene.location, scene.description, *scene.facts, *(z.label for z in scene.zones)]


@dataclass
class _Secrets:
    thought_owners: dict[str, frozenset[str]]
    whispers: list[WhisperPayload]
    history: tuple[HistoryRecord, ...]
    """The records walked, kept alive with the entry (see `_walk`)."""
    hidden: dict[str, frozenset[str]] = field(default_factory=dict)
    """Viewer -> `hidden_tokens_for` result over the same walk."""


_WALKS: dict[tuple[object, ...], _Secrets] = {}
_WALKS_KEPT = 32


def _walk(history: Sequence[HistoryRecord], scene: Scene, public_texts: Iterable[str]) -> _Secrets:
    """`_read_secrets`, memoized: a beat's guards and every viewer's projection walk the
    same history.

    History records are frozen, so a record object stands for its content, and the key
    holds record identities: an entry keeps its records alive, so no identity in a live key
    can be reused by another object. A changed record is a new object, hence a new key.
    """
    records = tuple(history)
    key = (tuple(scene_texts(scene)), tuple(public_texts), tuple(map(id, records)))
    found = _WALKS.get(key)
    if found is None:
        if len(_WALKS) >= _WALKS_KEPT:
            _WALKS.clear()
        owners, whispers = _read_secrets(records, scene, key[1])
        found = _WALKS[key] = _Secrets(owners, whispers, records)
    return found


def _read_secrets(
    history: Sequence[HistoryRecord], scene: Scene, public_texts: Iterable[str]
) -> tuple[dict[str, frozenset[str]], list[WhisperPayload]]:
    """Read history in order, telling secrets from words that came out in the open.

    A word becomes public when a character says it aloud or acts it out, or when the stage
    or an event states it first. An event (Director output) cannot launder a word that was
    already secret: the Director reads every thought, so its prose proves nothing.
    Narration is ignored for the same reason.
    """
    public = tokens_of([*scene_texts(scene), *public_texts])
    owners: dict[str, set[str]] = {}
    whispers: list[tuple[int, frozenset[str], set[str]]] = []
    for record in history:
        if isinstance(record, ThoughtRecord):
            for token in salient_tokens(record.text) - public:
                owners.setdefault(token, set()).add(record.speaker)
        elif isinstance(record, SpeechRecord) and record.audience.origin == "whisper":
            payload = set(salient_tokens(record.text) - public)
            for token in payload:
                owners.pop(token, None)
            whispers.append((record.seq, frozenset(record.audience.perceivers), payload))
        elif isinstance(record, SpeechRecord | ActionRecord):
            said = salient_tokens(record.text)
            public |= said
            for token in said:
                owners.pop(token, None)
            for _seq, _who, payload in whispers:
                payload -= said
        elif isinstance(record, EventRecord | SystemRecord):
            public.update(
                token
                for token in salient_tokens(record.text)
                if token not in owners and not any(token in p for _s, _w, p in whispers)
            )
    return (
        {t: frozenset(o) for t, o in owners.items()},
        [WhisperPayload(s, w, frozenset(p)) for s, w, p in whispers if p],
    )


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
    return dict(_walk(history, scene, public_texts).thought_owners)


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
    return list(_walk(history, scene, public_texts).whispers)


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
    secrets = _walk(history, scene, public_texts)
    found = secrets.hidden.get(viewer)
    if found is None:
        hidden = {t for t, owners in secrets.thought_owners.items() if viewer not in owners}
        for payload in secrets.whispers:
            if viewer not in payload.perceivers:
                hidden |= payload.tokens
        legit = tokens_of(
            r.text
            for r in secrets.history
            if isinstance(r, SpeechRecord | ThoughtRecord) and perceives(r, viewer) == "content"
        )
        found = secrets.hidden[viewer] = frozenset(hidden - legit)
    return found
