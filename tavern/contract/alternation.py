"""Whether a long alternation matches anywhere, without trying every branch at every position.

A pattern such as `agents.out_of_world.NARRATOR_OUT_OF_WORLD` is forty `\\b...` branches: the
engine cannot use its literal-prefix scan behind a leading `\\b`, so it tries every branch at
every position: half the regex search time of a turn went to it. `matches_any` runs each
top-level branch on its own, and only on texts holding the literals
`_prefilter.required_literals` derives for it: 70 against 343 us on a 744-character narration
(one run, lower-cased text for the old search, as `drop_out_of_world` had it).

Exactness: `pattern.search(text)` finds a match exactly when some branch matches at some
position of the same text (a lookbehind still sees the whole text), and a branch whose
required literals are absent has no match (see `_prefilter`). Only truthiness is given: the
leftmost match of the whole pattern may come from another branch than the first that
matches here.
"""

from __future__ import annotations

import re
from functools import lru_cache

from tavern.contract._prefilter import Requirement, fold, required_literals

_fold = fold.__wrapped__
"""`fold` without its cache (see `_Branches.search`)."""


def top_branches(source: str) -> list[str]:
    """The top-level alternatives of a regex source: `"|".join(...)` gives it back.

    Bars inside a group, a character class or after a backslash belong to their branch.

    >>> top_branches(r"\\bab|c(?:d|e)|[|x]\\||f")
    ['\\\\bab', 'c(?:d|e)', '[|x]\\\\|', 'f']
    """
    parts: list[str] = []
    depth, start, at, in_class = 0, 0, 0, False
    while at < len(source):
        char = source[at]
        if char == "\\":
            at += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            at += 1
            if source[at : at + 1] == "^":
                at += 1
            if source[at : at + 1] == "]":  # a "]" first in a class is a literal
                at += 1
            continue
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            parts.append(source[start:at])
            start = at + 1
        at += 1
    parts.append(source[start:])
    return parts


class _Branches:
    """One compiled regex per top-level branch of a pattern, with its required literals."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        # `pattern.flags` carries a leading global flag ("(?i)...") to every branch.
        branches = [re.compile(s, pattern.flags) for s in top_branches(pattern.pattern)]
        self.branches: list[tuple[re.Pattern[str], bool, tuple[Requirement, ...]]] = [
            (branch, *required_literals(branch)) for branch in branches
        ]

    def search(self, text: str) -> bool:
        folded: str | None = None
        for branch, ignorecase, needs in self.branches:
            if ignorecase:
                # Uncached: a narration must not evict the prompts' folds the gate reuses.
                haystack = folded = _fold(text) if folded is None else folded
            else:
                haystack = text
            if all(any(literal in haystack for literal in need) for need in needs):
                if branch.search(text) is not None:
                    return True
        return False


@lru_cache(maxsize=32)
def _branches(pattern: re.Pattern[str]) -> _Branches:
    return _Branches(pattern)


def matches_any(pattern: re.Pattern[str], text: str) -> bool:
    """`pattern.search(text) is not None`, each top-level branch tried only where it can match.

    Keyed by the pattern object, so a module-level pattern replaced at run time (a test's
    negative control) is split anew.

    >>> matches_any(re.compile(r"\\bas an ai\\b|\\brole-?play", re.I), "No ROLEPLAY here.")
    True
    >>> matches_any(re.compile(r"\\bas an ai\\b|\\brole-?play", re.I), "The cart rolls on.")
    False
    """
    return _branches(pattern).search(text)
