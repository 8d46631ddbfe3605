"""The watched literals each line holds, remembered per line.

Nearly every literal a prompt is searched for is missing from it, so each text paid one scan
of its new tail per literal. That tail repeats many lines of earlier prompts (the scene block,
history lines quoted again), and a literal without a line break lies within one line wherever
it occurs. So for the literals every text is searched for (`watch`), a text's lines are looked
up instead: a line seen before costs one lookup, the new lines are searched together, and a
literal's first occurrence is the first line holding it plus its index there.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable

LineHits = dict[str, int]
"""Watched literal -> its first index in one line, for the watched literals the line holds."""
Indexed = tuple[frozenset[str], LineHits]
"""A text's index in one case mode: (the watched literals, the first index of each present)."""

LINES_KEPT = 8192
"""Lines remembered per case mode: a long session's history lines and every role's scene block."""
INDEXED_MIN = 8
"""Fewer watched literals are searched one by one: a scan each costs less than the lines."""

WATCHED: dict[bool, frozenset[str]] = {False: frozenset(), True: frozenset()}
"""ignorecase -> the literals looked up line by line (folded when ignorecase). `watch` replaces
the set when it grows: an index made under an older set is told apart by identity."""
_NO_HITS: LineHits = {}
"""Shared by every line holding no watched literal (never mutated)."""
_SEARCH_ORDER: dict[bool, tuple[list[str], list[tuple[str, str]]]] = {
    False: ([], []),
    True: ([], []),
}
"""ignorecase -> (the watched literals holding no other, then (literal, the longest other
watched literal it holds) by length): a text lacking the inner literal lacks the outer one."""


def _search_order(watched: frozenset[str]) -> tuple[list[str], list[tuple[str, str]]]:
    inner = {
        s: max((t for t in watched if t != s and t in s), key=len, default="") for s in watched
    }
    roots = sorted(s for s, held in inner.items() if not held)
    derived = sorted(((s, held) for s, held in inner.items() if held), key=lambda p: len(p[0]))
    return roots, derived


def _present(joined: str, ignorecase: bool) -> set[str]:
    """The watched literals `joined` holds. A literal holding another is searched only when
    that one is present (an inner literal is shorter, so it is settled first)."""
    roots, derived = _SEARCH_ORDER[ignorecase]
    present = {s for s in roots if s in joined}
    for literal, held in derived:
        if held in present and literal in joined:
            present.add(literal)
    return present


class _KnownLines(OrderedDict[str, LineHits]):
    """line -> its hits among the watched literals, for the last `LINES_KEPT` lines."""

    def learn(self, lines: Iterable[str], ignorecase: bool) -> dict[str, LineHits]:
        """Search `lines` and remember their hits. All at once first: most watched literals
        are in none of them, and one scan of the joined lines costs less than one per line
        (a joining line break cannot make an occurrence: no watched literal holds one)."""
        lines = list(lines)
        joined = "\n".join(lines)
        present = _present(joined, ignorecase)
        learned = {
            line: {s: line.find(s) for s in present if s in line} or _NO_HITS for line in lines
        }
        self.update(learned)
        while len(self) > LINES_KEPT:
            self.popitem(last=False)
        return learned

    def cache_clear(self) -> None:
        """Forget every line (the contract's `clear_caches`)."""
        self.clear()


KNOWN_LINES = {False: _KnownLines(), True: _KnownLines()}
"""ignorecase -> the lines known (registered in the contract's `CACHES`)."""


def watch(ignorecase: bool, literals: Iterable[str]) -> None:
    """Look these literals up line by line from now on. Single characters (on nearly every
    line, so nothing to skip) and literals holding a line break (not within one line) stay
    with plain searches.

    Example:
        >>> watch(True, ["keyboard", "a", "b\\nc"])
        >>> "keyboard" in WATCHED[True], "a" in WATCHED[True], "b\\nc" in WATCHED[True]
        (True, False, False)
    """
    new = {s for s in literals if len(s) >= 2 and "\n" not in s}
    if not new <= WATCHED[ignorecase]:
        WATCHED[ignorecase] = WATCHED[ignorecase] | new
        _SEARCH_ORDER[ignorecase] = _search_order(WATCHED[ignorecase])
        KNOWN_LINES[ignorecase].clear()  # its entries hold only the literals watched before


def add_first_hits(haystack: str, start: int, ignorecase: bool, firsts: LineHits) -> None:
    """Add to `firsts` each watched literal's first index in `haystack[start:]`, for those it
    does not hold yet. `start` must open a line (0, or just past a line break).

    Example (the lexical rules watch "player" and "keyboard"):
        >>> firsts = {"player": 2}
        >>> add_first_hits("a player\\nthe keyboard\\nkeyboard", 0, True, firsts)
        >>> firsts["player"], firsts["keyboard"]
        (2, 13)
    """
    known = KNOWN_LINES[ignorecase]
    lines = haystack[start:].split("\n")
    hits_of = [known.get(line) for line in lines]
    if None in hits_of:
        new = {line for line, hits in zip(lines, hits_of, strict=True) if hits is None}
        learned = known.learn(new, ignorecase)
        hits_of = [
            learned[line] if hits is None else hits
            for line, hits in zip(lines, hits_of, strict=True)
        ]
    at = start
    for line, hits in zip(lines, hits_of, strict=True):
        if hits:
            for literal, index in hits.items():
                if literal not in firsts:
                    firsts[literal] = at + index
        at += len(line) + 1


def index(haystack: str, ignorecase: bool, base: Indexed | None, shared: int) -> Indexed | None:
    """The watched literals' first indexes in `haystack`, or None when too few are watched.

    With the index of a base text sharing the first `shared` characters (made under the same
    watched set), a literal's first index there stands if it ends within the prefix. Any other
    literal has no occurrence ending there: its first one reaches past the prefix, and lying
    within one line, it starts no earlier than the line holding the prefix's end. Only the
    lines from there on are looked up.
    """
    watched = WATCHED[ignorecase]
    if len(watched) < INDEXED_MIN:
        return None
    if base is not None and base[0] is watched:
        firsts = {s: at for s, at in base[1].items() if at + len(s) <= shared}
        start = haystack.rfind("\n", 0, shared) + 1
    else:
        firsts, start = {}, 0
    add_first_hits(haystack, start, ignorecase, firsts)
    return watched, firsts
