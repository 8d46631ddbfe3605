"""A value derived from each history record, computed once per record and key.

Every beat derives the same things from the same window of records again: rendered lines,
speech payloads, the names a line teaches. History records are frozen and the store hands
out the same object for a record on every turn it stays in a window, so a record's identity
stands for its content.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable, Hashable, Sequence
from itertools import compress, count, islice, repeat
from typing import Generic, TypeVar

from tavern.records import HistoryRecord

T = TypeVar("T")
V = TypeVar("V")


class ItemMemo(Generic[T, V]):
    """A value derived from each item of a list (a history record's rendered line, a memory
    line's rendering...), computed once per item and key; `RecordMemo` for records.

    Items must be immutable (frozen records, strings), so an item's identity stands for its
    content: the store hands out the same object for a record on every turn it stays in a
    window, and a ledger's memory list keeps its line objects as it grows. Each entry keeps
    its item alive, so no live key's identity can be reused by another object. The key
    (`number(key)`) carries whatever else the derivation reads (the cast's names).

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
        self._values: dict[tuple[int, int], tuple[T, V]] = {}
        self._numbers: dict[Hashable, int] = {}
        self._next = itertools.count()
        self._last: dict[int, list[tuple[list[T], list[V]]]] = {}
        """Key number -> its recent lists and their values, most recent last: one per window
        in play (sessions of the same cast share key numbers)."""

    def number(self, key: Hashable) -> int:
        """A number standing for `key` in `get` (hashing the key itself on every record of a
        window cost more than the lookup saved). Numbers are never reused."""
        found = self._numbers.get(key)
        if found is None:
            if len(self._numbers) >= 256:
                self._numbers.clear()
            found = self._numbers[key] = next(self._next)
        return found

    def get(self, record: T, key: int, derive: Callable[[T], V]) -> V:
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

    def all(self, records: Sequence[T], key: int, derive: Callable[[T], V]) -> list[V]:
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
        entries = self._last.get(key)
        if entries is None:
            if len(self._last) >= 64:
                self._last.clear()
            entries = self._last[key] = []
        reused: list[V] = []
        if records:
            for n in range(len(entries) - 1, -1, -1):
                reused = _repeated(*entries[n], records)
                if reused:
                    del entries[n]  # this list continues that one: it takes its place
                    break
        values = reused + [self.get(r, key, derive) for r in records[len(reused) :]]
        entries.append((list(records), values))
        del entries[:-LISTS_KEPT]
        return values


LISTS_KEPT = 8
"""Recent lists remembered per key number: windows of as many sessions played in turn."""


def _repeated(old: list[T], old_values: list[V], records: Sequence[T]) -> list[V]:
    """The values of `old` over the longest start of `records` that repeats a stretch of
    `old` (by identity) beginning at `records[0]`; empty when `old` lacks that record.

    A window often repeats the last one only in part: its last beat's records, appended
    during that beat, come back from the store as other objects once committed.
    """
    first = records[0]
    # Identity scans in C that stop at the first hit: a window's start usually sits at or
    # near the old list's start, and its first changed record near the end.
    at = next(compress(count(), map(operator.is_, old, repeat(first))), -1)
    if at < 0:
        return []
    span = min(len(old) - at, len(records))
    differs = map(operator.is_not, islice(old, at, None), records)
    return old_values[at : at + next(compress(count(), differs), span)]


class RecordMemo(ItemMemo[HistoryRecord, V]):
    """`ItemMemo` of history records."""
