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
    """One compiled regex per top-level branch of a pattern, with its required literals.

    Each branch is indexed under the literals of its first requirement, so a text costs one
    substring test per distinct literal (in C, `filter`), not a Python loop over forty
    branches: only branches under a literal the text holds are looked at further. Exact: a
    branch runs only when each of its requirements is met, the first one included, as
    before; only truthiness is answered, so the order the branches are tried in is free.
    """

    def __init__(self, pattern: re.Pattern[str]) -> None:
        # `pattern.flags` carries a leading global flag ("(?i)...") to every branch.
        branches = [re.compile(s, pattern.flags) for s in top_branches(pattern.pattern)]
        self.branches: list[tuple[re.Pattern[str], bool, tuple[Requirement, ...]]] = [
            (branch, *required_literals(branch)) for branch in branches
        ]
        self.always = [i for i, (_, _, needs) in enumerate(self.branches) if not needs]
        """Branches needing no literal: they always run."""
        self.index: dict[bool, dict[str, list[int]]] = {False: {}, True: {}}
        """ignorecase -> literal of a first requirement -> the branches it may let run."""
        for i, (_, ignorecase, needs) in enumerate(self.branches):
            for literal in needs[0] if needs else ():
                self.index[ignorecase].setdefault(literal, []).append(i)

    def search(self, text: str) -> bool:
        # Uncached fold: a narration must not evict the prompts' folds the gate reuses.
        haystacks = (text, _fold(text) if self.index[True] else text)
        candidates = set(self.always)
        for ignorecase, by_literal in self.index.items():
            for literal in filter(haystacks[ignorecase].__contains__, by_literal):
                candidates.update(by_literal[literal])
        for i in sorted(candidates):
            branch, ignorecase, needs = self.branches[i]
            haystack = haystacks[ignorecase]
            if all(any(literal in haystack for literal in need) for need in needs[1:]):
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
