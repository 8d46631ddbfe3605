"""The contract's one cache: what each rule found in one message, by the message's content.

A role's system message repeats verbatim on every call of that role, and each call's user
message repeats the last one's history lines, so the gate sees the same contents again and
again. Results depend only on the content and the cast, both in the key, so a hit returns
exactly what computing afresh would.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
Key = tuple[str, str, tuple[str, ...]]
"""(what was computed, the message content, the cast names)."""


class MessageCache:
    """A bounded map from (what, content, cast) to a result, least recently used out first.

    Example:
        >>> cache = MessageCache(maxsize=2)
        >>> cache.get("len", "abc", (), lambda content, cast: len(content))
        3
        >>> cache.get("len", "abc", (), lambda content, cast: -1)  # served from the cache
        3
        >>> len(MessageCache(maxsize=0).entries)
        0
    """

    def __init__(self, maxsize: int = 1024) -> None:
        self.maxsize = maxsize
        self.entries: OrderedDict[Key, Any] = OrderedDict()

    def get(
        self,
        what: str,
        content: str,
        cast: tuple[str, ...],
        compute: Callable[[str, tuple[str, ...]], T],
    ) -> T:
        """The result of `compute(content, cast)`, computed once while it stays cached."""
        key = (what, content, cast)
        if key in self.entries:
            self.entries.move_to_end(key)
            found: T = self.entries[key]
            return found
        value = compute(content, cast)
        if self.maxsize > 0:
            self.entries[key] = value
            if len(self.entries) > self.maxsize:
                self.entries.popitem(last=False)
        return value

    def clear(self) -> None:
        """Forget everything (results never depend on it; benchmarks start cold)."""
        self.entries.clear()


MESSAGE_CACHE = MessageCache()
"""The cache `check_prompt` uses unless given one: about forty prompts' worth of messages."""
