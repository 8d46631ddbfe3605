"""The fold of the secrets walk (`guards`): thought-only words and whisper payloads so far.

Only `guards` feeds it; it lives apart so the walk's bookkeeping and the fold's record
reading each stay readable on their own.
"""

from __future__ import annotations

from collections.abc import Iterable

from tavern.physics.redaction import salient_tokens
from tavern.records import (
    ActionRecord,
    EventRecord,
    HistoryRecord,
    SpeechRecord,
    SystemRecord,
    ThoughtRecord,
)

_NOBODY: frozenset[str] = frozenset()
_OWNER_SETS: dict[tuple[frozenset[str], str], frozenset[str]] = {}


def _with_owner(owners: frozenset[str], speaker: str) -> frozenset[str]:
    """`owners | {speaker}`, one shared object per distinct set: a cast makes few of them,
    so a fold's owner sets cost no allocation, and copying a fold copies no set."""
    key = (owners, speaker)
    found = _OWNER_SETS.get(key)
    if found is None:
        if len(_OWNER_SETS) >= 4096:
            _OWNER_SETS.clear()
        found = _OWNER_SETS[key] = owners | {speaker}
    return found


class SecretFold:
    """The running state of the secrets walk: it can be copied and fed more records.

    Owner sets and whisper payloads are frozensets, replaced rather than changed, so a copy
    shares them. The public words are a shared frozen base plus this fold's own additions:
    with a story's vocabulary (hundreds of public words), one set copy per remembered walk
    cost more than the walk it saved, and kept the collector traversing every copy.
    """

    _FLATTEN = 64
    """Own additions beyond which a copy first merges them into the shared base."""

    def __init__(self, public: Iterable[str]) -> None:
        self._base: frozenset[str] = frozenset(public)
        self._added: set[str] = set()
        self.owners: dict[str, frozenset[str]] = {}
        self.whispers: list[tuple[int, frozenset[str], frozenset[str]]] = []

    @property
    def public(self) -> frozenset[str]:
        """Every word out in the open so far."""
        return self._base | self._added

    def copy(self) -> SecretFold:
        if len(self._added) > self._FLATTEN:
            self._base, self._added = self._base | self._added, set()
        twin = SecretFold(())
        twin._base, twin._added = self._base, set(self._added)
        twin.owners = dict(self.owners)
        twin.whispers = list(self.whispers)
        return twin

    def feed(self, history: Iterable[HistoryRecord]) -> None:
        """Read records in order, telling secrets from words that came out in the open.

        A word becomes public when a character says it aloud or acts it out, or when the
        stage or an event states it first. An event (Director output) cannot launder a word
        that was already secret: the Director reads every thought, so its prose proves
        nothing. Narration is ignored for the same reason.
        """
        base, added, owners, whispers = self._base, self._added, self.owners, self.whispers
        for record in history:
            kind = _kind(record)
            if kind is _THOUGHT:
                speaker = record.speaker
                for token in salient_tokens(record.text) - base - added:
                    owners[token] = _with_owner(owners.get(token, _NOBODY), speaker)
            elif kind is _WHISPER:
                payload = salient_tokens(record.text) - base - added
                for token in payload:
                    owners.pop(token, None)
                whispers.append((record.seq, frozenset(record.audience.perceivers), payload))
            elif kind is _SAID:
                said = salient_tokens(record.text)
                added |= said
                for token in said:
                    owners.pop(token, None)
                for i, (seq, who, payload) in enumerate(whispers):
                    if not payload.isdisjoint(said):
                        whispers[i] = (seq, who, payload - said)
            elif kind is _TOLD:
                # Set differences in C: a window holds dozens of whispers to test each word on.
                added.update(
                    salient_tokens(record.text).difference(owners, *(p for _s, _w, p in whispers))
                )


_THOUGHT, _WHISPER, _SAID, _TOLD, _IGNORED = "thought whisper said told -".split()


def _kind(record: HistoryRecord) -> str:
    """How `SecretFold.feed` reads `record`."""
    if isinstance(record, ThoughtRecord):
        return _THOUGHT
    if isinstance(record, SpeechRecord):
        return _WHISPER if record.audience.origin == "whisper" else _SAID
    if isinstance(record, ActionRecord):
        return _SAID
    if isinstance(record, EventRecord | SystemRecord):
        return _TOLD
    return _IGNORED
