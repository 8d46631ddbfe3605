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
from pathlib import Path

import pandas as pd

from harness.analysis import connect
from harness.metrics import run_metrics
from harness.records.campaign import Manifest, Preregistration
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


def preregistered_rule(pre: Preregistration) -> DecisionRule:
    """A campaign's pre-registered decision as the rule `compare` applies: its primary
    metric, direction, confidence level and smallest effect, paired run by run.

    >>> pre = Preregistration(metrics=["story_yield"], primary_metric="story_yield",
    ...                       control="a", treatment="b", better="higher", min_effect=0.05,
    ...                       decision_rule="b wins if its interval clears a's")
    >>> rule = preregistered_rule(pre)
    >>> (rule.metric, rule.better, rule.level, rule.min_effect)
    ('story_yield', 'higher', 0.95, 0.05)
    """
    return DecisionRule(
        metric=pre.primary_metric,
        better=pre.better,
        level=pre.confidence,
        min_effect=pre.min_effect,
    )


def decide_campaign(battery: pd.DataFrame, pre: Preregistration, *, seed: int = 0) -> pd.DataFrame:
    """The campaign's pre-registered decision, applied by code: `compare` of its treatment
    against its control on its primary metric, runs paired on `run` (the partition's run,
    or `<script>__r<repeat>` from the results file: the same script and seed in each arm).
    Its other `metrics` are reported beside, each as a rule of the same direction, when
    the battery has them; those it lacks are listed in `reason` of a row without a verdict.
    The first row is the primary metric's: the campaign's decision.

    Raises:
        ValueError: the primary metric is not a column of the battery (`run_metrics`).
    """
    primary = preregistered_rule(pre)
    if primary.metric not in battery.columns:
        raise ValueError(f"the primary metric {primary.metric!r} is not in the battery")
    rules = [primary] + [
        primary.model_copy(update={"metric": m})
        for m in pre.metrics
        if m != pre.primary_metric and m in battery.columns
    ]
    out = compare(battery, pre.control, pre.treatment, rules, seed=seed)
    missing = [m for m in pre.metrics if m not in battery.columns]
    if missing:
        gone = pd.DataFrame(
            [(m, pre.better, 0, "none", "not a metric of the battery") for m in missing],
            columns=["metric", "better", "n", "verdict", "reason"],
        )
        out = pd.concat([out, gone], ignore_index=True)
    out.insert(1, "primary", out["metric"] == pre.primary_metric)
    return out


def campaign_decision(directory: Path | str, *, seed: int = 0) -> pd.DataFrame:
    """`decide_campaign` on a campaign directory: its manifest's pre-registration, and the
    battery of the runs its results file lists (`harness.analysis.connect` over the
    directory).

    Raises:
        FileNotFoundError: the directory has no manifest (the campaign never ran).
    """
    path = Path(directory) / "manifest.json"
    if not path.exists():
        raise FileNotFoundError(f"{path}: no manifest; the campaign never ran here")
    manifest = Manifest.model_validate_json(path.read_bytes())
    with connect(directory) as con:
        battery = run_metrics(con)
    return decide_campaign(battery, manifest.definition.preregistration, seed=seed)
