"""Top-1 selection rates, impact ratios with intervals, mean ranks and top-k rates.

In a forced choice among ``k`` résumés, one per group, a group's *selection rate* is the
share of runs whose top pick belongs to it (chance: 1/k), and its *impact ratio* the rate
over the highest group's rate, the figure the four-fifths rule compares with 0.8.

Intervals: a rate gets Wilson's interval. The ratio divides by a maximum chosen from the
same data, and near parity which group is "best" is itself uncertain: a percentile bootstrap
of the ratio to each draw's best covered the true ratio only 67% of the time when all groups
were equal. :func:`ratio_intervals` uses instead that a group's ratio is the smallest of its
ratios to every other group, ``p_g / max_h p_h = min(1, min_h p_g / p_h)``. The top counts of
``n`` runs are one multinomial draw, for which ``log(top_g / top_h)`` has variance
``1/(n p_g) + 1/(n p_h)`` (the multinomial covariance cancels the ``-1/n`` terms), so each
pairwise log ratio gets a Wald interval. The lower bound needs only the comparison with the
true best group to hold (one-sided, ``alpha/2``); the upper bound needs all ``k - 1`` to hold
at once (Bonferroni, ``alpha / (2(k - 1))`` each), so the interval covers with probability at
least ``level`` wherever the groups are. ``p_vs_best`` inverts the same upper bound: it is
below ``1 - level`` exactly when the interval excludes 1 (the group is significantly below
the best). ``p_chance`` tests each rate against 1/k (exact binomial). The harness
(:mod:`popresume.coverage.ranking`) measures the coverage at parity, near it and well apart.
This is the multinomial version of the LL144 impact-ratio interval: in a forced choice the
groups share one draw per run, where LL144's categories are separate applicants.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd
from scipy.stats import binomtest, norm

from popresume.correspondence.rates import wilson_interval
from popresume.errors import require_columns
from popresume.ll144 import FOUR_FIFTHS
from popresume.multiplicity import benjamini_hochberg, holm

from .parse import apply_rule, top_picks

KEYS = ("model", "job")



def ratio_intervals(top, level: float = 0.95) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each group's impact-ratio interval and ``p_vs_best`` from its top counts (module docstring).

    ``top``: the groups' top counts of one model × job (or an array whose last axis is the
    groups, for many replications at once). A zero count gets 0.5 in the log ratios (and a
    lower bound of 0). Returns ``(ci_low, ci_high, p_vs_best)`` in the shape of ``top``."""
    top = np.asarray(top, dtype=float)
    k = top.shape[-1]
    if k < 2:
        raise ValueError(f"need at least two groups for an impact ratio, got {k}")
    alpha = 1 - level
    t = np.where(top > 0, top, 0.5)
    log_ratio = np.log(t)[..., :, None] - np.log(t)[..., None, :]  # [g, h]: log(top_g / top_h)
    se = np.sqrt(1 / t[..., :, None] + 1 / t[..., None, :])
    other = ~np.eye(k, dtype=bool)
    z_low, z_high = norm.ppf(1 - alpha / 2), norm.ppf(1 - alpha / (2 * (k - 1)))
    low = np.exp(np.where(other, log_ratio - z_low * se, np.inf).min(axis=-1))
    high = np.exp(np.where(other, log_ratio + z_high * se, np.inf).min(axis=-1))
    low, high = np.minimum(low, 1.0), np.minimum(high, 1.0)
    low = np.where(top > 0, low, 0.0)
    worst = np.where(other, -log_ratio / se, -np.inf).max(axis=-1)  # strongest evidence of a better group
    p_best = np.minimum(1.0, 2 * (k - 1) * norm.sf(worst))
    empty = top.sum(axis=-1, keepdims=True) == 0
    return (np.where(empty, np.nan, low), np.where(empty, np.nan, high), np.where(empty, np.nan, p_best))


def selection_rates(long: pd.DataFrame, *, by: Sequence[str] = KEYS, level: float = 0.95) -> pd.DataFrame:
    """One row per ``by`` × group: ``top`` (runs the group was ranked first), ``top_og`` (runs
    it was shown first), ``n_runs`` (runs with a top pick), ``selection_rate`` with Wilson CI,
    ``disparate_impact_ratio`` (rate over the highest rate) with its interval and ``p_vs_best``
    (:func:`ratio_intervals`), and ``p_chance`` (exact binomial test of the rate against 1/k,
    k = groups per run).

    Parameters
    ----------
    long : pandas.DataFrame
        The long table: one row per run × shown résumé (:func:`rank_runs`).
    by : sequence of str
        The columns of one experiment.
    level : float
        The intervals' level.

    Returns
    -------
    pandas.DataFrame
        One row per experiment and group.

    Examples
    --------
    >>> from popresume.ranking.bloomberg import load_bloomberg_ranks
    >>> hr = load_bloomberg_ranks(["gpt-3.5-turbo"]).query("job == 'HR specialist'")
    >>> selection_rates(hr)[["demo", "selection_rate", "disparate_impact_ratio"]].head(2).round(3)
      demo  selection_rate  disparate_impact_ratio
    0  A_M           0.098                   0.541
    1  A_W           0.148                   0.818
    """
    by = list(by)
    group = "demo"
    require_columns(long, by + ["run", "position", group, "rank"], "ranking table")
    tops = top_picks(long)
    keys = ["model", "job", "run"]
    shown_first = long.loc[long["position"] == 1, keys + [group]].rename(columns={group: "first"})
    tops = tops.merge(shown_first, on=keys, how="left")
    rows = []
    for key, sub in long.groupby(by, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        t = tops.merge(sub[keys].drop_duplicates(), on=keys)
        levels = sorted(sub[group].unique())
        k = sub.groupby(keys).size().max()
        n = int(t["has_top"].sum())
        top = t.loc[t["has_top"], "demo"].value_counts().reindex(levels, fill_value=0).to_numpy()
        og = t["first"].value_counts().reindex(levels, fill_value=0).to_numpy()
        rate = top / n if n else np.full(len(levels), np.nan)
        dir_ = rate / rate.max() if n else rate
        lo, hi = wilson_interval(top, np.full(len(levels), n), level)
        dlo, dhi, p_best = ratio_intervals(top, level)
        for i, g in enumerate(levels):
            p = binomtest(int(top[i]), n, 1 / k).pvalue if n else np.nan
            rows.append({**dict(zip(by, key)), group: g, "top": int(top[i]), "top_og": int(og[i]), "n_runs": n,
                         "selection_rate": rate[i], "rate_ci_low": lo[i], "rate_ci_high": hi[i],
                         "disparate_impact_ratio": dir_[i], "ratio_ci_low": dlo[i], "ratio_ci_high": dhi[i],
                         "chance_rate": 1 / k, "p_chance": p, "p_vs_best": p_best[i]})
    return pd.DataFrame(rows)


def published_layout(rates: pd.DataFrame) -> pd.DataFrame:
    """``rates`` in the published table's layout and order: within model × job, groups by top
    count (descending, as ``Counter.most_common`` does; tied counts, which their table orders
    by the order its files were read, are in alphabetical order here)."""
    cols = ["model", "job", "demo", "top", "selection_rate", "disparate_impact_ratio"]
    require_columns(rates, cols, "selection-rate table")
    return (rates.sort_values(["model", "job", "top"], ascending=[True, True, False], kind="stable")
            [cols].reset_index(drop=True))


def compare_published(rates: pd.DataFrame, published: pd.DataFrame) -> pd.DataFrame:
    """Every published cell (top, selection_rate, disparate_impact_ratio per model × job × group)
    next to ours, with ``match`` (counts equal, rates equal to 1e-12)."""
    cols = ["top", "selection_rate", "disparate_impact_ratio"]
    keys = ["model", "job", "demo"]
    require_columns(published, keys + cols, "published table")
    m = published[keys + cols].merge(rates[keys + cols], on=keys, how="left", suffixes=("_published", "_ours"))
    m["match"] = ((m["top_published"] == m["top_ours"])
                  & np.isclose(m["selection_rate_published"], m["selection_rate_ours"], rtol=0, atol=1e-12)
                  & np.isclose(m["disparate_impact_ratio_published"], m["disparate_impact_ratio_ours"], rtol=0,
                               atol=1e-12))
    return m


def min_max_ratios(rates: pd.DataFrame, *, by: Sequence[str] = KEYS) -> pd.DataFrame:
    """Per ``by``: the lowest group's rate over the highest's, and which groups those are.

    Parameters
    ----------
    rates : pandas.DataFrame
        :func:`selection_rates`'s output.
    by : sequence of str
        The columns of one experiment.

    Returns
    -------
    pandas.DataFrame
        One row per experiment: ``min_max_ratio``, ``lowest``, ``highest``, ``below_four_fifths``.

    Examples
    --------
    >>> from popresume.ranking.bloomberg import load_bloomberg_ranks
    >>> gpt35 = load_bloomberg_ranks(["gpt-3.5-turbo"])
    >>> t = min_max_ratios(selection_rates(gpt35[gpt35["job"] == "HR specialist"]))
    >>> t[["lowest", "highest", "below_four_fifths"]].to_dict("records")
    [{'lowest': 'W_M', 'highest': 'H_W', 'below_four_fifths': True}]
    """
    require_columns(rates, list(by) + ["demo", "selection_rate"], "selection-rate table")
    def one(s):
        lo, hi = s.loc[s["selection_rate"].idxmin()], s.loc[s["selection_rate"].idxmax()]
        return pd.Series({"min_max_ratio": lo["selection_rate"] / hi["selection_rate"], "lowest": lo["demo"],
                          "highest": hi["demo"], "below_four_fifths": lo["selection_rate"] < FOUR_FIFTHS * hi["selection_rate"]})
    return rates.groupby(list(by), sort=False)[["demo", "selection_rate"]].apply(one).reset_index()


def adjust_pvalues(table: pd.DataFrame, p: str = "p_chance", *, family: Sequence[str] = ()) -> pd.DataFrame:
    """``table`` with ``{p}_holm`` and ``{p}_bh`` (Holm, Benjamini–Hochberg) over the family:
    all rows, or each ``family`` group separately."""
    require_columns(table, [p] + list(family), "p-value table")
    out = table.copy()
    codes = (out.groupby(list(family), sort=False, dropna=False).ngroup().to_numpy() if family
             else np.zeros(len(out), int))
    values = out[p].to_numpy(float)
    adjusted_holm, adjusted_bh = np.full(len(out), np.nan), np.full(len(out), np.nan)
    for k in np.unique(codes):  # by position, so a repeated index label cannot merge two families
        rows = np.flatnonzero(codes == k)
        adjusted_holm[rows] = holm(values[rows])
        adjusted_bh[rows] = benjamini_hochberg(values[rows])
    out[f"{p}_holm"], out[f"{p}_bh"] = adjusted_holm, adjusted_bh
    return out


def rank_summary(long: pd.DataFrame, *, by: Sequence[str] = KEYS, ks: Sequence[int] = (1, 2, 3, 4),
                 level: float = 0.95) -> pd.DataFrame:
    """Per ``by`` × group: mean rank (1 = top) with a normal CI over runs, and the top-k rates
    (share of the group's shown résumés ranked k or better). Unranked names (NaN) are left
    out of the mean and count as not in the top k."""
    by = list(by)
    require_columns(long, by + ["demo", "rank"], "ranking table")
    g = long.groupby(by + ["demo"], sort=True)["rank"]
    out = pd.DataFrame({"n": g.size(), "n_ranked": g.count(), "mean_rank": g.mean(), "sd": g.std()})
    z = norm.ppf(0.5 + level / 2)
    half = z * out["sd"] / np.sqrt(out["n_ranked"])
    out["mean_rank_ci_low"], out["mean_rank_ci_high"] = out["mean_rank"] - half, out["mean_rank"] + half
    for k in ks:
        out[f"top{k}_rate"] = long.assign(_in=(long["rank"] <= k).astype(float)).groupby(by + ["demo"])["_in"].mean()
    return out.drop(columns="sd").reset_index()


def rates_by_rule(long: pd.DataFrame, rules: Sequence[str] = ("last", "unranked", "drop"), **kw) -> pd.DataFrame:
    """:func:`selection_rates` under each parse rule (:func:`popresume.ranking.parse.apply_rule`), stacked."""
    return pd.concat([selection_rates(apply_rule(long, r), **kw).assign(rule=r) for r in rules], ignore_index=True)


__all__ = ["selection_rates", "published_layout", "compare_published", "min_max_ratios", "adjust_pvalues",
           "rank_summary", "rates_by_rule"]
