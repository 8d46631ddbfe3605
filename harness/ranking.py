"""Arms ranked from pairwise outcomes: Bradley-Terry strengths with bootstrap intervals.

A judge's pair results (`harness.judge.pair_results`) and human blind-read labels (a CSV of
pair preferences, or of rankings) become the same thing here: games between arms, won,
lost or tied. `bradley_terry` fits each arm a strength such that P(i beats j) =
s_i / (s_i + s_j) (Hunter's MM algorithm, a tie half a win each way), with a weak prior of
`prior` virtual ties per pair of arms that met, so an arm that won every game gets a large
but finite strength. Strengths are reported as log-strengths centred on zero.

Example:
    >>> games = [("b", "a", 1.0)] * 3 + [("b", "a", 0.0)]
    >>> fit = bradley_terry(games, prior=0.0)
    >>> round(fit["b"] - fit["a"], 4)  # log(3): b won three games of four
    1.0986
"""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from harness.analysis_records import BlindPair, Judgement, KeyEntry
from harness.judge import PairResult

Game = tuple[str, str, float]
"""(i, j, score of i): 1 when i won, 0.5 for a tie, 0 when j won."""


def games_from_results(results: Sequence[PairResult], key: Sequence[KeyEntry]) -> list[Game]:
    """Arm-level games from pair results (pairs without an outcome count for nothing)."""
    arm = {entry.item_id: entry.arm for entry in key}
    games = []
    for result in results:
        if result.outcome is None:
            continue
        score = 0.5 if result.outcome == "tie" else float(result.outcome == result.a)
        games.append((arm[result.a], arm[result.b], score))
    return games


def bradley_terry(
    games: Sequence[Game], prior: float = 1.0, iterations: int = 10_000, tol: float = 1e-10
) -> dict[str, float]:
    """Log-strength per arm, centred on zero.

    Args:
        games: (i, j, score of i).
        prior: Virtual ties added to every pair of arms that met.
        iterations: MM iterations at most.
        tol: Stop when no log-strength moves more than this.
    """
    arms = sorted({g[0] for g in games} | {g[1] for g in games})
    index = {a: k for k, a in enumerate(arms)}
    n = len(arms)
    wins = np.zeros(n)
    meets = np.zeros((n, n))
    for i, j, score in games:
        a, b = index[i], index[j]
        wins[a] += score
        wins[b] += 1.0 - score
        meets[a, b] += 1
        meets[b, a] += 1
    if prior > 0:
        met = meets > 0
        wins += prior * 0.5 * met.sum(axis=1)
        meets += prior * met
    strength = np.ones(n)
    for _ in range(iterations):
        denominators = (meets / (strength[:, None] + strength[None, :])).sum(axis=1)
        updated = np.where(denominators > 0, wins / np.maximum(denominators, 1e-300), strength)
        updated = np.maximum(updated, 1e-300)
        updated /= math.exp(np.log(updated).mean())
        if np.abs(np.log(updated) - np.log(strength)).max() < tol:
            strength = updated
            break
        strength = updated
    logs = np.log(strength)
    return {a: float(logs[index[a]] - logs.mean()) for a in arms}


def rank_arms(
    games: Sequence[Game],
    *,
    prior: float = 1.0,
    resamples: int = 2000,
    level: float = 0.95,
    seed: int = 0,
) -> pd.DataFrame:
    """Arms by strength, best first, with percentile bootstrap intervals over the games.

    Columns: `arm`, `strength` (log-strength), `low`, `high`, `rank` (1 best; arms of equal
    strength share a rank), `games`.
    """
    fit = bradley_terry(games, prior)
    rng = np.random.default_rng(seed)
    draws: dict[str, list[float]] = {a: [] for a in fit}
    for _ in range(resamples):
        sample = [games[k] for k in rng.integers(0, len(games), len(games))]
        refit = bradley_terry(sample, prior, iterations=2000, tol=1e-8)
        for arm in fit:
            draws[arm].append(refit.get(arm, float("nan")))
    tail = (1 - level) / 2 * 100
    played = {a: sum(a in (g[0], g[1]) for g in games) for a in fit}
    rows = []
    for arm, value in fit.items():
        values = np.array(draws[arm])
        values = values[~np.isnan(values)]
        low, high = np.percentile(values, [tail, 100 - tail]) if len(values) else (math.nan,) * 2
        rows.append((arm, value, float(low), float(high), played[arm]))
    frame = pd.DataFrame(rows, columns=["arm", "strength", "low", "high", "games"])
    frame = frame.sort_values(["strength", "arm"], ascending=[False, True], ignore_index=True)
    rounded = frame["strength"].round(9)
    frame["rank"] = [1 + int((rounded > value).sum()) for value in rounded]
    return frame


def ranks_last(ranking: pd.DataFrame, arm: str) -> bool:
    """Whether `arm` is strictly weaker than every other arm (the planted degraded arm must
    be; arms tied at the bottom are not last).

    >>> frame = rank_arms([("a", "b", 0.5)], resamples=10)
    >>> ranks_last(frame, "b")
    False
    """
    rows = ranking.set_index("arm")["rank"]
    return (
        arm in rows.index
        and len(rows) > 1
        and int(rows[arm]) == len(rows)
        and (int((rows == rows[arm]).sum()) == 1)
    )


def read_human_labels(path: Path | str, pairs: Sequence[BlindPair]) -> list[Judgement]:
    """Human blind-read labels as judgements, scored like a judge's.

    Two CSV shapes:
    - pair preferences: `rater,pair_id,order,preferred` (`order` 1 shows item `a` first, 2
      item `b`; `preferred` is `first`, `second` or `tie`);
    - rankings: `rater,item_id,rank` (1 best); each pair both items of which a rater ranked
      becomes that rater's answer in both orders.
    """
    with Path(path).open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    by_id = {p.pair_id: p for p in pairs}
    out: list[Judgement] = []
    common = {"rubric": "human", "rubric_sha256": ""}
    if rows and "pair_id" in rows[0]:
        for row in rows:
            pair = by_id[row["pair_id"]]
            order = int(row["order"])
            first, second = (pair.a, pair.b) if order == 1 else (pair.b, pair.a)
            out.append(
                Judgement(pair_id=pair.pair_id, order=order, first=first, second=second,
                          preferred=row["preferred"], judge=f"human:{row['rater']}", **common)
            )  # fmt: skip
        return out
    ranks: dict[str, dict[str, int]] = {}
    for row in rows:
        ranks.setdefault(row["rater"], {})[row["item_id"]] = int(row["rank"])
    for rater, ranked in ranks.items():
        for pair in pairs:
            if pair.a not in ranked or pair.b not in ranked:
                continue
            for order, (first, second) in ((1, (pair.a, pair.b)), (2, (pair.b, pair.a))):
                better = ranked[first] - ranked[second]
                preferred = "tie" if better == 0 else ("first" if better < 0 else "second")
                out.append(
                    Judgement(pair_id=pair.pair_id, order=order, first=first, second=second,
                              preferred=preferred, judge=f"human:{rater}", **common)
                )  # fmt: skip
    return out


def agreement(left: Sequence[PairResult], right: Sequence[PairResult]) -> float | None:
    """Share of pairs both sides decided where their outcomes agree (ties included)."""
    theirs: Mapping[str, object] = {r.pair_id: r.outcome for r in right if r.outcome is not None}
    shared = [r for r in left if r.outcome is not None and r.pair_id in theirs]
    if not shared:
        return None
    return sum(r.outcome == theirs[r.pair_id] for r in shared) / len(shared)
