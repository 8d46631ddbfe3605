"""The critical path of a turn's calls: how long the human waited on models, not how much
model time the turn used.

A turn's calls partly overlap (the prose renderer runs while the speakers' ledgers are
prepared). Summing their durations overstates the wait; the turn's wall time includes the
kernel's own work. The critical path is the longest chain of calls that ran one after
another, each starting after the previous one ended.

Example:
    >>> critical_path_ms([(0, 100), (100, 300), (120, 200)])
    300.0
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

TOLERANCE_MS = 1.0
"""A call starting this close before another ends still follows it: a journal line's start is
its end time minus its duration, and the two clocks differ by microseconds."""


def critical_path_ms(spans: Sequence[tuple[float, float]]) -> float:
    """The largest total duration of a chain of non-overlapping spans `(start, end)` in ms.

    Weighted interval scheduling: spans sorted by end, each one's best chain is its own
    duration plus the best chain ending before it starts.

    >>> critical_path_ms([]), critical_path_ms([(0, 50), (10, 40)])
    (0.0, 50.0)
    """
    ordered = sorted(spans, key=lambda s: s[1])
    ends = [end for _, end in ordered]
    best = [0.0] * (len(ordered) + 1)  # best[i]: over the first i spans by end
    for i, (start, end) in enumerate(ordered):
        before = bisect_right(ends, start + TOLERANCE_MS, hi=i)
        best[i + 1] = max(best[i], best[before] + (end - start))
    return float(best[-1])
