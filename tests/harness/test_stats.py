"""`harness.stats`: known answers from published values and scipy; the decision rule applied
by code, with negative controls (a difference inside the noise floor decides nothing)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sp

from harness.stats import (
    DecisionRule,
    bootstrap_difference,
    bootstrap_mean,
    decide,
    fisher_exact,
    noise_floor,
    paired_permutation,
    wilson,
)


@given(st.integers(1, 400).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))),
       st.sampled_from([0.8, 0.9, 0.95, 0.99]))  # fmt: skip
def test_wilson_matches_scipy(counts: tuple[int, int], level: float) -> None:
    k, n = counts
    ours = wilson(k, n, level)
    theirs = sp.binomtest(k, n).proportion_ci(confidence_level=level, method="wilson")
    assert ours.low == pytest.approx(theirs.low, abs=1e-12)
    assert ours.high == pytest.approx(theirs.high, abs=1e-12)


def test_wilson_published_value() -> None:
    # Newcombe (1998), Statistics in Medicine 17:857, table I: 81/263 -> 0.2553 to 0.3662.
    interval = wilson(81, 263)
    assert (round(interval.low, 4), round(interval.high, 4)) == (0.2553, 0.3662)


def test_wilson_refuses_impossible_counts() -> None:
    with pytest.raises(ValueError):
        wilson(3, 2)


def test_fisher_published_values() -> None:
    # Fisher's lady tasting tea: 3 of 4 cups right each way.
    assert fisher_exact([[3, 1], [1, 3]]) == pytest.approx(0.4857, abs=1e-4)
    assert fisher_exact([[3, 1], [1, 3]], "greater") == pytest.approx(0.2429, abs=1e-4)


@settings(max_examples=150)
@given(st.lists(st.integers(0, 25), min_size=4, max_size=4),
       st.sampled_from(["two-sided", "less", "greater"]))  # fmt: skip
def test_fisher_matches_scipy(cells: list[int], alternative: str) -> None:
    table = [cells[:2], cells[2:]]
    expected = sp.fisher_exact(table, alternative=alternative).pvalue
    assert fisher_exact(table, alternative) == pytest.approx(expected, rel=1e-9, abs=1e-12)  # type: ignore[arg-type]


@settings(max_examples=40)
@given(st.lists(st.tuples(st.integers(-5, 5), st.integers(-5, 5)), min_size=2, max_size=9))
def test_exact_paired_permutation_matches_scipy(pairs: list[tuple[int, int]]) -> None:
    a = [float(x) for x, _ in pairs]
    b = [float(y) for _, y in pairs]

    def mean_diff(x: np.ndarray, y: np.ndarray, axis: int) -> np.ndarray:
        return np.mean(y - x, axis=axis)

    expected = sp.permutation_test(
        (a, b), mean_diff, permutation_type="samples", n_resamples=np.inf, vectorized=True
    ).pvalue
    assert paired_permutation(a, b) == pytest.approx(expected, abs=1e-9)


def test_sampled_permutation_is_close_to_exact() -> None:
    rng = np.random.default_rng(4)
    a = rng.normal(size=17)  # one pair over the exact limit: sampled
    b = a + rng.normal(0.4, 1.0, size=17)
    exact = sp.permutation_test(
        (a, b), lambda x, y, axis: np.mean(y - x, axis=axis), permutation_type="samples",
        n_resamples=np.inf, vectorized=True,
    ).pvalue  # fmt: skip
    assert paired_permutation(a, b, resamples=50_000) == pytest.approx(exact, abs=0.01)


def test_bootstrap_matches_scipy_percentile() -> None:
    rng = np.random.default_rng(7)
    values = rng.normal(10.0, 2.0, size=200)
    ours = bootstrap_mean(values, resamples=20_000, seed=1)
    theirs = sp.bootstrap(
        (values,), np.mean, method="percentile", n_resamples=20_000, random_state=2
    ).confidence_interval
    assert ours.low == pytest.approx(theirs.low, abs=0.05)
    assert ours.high == pytest.approx(theirs.high, abs=0.05)
    # and the textbook interval: mean +- 1.96 s / sqrt(n)
    half = 1.96 * values.std(ddof=1) / math.sqrt(len(values))
    assert ours.high - ours.low == pytest.approx(2 * half, rel=0.05)


def test_paired_difference_cancels_what_pairs_share() -> None:
    rng = np.random.default_rng(3)
    base = rng.normal(0, 10.0, size=30)  # scripts differ a lot ...
    a, b = base + rng.normal(0, 0.1, 30), base + 1.0 + rng.normal(0, 0.1, 30)  # ... arms little
    paired = bootstrap_difference(a, b, paired=True)
    unpaired = bootstrap_difference(a, b, paired=False)
    assert paired.excludes(0.0) and not unpaired.excludes(0.0)
    assert paired.estimate == pytest.approx(unpaired.estimate)


def test_noise_floor_matches_the_normal_theory() -> None:
    rng = np.random.default_rng(11)
    values = rng.normal(0, 1.0, size=4000)
    floor = noise_floor(values, group_size=8, resamples=40_000)
    assert floor == pytest.approx(1.96 * math.sqrt(2 / 8), rel=0.05)


RULE = DecisionRule(metric="story_yield", better="higher")


def test_decide_b_wins_beyond_the_floor() -> None:
    a, b = [0.20, 0.22, 0.25, 0.21], [0.40, 0.43, 0.41, 0.45]
    decision = decide(RULE, a, b, floor=0.05)
    assert decision.verdict == "b" and decision.difference.low > 0.05


def test_decide_a_wins_and_lower_is_better() -> None:
    a, b = [10.0, 11.0, 12.0], [20.0, 21.0, 22.0]
    assert decide(RULE, a, b, floor=1.0).verdict == "b"
    latency = DecisionRule(metric="whole_turn_ms", better="lower")
    assert decide(latency, a, b, floor=1.0).verdict == "a"


def test_negative_control_a_difference_inside_the_noise_floor_decides_nothing() -> None:
    a, b = [0.200, 0.201, 0.202, 0.199], [0.210, 0.211, 0.212, 0.209]
    assert decide(RULE, a, b, floor=0.0).verdict == "b"  # planted: the interval excludes 0 ...
    decision = decide(RULE, a, b, floor=0.02)  # ... but identical arms differ by up to 0.02
    assert decision.verdict == "none" and "noise floor 0.02" in decision.reason


def test_decide_respects_the_smallest_effect() -> None:
    rule = DecisionRule(metric="story_yield", better="higher", min_effect=0.5)
    assert decide(rule, [0.2, 0.3], [0.4, 0.5], floor=0.0).verdict == "none"


def _battery(a: list[float | None], b: list[float | None]) -> object:
    import pandas as pd

    return pd.DataFrame(
        {"arm": ["a"] * len(a) + ["b"] * len(b),
         "run": list(range(len(a))) + list(range(len(b))),
         "story_yield": a + b}
    )  # fmt: skip


def test_compare_pairs_runs_and_applies_each_rule() -> None:
    from harness.compare import compare

    battery = _battery([0.20, 0.21, 0.22, 0.20], [0.50, 0.52, 0.51, 0.49])
    rules = [RULE, DecisionRule(metric="story_yield", better="lower")]
    rows = compare(battery, "a", "b", rules)  # type: ignore[arg-type]
    assert rows["verdict"].tolist() == ["b", "a"]
    assert rows.loc[0, "difference"] == pytest.approx(0.2975)
    assert rows.loc[0, "noise_floor"] > 0


def test_compare_leaves_out_runs_without_a_value() -> None:
    from harness.compare import compare

    battery = _battery([0.2, None, 0.2], [0.5, 0.5, None])
    row = compare(battery, "a", "b", [RULE]).iloc[0]  # type: ignore[arg-type]
    assert (row.n, row.verdict) == (1, "none")
    assert "fewer than two" in row.reason


def test_negative_control_compare_of_identical_arms_decides_nothing() -> None:
    from harness.compare import compare

    rng = np.random.default_rng(9)
    values = list(rng.normal(0.3, 0.05, size=8))
    battery = _battery(values, [v + float(rng.normal(0, 0.05)) for v in values])
    assert compare(battery, "a", "b", [RULE]).iloc[0].verdict == "none"  # type: ignore[arg-type]


def test_compare_reports_the_exact_permutation_p_value() -> None:
    from harness.compare import compare

    battery = _battery([0.20, 0.21, 0.22], [0.50, 0.52, 0.51])
    row = compare(battery, "a", "b", [RULE]).iloc[0]  # type: ignore[arg-type]
    assert row.verdict == "b" and row.p_value == 0.25  # three pairs: 2 of 8 sign patterns
