"""A prompt's lines and the per-line results of its named lines, reused over a shared prefix.

Card headers and list lines are judged line by line, and only on lines holding a cast name.
Consecutive prompts of a role share most of their text as a prefix: the lines inside it, and
the results computed for them, are the base text's. Only the lines after it are split,
scanned for names and judged.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from functools import lru_cache
from operator import itemgetter
from typing import Any, TypeVar

from tavern.contract._prefilter import CACHE_SIZE, CACHES, Recent, shared_base


@lru_cache(maxsize=CACHE_SIZE)
def _names_regex(names: tuple[str, ...]) -> re.Pattern[str] | None:
    # Only for names that are one non-empty line each: then every occurrence of a name lies
    # within one line, so the lines a scan for the alternation touches are exactly the lines
    # holding some name (an occurrence it steps over overlaps one it found, on that line).
    if not names or any(n.splitlines() != [n] for n in names):
        return None
    return re.compile("|".join(re.escape(n) for n in sorted(set(names), key=len, reverse=True)))


Lines = tuple[list[str], list[int], list[int]]
_LINES_KEPT: Recent[tuple[str, tuple[str, ...]], Lines] = Recent()


@lru_cache(maxsize=CACHE_SIZE)
def _lines(content: str, names: tuple[str, ...]) -> Lines:
    """The lines of `content` (with ends), their offsets, and the indices of those that
    contain a cast name (every index when that cannot be decided by one scan).

    A line of a recent text sharing the first `shared` characters, if it ends before
    `shared`, is a line here too (its end and the character after it are shared, so a
    two-character line break cannot differ), with the same names: only the rest is split
    and scanned.
    """
    finder = _names_regex(names)
    base, shared = shared_base(content)
    old = _LINES_KEPT.get((base, names)) if base is not None else None
    kept = _kept(old[1], shared) if old is not None else 0
    start = old[1][kept] if old is not None and old[1] else 0
    lines = content[start:].splitlines(keepends=True)
    offsets, pos = [], start
    for line in lines:
        offsets.append(pos)
        pos += len(line)
    if finder is None:
        named = list(range(kept, kept + len(lines)))
    else:
        # Every occurrence lies within one line (see `_names_regex`): the named lines past
        # `start` are those holding a match of a scan from `start`.
        named = sorted(
            {kept + bisect_right(offsets, m.start()) - 1 for m in finder.finditer(content, start)}
        )
    if old is not None and kept:
        lines = old[0][:kept] + lines
        offsets = old[1][:kept] + offsets
        named = old[2][: bisect_left(old[2], kept)] + named  # named indices are sorted
    return _LINES_KEPT.put((content, names), (lines, offsets, named))


def _kept(offsets: list[int], shared: int) -> int:
    """How many lines of a text starting at `offsets` lie wholly in its first `shared`
    characters, the line break and the character after it included (see `_lines`)."""
    return max(0, bisect_left(offsets, shared) - 1)


T = TypeVar("T")
_PER_LINE_KEPT: Recent[tuple[str, tuple[str, ...], object], list[Any]] = Recent()


def _named_hits(
    content: str, names: tuple[str, ...], per_line: Callable[[str, tuple[str, ...]], T | None]
) -> list[tuple[int, T]]:
    """(index, result) for each named line of `content` where `per_line(line, names)` is not
    None, in order. A base line that `_lines` keeps is the same line here (same index,
    equally named): its result is reused, and only the later named lines are computed."""
    lines, _, named = _lines(content, names)
    base, shared = shared_base(content)
    reused: list[tuple[int, T]] = []
    fresh_from = 0
    if base is not None:
        old = _PER_LINE_KEPT.get((base, names, per_line))
        base_lines = _LINES_KEPT.get((base, names)) if old is not None else None
        if old is not None and base_lines is not None:
            kept = _kept(base_lines[1], shared)
            reused = old[: bisect_left(old, kept, key=itemgetter(0))]
            fresh_from = bisect_left(named, kept)
    hits = [
        (i, found) for i in named[fresh_from:] if (found := per_line(lines[i], names)) is not None
    ]
    return _PER_LINE_KEPT.put((content, names, per_line), reused + hits)


CACHES.append(_lines)
