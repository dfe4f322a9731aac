"""What a fair ranker produces: the chance distribution of the min/max selection-rate ratio.

A ranker that picks its top résumé uniformly at random among the ``k`` shown (one per group)
gives each group a top count that is one multinomial draw with ``n_runs`` trials and equal
shares ``1/k``. Its lowest group's rate over its highest is far from 1 for a few hundred or
thousand runs, so the four-fifths rule flags a fair ranker often. :func:`chance_table` puts
each observed ratio in that distribution: ``null_p`` is the share of fair rankers with a
ratio at least as far from parity (as low or lower).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from popresume.errors import require_columns

FOUR_FIFTHS = 0.8


def null_min_max(n_runs: int, k: int = 8, *, n_sim: int = 10_000, seed: int = 0) -> np.ndarray:
    """``n_sim`` draws of the min/max selection-rate ratio of a uniformly random top pick."""
    if n_runs < 1 or k < 2 or n_sim < 1:
        raise ValueError(f"need n_runs >= 1, k >= 2 and n_sim >= 1; got {n_runs}, {k}, {n_sim}")
    counts = np.random.default_rng(seed).multinomial(int(n_runs), np.full(k, 1 / k), size=int(n_sim))
    return counts.min(axis=1) / counts.max(axis=1)


def chance_table(rates: pd.DataFrame, *, by: Sequence[str] = ("model", "job"), n_sim: int = 10_000,
                 seed: int = 0, threshold: float = FOUR_FIFTHS) -> pd.DataFrame:
    """Per ``by``: the observed ``min_max_ratio``, ``null_p`` (share of fair rankers with the
    same runs and groups whose ratio is as low or lower) and ``flag_rate_under_null`` (share of
    fair rankers the rule ``ratio < threshold`` flags)."""
    by = list(by)
    require_columns(rates, by + ["demo", "top", "n_runs"], "selection-rate table")
    rows = []
    for i, (key, s) in enumerate(rates.groupby(by, sort=False)):
        key = key if isinstance(key, tuple) else (key,)
        n, k = int(s["n_runs"].iloc[0]), len(s)
        obs = s["top"].min() / s["top"].max()
        null = null_min_max(n, k, n_sim=n_sim, seed=seed + i)
        rows.append({**dict(zip(by, key)), "min_max_ratio": obs, "null_p": float((null <= obs + 1e-12).mean()),
                     "flag_rate_under_null": float((null < threshold).mean())})
    return pd.DataFrame(rows)


def null_quantiles(n_runs: Sequence[int], k: int = 8, *, qs: Sequence[float] = (0.025, 0.5, 0.975),
                   n_sim: int = 10_000, seed: int = 0, threshold: float = FOUR_FIFTHS) -> pd.DataFrame:
    """For each number of runs: quantiles of the fair ranker's min/max ratio and its flag rate."""
    rows = []
    for n in n_runs:
        null = null_min_max(int(n), k, n_sim=n_sim, seed=seed)
        rows.append({"n_runs": int(n), **{f"q{q:g}": float(np.quantile(null, q)) for q in qs},
                     "flag_rate_under_null": float((null < threshold).mean())})
    return pd.DataFrame(rows)


__all__ = ["FOUR_FIFTHS", "null_min_max", "chance_table", "null_quantiles"]
