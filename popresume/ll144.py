"""The one implementation of the adverse-impact rules: LL144 impact ratios and the four-fifths rule.

NYC Local Law 144 (6 RCNY §5-301(b)) asks a bias audit of a *scoring* tool for each sex,
race/ethnicity and intersectional category's **scoring rate**: the share of the category
that scores above the median score of the whole sample (``rule="median_split"``). The EEOC
four-fifths rule (29 CFR 1607.4(D)) compares **selection rates**: the share of a category
that is selected at a cut, here the top ``select_top`` share of the scores, a score
threshold, or a boolean "selected" column (``rule="selection_cut"``). Both then take each
category's **impact ratio**, its rate over the highest category's rate, and read a ratio
below :data:`FOUR_FIFTHS` as adverse impact. The two rates are different ideas; every
table here says which one it holds, in ``rule``. (The forced-choice rankings of
:mod:`popresume.ranking.rates` have a third: the share of runs a group is ranked first.)

**Categories.** A row whose category is missing in any of the breakdown's columns counts
in one ``unknown`` row (reported with its n and rate, no ratio), as LL144 audits report
"unknown" categories. It still counts everywhere its category is known: a résumé with a
known sex and an unknown race counts for sex, and in the sex × race breakdown it is
unknown. The median (or cut) is that of every row with a score, whichever categories it
has: one sample, one cut. A category under :data:`SMALL_CATEGORY_SHARE` of all rows is
flagged ``under_2pct``: it keeps its rate and ratio but is left out of the reference (the
highest rate), as the rule allows (6 RCNY §5-301(d)).

**Intervals that hold near parity.** The reference is the highest rate, picked from the same
data, so a percentile bootstrap of ``rate / max(rate)`` under-covers where the groups are
close (docs/DESIGN.md §7). Here the impact ratio is written as a minimum of pairwise
ratios, ``r_i / max_j r_j = min_j r_i / r_j``, and every pairwise ratio gets the
Miettinen–Nurminen score interval (the inverted score test, as
``statsmodels.stats.proportion.confint_proportions_2indep(compare="ratio", method="score")``,
with a continuity correction: :func:`rate_ratio_interval`) at a Bonferroni level over the
pairs. On the event that every pairwise interval holds, every
impact ratio lies in ``[min_j L_ij, min(1, min_j U_ij)]``: the intervals cover all categories
at once with probability at least ``level``, whichever category is truly the best. They are
conservative where ratios sit at 1 (the truth is then on the cap), and near nominal for a
category well below the rest; :mod:`popresume.coverage.ll144` measures both. Each rate's own
interval is exact Clopper–Pearson (``proportion_confint(method="beta")``) at the Šidák
level ``level ** (1 / k)``, simultaneous over the ``k`` categories; ``ratio_method="box"``
derives the ratio bounds from that box instead (wider).

**Chance of a flag.** A tool that ignores the attribute still shows ratios below 0.8 in a
small sample. With the group sizes and the number of selected rows fixed, such a tool
selects a uniformly random subset: each category's count is multivariate hypergeometric.
That is exactly what permuting the category labels over the scored rows gives, without the
permutations: :func:`chance_of_flag` computes the probability exactly (scipy's
hypergeometric) for two categories and by ``n_sim`` multivariate-hypergeometric draws
otherwise, and writes it with no more digits than the draws support ("< 0.001" when no
draw of 1,000 is flagged).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy.special import gammaln
from scipy.stats import hypergeom, norm
from statsmodels.stats.proportion import proportion_confint

from popresume.errors import require_columns

#: The four-fifths threshold of an impact ratio (29 CFR 1607.4(D); LL144 audits read it too).
FOUR_FIFTHS = 0.8
#: A category under this share of the rows may be left out of the reference rate (6 RCNY §5-301(d)).
SMALL_CATEGORY_SHARE = 0.02
#: The label of the rows whose category is missing.
UNKNOWN = "unknown"
#: The two rules, the LL144 scoring rate (above the sample median), the selection rate at a cut.
RULES = ("median_split", "selection_cut")
#: The default shortlist share of ``rule="selection_cut"`` (the top quarter of the scores).
SELECT_TOP = 0.25
#: The LL144 breakdowns, each a name and the role of the columns it needs.
BREAKDOWNS = (("sex", ("sex",)), ("race", ("race",)), ("sex × race", ("sex", "race")))

MISSING_SCORE = "column {column!r} has a missing score at row {row!r}; drop unparsed scores first"
BAD_RULE = "rule must be one of {rules}, got {rule!r}"
BAD_SHARE = "select_top must be in (0, 1), got {value!r}"


def _check_rule(rule: str) -> None:
    if rule not in RULES:
        raise ValueError(BAD_RULE.format(rules=list(RULES), rule=rule))


def _selected(df: pd.DataFrame, outcome: str, rule: str, select_top: float | None,
              threshold: float | None) -> tuple[np.ndarray, float]:
    """The boolean "selected" of each row under ``rule`` and the cut it used (NaN for a boolean column)."""
    col = df[outcome]
    if col.isna().any():
        i = int(np.flatnonzero(col.isna().to_numpy())[0])
        raise ValueError(MISSING_SCORE.format(column=outcome, row=df.index[i]))
    if rule == "selection_cut" and pd.api.types.is_bool_dtype(col):
        return col.to_numpy(bool), float("nan")
    y = col.to_numpy(float)
    if rule == "median_split":
        cut = float(np.median(y)) if y.size else float("nan")
        return y > cut, cut
    if threshold is None:
        if select_top is None or not 0 < select_top < 1:
            raise ValueError(BAD_SHARE.format(value=select_top))
        threshold = float(np.quantile(y, 1 - select_top)) if y.size else float("nan")
    return y >= threshold, float(threshold)


def category_counts(df: pd.DataFrame, categories: str | Sequence[str], outcome: str = "score", *,
                    rule: str, select_top: float | None = SELECT_TOP,
                    threshold: float | None = None) -> pd.DataFrame:
    """Rows and selected rows per category, under one of the two rules.

    Parameters
    ----------
    df : DataFrame
        One row per scored résumé.
    categories : str or list of str
        The category column, or several for an intersection (labels joined by " × ").
    outcome : str
        The score column; with ``rule="selection_cut"`` it may be a boolean "selected" column.
    rule : {"median_split", "selection_cut"}
        ``"median_split"``: a row counts as selected when its score is above the median of all
        rows (the LL144 *scoring rate*). ``"selection_cut"``: selected when its score is at or
        above ``threshold``, by default the ``1 - select_top`` quantile of all rows (the
        four-fifths *selection rate*), or when the boolean column is True.
    select_top, threshold : float, optional
        The cut of ``"selection_cut"``; ``threshold`` wins when both are given.

    Returns
    -------
    DataFrame
        One row per known category (sorted), then one ``unknown`` row when some row misses a
        category. Columns: the category columns, ``category`` (the label), ``known``, ``n``,
        ``selected``, ``rule`` and ``cut`` (the median or threshold used; NaN for a boolean
        column). The cut is computed on every row, known categories or not.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"gender": ["F", "F", "M", "M", None],
    ...                    "score": [1.0, 3.0, 4.0, 5.0, 2.0]})
    >>> category_counts(df, "gender", "score", rule="median_split")[["category", "n", "selected", "cut"]]
      category  n  selected  cut
    0        F  2         0  3.0
    1        M  2         2  3.0
    2  unknown  1         0  3.0
    """
    _check_rule(rule)
    cols = [categories] if isinstance(categories, str) else list(categories)
    require_columns(df, [outcome, *cols], "scores table")
    sel, cut = _selected(df, outcome, rule, select_top, threshold)
    known = df[cols].notna().all(axis=1).to_numpy()
    d = df.loc[known, cols].assign(_sel=sel[known])
    g = d.groupby(cols, observed=True, sort=True)["_sel"]
    out = pd.DataFrame({"n": g.size(), "selected": g.sum().astype(int)}).reset_index()
    out.insert(len(cols), "category", out[cols].astype(str).agg(" × ".join, axis=1))
    out.insert(len(cols) + 1, "known", True)
    if not known.all():
        unk = {c: None for c in cols} | {"category": UNKNOWN, "known": False, "n": int((~known).sum()),
                                          "selected": int(sel[~known].sum())}
        out = pd.concat([out, pd.DataFrame([unk])], ignore_index=True)
    out["n"] = out["n"].astype(int)
    out["selected"] = out["selected"].astype(int)
    out["rule"] = rule
    out["cut"] = cut
    return out


def _box(selected: np.ndarray, n: np.ndarray, level: float, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Clopper–Pearson bounds of each rate at the Šidák level ``level ** (1/k)`` (simultaneous over k)."""
    alpha = 1 - level ** (1 / max(k, 1))
    with np.errstate(invalid="ignore", divide="ignore"):
        lo, hi = proportion_confint(selected, np.maximum(n, 1), alpha=alpha, method="beta")
    lo = np.where(n > 0, np.nan_to_num(lo, nan=0.0), np.nan)
    hi = np.where(n > 0, np.nan_to_num(hi, nan=1.0), np.nan)
    return lo, hi


def ratio_bounds(rate_lo: np.ndarray, rate_hi: np.ndarray, reference: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bounds of every ratio ``r_i / max_j r_j`` (``j`` where ``reference``) from a box of rate bounds.

    The ``ratio_method="box"`` interval of :func:`impact_ratio_table`. Broadcasts over leading
    axes (one box per row of a simulation): the last axis is the categories.
    ``lower = lo_i / max_j hi_j``, ``upper = min(1, hi_i / max_j lo_j)`` (1 when every
    reference lower bound is 0).

    Parameters
    ----------
    rate_lo, rate_hi : numpy.ndarray
        Lower and upper bounds of each category's rate; the last axis is the categories.
    reference : numpy.ndarray of bool
        The categories a ratio may be taken against (known and not under the small-category share).

    Returns
    -------
    lower, upper : numpy.ndarray
        The bounds of every category's impact ratio, shaped like ``rate_lo``.

    Examples
    --------
    >>> import numpy as np
    >>> lo, hi = ratio_bounds(np.array([0.2, 0.4]), np.array([0.3, 0.5]), np.array([True, True]))
    >>> lo.round(2).tolist(), hi.round(2).tolist()
    ([0.4, 0.8], [0.75, 1.0])
    """
    lo = np.asarray(rate_lo, float)
    hi = np.asarray(rate_hi, float)
    ref = np.asarray(reference, bool)
    top_hi = np.max(np.where(ref, hi, -np.inf), axis=-1, keepdims=True)
    top_lo = np.max(np.where(ref, lo, -np.inf), axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.where(top_hi > 0, lo / top_hi, 0.0)
        high = np.where(top_lo > 0, np.minimum(1.0, hi / top_lo), 1.0)
    return low, high


def _mn_score(theta, x1, n1, x2, n2, continuity: bool = False):
    """Miettinen–Nurminen score statistic of H0: p1 / p2 = theta (restricted MLE in closed form);
    ``continuity`` takes half a count off the numerator in each group, ``(1/n1 + theta/n2) / 2``."""
    total = n1 + n2
    a = theta * total
    b = -(theta * n1 + x1 + n2 + theta * x2)
    c = x1 + x2
    p2 = (-b - np.sqrt(np.maximum(b * b - 4 * a * c, 0))) / (2 * a)
    p1 = theta * p2
    var = (p1 * (1 - p1) / n1 + theta ** 2 * p2 * (1 - p2) / n2) * total / (total - 1)
    num = np.abs(x1 / n1 - theta * x2 / n2)
    if continuity:
        num = np.maximum(num - (1 / n1 + theta / n2) / 2, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return num ** 2 / var


_LOG_RANGE = 20.0


def rate_ratio_interval(x1, n1, x2, n2, *, alpha: float = 0.05, continuity: bool = True,
                        iters: int = 48) -> tuple[np.ndarray, np.ndarray]:
    """Score interval of the ratio of two binomial rates ``(x1/n1) / (x2/n2)``.

    The Miettinen–Nurminen score test inverted, vectorised (bisection on the log ratio). With
    ``continuity=False`` it is the interval of ``statsmodels.stats.proportion.
    confint_proportions_2indep(..., compare="ratio", method="score")``, which takes one pair
    at a time. The default takes half a count off each group's side of the statistic (a
    continuity correction): the counts are discrete, and under the LL144 median split two
    groups' counts share a fixed total, where the uncorrected interval covered a ratio of 1
    only 0.929-0.934 of the time at 50-100 per group (exact, hypergeometric); corrected it
    covers 0.96-0.98 there and at least 0.959 on independent binomials, for intervals 3-8%
    wider. The lower bound is 0 when ``x1 == 0``, the upper bound infinite when ``x2 == 0``.

    Parameters
    ----------
    x1, n1 : int or array_like
        Selected count and size of the first group (the numerator's rate).
    x2, n2 : int or array_like
        Selected count and size of the second group (the denominator's rate).
    alpha : float
        One minus the confidence level.
    continuity : bool
        Take half a count off each side of the score statistic (the default; see above).
    iters : int
        Bisection steps on the log ratio.

    Returns
    -------
    lower, upper : numpy.ndarray
        The interval's bounds, broadcast over the inputs.

    Examples
    --------
    >>> lo, hi = rate_ratio_interval(120, 500, 250, 500, continuity=False)
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.4006, 0.5729)
    """
    x1, n1, x2, n2 = (np.asarray(v, float) for v in np.broadcast_arrays(x1, n1, x2, n2))
    z2 = norm.isf(np.asarray(alpha, float) / 2) ** 2
    with np.errstate(invalid="ignore", divide="ignore"):
        est = np.log((x1 / n1) / (x2 / n2))
    centre = np.clip(np.nan_to_num(est, nan=0.0, posinf=_LOG_RANGE, neginf=-_LOG_RANGE), -_LOG_RANGE, _LOG_RANGE)

    def bound(upper: bool) -> np.ndarray:
        a = centre.copy() if upper else np.full_like(centre, -_LOG_RANGE)
        b = np.full_like(centre, _LOG_RANGE) if upper else centre.copy()
        for _ in range(iters):
            mid = (a + b) / 2
            outside = _mn_score(np.exp(mid), x1, n1, x2, n2, continuity) > z2
            if upper:
                a, b = np.where(outside, a, mid), np.where(outside, mid, b)
            else:
                a, b = np.where(outside, mid, a), np.where(outside, b, mid)
        return (a + b) / 2

    lo, hi = bound(False), bound(True)
    lo = np.where((x1 == 0) | (lo <= -_LOG_RANGE + 1e-6), 0.0, np.exp(lo))
    hi = np.where((x2 == 0) | (hi >= _LOG_RANGE - 1e-6), np.inf, np.exp(hi))
    return lo, hi


def pairwise_ratio_bounds(selected: np.ndarray, n: np.ndarray, reference: np.ndarray, *,
                          level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Simultaneous bounds of every impact ratio from score intervals of the pairwise rate ratios.

    ``r_i / max_j r_j = min_j (r_i / r_j)`` over the reference categories ``j`` (with 1 when
    ``i`` is itself one), so bounds on every pairwise ratio ``r_i / r_j`` bound every impact
    ratio: ``[min_j L_ij, min_j U_ij]``, each also capped at 1 for a reference category. Each
    distinct pair gets :func:`rate_ratio_interval` at the Bonferroni level ``1 - (1 -
    level) / m`` over the ``m`` pairs, so all impact ratios are covered at once with
    probability at least ``level``. The last axis is the categories; leading axes broadcast
    (one table per row of a simulation). Categories with ``n == 0`` get NaN.

    Parameters
    ----------
    selected, n : numpy.ndarray
        Selected counts and sizes of the categories (the last axis).
    reference : numpy.ndarray of bool
        The categories a ratio may be taken against.
    level : float
        The simultaneous confidence level of all the impact ratios together.

    Returns
    -------
    lower, upper : numpy.ndarray
        Simultaneous bounds of every category's impact ratio.

    Examples
    --------
    >>> import numpy as np
    >>> lo, hi = pairwise_ratio_bounds(np.array([30, 50]), np.array([100, 100]), np.array([True, True]))
    >>> bool(lo[0] < 0.6 < hi[0]), float(hi[1])
    (True, 1.0)
    """
    x = np.asarray(selected, float)
    size = np.broadcast_to(np.asarray(n, float), x.shape)
    ref = np.asarray(reference, bool) & (np.asarray(n) > 0)
    rated = np.asarray(n) > 0
    k = x.shape[-1]
    # one interval per distinct pair: the score interval of r_j / r_i is [1 / U_ij, 1 / L_ij]
    i, j = np.meshgrid(np.arange(k), np.arange(k), indexing="ij")
    keep = rated[i] & ref[j] & ((i < j) | ((i > j) & ~ref[i]))
    i, j = i[keep], j[keep]  # row-major: the order of the former loop over pairs
    alpha = (1 - level) / max(len(i), 1)
    low = np.where(ref, 1.0, np.inf) * np.ones(x.shape)
    high = low.copy()
    if len(i):
        # every pair at once (the interval is elementwise): the last axis is the pairs
        lo, hi = rate_ratio_interval(x[..., i], size[..., i], x[..., j], size[..., j], alpha=alpha)
        with np.errstate(divide="ignore"):
            inv_lo, inv_hi = 1 / hi, 1 / lo
        both = ref[i]  # a pair of two reference categories bounds each side's ratio
        cand_i, cand_j = (i, lo, hi), (j[both], inv_lo[..., both], inv_hi[..., both])
        for target, lows, highs in (cand_i, cand_j):  # categories first: views of low and high
            np.minimum.at(np.moveaxis(low, -1, 0), target, np.moveaxis(lows, -1, 0))
            np.minimum.at(np.moveaxis(high, -1, 0), target, np.moveaxis(highs, -1, 0))
    low = np.where(rated, low, np.nan)
    high = np.where(rated, high, np.nan)
    return low, high


RATIO_METHODS = ("pairwise_score", "box")


def impact_ratio_table(counts: pd.DataFrame, *, level: float = 0.95, min_share: float = SMALL_CATEGORY_SHARE,
                       threshold: float = FOUR_FIFTHS, ratio_method: str = "pairwise_score") -> pd.DataFrame:
    """Rates, impact ratios with intervals that hold near parity, the under-2% rule and the flag.

    Parameters
    ----------
    counts : DataFrame
        :func:`category_counts` output (at least ``category``, ``n``, ``selected``; ``known``
        is taken as True when absent).
    level : float
        Joint confidence level of the intervals (all categories' at once).
    min_share : float
        Categories under this share of all rows (unknown included) are ``under_2pct`` and left
        out of the reference rate; 0 keeps every category in it (the four-fifths rule has no
        such exclusion).
    threshold : float
        The ratio under which a category is ``flag``-ged.
    ratio_method : {"pairwise_score", "box"}
        How the ratio intervals are made: from score intervals of the pairwise rate ratios
        (:func:`pairwise_ratio_bounds`, the default and the narrower) or from the simultaneous
        box of the rate intervals (:func:`ratio_bounds`). Both cover every category at once.

    Returns
    -------
    DataFrame
        The columns of ``counts`` and ``share`` (n over all rows), ``rate`` (selected / n: the
        scoring rate or the selection rate, as ``rule`` says), ``rate_ci_low``/``rate_ci_high``
        (Clopper–Pearson, simultaneous over the known categories by Šidák), ``ratio`` (rate over
        the highest reference rate), ``ci_low``/``ci_high`` (the ratio's simultaneous bounds:
        they cover every category's true ratio at once with probability at least ``level``;
        measured 0.95-1.00 by :mod:`popresume.coverage.ll144` at parity, one category at 0.8×
        and well apart, 30 to 500 per category, conservative where ratios sit at 1),
        ``under_2pct``, ``reference`` (the category with the highest reference rate) and
        ``flag`` (``ratio < threshold`` for a category in the reference set). The unknown row
        has a rate but no ratio, interval or flag.

    Examples
    --------
    >>> import pandas as pd
    >>> counts = pd.DataFrame({"category": ["F", "M"], "n": [100, 100], "selected": [30, 50]})
    >>> t = impact_ratio_table(counts)
    >>> t[["category", "rate", "ratio", "flag"]]
      category  rate  ratio   flag
    0        F   0.3    0.6   True
    1        M   0.5    1.0  False
    >>> bool((t["ci_low"] <= t["ratio"]).all() and (t["ratio"] <= t["ci_high"]).all())
    True
    """
    require_columns(counts, ["category", "n", "selected"], "category counts")
    out = counts.copy()
    if "known" not in out.columns:
        out["known"] = True
    known = out["known"].to_numpy(bool)
    n = out["n"].to_numpy(int)
    sel = out["selected"].to_numpy(int)
    total = n.sum()
    out["share"] = n / total if total else np.nan
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(n > 0, sel / np.maximum(n, 1), np.nan)
    out["rate"] = rate
    k = int((known & (n > 0)).sum())
    lo, hi = _box(sel, n, level, k)
    lo[~known] = np.nan
    hi[~known] = np.nan
    out["rate_ci_low"], out["rate_ci_high"] = lo, hi
    under = known & (out["share"].to_numpy(float) < min_share)
    ref = known & ~under & (n > 0)
    ratio, best = reference_ratio(rate, known & (n > 0), ref)
    out["ratio"] = ratio
    if ratio_method not in RATIO_METHODS:
        raise ValueError(f"ratio_method must be one of {list(RATIO_METHODS)}, got {ratio_method!r}")
    if ref.any() and ratio_method == "box":
        cl, ch = ratio_bounds(np.nan_to_num(lo), np.nan_to_num(hi), ref)
    elif ref.any():
        cl, ch = pairwise_ratio_bounds(np.where(known, sel, 0), np.where(known, n, 0), ref, level=level)
    else:
        cl = ch = np.full(len(out), np.nan)
    out["ci_low"] = np.where(known & (n > 0), cl, np.nan)
    out["ci_high"] = np.where(known & (n > 0), ch, np.nan)
    out["under_2pct"] = under
    ref_idx = np.flatnonzero(ref & (rate == best)) if ref.any() else []
    out["reference"] = False
    if len(ref_idx):
        out.loc[out.index[ref_idx[0]], "reference"] = True
    out["flag"] = ref & (np.nan_to_num(ratio, nan=1.0) < threshold)
    return out


def reference_ratio(rate: np.ndarray, rated: np.ndarray, reference: np.ndarray) -> tuple[np.ndarray, float]:
    """Each rated category's rate over the highest rate of the ``reference`` categories.

    The one place the impact ratio is taken (:func:`impact_ratio_table` for raw decisions,
    :func:`published_ratios` for an audit's printed counts).

    Parameters
    ----------
    rate : array of float
        Each category's rate.
    rated : array of bool
        The categories that get a ratio.
    reference : array of bool
        The categories whose highest rate is the denominator.

    Returns
    -------
    tuple of (array of float, float)
        The ratios (NaN where not ``rated`` or where the highest reference rate is not
        positive) and that highest rate.

    Examples
    --------
    >>> r, best = reference_ratio(np.array([0.3, 0.5, 0.9]), np.array([True, True, True]),
    ...                           np.array([True, True, False]))
    >>> r.round(2).tolist(), float(best)
    ([0.6, 1.0, 1.8], 0.5)
    """
    rate = np.asarray(rate, float)
    rated = np.asarray(rated, bool)
    reference = np.asarray(reference, bool)
    best = float(np.nanmax(np.where(reference, rate, np.nan))) if reference.any() else float("nan")
    if not best > 0:
        return np.full(rate.shape, np.nan), best
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(rated, rate / best, np.nan), best


def lowest_ratio(table: pd.DataFrame) -> float:
    """The lowest impact ratio among the categories in the reference set (known, not under 2%).

    Parameters
    ----------
    table : pandas.DataFrame
        A table of :func:`impact_ratio_table` (it reads ``ratio`` and ``reference``).

    Returns
    -------
    float
        The lowest ratio; NaN when no category is in the reference set.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"gender": ["F"] * 4 + ["M"] * 4, "score": [1, 2, 3, 6, 4, 5, 7, 8]})
    >>> round(lowest_ratio(scoring_rates(df, "gender")), 3)
    0.333
    """
    t = table[table["known"].astype(bool) & ~table["under_2pct"].astype(bool)]
    return float(t["ratio"].min()) if len(t) else float("nan")


def scoring_rates(df: pd.DataFrame, categories: str | Sequence[str], score: str = "score", *,
                  level: float = 0.95, min_share: float = SMALL_CATEGORY_SHARE) -> pd.DataFrame:
    """LL144 scoring rates (share above the sample median) and impact ratios of one breakdown.

    Parameters
    ----------
    df : pandas.DataFrame
        One row per scored résumé.
    categories : str or sequence of str
        The column (or columns, crossed) that name a row's category.
    score : str
        The score column; a row above the sample median is "selected".
    level : float
        Simultaneous confidence level of the ratios' intervals.
    min_share : float
        Categories under this share of the rows are listed but not rated (LL144's 2% rule).

    Returns
    -------
    pandas.DataFrame
        One row per category, with the columns of :func:`impact_ratio_table`.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"gender": ["F"] * 4 + ["M"] * 4, "score": [1, 2, 3, 6, 4, 5, 7, 8]})
    >>> scoring_rates(df, "gender")[["category", "rate", "ratio"]]
      category  rate     ratio
    0        F  0.25  0.333333
    1        M  0.75  1.000000
    """
    return impact_ratio_table(category_counts(df, categories, score, rule="median_split"),
                              level=level, min_share=min_share)


def selection_rates_at_cut(df: pd.DataFrame, categories: str | Sequence[str], score: str = "score", *,
                           select_top: float | None = SELECT_TOP, threshold: float | None = None,
                           level: float = 0.95, min_share: float = 0.0) -> pd.DataFrame:
    """Four-fifths selection rates at a cut (the top ``select_top`` share, or ``score >= threshold``)
    and impact ratios of one breakdown; every category is in the reference (``min_share=0``).

    Parameters
    ----------
    df, categories, score
        The rows, their category column(s) and the score, as in :func:`scoring_rates`.
    select_top : float or None
        Share of the rows selected, from the top score down; None when ``threshold`` is given.
    threshold : float or None
        Select the rows with ``score >= threshold`` instead of a share.
    level : float
        Simultaneous confidence level of the ratios' intervals.
    min_share : float
        Categories under this share are not rated (0: every category is).

    Returns
    -------
    pandas.DataFrame
        One row per category, with the columns of :func:`impact_ratio_table`.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"gender": ["F"] * 4 + ["M"] * 4, "score": [1, 2, 3, 6, 4, 5, 7, 8]})
    >>> selection_rates_at_cut(df, "gender", threshold=6)[["category", "selected", "rate", "ratio"]]
      category  selected  rate  ratio
    0        F         1  0.25    0.5
    1        M         2  0.50    1.0
    """
    return impact_ratio_table(category_counts(df, categories, score, rule="selection_cut", select_top=select_top,
                                              threshold=threshold), level=level, min_share=min_share)


def breakdown_table(df: pd.DataFrame, *, score: str = "score", sex: str = "gender", race: str = "race",
                    rule: str = "median_split", select_top: float | None = SELECT_TOP, level: float = 0.95,
                    min_share: float = SMALL_CATEGORY_SHARE) -> pd.DataFrame:
    """The LL144 table: rates and impact ratios by sex, race and sex × race, one cut for all.

    Rows without a score must be dropped first. Each breakdown has its categories and an
    ``unknown`` row for the rows missing one of its columns (a row with a known sex and an
    unknown race counts for sex). Columns: ``breakdown`` and those of :func:`impact_ratio_table`
    (without the category columns).

    Parameters
    ----------
    df : pandas.DataFrame
        One row per scored résumé.
    score, sex, race : str
        The score column and the two category columns.
    rule : {"median_split", "selection_cut"}
        LL144's scoring rate (above the sample median) or a selection of the top ``select_top``.
    select_top : float or None
        The share selected under ``rule="selection_cut"``.
    level : float
        Simultaneous confidence level of the ratios' intervals, per breakdown.
    min_share : float
        Categories under this share of the rows are not rated.

    Returns
    -------
    pandas.DataFrame
        One row per breakdown and category.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"gender": ["F", "F", "F", "M", "M", "M"],
    ...                    "race": ["A", "B", None, "A", "B", "B"],
    ...                    "score": [1, 2, 6, 3, 4, 5]})
    >>> t = breakdown_table(df, min_share=0)
    >>> t[["breakdown", "category", "n", "selected", "ratio"]]  # doctest: +NORMALIZE_WHITESPACE
       breakdown category  n  selected  ratio
    0        sex        F  3         1    0.5
    1        sex        M  3         2    1.0
    2       race        A  2         0    0.0
    3       race        B  3         2    1.0
    4       race  unknown  1         1    NaN
    5 sex × race    F × A  1         0    0.0
    6 sex × race    F × B  1         0    0.0
    7 sex × race    M × A  1         0    0.0
    8 sex × race    M × B  2         2    1.0
    9 sex × race  unknown  1         1    NaN

    The median is 3.5, that of all six rows: the woman of unknown race (score 6) counts for
    sex, and in the unknown rows of race and sex × race.
    """
    require_columns(df, [score, sex, race], "scores table")
    names = {"sex": sex, "race": race}
    parts = []
    for name, roles in BREAKDOWNS:
        cols = [names[r] for r in roles]
        t = impact_ratio_table(category_counts(df, cols, score, rule=rule, select_top=select_top),
                               level=level, min_share=min_share)
        t = t.drop(columns=cols)
        t.insert(0, "breakdown", name)
        parts.append(t)
    return pd.concat(parts, ignore_index=True)


# --------------------------------------------------------------------------- chance of a flag
@dataclass(frozen=True)
class ChanceOfFlag:
    """How often a tool that ignores the attribute shows a lowest impact ratio under the threshold.

    Parameters
    ----------
    rule, threshold, probability, n_sim, method, observed, p_value, null_median
        As the attributes below (the class is a frozen record that :func:`chance_of_flag` fills).

    Attributes
    ----------
    rule : str
        The rule whose counts were drawn ("median_split" or "selection_cut").
    threshold : float
        The flag threshold of the lowest ratio.
    probability : float
        P(lowest ratio < threshold) for such a tool.
    n_sim : int
        Draws behind ``probability`` (0 when exact).
    method : str
        "exact (hypergeometric)" or "simulation (multivariate hypergeometric)".
    observed : float
        The observed lowest ratio (NaN when none was given).
    p_value : float
        P(lowest ratio <= observed) for such a tool (NaN when no observed ratio); from draws it
        is the permutation p-value ``(1 + hits) / (1 + n_sim)``, valid at any ``n_sim``.
    null_median : float
        The median lowest ratio of such a tool.

    Examples
    --------
    >>> r = ChanceOfFlag("median_split", 0.8, 0.25, 0, "exact (hypergeometric)")
    >>> r.probability_text
    '0.25'
    """

    rule: str
    threshold: float
    probability: float
    n_sim: int
    method: str
    observed: float = float("nan")
    p_value: float = float("nan")
    null_median: float = float("nan")

    @property
    def probability_text(self) -> str:
        """``probability`` with the digits the draws support ("< 0.001" when no draw of 1,000 hit)."""
        return format_probability(self.probability, self.n_sim)

    @property
    def p_value_text(self) -> str:
        """``p_value`` written like :attr:`probability_text` ("< 1/n_sim" when no draw was as low)."""
        if self.n_sim and self.p_value <= 1 / (1 + self.n_sim) + 1e-15:
            return format_probability(0.0, self.n_sim)
        return format_probability(self.p_value, self.n_sim)

    @property
    def text(self) -> str:
        """One line with the rule, the probability and how it was computed."""
        how = "exact" if self.n_sim == 0 else f"{self.n_sim:,} draws"
        s = (f"{self.rule}: a tool that ignores the attribute has its lowest ratio under {self.threshold:g} "
             f"with probability {self.probability_text} ({how})")
        if not math.isnan(self.p_value):
            s += f"; P(lowest <= observed {self.observed:.3f}) = {self.p_value_text}"
        return s

    def __str__(self) -> str:
        return self.text


def format_probability(p: float, n_sim: int) -> str:
    """A probability with the digits ``n_sim`` Monte Carlo draws support; exact when ``n_sim == 0``.

    No hit in ``B`` draws reads ``< 1/B``, all hits ``> 1 - 1/B``; otherwise the decimals stop
    at the first digit of twice the Monte Carlo standard error. Exact values get 3
    significant digits.

    Parameters
    ----------
    p : float
        The probability.
    n_sim : int
        The number of Monte Carlo draws behind it; 0 when it is exact.

    Returns
    -------
    str
        The probability as it should be printed.

    Examples
    --------
    >>> format_probability(0.0, 1000), format_probability(0.421, 1000), format_probability(0.0821, 0)
    ('< 0.001', '0.42', '0.0821')
    """
    if p is None or math.isnan(p):
        return "n/a"
    if n_sim == 0:
        if p == 0:
            return "0"
        return f"{p:.3g}" if p < 1 else "1"
    if p <= 0:
        return f"< {_short(1 / n_sim)}"
    if p >= 1:
        return f"> {_short(1 - 1 / n_sim)}"
    se = math.sqrt(p * (1 - p) / n_sim)
    decimals = max(1, -math.floor(math.log10(2 * se)))
    return f"{p:.{decimals}f}"


def _short(x: float) -> str:
    return f"{x:.6g}"


def _lowest(draws: np.ndarray, sizes: np.ndarray, rated: np.ndarray) -> np.ndarray:
    """Lowest ratio of each row of selected counts among the rated categories (NaN when none selected)."""
    rate = draws[..., rated] / sizes[rated]
    top = rate.max(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(top[..., 0] > 0, (rate / np.where(top > 0, top, 1)).min(axis=-1), np.nan)


def chance_of_flag(counts: pd.DataFrame | Mapping[str, int] | Sequence[int], *, rule: str,
                   threshold: float = FOUR_FIFTHS, n_selected: int | None = None,
                   min_share: float = SMALL_CATEGORY_SHARE, observed: float | None = None,
                   n_sim: int = 10_000, seed: int = 0) -> ChanceOfFlag:
    """The chance that a tool ignoring the attribute is flagged (lowest ratio < ``threshold``).

    Such a tool selects a uniformly random set of the rows with the group sizes and the
    number selected fixed (the permutation null of the category labels), so each category's
    selected count is multivariate hypergeometric. With two categories (no unknown row) the
    probability is exact (``scipy.stats.hypergeom``); otherwise it is estimated from
    ``n_sim`` draws (``numpy.random.Generator.multivariate_hypergeometric``).

    Parameters
    ----------
    counts : DataFrame, mapping or sequence
        :func:`category_counts` output (uses ``n``, ``selected``, ``known``), or the group
        sizes (then ``n_selected`` is required).
    rule : {"median_split", "selection_cut"}
        The rule the counts come from; it labels the result.
    threshold : float
        Flag when the lowest ratio is below this.
    n_selected : int, optional
        Rows selected in all; the sum of the table's ``selected`` when a table is given.
    min_share : float
        Categories under this share are drawn but left out of the ratios (as in
        :func:`impact_ratio_table`); unknown rows are drawn and never rated.
    observed : float, optional
        The observed lowest ratio, for ``p_value`` = P(lowest <= observed).
    n_sim, seed : int
        Draws and seed of the simulation (not used when exact).

    Returns
    -------
    ChanceOfFlag
        The probability of a flag, how it was computed and, with ``observed``, its p-value.

    Examples
    --------
    >>> r = chance_of_flag([20, 20], rule="median_split", n_selected=20)
    >>> r.method, round(r.probability, 4)
    ('exact (hypergeometric)', 0.3431)
    >>> r.probability_text
    '0.343'
    """
    _check_rule(rule)
    if isinstance(counts, pd.DataFrame):
        require_columns(counts, ["n", "selected"], "category counts")
        sizes = counts["n"].to_numpy(int)
        known = counts["known"].to_numpy(bool) if "known" in counts.columns else np.ones(len(sizes), bool)
        m = int(counts["selected"].sum()) if n_selected is None else int(n_selected)
    else:
        sizes = np.asarray(list(counts.values()) if isinstance(counts, Mapping) else list(counts), dtype=int)
        known = np.ones(len(sizes), bool)
        if n_selected is None:
            raise ValueError("chance_of_flag needs n_selected when given group sizes, not a counts table")
        m = int(n_selected)
    total = int(sizes.sum())
    if not 0 <= m <= total:
        raise ValueError(f"n_selected must be in [0, {total}], got {m}")
    rated = known & (sizes > 0) & (sizes / max(total, 1) >= min_share)
    obs = float("nan") if observed is None else float(observed)
    if rated.sum() < 2:
        return ChanceOfFlag(rule, threshold, float("nan"), 0, "not estimable: fewer than two rated categories", obs)
    if m == 0:  # nobody selected (e.g. constant scores): every rate is 0 and no ratio is defined
        return ChanceOfFlag(rule, threshold, float("nan"), 0, "not estimable: no row is selected", obs)
    if len(sizes) == 2 and rated.all():
        x = np.arange(max(0, m - sizes[1]), min(m, sizes[0]) + 1)
        pmf = hypergeom.pmf(x, total, sizes[0], m)
        low = _lowest(np.stack([x, m - x], axis=1).astype(float), sizes.astype(float), rated)
        ok = ~np.isnan(low)
        prob = float(pmf[ok & (low < threshold)].sum() / pmf[ok].sum())
        p_val = float(pmf[ok & (low <= obs + 1e-12)].sum() / pmf[ok].sum()) if observed is not None else np.nan
        order = np.argsort(low[ok])
        cdf = np.cumsum(pmf[ok][order]) / pmf[ok].sum()
        med = float(low[ok][order][np.searchsorted(cdf, 0.5)])
        return ChanceOfFlag(rule, threshold, prob, 0, "exact (hypergeometric)", obs, p_val, med)
    rng = np.random.default_rng(seed)
    draws = rng.multivariate_hypergeometric(sizes, m, size=n_sim).astype(float)
    low = _lowest(draws, sizes.astype(float), rated)
    low = low[~np.isnan(low)]
    b = int(low.size)
    prob = float(np.mean(low < threshold)) if b else float("nan")
    p_val = float((1 + np.sum(low <= obs + 1e-12)) / (1 + b)) if (observed is not None and b) else float("nan")
    return ChanceOfFlag(rule, threshold, prob, b, "simulation (multivariate hypergeometric)", obs, p_val,
                        float(np.median(low)) if b else float("nan"))


def chance_table(df: pd.DataFrame, *, score: str = "score", sex: str = "gender", race: str = "race",
                 rules: Sequence[str] = RULES, select_top: float = SELECT_TOP, threshold: float = FOUR_FIFTHS,
                 min_share: float = SMALL_CATEGORY_SHARE, n_sim: int = 10_000, seed: int = 0) -> pd.DataFrame:
    """:func:`chance_of_flag` for each breakdown of :func:`breakdown_table` and each rule.

    Rows without a score must be dropped first; a row with an unknown category is drawn in
    the null (it keeps the group sizes) but never rated, exactly as in the table.
    Columns: ``breakdown``, ``rule``, ``n``, ``observed_lowest_ratio``, ``flag_rate``
    (:attr:`ChanceOfFlag.probability`), ``flag_rate_text``, ``p_perm`` (P(lowest <= observed)),
    ``p_perm_text``, ``null_median_lowest_ratio``, ``n_sim`` (0 = exact), ``method``.

    Parameters
    ----------
    df, score, sex, race
        As in :func:`breakdown_table`.
    rules : sequence of str
        The rules to draw: "median_split" and/or "selection_cut".
    select_top : float
        The share selected under "selection_cut".
    threshold : float
        Flag when the lowest ratio is below this (the four-fifths rule's ``FOUR_FIFTHS``).
    min_share : float
        Categories under this share are drawn but not rated.
    n_sim, seed : int
        Draws and seed of the simulation (not used where the chance is exact).

    Returns
    -------
    pandas.DataFrame
        One row per breakdown and rule.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"gender": rng.choice(["F", "M"], 200), "race": rng.choice(["A", "B"], 200),
    ...                    "score": rng.normal(size=200)})
    >>> t = chance_table(df, n_sim=1000)
    >>> list(t["rule"].unique()), len(t)
    (['median_split', 'selection_cut'], 6)
    """
    require_columns(df, [score, sex, race], "scores table")
    rows = []
    for rule in rules:
        table = breakdown_table(df, score=score, sex=sex, race=race, rule=rule, select_top=select_top,
                                min_share=min_share)
        for name, _ in BREAKDOWNS:
            t = table[table["breakdown"] == name]
            obs = lowest_ratio(t)
            r = chance_of_flag(t, rule=rule, threshold=threshold, min_share=min_share, observed=obs,
                               n_sim=n_sim, seed=seed)
            rows.append({"breakdown": name, "rule": rule, "n": int(t["n"].sum()), "observed_lowest_ratio": obs,
                         "flag_rate": r.probability, "flag_rate_text": r.probability_text, "p_perm": r.p_value,
                         "p_perm_text": r.p_value_text, "null_median_lowest_ratio": r.null_median,
                         "n_sim": r.n_sim, "method": r.method})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------- audits as published
#: The name of the column holding the chance that a tool with no disparity gives a category a
#: ratio below :data:`FOUR_FIFTHS` (``chance_below_0_8``): derived from the threshold.
CHANCE_COLUMN = "chance_below_" + f"{FOUR_FIFTHS:g}".replace(".", "_")
#: A recomputed ratio within this of the printed one matches it (printed impact ratios carry two decimals).
PUBLISHED_TOLERANCE = 0.01
#: Why a published ratio is or is not the ratio its own printed numbers give, tried in this order
#: (:func:`published_ratios`).
PUBLISHED_STATUSES = ("matches", "under-2% rule", "rounding", "own comparator",
                      "not reproducible from the printed rates", "no counts")
STATUS_MEANING = {
    "matches": "within the tolerance of rate / highest rate of the analysis's known categories",
    "under-2% rule": "matches once categories under 2% of the known rows leave the reference (6 RCNY §5-301(d))",
    "rounding": "inside the range rate / highest rate takes when every printed rate is off by half a unit "
                "of its last decimal",
    "own comparator": "above 1 (the comparator is not the table's top category), or rate / the rate of the row "
                      "the audit printed as 1.00, within rounding",
    "not reproducible from the printed rates": "none of the above: no reading of the printed rates gives it",
    "no counts": "the row has no applicants, or no selected count, so nothing can be recomputed",
}
PUBLISHED_COLUMNS = ("category", "known", "n", "selected", "printed_rate", "published_ratio")


def _half_unit(printed: np.ndarray) -> np.ndarray:
    """Half a unit of each printed rate's last decimal (0.005 for two decimals, else 0.0005)."""
    p = np.asarray(printed, float)
    return np.where(np.isclose(np.round(p, 2), p, atol=1e-9) | np.isnan(p), 0.005, 0.0005)


def published_ratios(counts: pd.DataFrame, *, min_share: float = SMALL_CATEGORY_SHARE,
                     tolerance: float = PUBLISHED_TOLERANCE) -> pd.DataFrame:
    """One published analysis (audit × rate definition × characteristic) recomputed from its printed numbers.

    The rules of :func:`impact_ratio_table`, applied to the counts and rates an audit printed
    rather than to raw decisions: ``rate`` = selected / n, ``ratio`` the rate over the highest
    rate of the known categories (the maximum rule) and ``ratio_2pct`` with the categories
    under ``min_share`` of the known rows (``under_2pct``) left out of the reference.

    Parameters
    ----------
    counts : DataFrame
        Columns :data:`PUBLISHED_COLUMNS`: ``category``, ``known`` (False for an unknown or
        total row, never rated), ``n``, ``selected`` (may be missing or not a whole number:
        some audits print n × rate), ``printed_rate`` and ``published_ratio``.
    min_share : float
        The under-2% share.
    tolerance : float
        How far a recomputed ratio may sit from the printed one and still match it.

    Returns
    -------
    DataFrame
        ``counts`` plus ``rate``, ``share``, ``under_2pct``, ``ratio``, ``ratio_2pct``,
        ``reference`` (the category with the highest rate), ``own_comparator`` (the category
        the audit printed as 1.00 that fits this row best; missing where none), ``ratio_own``
        (rate over that category's rate), ``counts_reconstructed`` (``selected`` not a whole
        number) and ``status``, one of :data:`PUBLISHED_STATUSES` (:data:`STATUS_MEANING`),
        tried in that order; missing where nothing was published. A published ratio above 1
        is never "not reproducible": no rate over the highest rate exceeds 1, so its
        comparator is the audit's own.

    Examples
    --------
    >>> t = published_ratios(pd.DataFrame({"category": ["F", "M"], "known": [True, True],
    ...     "n": [100, 100], "selected": [30, 40], "printed_rate": [0.3, 0.4], "published_ratio": [0.75, 1.0]}))
    >>> t[["category", "ratio", "status"]]
      category  ratio   status
    0        F   0.75  matches
    1        M   1.00  matches
    """
    require_columns(counts, list(PUBLISHED_COLUMNS), "published counts")
    known = counts["known"].to_numpy(bool)
    n = counts["n"].to_numpy(float)
    sel = counts["selected"].to_numpy(float)
    pub = counts["published_ratio"].to_numpy(float)
    size = len(counts)
    has = known & np.isfinite(n) & (n > 0) & np.isfinite(sel)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(has, sel / np.where(n > 0, n, 1), np.nan)
        share = np.where(has, n / n[has].sum(), np.nan) if has.any() else np.full(size, np.nan)
    under = has & (share < min_share)
    ratio, best = reference_ratio(rate, has, has)
    ratio_2pct, _ = reference_ratio(rate, has, has & ~under)
    # the rounding range of rate / highest rate: every printed rate off by up to half a unit
    half = _half_unit(counts["printed_rate"].to_numpy(float))
    low = high = np.full(size, np.nan)
    if has.any() and best > 0:
        hb = half[int(np.nanargmax(np.where(has, rate, np.nan)))]
        with np.errstate(invalid="ignore", divide="ignore"):
            low = np.where(has, np.maximum(rate - half, 0) / (best + hb), np.nan)
            high = np.where(has, (rate + half) / max(best - hb, 1e-12), np.nan)
    # the audit's own comparator: a known row it printed as 1.00; the one that fits each row best
    own = has & np.isclose(pub, 1.0, atol=1e-9)
    cand = np.flatnonzero(own & (rate > 0))
    ratio_own = np.full(size, np.nan)
    own_fits = np.zeros(size, bool)
    own_name = np.full(size, None, dtype=object)
    if cand.size:
        with np.errstate(invalid="ignore", divide="ignore"):
            r = rate[:, None] / rate[cand][None, :]
            lo = np.maximum(rate[:, None] - half[:, None], 0) / (rate[cand] + half[cand])[None, :]
            hi = (rate[:, None] + half[:, None]) / np.maximum(rate[cand] - half[cand], 1e-12)[None, :]
        dev = np.abs(r - pub[:, None])
        pick = np.argmin(np.where(np.isfinite(dev), dev, np.inf), axis=1)
        rows = np.arange(size)
        ratio_own = np.where(has, r[rows, pick], np.nan)
        own_name = np.where(has, counts["category"].to_numpy(object)[cand][pick], None)
        own_fits = has & ((pub[:, None] >= lo - tolerance) & (pub[:, None] <= hi + tolerance)).any(axis=1)
    near = lambda x: np.abs(pub - x) <= tolerance + 1e-9  # noqa: E731
    status = np.select(
        [~np.isfinite(pub), ~has, near(ratio), near(ratio_2pct),
         (pub >= low - tolerance) & (pub <= high + tolerance), (pub > 1 + 1e-9) | own_fits],
        [None, "no counts", "matches", "under-2% rule", "rounding", "own comparator"],
        default="not reproducible from the printed rates")
    new = {"rate": rate, "share": share, "under_2pct": under, "ratio": ratio, "ratio_2pct": ratio_2pct,
           "reference": has & (rate == best),
           "counts_reconstructed": np.isfinite(sel) & ~np.isclose(sel, np.round(sel), rtol=0, atol=1e-6),
           "own_comparator": own_name, "ratio_own": ratio_own,
           "status": np.where(np.isfinite(pub), status.astype(object), None)}
    return pd.concat([counts, pd.DataFrame(new, index=counts.index)], axis=1)


def single_reference(rate: np.ndarray, printed_rate: np.ndarray, published_ratio: np.ndarray, *,
                     tolerance: float = PUBLISHED_TOLERANCE) -> bool:
    """Whether one reference rate ``c`` makes every printed ratio ``rate / c`` within rounding.

    Each row with a rate and a positive printed ratio admits the ``c`` in
    ``[(rate - h) / (ratio + tolerance), (rate + h) / (ratio - tolerance)]`` (``h`` half a unit
    of the printed rate's last decimal); the table admits one reference where these ranges
    share a point. False where no row can be read; a table that does not admit one
    contradicts itself: no comparator, inside the table or outside it, gives all its ratios.

    Parameters
    ----------
    rate : array of float
        Each category's rate from its counts.
    printed_rate : array of float
        The rates as printed (their last decimal sets the rounding).
    published_ratio : array of float
        The ratios as printed.
    tolerance : float
        How far a printed ratio may sit from ``rate / c``.

    Returns
    -------
    bool
        Whether one reference rate fits every row.

    Examples
    --------
    >>> single_reference(np.array([0.3, 0.4]), np.array([0.3, 0.4]), np.array([0.6, 0.8]))
    True
    >>> single_reference(np.array([0.3, 0.4]), np.array([0.3, 0.4]), np.array([0.9, 0.6]))
    False
    """
    rate, pub = np.asarray(rate, float), np.asarray(published_ratio, float)
    h = _half_unit(printed_rate)
    ok = np.isfinite(rate) & np.isfinite(pub) & (pub > 0)
    if not ok.any():
        return False
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.maximum(rate - h, 0) / (pub + tolerance)
        high = np.where(pub > tolerance, (rate + h) / (pub - tolerance), np.inf)
    return bool(low[ok].max() <= high[ok].min())


def chance_below(sizes: np.ndarray, n_selected: int, rated: np.ndarray, *, threshold: float = FOUR_FIFTHS,
                 observed: np.ndarray | None = None, n_sim: int = 2000, seed: int = 0,
                 any_flag: bool = False) -> tuple:
    """Per category, the chance that a tool ignoring the attribute gives it a ratio below
    ``threshold``, and (with ``observed``) the chance of a ratio at or below the observed one.

    The tool selects ``n_selected`` of the rows at random with the group sizes fixed (the
    permutation null of the labels: multivariate hypergeometric counts, the null of
    :func:`chance_of_flag`, here per category); ratios are each rated category's rate over
    the highest rated rate. ``n_sim`` draws; a probability of 0 means < 1/n_sim. A draw that
    selects no rated row has no ratio and is left out of every probability (NaN when every
    draw is left out, as with ``n_selected=0``).
    With ``any_flag`` a third value: the chance that some rated ratio is below ``threshold``
    (the analysis's lowest ratio, what :func:`chance_of_flag` estimates). Its type-I error is
    measured in :mod:`popresume.coverage.decisions`.

    Parameters
    ----------
    sizes : array of int
        Rows of each category (unknown rows included: they are drawn, never rated).
    n_selected : int
        Rows selected in all.
    rated : array of bool
        The categories that get a ratio and make the reference.
    threshold : float
        The flag threshold.
    observed : array of float, optional
        Each category's observed ratio, for the p-values.
    n_sim, seed : int
        Draws and seed.
    any_flag : bool
        Also return the chance that some rated ratio is below ``threshold``.

    Returns
    -------
    tuple
        ``(below, p_observed)`` per category (NaN where not rated or no observed ratio),
        and the chance of any flag when ``any_flag``.

    Examples
    --------
    >>> below, p = chance_below(np.array([50, 50]), 50, np.array([True, True]), observed=np.array([0.6, 1.0]),
    ...                         n_sim=4000)
    >>> bool(below[0] < 0.2), bool(p[0] < 0.1), float(p[1])
    (True, True, 1.0)
    """
    rng = np.random.default_rng(seed)
    sizes = np.asarray(sizes, dtype=np.int64)
    draws = rng.multivariate_hypergeometric(sizes, int(n_selected), size=n_sim, method="marginals").astype(float)
    rates = draws / np.maximum(sizes, 1)
    best = np.where(rated, rates, -np.inf).max(axis=1, keepdims=True)
    # a draw that selects no rated row has no ratio: it is left out (as chance_of_flag and
    # chance_below_exact leave it out), and every probability is NaN when no draw is left
    keep = best[:, 0] > 0
    ratio = rates[keep] / best[keep]
    b = int(keep.sum())
    below = np.where(rated & (b > 0), (ratio < threshold).sum(axis=0) / max(b, 1), np.nan)
    p_obs = np.full(len(sizes), np.nan)
    if observed is not None:
        obs = np.asarray(observed, float)
        p_obs = np.where(rated & np.isfinite(obs) & (b > 0), (ratio <= obs + 1e-9).sum(axis=0) / max(b, 1), np.nan)
    if any_flag:
        lowest = np.where(rated, ratio, np.inf).min(axis=1)
        return below, p_obs, float(np.mean(lowest < threshold)) if b else float("nan")
    return below, p_obs


def chance_below_exact(sizes: Sequence[int], n_selected: int, *, threshold: float = FOUR_FIFTHS,
                       observed: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`chance_below` for two categories, both rated, exactly (the hypergeometric law).

    The first category's selected count is hypergeometric; every possible count gives both
    ratios, and the probabilities are sums over the counts (those where nobody is selected
    left out, as the draws leave them out; so are the counts beyond 20 standard deviations).

    Parameters
    ----------
    sizes : sequence of two int
        Rows of the two categories.
    n_selected : int
        Rows selected in all.
    threshold : float
        The flag threshold.
    observed : array of two float, optional
        The observed ratios, for the p-values.

    Returns
    -------
    tuple of two arrays
        ``(below, p_observed)`` per category.

    Examples
    --------
    >>> below, p = chance_below_exact([30, 50], 40, observed=np.array([0.5, 1.0]))
    >>> round(float(below[0]), 4), round(float(p[1]), 9)
    (0.124, 1.0)
    """
    n0, n1 = (int(v) for v in sizes)
    m = int(n_selected)
    total = n0 + n1
    # the counts that carry the probability: within 20 standard deviations of the mean (the
    # hypergeometric's tails are no heavier than the binomial's; beyond, far below 1e-15)
    mean = m * n0 / max(total, 1)
    sd = math.sqrt(max(m * n0 * n1 * (total - m) / max(total ** 2 * (total - 1), 1), 0.0))
    lo, hi = max(0, m - n1, math.floor(mean - 20 * sd) - 1), min(m, n0, math.ceil(mean + 20 * sd) + 1)
    x = np.arange(lo, hi + 1)
    # log C(n0, x) + log C(n1, m - x), normalised over the window (scipy's hypergeom.pmf gives
    # the same numbers, element by element, 0.2 s a table at a million rows)
    logw = -gammaln(x + 1) - gammaln(n0 - x + 1) - gammaln(m - x + 1) - gammaln(n1 - m + x + 1)
    pmf = np.exp(logw - logw.max())
    pmf /= pmf.sum()
    rates = np.stack([x / max(n0, 1), (m - x) / max(n1, 1)], axis=1)
    best = rates.max(axis=1, keepdims=True)
    ok = best[:, 0] > 0
    ratio = rates[ok] / best[ok]
    w = pmf[ok] / pmf[ok].sum()
    below = (w[:, None] * (ratio < threshold)).sum(axis=0)
    p_obs = np.full(2, np.nan)
    if observed is not None:
        obs = np.asarray(observed, float)
        p_obs = np.where(np.isfinite(obs), (w[:, None] * (ratio <= obs + 1e-9)).sum(axis=0), np.nan)
    return below, p_obs


__all__ = ["FOUR_FIFTHS", "SMALL_CATEGORY_SHARE", "UNKNOWN", "RULES", "SELECT_TOP", "BREAKDOWNS",
           "category_counts", "impact_ratio_table", "ratio_bounds", "rate_ratio_interval",
           "pairwise_ratio_bounds", "RATIO_METHODS", "lowest_ratio", "scoring_rates",
           "selection_rates_at_cut", "breakdown_table", "ChanceOfFlag", "chance_of_flag", "format_probability",
           "chance_table", "reference_ratio", "published_ratios", "chance_below", "PUBLISHED_STATUSES",
           "STATUS_MEANING", "PUBLISHED_TOLERANCE", "PUBLISHED_COLUMNS", "CHANCE_COLUMN", "single_reference",
           "chance_below_exact"]
