"""Required and forbidden patterns, checked on one text at one level (`prompt`, `reply`).

Patterns are regular expressions matched case-insensitively.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from harness.evidence import excerpt
from harness.records.results import ProbeCheck


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
    missing = [p for p in require if not re.search(p, text, re.IGNORECASE)]
    if missing:
        return ProbeCheck(
            name=level,
            passed=False,
            label=f"missing_in_{level}",
            detail=f"no match for {', '.join(map(repr, missing))}",
        )
    for pattern in forbid:
        found = re.search(pattern, text, re.IGNORECASE)
        if found:
            return ProbeCheck(
                name=level,
                passed=False,
                label=f"forbidden_in_{level}",
                detail=f"{pattern!r}: {excerpt(text, found.start(), found.end())}",
            )
    return ProbeCheck(name=level, passed=True)
