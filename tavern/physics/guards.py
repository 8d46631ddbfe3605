"""Secrets derived from history, never hard-coded: thought-only and whisper-payload tokens.

The clamps use these sets to redact a Director proposal; the per-viewer projection uses them
again so that a record persisted with the truth still reaches each viewer redacted.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain
from operator import attrgetter

from tavern.physics.perception import perceives
from tavern.physics.redaction import tokens_of
from tavern.physics.secret_fold import SecretFold
from tavern.records import (
    Character,
    HistoryRecord,
    Scene,
    SpeechRecord,
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


_PUBLIC_BODY_TEXTS = attrgetter("body.display_name", "body.description_ref", "body.appearance")
"""A cast member's public texts, in the order `cast_public_texts` lists them."""


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
    # C-level passes: every guard, observation and memory capture asks, once per viewer.
    return list(chain.from_iterable(map(_PUBLIC_BODY_TEXTS, cast.values())))


def scene_texts(scene: Scene) -> list[str]:
    """Every public text of the stage: location, description, facts, zone labels."""
    return [scene.location, scene.description, *scene.facts, *(z.label for z in scene.zones)]


@dataclass
class _Secrets:
    context: _Context
    """The scene and public texts the walk started from."""
    history: tuple[HistoryRecord, ...]
    """The records walked, kept alive with the entry (see `_walk`)."""
    fold: SecretFold
    thought_owners: dict[str, frozenset[str]]
    whispers: list[WhisperPayload]
    thought_words: frozenset[str] = frozenset()
    """The keys of `thought_owners`."""
    hidden: dict[str, frozenset[str]] = field(default_factory=dict)
    """Viewer -> `hidden_tokens_for` result over the same walk."""
    legit: dict[str, frozenset[str]] = field(default_factory=dict)
    """Viewer -> tokens of the speech and thoughts it perceived in `history`."""
    base: Callable[[], _Secrets | None] = lambda: None
    """The walk this one continued (over its first `base_length` records), while it lives:
    a weak reference, so walks never chain each other alive."""
    base_length: int = 0


_Context = tuple[tuple[str, ...], tuple[str, ...]]
"""A walk's scene texts and public texts."""
_Slot = tuple[_Context, int, int, int]
"""(Context, length, identity of the first record, of the last): where a walk is filed."""
_NO_SLOT: _Slot = (((), ()), -1, 0, 0)
"""A slot no walk is filed under (a lookup that finds no latest walk)."""

_WALKS: dict[_Slot, _Secrets] = {}
_WALKS_KEPT = 64
"""Walks remembered, least recently used first out: a beat makes several (guards, each
speaker's observation, memory), and the next beat continues its boundary walk.

Filed by a short slot, not by every record's identity: a tuple of hundreds of ids cost an
int object per record to build and a pass over it for each hash and compare, several times
a beat. A slot names a walk only once its records are checked to be those asked about
(`_same_records`): two histories may share both ends."""


_LATEST: dict[tuple[_Context, int], _Slot] = {}
"""(Context, first record) -> slot of the walk of those made or used last: usually the one
the next such walk continues (sessions of one scenario share contexts, not records), found
without scanning every walk."""


def _slot(context: _Context, records: tuple[HistoryRecord, ...]) -> _Slot:
    if not records:
        return (context, 0, 0, 0)
    return (context, len(records), id(records[0]), id(records[-1]))


def _same_records(a: tuple[HistoryRecord, ...], b: tuple[HistoryRecord, ...]) -> bool:
    """Whether two histories walk alike: a tuple compare tests identity first, in C, and
    records it finds equal instead are frozen records of equal fields, read alike."""
    return a == b


def _touch(slot: _Slot) -> None:
    _WALKS[slot] = _WALKS.pop(slot)
    _note_latest(slot)


def _note_latest(slot: _Slot) -> None:
    if len(_LATEST) >= _WALKS_KEPT:
        _LATEST.clear()
    context, length, first, _last = slot
    if length:
        _LATEST[(context, first)] = slot


def _walk(history: Sequence[HistoryRecord], scene: Scene, public_texts: Iterable[str]) -> _Secrets:
    """The secrets of `history`, memoized: a beat's guards and every viewer's projection
    walk the same history, and within a beat the history only grows at its end.

    History records are frozen, so a record object stands for its content. An entry keeps
    its records alive and is used only for the very records asked about (`_same_records`);
    a changed record is a new object. A history that extends a remembered one (same start,
    same context) continues that walk from where it stopped instead of starting over.
    """
    records = tuple(history)
    texts = context = (tuple(scene_texts(scene)), tuple(public_texts))
    slot = _slot(context, records)
    found = _WALKS.get(slot)
    if found is not None and _same_records(found.history, records):
        _touch(slot)
        return found
    base = _longest_prefix_walk(context, records)
    if base is None:
        fold = SecretFold(tokens_of([*texts[0], *texts[1]]))
        fold.feed(records)
    else:
        fold = base.fold.copy()
        fold.feed(records[len(base.history) :])
        _touch(_slot(base.context, base.history))
    _WALKS.pop(slot, None)  # a walk of other records filed alike (both ends shared) goes
    while len(_WALKS) >= _WALKS_KEPT:
        del _WALKS[next(iter(_WALKS))]
    _note_latest(slot)
    found = _WALKS[slot] = _Secrets(
        context,
        records,
        fold,
        fold.owners,  # a filed fold is never fed again (walks continue a copy of it)
        [WhisperPayload(s, w, p) for s, w, p in fold.whispers if p],
        frozenset(fold.owners),
        base=weakref.ref(base) if base is not None else (lambda: None),
        base_length=len(base.history) if base is not None else 0,
    )
    return found


def _longest_prefix_walk(context: _Context, records: tuple[HistoryRecord, ...]) -> _Secrets | None:
    """A remembered walk of the same context whose records begin `records`: the context's
    latest walk when it qualifies, else the longest. Any such walk continues exactly.

    Cheap tests first (length, last and first record), so a miss costs no tuple slicing;
    most recently used first, because the walk a beat continues is usually its last one and
    then every shorter candidate is skipped on its length alone.
    """
    if not records:
        return None
    first = records[0]
    latest = _WALKS.get(_LATEST.get((context, id(first)), _NO_SLOT))
    if (
        latest is not None
        and (n := len(latest.history)) < len(records)
        and _same_records(records[:n], latest.history)
    ):
        # Scanning every walk for a longer one touches dozens of cold entries (a cache miss
        # each, ~1 us): the latest walk of the context is taken when it is a prefix.
        return latest
    best: _Secrets | None = None
    longest = 0
    for s in reversed(_WALKS.values()):
        walked = s.history
        n = len(walked)
        if (
            longest < n < len(records)
            and walked[-1] is records[n - 1]
            and walked[0] is first
            and s.context == context
            and _same_records(records[:n], walked)
        ):
            best, longest = s, n
    return best


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


def thought_only_words(
    history: Sequence[HistoryRecord], scene: Scene, public_texts: Iterable[str] = ()
) -> frozenset[str]:
    """The tokens of `thought_only_tokens`, without their owners (shared, not copied).

    Example:
        >>> from tavern.records import Audience
        >>> t = ThoughtRecord(seq=0, turn_number=1, speaker="C1", author="character",
        ...                   text="the 4471 code", audience=Audience(origin="private",
        ...                   perceivers=["C1"]))
        >>> sorted(thought_only_words([t], Scene(location="inn")))
        ['4471', 'code']
    """
    return _walk(history, scene, public_texts).thought_words


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
        found = secrets.hidden[viewer] = frozenset(hidden - _legit(secrets, viewer))
    return found


_SPOKEN_OR_THOUGHT = (SpeechRecord, ThoughtRecord)
"""What `_legit` reads, as a tuple: a union (`A | B`) in the test was built on every record."""


def _legit(secrets: _Secrets, viewer: str) -> frozenset[str]:
    """Tokens of the speech and thoughts `viewer` perceived in the walked history; a walk
    that continued a living one adds only its new records to that walk's answer (itself
    computed the same way, so a chain of continued walks is read once in all)."""
    found = secrets.legit.get(viewer)
    if found is None:
        base = secrets.base()
        known = _legit(base, viewer) if base is not None else frozenset()
        start = secrets.base_length if base is not None else 0
        found = known | tokens_of(
            r.text
            for r in secrets.history[start:]
            if isinstance(r, _SPOKEN_OR_THOUGHT) and perceives(r, viewer) == "content"
        )
        secrets.legit[viewer] = found
    return found
