"""What was derived from a recent list, for a list that continues it.

A window of history, a Character's memory and a transcript all grow at their end and keep
their start for many beats: a value derived from the whole list (a joined block, a union of
token sets, pools per audience) can be extended by its new items instead of derived afresh.
`Continued` remembers the last few lists with their values and finds the one a new list
starts with. Lists are compared by value, in C, so items must compare by content (strings,
frozensets, tuples of them): a changed item is no hit, whatever objects hold it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Generic, TypeVar

T = TypeVar("T")
V = TypeVar("V")


def continues(items: Sequence[T], old: list[T]) -> bool:
    """Whether `items` starts with every item of `old`, in order.

    >>> continues(["a", "b", "c"], ["a", "b"]), continues(["a", "x", "c"], ["a", "b"])
    (True, False)
    """
    return len(old) <= len(items) and items[: len(old)] == old


class Continued(Generic[T, V]):
    """The values of the last `kept` lists, found for a list continuing one of them.

    >>> blocks: Continued[str, str] = Continued(kept=2)
    >>> blocks.put(["a", "b"], "a+b")
    'a+b'
    >>> blocks.find(["a", "b", "c"])
    ('a+b', 2)
    >>> blocks.find(["x"]) is None
    True
    """

    def __init__(self, kept: int) -> None:
        self.kept = kept
        self._lists: list[tuple[list[T], V]] = []
        """Remembered lists and their values, most recent last."""

    def find(self, items: Sequence[T]) -> tuple[V, int] | None:
        """(value, length) of the most recent remembered list that `items` continues, or
        None. The list found is forgotten: the caller's `put` of `items` takes its place."""
        for i in range(len(self._lists) - 1, -1, -1):
            old, value = self._lists[i]
            if continues(items, old):
                del self._lists[i]
                return value, len(old)
        return None

    def put(self, items: list[T], value: V) -> V:
        """Remember `value` for `items` (never changed afterwards: callers must not mutate
        either), forgetting the oldest beyond `kept`; returns `value`."""
        self._lists.append((items, value))
        del self._lists[: -self.kept]
        return value

    def clear(self) -> None:
        """Forget every list (tests starting cold)."""
        self._lists.clear()
