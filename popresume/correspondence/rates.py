"""Callback rates with confidence intervals, and contrasts between groups.

* A group's rate gets a 95% **Wilson score interval** (``statsmodels``'
  ``proportion_confint(method="wilson")``), which keeps its coverage for rates near 0 such as
  callbacks (the normal "Wald" interval does not).
* The **difference** and **ratio** between two groups come from one least-squares fit of the
  outcome on group indicators (no intercept: the coefficients are the group means). Their
  covariance is **cluster-robust by ad** (``cov_type="cluster"``, groups = ``ad_id``, with
  statsmodels' small-sample correction): B&M sent two or four résumés to each ad, and
  résumés answered by the same employer are not independent draws. The ratio's interval is
  the delta method on the log scale, exponentiated. ``cluster=None`` gives the
  heteroskedasticity-robust (HC0) interval, which for a difference of two proportions is the
  textbook √(p₁(1−p₁)/n₁ + p₀(1−p₀)/n₀).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from popresume.extras import require

from .data import PUBLISHED_TABLE1, TABLE1_ROWS, subset


def _require_statsmodels():
    sm = require("statsmodels.api", "callback-rate intervals")
    return sm, require("statsmodels.stats.proportion", "callback-rate intervals").proportion_confint


def wilson_interval(successes, n, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval(s) for ``successes`` out of ``n`` (arrays or scalars).

    Parameters
    ----------
    successes, n : int or array_like
        Counts of successes and of trials.
    level : float
        The interval's level.

    Returns
    -------
    lower, upper : numpy.ndarray
        The bounds.

    Examples
    --------
    >>> lo, hi = wilson_interval(8, 100)
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.0411, 0.15)
    """
    _, proportion_confint = _require_statsmodels()
    lo, hi = proportion_confint(np.asarray(successes), np.asarray(n), alpha=1 - level, method="wilson")
    return np.asarray(lo, float), np.asarray(hi, float)


def _check(df: pd.DataFrame, cols: dict[str, str | None]) -> None:
    if not isinstance(df, pd.DataFrame):
        raise ValueError(f"expected a DataFrame, got {type(df).__name__}")
    valid = list(df.columns)
    for role, c in cols.items():
        if c is not None and c not in df.columns:
            raise ValueError(f"unknown {role} column {c!r}; valid columns are: {valid}")


def contrast(df: pd.DataFrame, by: str, *, outcome: str = "call", reference=None, cluster: str | None = "ad_id",
             level: float = 0.95) -> pd.DataFrame:
    """Difference and ratio of mean ``outcome`` between each level of ``by`` and ``reference``.

    Returns one row per non-reference level with ``reference``, ``difference``,
    ``difference_se``, ``difference_ci_low/high``, ``p_value`` (of difference = 0),
    ``ratio``, ``ratio_ci_low/high`` and ``ci_method``. ``reference`` defaults to the last
    level in sorted order (for race, "White" vs "Black" → reference "White" unless given).

    Parameters
    ----------
    df : pandas.DataFrame
        One row per résumé.
    by : str
        The column whose levels are compared.
    outcome : str
        The 0/1 (or numeric) outcome column.
    reference : object, optional
        The level the others are compared with.
    cluster : str or None
        The column of the clusters of the cluster-robust SE (None: HC0).
    level : float
        The intervals' level.

    Returns
    -------
    pandas.DataFrame
        Indexed by the non-reference levels.

    Examples
    --------
    >>> from popresume.correspondence import load_bertrand_mullainathan
    >>> bm = load_bertrand_mullainathan()
    >>> contrast(bm, "race")[["reference", "difference", "ratio"]].round(3)
         reference  difference  ratio
    race
    Black    White      -0.032  0.668
    """
    _check(df, {"by": by, "outcome": outcome, "cluster": cluster})
    sm, _ = _require_statsmodels()
    d = df[[by, outcome] + ([cluster] if cluster else [])].dropna()
    levels = sorted(pd.unique(d[by]).tolist(), key=str)
    if len(levels) < 2:
        raise ValueError(f"column {by!r} has {len(levels)} level(s) {levels}; a contrast needs two")
    if reference is None:
        reference = levels[-1]
    if reference not in levels:
        raise ValueError(f"reference level {reference!r} is not a level of {by!r}; levels: {levels}")
    design = pd.get_dummies(d[by]).reindex(columns=levels).astype(float)
    fit = sm.OLS(d[outcome].astype(float).to_numpy(), design.to_numpy())
    if cluster:
        res = fit.fit(cov_type="cluster", cov_kwds={"groups": pd.factorize(d[cluster])[0]}, use_t=False)
        method = f"cluster-robust by {cluster} ({d[cluster].nunique()} clusters)"
    else:
        res = fit.fit(cov_type="HC0", use_t=False)
        method = "heteroskedasticity-robust (HC0), no clustering"
    mean, cov = np.asarray(res.params), np.asarray(res.cov_params())
    q = stats.norm.ppf(0.5 + level / 2)
    j = levels.index(reference)
    rows = []
    for i, lv in enumerate(levels):
        if i == j:
            continue
        diff = mean[i] - mean[j]
        se = float(np.sqrt(max(cov[i, i] + cov[j, j] - 2 * cov[i, j], 0.0)))
        if mean[i] > 0 and mean[j] > 0:
            log_se = np.sqrt(max(cov[i, i] / mean[i] ** 2 + cov[j, j] / mean[j] ** 2
                                 - 2 * cov[i, j] / (mean[i] * mean[j]), 0.0))
            ratio = mean[i] / mean[j]
            r_lo, r_hi = ratio * np.exp(-q * log_se), ratio * np.exp(q * log_se)
        else:
            ratio = r_lo = r_hi = np.nan
        rows.append({by: lv, "reference": reference, "difference": diff, "difference_se": se,
                     "difference_ci_low": diff - q * se, "difference_ci_high": diff + q * se,
                     "p_value": float(2 * stats.norm.sf(abs(diff) / se)) if se > 0 else np.nan,
                     "ratio": ratio, "ratio_ci_low": r_lo, "ratio_ci_high": r_hi, "ci_method": method})
    return pd.DataFrame(rows).set_index(by)


def callback_rates(df: pd.DataFrame, by: str = "race", *, outcome: str = "call", reference=None,
                   cluster: str | None = "ad_id", level: float = 0.95) -> pd.DataFrame:
    """Callback rate per level of ``by`` with a Wilson CI, and each level's contrast with ``reference``.

    Returns a tidy frame indexed by the levels of ``by``: ``rate``, ``n``, ``calls``,
    ``ci_low``, ``ci_high`` (Wilson, ``level``), then the columns of :func:`contrast`
    (``difference``, ``ratio`` and their CIs, cluster-robust by ``cluster``); the reference
    row has NaN contrasts. ``reference`` defaults to "White" when ``by`` is race, else to
    the last level. An unknown ``by`` raises ``ValueError`` listing the valid columns.

    Parameters
    ----------
    df : pandas.DataFrame
        One row per résumé.
    by : str
        The grouping column.
    outcome, reference, cluster, level
        As in :func:`contrast`.

    Returns
    -------
    pandas.DataFrame
        Indexed by the levels of ``by``.

    Examples
    --------
    >>> from popresume.correspondence import load_bertrand_mullainathan
    >>> bm = load_bertrand_mullainathan()
    >>> callback_rates(bm, "race")[["rate", "n", "ci_low", "ci_high"]].round(3)
            rate     n  ci_low  ci_high
    race
    Black  0.064  2435   0.055    0.075
    White  0.097  2435   0.085    0.109
    """
    _check(df, {"by": by, "outcome": outcome, "cluster": cluster})
    y = df[outcome]
    if not y.dropna().isin([0, 1]).all():
        bad = y[~y.isin([0, 1]) & y.notna()].iloc[0]
        raise ValueError(f"outcome column {outcome!r} must be 0/1, found {bad!r}")
    if reference is None and set(pd.unique(df[by].dropna())) == {"White", "Black"}:
        reference = "White"
    d = df[[by, outcome]].dropna()
    g = d.groupby(by, sort=True)[outcome]
    out = pd.DataFrame({"rate": g.mean(), "n": g.size(), "calls": g.sum().astype(int)})
    out["ci_low"], out["ci_high"] = wilson_interval(out["calls"].to_numpy(), out["n"].to_numpy(), level)
    out["ci_method"] = f"Wilson {level:.0%}"
    c = contrast(df, by, outcome=outcome, reference=reference, cluster=cluster, level=level)
    out = out.join(c.drop(columns="ci_method").rename(columns={"reference": "compared_with"}))
    out["contrast_ci_method"] = c["ci_method"].iloc[0]
    return out


def table1(df: pd.DataFrame, *, outcome: str = "call", cluster: str | None = "ad_id") -> pd.DataFrame:
    """B&M's Table 1 computed from ``df`` (OURS): rows as :data:`PUBLISHED_TABLE1`.

    Columns as the published table (rates in percent, difference in percentage points,
    p-value of Pearson's chi-square test without continuity correction, which is what
    reproduces the printed p-values) plus cluster-robust 95% CIs of the difference.

    Parameters
    ----------
    df : pandas.DataFrame
        B&M's résumés (:func:`load_bertrand_mullainathan`).
    outcome : str
        The callback column.
    cluster : str or None
        The cluster column of the CIs.

    Returns
    -------
    pandas.DataFrame
        One row per sample of the published table.

    Examples
    --------
    >>> from popresume.correspondence import load_bertrand_mullainathan
    >>> bm = load_bertrand_mullainathan()
    >>> ours = table1(bm)
    >>> ours.shape, ours.index[:3].tolist()
    ((7, 9), ['All sent resumes', 'Chicago', 'Boston'])
    """
    rows = []
    for name, filters in TABLE1_ROWS.items():
        d = subset(df, filters)
        r = callback_rates(d, "race", outcome=outcome, reference="Black", cluster=cluster)
        w, b = r.loc["White"], r.loc["Black"]
        chi = stats.chi2_contingency(pd.crosstab(d["race"], d[outcome]), correction=False)
        rows.append({"sample": name, "white_pct": 100 * w["rate"], "white_n": int(w["n"]),
                     "black_pct": 100 * b["rate"], "black_n": int(b["n"]), "ratio": w["ratio"],
                     "difference_pp": 100 * w["difference"], "p_value": float(chi[1]),
                     "difference_ci_low_pp": 100 * w["difference_ci_low"],
                     "difference_ci_high_pp": 100 * w["difference_ci_high"]})
    return pd.DataFrame(rows).set_index("sample")


def compare_table1(ours: pd.DataFrame) -> pd.DataFrame:
    """Published vs ours, rounded as printed (2 decimals, p-values 4): long table with a match flag.

    Rates, counts, ratios and p-values must agree at the printed precision. The printed
    differences are differences of the printed rates, so they may differ from the rounded
    difference of the unrounded rates by one unit in the last place (Boston: 11.63 − 7.76 =
    3.87 printed, 3.878 unrounded): they are matched within 0.01.

    Parameters
    ----------
    ours : pandas.DataFrame
        :func:`table1`'s output.

    Returns
    -------
    pandas.DataFrame
        One row per (sample, column): ``published``, ``ours (from the data)``, ``match``.

    Examples
    --------
    >>> from popresume.correspondence import load_bertrand_mullainathan
    >>> check = compare_table1(table1(load_bertrand_mullainathan()))
    >>> len(check), bool(check["match"].all())
    (49, True)
    """
    out = []
    for col in PUBLISHED_TABLE1.columns:
        digits = 4 if col == "p_value" else (0 if col.endswith("_n") else 2)
        for sample in PUBLISHED_TABLE1.index:
            pub = PUBLISHED_TABLE1.loc[sample, col]
            mine = round(float(ours.loc[sample, col]), digits)
            tol = 0.01 if col == "difference_pp" else 0.0
            out.append({"sample": sample, "column": col, "published": pub, "ours (from the data)": mine,
                        "match": bool(abs(pub - mine) <= tol + 1e-9)})
    return pd.DataFrame(out)
