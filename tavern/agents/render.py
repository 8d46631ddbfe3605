"""Small text renderers shared by the prompt builders.

Every renderer takes a `namer` so that each role decides how people are called: the
Director by true name plus id, the prose renderer by true name, a Character by what its
ledger taught it.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable, Hashable, Iterable, Sequence
from functools import lru_cache
from typing import Generic, TypeVar

from tavern.physics.redaction import salient_tokens
from tavern.records import HistoryRecord, Scene, SessionState

Namer = Callable[[str], str]
V = TypeVar("V")

LOG = "· "
"""Prefix of every line of free text (records, memory, facts, narration) in any prompt.

Only roster lines may open with a character's name: a transcript line opening with one
would read as a character card to the prompt contract's structural rules, and history
(who happened to speak) would then look like one character being marked differently.
"""


@lru_cache(maxsize=32768)
def cached_tokens(text: str) -> frozenset[str]:
    """`physics.redaction.salient_tokens`, memoized: the same record texts are tokenized
    again every turn while they stay in the window, and tokenizing dominates guard cost."""
    return frozenset(salient_tokens(text))


class RecordMemo(Generic[V]):
    """A value derived from each history record (its rendered line, its payload...),
    computed once per record and key.

    History records are frozen, and the store hands out the same object for a record on
    every turn it stays in a window, so a record's identity stands for its content. Each
    entry keeps its record alive, so no live key's identity can be reused by another object.
    The key (`number(key)`) carries whatever else the derivation reads (the cast's names).

    >>> from tavern.records import Audience, SystemRecord
    >>> r = SystemRecord(seq=1, turn_number=1, speaker="World", author="kernel",
    ...                  audience=Audience(origin="public"), marker="dawn", text="Dawn.")
    >>> lines: RecordMemo[str] = RecordMemo(limit=4)
    >>> calls = []
    >>> key = lines.number(("names",))
    >>> [lines.get(r, key, lambda x: calls.append(x) or x.text) for _ in range(3)], len(calls)
    (['Dawn.', 'Dawn.', 'Dawn.'], 1)
    """

    def __init__(self, limit: int = 1 << 14) -> None:
        self.limit = limit
        self._values: dict[tuple[int, int], tuple[HistoryRecord, V]] = {}
        self._numbers: dict[Hashable, int] = {}
        self._next = itertools.count()
        self._last: dict[int, tuple[Sequence[HistoryRecord], list[V]]] = {}

    def number(self, key: Hashable) -> int:
        """A number standing for `key` in `get` (hashing the key itself on every record of a
        window cost more than the lookup saved). Numbers are never reused."""
        found = self._numbers.get(key)
        if found is None:
            if len(self._numbers) >= 256:
                self._numbers.clear()
            found = self._numbers[key] = next(self._next)
        return found

    def get(self, record: HistoryRecord, key: int, derive: Callable[[HistoryRecord], V]) -> V:
        """`derive(record)`, computed once per record and key number while remembered."""
        slot = (id(record), key)
        hit = self._values.get(slot)
        if hit is not None and hit[0] is record:
            return hit[1]
        value = derive(record)
        if len(self._values) >= self.limit:
            self._values.clear()
        self._values[slot] = (record, value)
        return value

    def all(
        self, records: Sequence[HistoryRecord], key: int, derive: Callable[[HistoryRecord], V]
    ) -> list[V]:
        """`[get(r, key, derive) for r in records]`, reusing the values of the previous list
        of the same key where this one repeats it (a window grows at its end, and its start
        moves forward now and then).

        The repeat is found by record identity, as in `get`; the previous list's records are
        kept alive with its values.

        >>> from tavern.records import Audience, SystemRecord
        >>> def rec(seq):
        ...     return SystemRecord(seq=seq, turn_number=1, speaker="World", author="kernel",
        ...                         audience=Audience(origin="public"), marker="m", text=str(seq))
        >>> a, b, c = rec(1), rec(2), rec(3)
        >>> memo: RecordMemo[str] = RecordMemo()
        >>> calls = []
        >>> def text(r):
        ...     calls.append(r.seq)
        ...     return r.text
        >>> memo.all([a, b], 0, text), memo.all([b, c], 0, text), calls
        (['1', '2'], ['2', '3'], [1, 2, 3])
        """
        reused: list[V] = []
        last = self._last.get(key)
        if last is not None and records:
            old, old_values = last
            first = records[0]
            at = next((i for i, r in enumerate(old) if r is first), None)
            if at is not None:
                span = min(len(old) - at, len(records))
                if all(map(operator.is_, old[at : at + span], records[:span])):
                    reused = old_values[at : at + span]
        values = reused + [self.get(r, key, derive) for r in records[len(reused) :]]
        if len(self._last) >= 64:
            self._last.clear()
        self._last[key] = (list(records), values)
        return values


def tokens_in(texts: Iterable[str]) -> set[str]:
    """Union of `cached_tokens` over `texts`."""
    return set().union(*map(cached_tokens, texts))


def log_lines(texts: Iterable[str]) -> str:
    """Free-text lines, one per text, each behind `LOG` (inner newlines folded)."""
    return "\n".join(LOG + " ".join(t.split()) for t in texts if t and t.strip())


def roster_line(state: SessionState, slot: str, *, with_mind: bool) -> str:
    """One cast line: id, name, appearance and, for the Director, the full mind.

    Every character gets exactly the same fields in the same form, whoever plays it.
    """
    c = state.cast[slot]
    line = f"- {slot}: {c.body.display_name}. Appearance: {c.body.appearance or '(plain)'}"
    if with_mind:
        line += (
            f"\n  Personality: {c.mind.personality or '(unremarkable)'}"
            f"\n  Secrets: {'; '.join(c.mind.secrets) or '(none)'}"
            f"\n  Goals: {'; '.join(c.mind.goals) or '(none)'}"
        )
    return line


def zone_graph_block(scene: Scene) -> str:
    """The zone graph: zones and directed perception links."""
    if not scene.zones:
        return "One open space: everyone present sees and hears everyone."
    lines = [f"- {z.id}: {z.label}" for z in scene.zones]
    for link in scene.links:
        lines.append(
            f"- from {link.source} to {link.target}: sound {link.sound}, sight {link.sight}"
        )
    return "\n".join(lines)


def scene_block(
    scene: Scene, namer: Namer, *, with_zone_ids: bool = True, with_place: bool = True
) -> str:
    """Location (unless `with_place=False`), facts and who is present where."""
    labels = {z.id: z.label for z in scene.zones}
    lines = []
    if with_place:
        lines.append(f"Location: {scene.location}")
        if scene.description:
            lines.append(scene.description)
    lines.append("Facts:\n" + (log_lines(scene.facts) or "(none)"))
    present = []
    for slot in scene.present:
        zone = scene.positions.get(slot)
        where = ""
        if zone:
            # Zone ids are explained once by the zone graph; labels only where ids are not used.
            where = f" in {zone}" if with_zone_ids else f" in {labels.get(zone, zone)}"
        present.append(namer(slot) + where)
    lines.append("Present: " + ("; ".join(present) or "nobody"))
    return "\n".join(lines)
