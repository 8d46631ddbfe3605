"""How a rule reads each record class, looked up once per class.

The record models' metaclass makes every isinstance test a method call (about 45 ns when it
fails, against 15 for a plain class), and rules that read every record of a window (`perceives`,
the secrets fold) made up to four, some on unions built on the spot. A `KindTable` answers
with one dict lookup: the first record of each class pays the isinstance tests, in the rule's
own order, and files the answer.
"""

from __future__ import annotations

from collections.abc import Sequence


class KindTable:
    """Record class -> the kind a rule reads it as: the first of `order` whose classes it is
    a subclass of, else `default`.

    Hot paths read `kinds` directly and call `learn` on a miss:
    `kinds.get(type(record)) or learn(type(record))` (kinds are non-empty strings).

    >>> table = KindTable([((int,), "number"), ((str, bytes), "text")], default="other")
    >>> table.learn(bool), table.learn(bytes), table.learn(list), table.kinds[bool]
    ('number', 'text', 'other', 'number')
    """

    def __init__(self, order: Sequence[tuple[tuple[type, ...], str]], default: str) -> None:
        self.order = tuple(order)
        self.default = default
        self.kinds: dict[type, str] = {}
        """One entry per class met (never replaced: callers may bind it)."""

    def learn(self, record_type: type) -> str:
        """The kind of `record_type`, filed in `kinds`."""
        kind = next((k for classes, k in self.order if issubclass(record_type, classes)), None)
        kind = self.kinds[record_type] = self.default if kind is None else kind
        return kind
