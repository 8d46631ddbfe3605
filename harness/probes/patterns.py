"""Required and forbidden patterns, checked on one text at one level (`prompt`, `reply`).

Patterns are regular expressions matched case-insensitively.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from harness.evidence import excerpt
from harness.records.results import ProbeCheck


def missing_patterns(require: Sequence[str], text: str) -> list[str]:
    """The required patterns that do not match `text`.

    >>> missing_patterns(["quill", "lobo"], "The code is Quill7731.")
    ['lobo']
    """
    return [p for p in require if not re.search(p, text, re.IGNORECASE)]


def forbidden_hit(forbid: Sequence[str], text: str) -> str | None:
    """The first forbidden pattern matching `text` and an excerpt around its hit, as a
    check's detail; None when none matches.

    >>> forbidden_hit(["lobo"], "I am Lobo.")
    "'lobo': I am Lobo."
    """
    for pattern in forbid:
        found = re.search(pattern, text, re.IGNORECASE)
        if found:
            return f"{pattern!r}: {excerpt(text, found.start(), found.end())}"
    return None


def pattern_check(
    level: str, text: str, require: Sequence[str], forbid: Sequence[str]
) -> ProbeCheck:
    """Whether every required pattern and no forbidden one matches `text`.

    Labels: `missing_in_<level>`, `forbidden_in_<level>`.

    >>> pattern_check("prompt", "The code is Quill7731.", ["quill\\\\d+"], ["lobo"]).passed
    True
    >>> pattern_check("reply", "I am Lobo.", ["quill"], []).label
    'missing_in_reply'
    """
    missing = missing_patterns(require, text)
    if missing:
        return ProbeCheck(
            name=level,
            passed=False,
            label=f"missing_in_{level}",
            detail=f"no match for {', '.join(map(repr, missing))}",
        )
    hit = forbidden_hit(forbid, text)
    if hit is not None:
        return ProbeCheck(name=level, passed=False, label=f"forbidden_in_{level}", detail=hit)
    return ProbeCheck(name=level, passed=True)
