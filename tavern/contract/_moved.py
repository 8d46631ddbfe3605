"""A prompt whose history window moved: its opening changed, the rest follows further along.

When the oldest history lines drop out of a role's prompt, it no longer shares a long prefix
with the role's previous prompt, but where the two first differ, it goes on with text the
previous prompt holds further along. `moved_copy` finds that stretch with one anchor and
checks it character for character. The opening up to the difference and the stretch are
copies of the previous prompt, so a string the previous prompt lacks can only occur across
their border or after the stretch (`first_outside`).
"""

from __future__ import annotations

ANCHOR = 48
"""Characters looked up after the first difference: rare in prose at this length."""

Copy = tuple[int, int, int]
"""`(start, end, offset)`: `text[:start]` is `base[:start]`, and `text[start:end]` is
`base[start + offset:end + offset]`."""


def extent(a: str, i: int, b: str, j: int, step: int = 1024) -> int:
    """Length of the longest common prefix of `a[i:]` and `b[j:]`: compares of `step`
    characters, then a binary search in the first differing chunk (C-level slice compares).

    >>> extent("xxabcd", 2, "abce", 0)
    3
    """
    n, at = min(len(a) - i, len(b) - j), 0
    while at < n and a[i + at : i + at + step] == b[j + at : j + at + step]:
        at += step
    if at >= n:
        return n
    low, high = at, min(at + step, n)
    while low < high:
        mid = (low + high + 1) // 2
        if a[i + at : i + mid] == b[j + at : j + mid]:
            low = mid
        else:
            high = mid - 1
    return low


def moved_copy(text: str, base: str) -> Copy | None:
    """Where `text` goes on with `base`'s text further along, past their first difference.

    >>> lines = [f"[#{i}] the cask rolls toward the cellar door, slowly\\n" for i in range(9)]
    >>> moved_copy("## History\\n" + "".join(lines[2:]), "## History\\n" + "".join(lines))
    (13, 368, 102)
    """
    start = extent(text, 0, base, 0)
    anchor = text[start : start + ANCHOR]
    if len(anchor) < ANCHOR:
        return None
    found = base.find(anchor, start + 1)
    if found == -1:
        return None
    return start, start + extent(text, start, base, found), found - start


def first_outside(haystack: str, literal: str, copy: Copy) -> int:
    """`haystack.find(literal)` for a literal that the copied-from text lacks: it cannot lie
    wholly inside either copy, so it crosses their border at `start` or ends past `end`.

    >>> first_outside("xaXbcdab", "ab", (2, 6, 1))
    6
    """
    start, end, _ = copy
    reach = len(literal) - 1
    at = haystack.find(literal, max(0, start - reach), start + reach)
    return at if at != -1 else haystack.find(literal, max(0, end - reach))
