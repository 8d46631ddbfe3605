"""Scanning a text that extends a recent one: keep the old matches, scan only the new tail.

Consecutive prompts of a role share most of their text as a prefix. A regex attempt at
position `q` reads at most the characters `[q - 1, q + reach)`, where `reach` bounds how far
any match path (lookaheads and a trailing word boundary included) can look. On texts that
share their first `k` characters, every attempt at `q <= k - reach` therefore reads the same
characters and has the same outcome, so the old text's matches that start there are this
text's matches, and the scan resumes after them. The result equals `regex.finditer(text)`.

`reach` is finite only when every unbounded repeat of the pattern is a whitespace repeat
(`\\s+`, `\\s*`): on a text with no whitespace run of `WS_LIMIT` characters or more, such a
repeat can take at most `WS_LIMIT - 1`. A text with a longer run, or a pattern with any other
unbounded part, is scanned whole.
"""

from __future__ import annotations

import importlib
import re
from bisect import bisect_right
from collections.abc import Callable
from itertools import islice
from operator import itemgetter
from typing import Any

from tavern.contract._prefilter import MIN_SHARED, Recent, common_prefix

_parser: Any = importlib.import_module("re._parser")
_c: Any = importlib.import_module("re._constants")

WS_LIMIT = 64
_BLOCK = WS_LIMIT // 2
_WHITESPACE = re.compile(r"\s")
_SPACE = [(_c.IN, [(_c.CATEGORY, _c.CATEGORY_SPACE)])]
_ONE_CHAR = {_c.LITERAL, _c.NOT_LITERAL, _c.ANY, _c.IN, _c.CATEGORY}
_INFINITE = 1 << 60


_LONG_RUNS: Recent[str, bool] = Recent()


def maybe_long_run(text: str, base: str | None = None, shared: int = 0) -> bool:
    """False only when `text` has no whitespace run of `WS_LIMIT` characters or more.

    Such a run covers a whole aligned block of `WS_LIMIT // 2` characters, and that block
    starts with a whitespace character: only those blocks are checked (a regex search for
    the run itself tries every position and costs far more). When a recent `base` text
    without such a block shares the first `shared` characters, the blocks inside that prefix
    are its blocks: only the later ones are checked.

    >>> maybe_long_run("a" * 100 + " " * 64 + "b"), maybe_long_run("a b " * 100)
    (True, False)
    """
    known = _LONG_RUNS.get(text)
    if known is not None:
        return known
    start = 0
    if base is not None and _LONG_RUNS.get(base) is False:
        start = -(-max(0, shared - _BLOCK + 1) // _BLOCK) * _BLOCK  # first block past it
    found = False
    for m in _WHITESPACE.finditer(text[start::_BLOCK]):
        at = start + m.start() * _BLOCK
        if text[at : at + _BLOCK].isspace():
            found = True
            break
    return _LONG_RUNS.put(text, found)


Span = tuple[int, int, tuple[str | Any, ...]]
"""A match: start, end, and `(group(0), *groups())`."""
_start = itemgetter(0)


def _reach(items: Any) -> tuple[int, int]:
    """(most characters a match path of `items` consumes, most it reads), from its start.

    A lookahead reads past the position without consuming; a lookbehind reads only before
    it. Anything this does not model counts as unbounded.
    """
    consumed = read = 0
    for op, av in items:
        if op in _ONE_CHAR:
            step = (1, 1)
        elif op is _c.AT:
            step = (0, 0)
        elif op is _c.BRANCH:
            paths = [_reach(branch) for branch in av[1]]
            step = (max(p[0] for p in paths), max(p[1] for p in paths))
        elif op is _c.SUBPATTERN:
            step = _reach(av[-1])
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT):
            _low, high, body = av
            if high == _c.MAXREPEAT:
                if list(body) != _SPACE:
                    return _INFINITE, _INFINITE
                high = WS_LIMIT - 1
            inner = _reach(body)
            step = (high * inner[0], (high - 1) * inner[0] + inner[1] if high else 0)
        elif op in (_c.ASSERT, _c.ASSERT_NOT):
            direction, body = av
            step = (0, _reach(body)[1] if direction == 1 else 0)
        else:
            return _INFINITE, _INFINITE  # back-references, conditionals, atomic groups
        read = max(read, consumed + step[1])
        consumed += step[0]
        if read >= _INFINITE:
            return _INFINITE, _INFINITE
    return consumed, read


def forward_reach(regex: re.Pattern[str]) -> int | None:
    """How far past its start any attempt of `regex` can read, or None when unbounded.

    >>> forward_reach(re.compile(r"\\bthe\\s+player\\b"))
    73
    >>> forward_reach(re.compile(r"\\w+")) is None
    True
    """
    parsed = _parser.parse(regex.pattern, regex.flags)
    if parsed.getwidth()[0] == 0:
        return None  # empty matches follow their own resume rule: no claim
    read = _reach(parsed.data)[1]
    return None if read >= _INFINITE else read + 1  # +1: a trailing \b peeks one more


class ReusingScanner:
    """`finditer` of one regex, reusing the matches of a recent text sharing a prefix.

    `base_of(text)` names the recent text to reuse and the shared length; by default the
    scanner compares `text` with the texts it scanned itself.
    """

    def __init__(
        self,
        regex: re.Pattern[str],
        keep: int = 32,
        base_of: Callable[[str], tuple[str | None, int]] | None = None,
    ) -> None:
        self.regex = regex
        self.reach = forward_reach(regex)
        self.base_of = base_of or self._own_base
        self.recent: Recent[str, tuple[Span, ...]] = Recent(keep, register=False)
        self.reused = 0

    def _own_base(self, text: str) -> tuple[str | None, int]:
        # Only texts opening with the same `MIN_SHARED` characters can share as many; the
        # newest few of them hold the best base nearly always, and any base is exact.
        head = text[:MIN_SHARED]
        same_head = islice((t for t in reversed(self.recent) if t.startswith(head)), 4)
        return max(
            ((t, common_prefix(t, text)) for t in same_head),
            key=lambda pair: pair[1],
            default=(None, 0),
        )

    def scan(self, text: str) -> tuple[Span, ...]:
        """Every match of the regex in `text`, as `finditer` finds them.

        >>> scanner = ReusingScanner(re.compile(r"\\bkey\\b"))
        >>> base = "a key " * 300
        >>> [s[0] for s in scanner.scan(base + "end")][-1], scanner.reused
        (1796, 0)
        >>> [s[0] for s in scanner.scan(base + "key")][-1], scanner.reused
        (1800, 1)
        """
        found = self.recent.get(text)
        if found is not None:
            return found
        if self.reach is not None and self.recent:
            base, shared = self.base_of(text)
            old = self.recent.get(base) if base is not None else None
            if old is not None and shared >= MIN_SHARED and not maybe_long_run(text, base, shared):
                cut = shared - self.reach
                kept = old[: bisect_right(old, cut, key=_start)]  # spans are in start order
                resume = max(cut + 1, kept[-1][1] if kept else 0)
                found = kept + self._spans(text, resume)
                self.reused += 1
        if found is None:
            found = self._spans(text, 0)
        return self.recent.put(text, found)

    def _spans(self, text: str, start: int) -> tuple[Span, ...]:
        return tuple(
            (m.start(), m.end(), (m.group(), *m.groups())) for m in self.regex.finditer(text, start)
        )

    def cache_clear(self) -> None:
        """Forget the recent texts (the contract's `clear_caches`)."""
        self.recent.clear()
