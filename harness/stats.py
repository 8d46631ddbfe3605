"""Statistics for campaigns: intervals, exact and permutation tests, the A/A noise floor, and
the pre-registered decision rule applied by code.

A campaign fixes before it runs which metrics decide and how (`DecisionRule`); `decide`
applies the rule to the per-run values of two arms and says who won and why, so a result is
never a reading of a chart after the fact. "B wins on X" means: the interval of the
difference B - A lies wholly on B's better side of zero *and* beyond the metric's noise
floor (the difference two identical arms show by chance) and the rule's smallest effect.

Every function is deterministic given its `seed`. Known answers are checked against
published values and scipy in `tests/harness/test_stats.py` (scipy is a test dependency
only).

Example:
    >>> w = wilson(81, 263)
    >>> round(w.low, 4), round(w.high, 4)
    (0.2553, 0.3662)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product
from statistics import NormalDist
from typing import Literal

import numpy as np

from tavern.records import Record

EXACT_PERMUTATION_LIMIT = 16
"""Pairs up to which a paired permutation test enumerates every sign pattern (2**16)."""


@dataclass(frozen=True)
class Interval:
    """An estimate and its two-sided confidence interval."""

    estimate: float
    low: float
    high: float
    level: float = 0.95

    def excludes(self, value: float) -> bool:
        """Whether `value` lies outside the interval.

        >>> Interval(0.5, 0.2, 0.8).excludes(0.0), Interval(0.5, -0.1, 0.8).excludes(0.0)
        (True, False)
        """
        return value < self.low or value > self.high


def _z(level: float) -> float:
    return NormalDist().inv_cdf(1 - (1 - level) / 2)


def wilson(successes: int, trials: int, level: float = 0.95) -> Interval:
    """Wilson score interval of a proportion (good at small n and near 0 or 1).

    >>> wilson(0, 10).low, round(wilson(0, 10).high, 4)
    (0.0, 0.2775)
    """
    if trials <= 0 or not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials > 0, got {successes}/{trials}")
    z = _z(level)
    p = successes / trials
    denominator = 1 + z * z / trials
    center = (p + z * z / (2 * trials)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials))
    low = 0.0 if successes == 0 else max(0.0, center - half)  # exact at the bounds, where
    high = 1.0 if successes == trials else min(1.0, center + half)  # rounding would leak
    return Interval(p, low, high, level)


def _values(values: Sequence[float]) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    if array.ndim != 1 or len(array) == 0 or np.isnan(array).any():
        raise ValueError("need a non-empty list of numbers without NaN")
    return array


def bootstrap_mean(
    values: Sequence[float], level: float = 0.95, resamples: int = 10_000, seed: int = 0
) -> Interval:
    """Percentile bootstrap interval of a mean.

    >>> bootstrap_mean([1.0, 1.0, 1.0]).low
    1.0
    """
    array = _values(values)
    rng = np.random.default_rng(seed)
    means = rng.choice(array, size=(resamples, len(array)), replace=True).mean(axis=1)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return Interval(float(array.mean()), float(low), float(high), level)


def bootstrap_difference(
    a: Sequence[float],
    b: Sequence[float],
    *,
    paired: bool = False,
    level: float = 0.95,
    resamples: int = 10_000,
    seed: int = 0,
) -> Interval:
    """Percentile bootstrap interval of mean(b) - mean(a).

    Paired (the same scripts and seeds in both arms, in the same order): the pairs are
    resampled together, so what the pair shares cancels out.

    >>> bootstrap_difference([1.0, 2.0], [3.0, 4.0], paired=True).estimate
    2.0
    """
    first, second = _values(a), _values(b)
    rng = np.random.default_rng(seed)
    tail = (1 - level) / 2 * 100
    if paired:
        if len(first) != len(second):
            raise ValueError("paired samples need the same length")
        diffs = second - first
        draws = rng.choice(diffs, size=(resamples, len(diffs)), replace=True).mean(axis=1)
        estimate = float(diffs.mean())
    else:
        left = rng.choice(first, size=(resamples, len(first)), replace=True).mean(axis=1)
        right = rng.choice(second, size=(resamples, len(second)), replace=True).mean(axis=1)
        draws = right - left
        estimate = float(second.mean() - first.mean())
    low, high = np.percentile(draws, [tail, 100 - tail])
    return Interval(estimate, float(low), float(high), level)


def fisher_exact(
    table: Sequence[Sequence[int]],
    alternative: Literal["two-sided", "less", "greater"] = "two-sided",
) -> float:
    """Fisher's exact test on a 2x2 table `[[a, b], [c, d]]`: the p-value.

    Two-sided: the probability of every table with the same margins no more likely than
    the observed one (scipy's definition). `less`/`greater`: of `a` that small/large.

    >>> tea = [[3, 1], [1, 3]]  # Fisher's lady tasting tea
    >>> round(fisher_exact(tea), 4), round(fisher_exact(tea, "greater"), 4)
    (0.4857, 0.2429)
    """
    (a, b), (c, d) = table
    if min(a, b, c, d) < 0:
        raise ValueError("counts must be non-negative")
    row, col, n = a + b, a + c, a + b + c + d
    low, high = max(0, row + col - n), min(row, col)

    def pmf(x: int) -> float:
        return math.comb(col, x) * math.comb(n - col, row - x) / math.comb(n, row)

    if alternative == "less":
        return min(1.0, sum(pmf(x) for x in range(low, a + 1)))
    if alternative == "greater":
        return min(1.0, sum(pmf(x) for x in range(a, high + 1)))
    observed = pmf(a)
    return min(1.0, sum(p for x in range(low, high + 1) if (p := pmf(x)) <= observed * (1 + 1e-7)))


def paired_permutation(
    a: Sequence[float], b: Sequence[float], resamples: int = 20_000, seed: int = 0
) -> float:
    """Two-sided paired permutation (sign-flip) test of mean(b - a) = 0: the p-value.

    Exact (every sign pattern) up to `EXACT_PERMUTATION_LIMIT` pairs; beyond, `resamples`
    random patterns, counting the observed one (so p is never 0).

    >>> paired_permutation([0.0, 0.0, 0.0], [1.0, 1.0, 1.0])
    0.25
    """
    first, second = _values(a), _values(b)
    if len(first) != len(second):
        raise ValueError("paired samples need the same length")
    diffs = second - first
    observed = abs(diffs.mean())
    if len(diffs) <= EXACT_PERMUTATION_LIMIT:
        signs = np.array(list(product((1.0, -1.0), repeat=len(diffs))))
        stats = np.abs((signs * diffs).mean(axis=1))
        return float((stats >= observed - 1e-12).mean())
    rng = np.random.default_rng(seed)
    signs = rng.choice((1.0, -1.0), size=(resamples, len(diffs)))
    stats = np.abs((signs * diffs).mean(axis=1))
    return float(((stats >= observed - 1e-12).sum() + 1) / (resamples + 1))


def noise_floor(
    values: Sequence[float],
    group_size: int,
    quantile: float = 0.95,
    resamples: int = 10_000,
    seed: int = 0,
) -> float:
    """The A/A noise floor of a metric: the `quantile` of |mean(g1) - mean(g2)| for two
    groups of `group_size` runs drawn (with replacement) from runs of one configuration.

    It is the difference two identical arms of that size show by chance; a difference
    inside it is not a result, whatever its interval says.

    >>> noise_floor([3.0, 3.0, 3.0], group_size=2)
    0.0
    """
    array = _values(values)
    if group_size < 1:
        raise ValueError("group_size must be at least 1")
    rng = np.random.default_rng(seed)
    first = rng.choice(array, size=(resamples, group_size), replace=True).mean(axis=1)
    second = rng.choice(array, size=(resamples, group_size), replace=True).mean(axis=1)
    return float(np.quantile(np.abs(first - second), quantile))


class DecisionRule(Record):
    """A pre-registered rule: which metric decides, which way is better, how sure."""

    metric: str
    """The `harness.metrics.run_metrics` column that decides."""
    better: Literal["higher", "lower"]
    """Which direction is an improvement."""
    level: float = 0.95
    """Confidence level of the interval of the difference."""
    paired: bool = True
    """Compare run by run (same scripts and seeds, same order in both arms)."""
    min_effect: float = 0.0
    """Smallest difference worth a decision, in the metric's units, beside the noise floor."""


Verdict = Literal["b", "a", "none"]


@dataclass(frozen=True)
class Decision:
    """What a rule decided, with everything it decided on."""

    metric: str
    verdict: Verdict
    """`b` (B better), `a` (A better) or `none` (no difference shown)."""
    difference: Interval
    """mean(B) - mean(A) and its interval."""
    threshold: float
    """The margin the interval had to clear: max(noise floor, min_effect)."""
    reason: str


def decide(
    rule: DecisionRule,
    a: Sequence[float],
    b: Sequence[float],
    floor: float,
    *,
    resamples: int = 10_000,
    seed: int = 0,
) -> Decision:
    """Apply a pre-registered rule to the per-run values of arms A and B.

    Args:
        rule: The rule fixed before the campaign ran.
        a: Arm A's per-run values of `rule.metric`.
        b: Arm B's values (paired rules: in the same order as A's).
        floor: The metric's A/A noise floor (`noise_floor`) for arms of this size.

    >>> rule = DecisionRule(metric="story_yield", better="higher")
    >>> decide(rule, [0.2, 0.25, 0.3], [0.6, 0.65, 0.7], floor=0.05).verdict
    'b'
    """
    diff = bootstrap_difference(
        a, b, paired=rule.paired, level=rule.level, resamples=resamples, seed=seed
    )
    threshold = max(floor, rule.min_effect, 0.0)
    sign = 1.0 if rule.better == "higher" else -1.0
    low, high = sorted((sign * diff.low, sign * diff.high))
    if low > threshold:
        verdict: Verdict = "b"
        reason = f"the interval lies beyond +{threshold:g} on the better side"
    elif high < -threshold:
        verdict = "a"
        reason = f"the interval lies beyond -{threshold:g} on the worse side"
    else:
        verdict = "none"
        reason = (
            f"the interval [{diff.low:g}, {diff.high:g}] does not clear the margin "
            f"{threshold:g} (noise floor {floor:g}, smallest effect {rule.min_effect:g})"
        )
    return Decision(rule.metric, verdict, diff, threshold, reason)
