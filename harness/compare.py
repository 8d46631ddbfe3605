"""Two arms of a campaign compared on their per-run metrics, by pre-registered rules.

`compare` takes the battery (`harness.metrics.run_metrics`: one row per run, with its `arm`
and a pairing key such as `run`), pairs the control's and the treatment's runs on that key
(the same script and seed in both arms), estimates each metric's A/A noise floor from the
control arm's own runs, and applies each `DecisionRule` (`harness.stats.decide`). One row per
rule: both arms' means, the difference B - A with its interval, the floor, the verdict and
why, and beside the rule the paired permutation test's p-value (exact: with 3 pairs it can
never fall under 0.25, whatever the interval says; a percentile bootstrap of so few runs
is narrower than the truth).

Example:
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"arm": ["a", "a", "a", "b", "b", "b"], "run": [1, 2, 3] * 2,
    ...                      "story_yield": [0.20, 0.21, 0.22, 0.50, 0.52, 0.51]})
    >>> rule = DecisionRule(metric="story_yield", better="higher")
    >>> compare(runs, "a", "b", [rule])[["metric", "verdict"]].values.tolist()
    [['story_yield', 'b']]
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from harness.stats import DecisionRule, decide, noise_floor, paired_permutation


def compare(
    battery: pd.DataFrame,
    control: str,
    treatment: str,
    rules: Sequence[DecisionRule],
    *,
    pair_on: str = "run",
    seed: int = 0,
) -> pd.DataFrame:
    """Apply `rules` to `treatment` (B) against `control` (A).

    Runs missing a metric (NULL: its input was not there) are left out of that metric's
    comparison, pairwise for paired rules; the row says how many pairs or runs remained.

    Raises:
        ValueError: a rule names a metric the battery does not have.
    """
    rows: list[tuple[object, ...]] = []
    a_runs = battery[battery["arm"] == control].set_index(pair_on)
    b_runs = battery[battery["arm"] == treatment].set_index(pair_on)
    for rule in rules:
        if rule.metric not in battery.columns:
            raise ValueError(f"no metric {rule.metric!r} in the battery")
        a = pd.to_numeric(a_runs[rule.metric], errors="coerce")
        b = pd.to_numeric(b_runs[rule.metric], errors="coerce")
        if rule.paired:
            both = pd.concat([a.rename("a"), b.rename("b")], axis=1, join="inner").dropna()
            a_values, b_values = both["a"].tolist(), both["b"].tolist()
        else:
            a_values, b_values = a.dropna().tolist(), b.dropna().tolist()
        if len(a_values) < 2 or len(b_values) < 2:
            rows.append(
                (rule.metric, rule.better, len(a_values), None, None, None, None, None, None,
                 "none", "fewer than two runs with a value in an arm", None)
            )  # fmt: skip
            continue
        floor = noise_floor(a_values, group_size=len(a_values), seed=seed)
        decision = decide(rule, a_values, b_values, floor, seed=seed)
        p_value = paired_permutation(a_values, b_values, seed=seed) if rule.paired else None
        rows.append(
            (rule.metric, rule.better, len(a_values), sum(a_values) / len(a_values),
             sum(b_values) / len(b_values), decision.difference.estimate,
             decision.difference.low, decision.difference.high, floor, decision.verdict,
             decision.reason, p_value)
        )  # fmt: skip
    return pd.DataFrame(
        rows,
        columns=["metric", "better", "n", "a_mean", "b_mean", "difference", "low", "high",
                 "noise_floor", "verdict", "reason", "p_value"],
    )  # fmt: skip
