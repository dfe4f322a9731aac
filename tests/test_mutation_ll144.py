"""popresume.ll144 against hand-computed cases and statsmodels / scipy references.

Written to kill mutants that ``scripts/mutation.py ll144`` found alive: the cut of each rule,
the Clopper-Pearson box, the box and pairwise ratio bounds, the Miettinen-Nurminen statistic
(statsmodels' score test), the continuity-corrected bound (solved against a restricted MLE
found by scipy), the table's unknown and reference rows, the digits of a simulated
probability and every branch of the chance of a flag.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats
from statsmodels.stats import proportion as smp

from popresume import ll144


# --- the cut of each rule ---------------------------------------------------------------------

def test_selected_cut_of_each_rule():
    df = pd.DataFrame({"g": list("aabbb"), "s": [1.0, 5.0, 3.0, 4.0, 2.0]})
    sel, cut = ll144._selected(df, "s", "median_split", None, None)
    assert cut == 3.0 and sel.tolist() == [False, True, False, True, False]  # strictly above
    sel, cut = ll144._selected(df, "s", "selection_cut", 0.4, None)
    assert cut == pytest.approx(np.quantile([1, 2, 3, 4, 5], 0.6)) and sel.tolist() == [False, True, False, True, False]
    sel, cut = ll144._selected(df, "s", "selection_cut", 0.4, 3.0)  # threshold wins, at or above
    assert cut == 3.0 and sel.tolist() == [False, True, True, True, False]
    sel, cut = ll144._selected(df, "s", "selection_cut", None, 2.0)
    assert sel.sum() == 4
    for bad in (0.0, 1.0, None, -0.2):
        with pytest.raises(ValueError, match=f"select_top must be in \\(0, 1\\), got {bad}"):
            ll144._selected(df, "s", "selection_cut", bad, None)
    # a boolean column is the selection itself under the cut rule, a 0/1 score under the median
    df["b"] = [True, False, False, True, True]
    sel, cut = ll144._selected(df, "b", "selection_cut", 0.25, None)
    assert sel.tolist() == [True, False, False, True, True] and np.isnan(cut)
    sel, cut = ll144._selected(df, "b", "median_split", None, None)
    assert cut == 1.0 and not sel.any()
    empty = df.iloc[:0]
    assert np.isnan(ll144._selected(empty, "s", "median_split", None, None)[1])
    assert np.isnan(ll144._selected(empty, "s", "selection_cut", 0.25, None)[1])
    df.loc[3, "s"] = np.nan
    with pytest.raises(ValueError, match="column 's' has a missing score at row 3"):
        ll144._selected(df, "s", "median_split", None, None)


def test_category_counts_intersection_unknown_and_columns():
    df = pd.DataFrame({"sex": ["F", "M", "F", "M", None, "F"], "race": ["A", "A", "B", None, "B", "A"],
                       "score": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]}, index=[10, 11, 12, 13, 14, 15])
    t = ll144.category_counts(df, ["sex", "race"], rule="median_split")  # median 3.5
    assert t.columns.tolist() == ["sex", "race", "category", "known", "n", "selected", "rule", "cut"]
    assert t["category"].tolist() == ["F × A", "F × B", "M × A", "unknown"]
    assert t["n"].tolist() == [2, 1, 1, 2] and t["selected"].tolist() == [1, 0, 0, 2]
    assert t["known"].tolist() == [True, True, True, False] and (t["cut"] == 3.5).all()
    assert t["rule"].eq("median_split").all() and t["n"].dtype.kind == "i" and t["selected"].dtype.kind == "i"
    assert t.loc[3, "sex"] is None and t.loc[3, "race"] is None
    s = ll144.category_counts(df, "sex", rule="selection_cut", threshold=4.0)
    assert s["category"].tolist() == ["F", "M", "unknown"] and s["selected"].tolist() == [1, 1, 1]
    s = ll144.category_counts(df, "sex", rule="selection_cut")  # top quarter: >= 0.75 quantile 4.75
    assert s["selected"].tolist() == [1, 0, 1] and s["cut"].iloc[0] == pytest.approx(4.75)
    full = ll144.category_counts(df.fillna("x"), "sex", rule="median_split")
    assert "unknown" not in full["category"].tolist() and full["known"].all()
    with pytest.raises(ValueError, match="rule must be one of \\['median_split', 'selection_cut'\\], got 'x'"):
        ll144.category_counts(df, "sex", rule="x")


# --- intervals ----------------------------------------------------------------------------------

def test_box_is_clopper_pearson_at_the_sidak_level():
    sel, n = np.array([0, 3, 10, 0]), np.array([10, 10, 10, 0])
    lo, hi = ll144._box(sel, n, 0.9, 3)
    alpha = 1 - 0.9 ** (1 / 3)
    for i in range(3):
        ci = stats.binomtest(int(sel[i]), int(n[i])).proportion_ci(confidence_level=1 - alpha, method="exact")
        assert lo[i] == pytest.approx(ci.low, abs=1e-12) and hi[i] == pytest.approx(ci.high, abs=1e-12)
    assert lo[0] == 0 and hi[2] == 1 and np.isnan(lo[3]) and np.isnan(hi[3])
    lo1, hi1 = ll144._box(sel[:3], n[:3], 0.9, 0)  # k = 0 is taken as 1
    ref = smp.proportion_confint(sel[:3], n[:3], alpha=0.1, method="beta")
    np.testing.assert_allclose(np.nan_to_num(ref[0]), lo1)
    np.testing.assert_allclose(np.nan_to_num(ref[1], nan=1.0), hi1)


def test_ratio_bounds_by_hand():
    lo, hi = np.array([0.2, 0.4, 0.1]), np.array([0.3, 0.6, 0.9])
    low, high = ll144.ratio_bounds(lo, hi, [True, True, False])
    # reference = the first two: top_hi 0.6, top_lo 0.4
    np.testing.assert_allclose(low, [0.2 / 0.6, 0.4 / 0.6, 0.1 / 0.6])
    np.testing.assert_allclose(high, [0.3 / 0.4, 1.0, 1.0])
    low, high = ll144.ratio_bounds(lo, hi, [True, False, False])
    np.testing.assert_allclose(low, [0.2 / 0.3, 0.4 / 0.3, 0.1 / 0.3])
    np.testing.assert_allclose(high, [1.0, 1.0, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # x/0 is expected there, not warned
        low, high = ll144.ratio_bounds([0.0, 0.0], [0.0, 0.5], [True, True])  # every reference lower bound 0
    np.testing.assert_allclose(low, [0, 0])
    np.testing.assert_allclose(high, [1, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # 0/0 and x/0 are expected there, not warned
        low, high = ll144.ratio_bounds([0.0, 0.0], [0.0, 0.0], [True, True])
    np.testing.assert_allclose(low, [0, 0])
    # leading axes broadcast: one box per row
    low, high = ll144.ratio_bounds([[0.2, 0.4], [0.1, 0.5]], [[0.3, 0.6], [0.2, 0.8]], [True, True])
    np.testing.assert_allclose(low, [[0.2 / 0.6, 0.4 / 0.6], [0.1 / 0.8, 0.5 / 0.8]])
    np.testing.assert_allclose(high, [[0.3 / 0.4, 1], [0.2 / 0.5, 1]])


@pytest.mark.parametrize("theta,x1,n1,x2,n2", [(0.8, 12, 40, 20, 35), (1.5, 30, 50, 10, 60), (0.3, 2, 25, 24, 30)])
def test_mn_score_is_statsmodels_score_test(theta, x1, n1, x2, n2):
    """Uncorrected, the statistic is the square of statsmodels' score test of the ratio
    (with its n / (n - 1) variance correction)."""
    ref = smp.test_proportions_2indep(x1, n1, x2, n2, value=theta, method="score", compare="ratio", correction=True)
    assert ll144._mn_score(theta, x1, n1, x2, n2) == pytest.approx(ref.statistic ** 2, rel=1e-9)
    # the continuity correction takes (1/n1 + theta/n2) / 2 off |x1/n1 - theta x2/n2|
    num = abs(x1 / n1 - theta * x2 / n2)
    cc = max(num - (1 / n1 + theta / n2) / 2, 0)
    assert ll144._mn_score(theta, x1, n1, x2, n2, continuity=True) == pytest.approx(
        ref.statistic ** 2 * cc ** 2 / num ** 2, rel=1e-9)
    # the statistic is 0 where the continuity correction covers the whole gap
    assert ll144._mn_score(x1 / n1 / (x2 / n2), x1, n1, x2, n2, continuity=True) == 0


def _restricted_stat(theta, x1, n1, x2, n2):
    """Corrected score statistic with the restricted MLE found numerically (scipy)."""
    def nll(p2):
        p1 = theta * p2
        return -(stats.binom.logpmf(x1, n1, p1) + stats.binom.logpmf(x2, n2, p2))
    p2 = optimize.minimize_scalar(nll, bounds=(1e-12, min(1, 1 / theta) - 1e-12), method="bounded",
                                  options={"xatol": 1e-13}).x
    p1 = theta * p2
    total = n1 + n2
    var = (p1 * (1 - p1) / n1 + theta ** 2 * p2 * (1 - p2) / n2) * total / (total - 1)
    num = max(abs(x1 / n1 - theta * x2 / n2) - (1 / n1 + theta / n2) / 2, 0)
    return num ** 2 / var


def test_corrected_bounds_solve_the_score_equation():
    x1, n1, x2, n2 = 18, 60, 30, 55
    lo, hi = ll144.rate_ratio_interval(x1, n1, x2, n2, alpha=0.1)
    z2 = stats.norm.ppf(0.95) ** 2
    assert _restricted_stat(float(lo), x1, n1, x2, n2) == pytest.approx(z2, rel=1e-4)
    assert _restricted_stat(float(hi), x1, n1, x2, n2) == pytest.approx(z2, rel=1e-4)
    assert float(lo) < (18 / 60) / (30 / 55) < float(hi)
    # default alpha 0.05 is the 95% interval; few iterations leave it coarse
    lo95, hi95 = ll144.rate_ratio_interval(x1, n1, x2, n2)
    assert _restricted_stat(float(hi95), x1, n1, x2, n2) == pytest.approx(stats.norm.ppf(0.975) ** 2, rel=1e-4)
    lo3, hi3 = ll144.rate_ratio_interval(x1, n1, x2, n2, iters=3)
    assert abs(float(hi3) - float(hi95)) > 1e-3
    # vectorised over pairs
    lo_v, hi_v = ll144.rate_ratio_interval([x1, 5], [n1, 20], [x2, 9], [n2, 20], alpha=0.1)
    assert lo_v[0] == pytest.approx(float(lo)) and hi_v[0] == pytest.approx(float(hi)) and lo_v.shape == (2,)


def test_rate_ratio_interval_extremes():
    lo, hi = ll144.rate_ratio_interval(0, 30, 0, 30)
    assert lo == 0 and np.isinf(hi)
    # everyone selected in both groups: the restricted MLE sits on the boundary (p2 = 1 below
    # a ratio of 1, p1 = 1 above it), so the statistic is |1 - t| n1 (N - 1) / (N t) below and
    # |t - 1| n1 (N - 1) / N above (n1 = n2 = 30, N = 60): the bounds in closed form
    lo, hi = ll144.rate_ratio_interval(30, 30, 30, 30, continuity=False)
    c = stats.norm.ppf(0.975) ** 2 * 60 / (30 * 59)
    assert float(lo) == pytest.approx(1 / (1 + c), rel=1e-6) and float(hi) == pytest.approx(1 + c, rel=1e-6)
    # a huge ratio: the upper bound runs to the edge of the search and is infinite
    lo, hi = ll144.rate_ratio_interval(1, 10 ** 9, 10 ** 6, 10 ** 6)
    assert float(lo) == 0 or float(lo) < 1e-8


def test_pairwise_bounds_with_a_category_outside_the_reference():
    x, n = np.array([20, 30, 5, 0]), np.array([50, 50, 10, 0])
    ref = np.array([True, True, False, True])  # the last has no rows: NaN, and never a reference
    low, high = ll144.pairwise_ratio_bounds(x, n, ref, level=0.9)
    # pairs: (0, 1) once for both, and (2, 0), (2, 1) for the non-reference category: m = 3
    a = 0.1 / 3
    l01, u01 = ll144.rate_ratio_interval(20, 50, 30, 50, alpha=a)
    l20, u20 = ll144.rate_ratio_interval(5, 10, 20, 50, alpha=a)
    l21, u21 = ll144.rate_ratio_interval(5, 10, 30, 50, alpha=a)
    assert low[0] == pytest.approx(min(1.0, float(l01))) and high[0] == pytest.approx(min(1.0, float(u01)))
    assert low[1] == pytest.approx(min(1.0, 1 / float(u01))) and high[1] == pytest.approx(min(1.0, 1 / float(l01)))
    assert low[2] == pytest.approx(min(float(l20), float(l21)))
    assert high[2] == pytest.approx(min(float(u20), float(u21)))
    assert np.isnan(low[3]) and np.isnan(high[3])
    # leading axes: one table per row, each as if alone
    rows = ll144.pairwise_ratio_bounds(np.array([[20, 30], [30, 20]]), np.array([50, 50]), np.array([True, True]))
    one = ll144.pairwise_ratio_bounds(np.array([30, 20]), np.array([50, 50]), np.array([True, True]))
    np.testing.assert_allclose(rows[0][1], one[0])
    np.testing.assert_allclose(rows[1][1], one[1])
    # default level 0.95: the one pair at alpha 0.05
    l, u = ll144.rate_ratio_interval(20, 50, 30, 50)
    assert ll144.pairwise_ratio_bounds([20, 30], [50, 50], [True, True])[0][0] == pytest.approx(float(l))


def test_pairwise_bounds_zero_count_reference():
    # the best category has 0 selected... every rate 0 in the reference: ratio bounds from [0, inf]
    low, high = ll144.pairwise_ratio_bounds([0, 5], [20, 20], [True, True])
    assert low[0] == 0 and high[0] == pytest.approx(min(1.0, float(ll144.rate_ratio_interval(0, 20, 5, 20,
                                                                                          alpha=0.05)[1])))
    assert high[1] == 1.0


# --- the table ----------------------------------------------------------------------------------

def test_impact_ratio_table_unknown_row_reference_and_flag():
    counts = pd.DataFrame({"category": ["a", "b", "c", "unknown"], "n": [40, 40, 20, 10],
                           "selected": [20, 20, 4, 9], "known": [True, True, True, False]})
    t = ll144.impact_ratio_table(counts, level=0.9, threshold=0.5).set_index("category")
    np.testing.assert_allclose(t["share"], [40 / 110, 40 / 110, 20 / 110, 10 / 110])
    np.testing.assert_allclose(t["rate"], [0.5, 0.5, 0.2, 0.9])
    np.testing.assert_allclose(t.loc[["a", "b", "c"], "ratio"], [1, 1, 0.4])
    assert np.isnan(t.loc["unknown", ["ratio", "ci_low", "ci_high", "rate_ci_low", "rate_ci_high"]]).all()
    assert t["reference"].tolist() == [True, False, False, False]  # the first of the tied best
    assert t["flag"].tolist() == [False, False, True, False] and not t["under_2pct"].any()
    # Šidák over the three known categories at 0.9
    ci = stats.binomtest(4, 20).proportion_ci(confidence_level=0.9 ** (1 / 3), method="exact")
    assert t.loc["c", "rate_ci_low"] == pytest.approx(ci.low) and t.loc["c", "rate_ci_high"] == pytest.approx(ci.high)
    pw = ll144.pairwise_ratio_bounds(np.array([20, 20, 4]), np.array([40, 40, 20]), np.array([True] * 3), level=0.9)
    np.testing.assert_allclose(t.loc[["a", "b", "c"], "ci_low"], pw[0])
    np.testing.assert_allclose(t.loc[["a", "b", "c"], "ci_high"], pw[1])
    # the default threshold is four fifths; 0.4 is flagged there too, the tie is not
    d = ll144.impact_ratio_table(counts).set_index("category")
    assert d["flag"].tolist() == [False, False, True, False]


def test_impact_ratio_table_box_method_and_defaults():
    counts = pd.DataFrame({"category": ["F", "M"], "n": [30, 50], "selected": [9, 25]})
    box = ll144.impact_ratio_table(counts, ratio_method="box")
    assert box["known"].all()
    lo, hi = ll144._box(np.array([9, 25]), np.array([30, 50]), 0.95, 2)
    low, high = ll144.ratio_bounds(lo, hi, [True, True])
    np.testing.assert_allclose(box["ci_low"], low)
    np.testing.assert_allclose(box["ci_high"], high)
    with pytest.raises(ValueError, match="ratio_method must be one of \\['pairwise_score', 'box'\\], got 'x'"):
        ll144.impact_ratio_table(counts, ratio_method="x")
    with pytest.raises(ValueError, match="category counts"):
        ll144.impact_ratio_table(counts.drop(columns="n"))
    # the default min_share is 2%: a category of 1 in 101 is left out of the reference
    small = pd.DataFrame({"category": ["a", "b"], "n": [100, 1], "selected": [40, 1]})
    t = ll144.impact_ratio_table(small)
    assert t["under_2pct"].tolist() == [False, True] and t["ratio"].tolist() == [1.0, 2.5]
    assert t["reference"].tolist() == [True, False] and not t["flag"].any()
    assert ll144.impact_ratio_table(small, min_share=0)["ratio"].tolist() == [0.4, 1.0]


def test_impact_ratio_table_nobody_selected_and_empty_category():
    t = ll144.impact_ratio_table(pd.DataFrame({"category": ["a", "b", "c"], "n": [10, 10, 0], "selected": [0, 0, 0]}))
    assert np.isnan(t["ratio"]).all() and not t["flag"].any() and t["reference"].tolist() == [True, False, False]
    assert np.isnan(t.loc[2, "rate"]) and np.isnan(t.loc[2, "ci_low"]) and t.loc[:1, "ci_low"].eq(0).all()
    # no rows at all
    z = ll144.impact_ratio_table(pd.DataFrame({"category": ["a"], "n": [0], "selected": [0]}))
    assert np.isnan(z["share"]).all() and np.isnan(z["ci_low"]).all() and not z["reference"].any()


def test_lowest_ratio():
    t = pd.DataFrame({"ratio": [1.0, 0.5, 0.2, np.nan], "known": [True, True, True, False],
                      "under_2pct": [False, False, True, False]})
    assert ll144.lowest_ratio(t) == 0.5
    assert np.isnan(ll144.lowest_ratio(t.iloc[2:]))


# --- digits and the chance of a flag -----------------------------------------------------------

@pytest.mark.parametrize("p,n_sim,text", [
    (0.0, 0, "0"), (1.0, 0, "1"), (0.5, 0, "0.5"), (0.123456, 0, "0.123"), (float("nan"), 100, "n/a"),
    (None, 100, "n/a"), (0.0, 200, "< 0.005"), (-0.1, 200, "< 0.005"), (1.0, 200, "> 0.995"), (1.2, 200, "> 0.995"),
    (0.5, 1, "0.5"), (0.5, 100, "0.5"), (0.05, 1_000_000, "0.0500"), (0.25, 10_000, "0.250"),
    (0.0123, 3, "0.0"), (0.5, 4_000_000, "0.5000")])
def test_format_probability_digits(p, n_sim, text):
    # decimals stop at the first digit of 2 * sqrt(p (1 - p) / n_sim): 0.5 at n = 100 -> 2 SE 0.1 -> 1;
    # 0.05 at 1e6 -> 4.4e-4 -> 4; 0.25 at 1e4 -> 8.7e-3 -> 3; 0.5 at 4e6 -> 5e-4 -> 4
    assert ll144.format_probability(p, n_sim) == text


def test_lowest_of_draws():
    draws = np.array([[2.0, 4.0, 9.0], [0.0, 0.0, 3.0], [1.0, 1.0, 0.0]])
    sizes = np.array([2.0, 4.0, 3.0])
    rated = np.array([True, True, False])
    np.testing.assert_allclose(ll144._lowest(draws, sizes, rated), [1.0, np.nan, 0.5 / 1])
    np.testing.assert_allclose(ll144._lowest(draws, sizes, np.array([True, True, True])), [1 / 3, 0, 0])


def _exact_two(n1, n2, m, threshold, observed):
    x = np.arange(max(0, m - n2), min(m, n1) + 1)
    pmf = stats.hypergeom.pmf(x, n1 + n2, n1, m)
    r1, r2 = x / n1, (m - x) / n2
    low = np.minimum(r1, r2) / np.maximum(r1, r2)
    flag = pmf[low < threshold].sum()
    p = pmf[low <= observed + 1e-12].sum()
    order = np.argsort(low)
    med = low[order][np.searchsorted(np.cumsum(pmf[order]), 0.5)]
    return flag, p, med


def test_chance_of_flag_exact_by_enumeration():
    r = ll144.chance_of_flag({"F": 12, "M": 18}, rule="selection_cut", n_selected=9, threshold=0.7, observed=0.5)
    flag, p, med = _exact_two(12, 18, 9, 0.7, 0.5)
    assert r.method == "exact (hypergeometric)" and r.n_sim == 0 and r.rule == "selection_cut"
    assert r.probability == pytest.approx(flag) and r.p_value == pytest.approx(p)
    assert r.null_median == pytest.approx(med)
    assert r.threshold == 0.7 and r.observed == 0.5
    d = ll144.chance_of_flag([12, 18], rule="median_split", n_selected=9)
    assert d.probability == pytest.approx(_exact_two(12, 18, 9, 0.8, 0)[0]) and np.isnan(d.p_value)
    assert np.isnan(d.observed) and d.threshold == ll144.FOUR_FIFTHS
    # a table: n_selected from its counts unless given
    t = pd.DataFrame({"n": [12, 18], "selected": [2, 7]})
    assert ll144.chance_of_flag(t, rule="median_split").probability == pytest.approx(_exact_two(12, 18, 9, 0.8, 0)[0])
    assert ll144.chance_of_flag(t, rule="median_split", n_selected=15).probability == pytest.approx(
        _exact_two(12, 18, 15, 0.8, 0)[0])


def test_chance_of_flag_simulation_branch():
    sizes = [30, 20, 10]
    r = ll144.chance_of_flag(sizes, rule="median_split", n_selected=30, observed=0.6, n_sim=4000, seed=3)
    rng = np.random.default_rng(3)
    draws = rng.multivariate_hypergeometric(sizes, 30, size=4000) / np.array(sizes)
    low = draws.min(axis=1) / draws.max(axis=1)
    assert r.method == "simulation (multivariate hypergeometric)" and r.n_sim == 4000
    assert r.probability == pytest.approx((low < 0.8).mean())
    assert r.p_value == pytest.approx((1 + (low <= 0.6).sum()) / 4001)
    assert r.null_median == pytest.approx(np.median(low))
    # the default seed is 0 and the default number of draws 10,000
    r0 = ll144.chance_of_flag(sizes, rule="median_split", n_selected=30)
    d0 = np.random.default_rng(0).multivariate_hypergeometric(sizes, 30, size=10_000) / np.array(sizes)
    assert r0.n_sim == 10_000 and r0.probability == pytest.approx((d0.min(1) / d0.max(1) < 0.8).mean())
    assert np.isnan(r0.p_value)
    # draws with nobody selected among the rated categories have no ratio and are not counted
    few = ll144.chance_of_flag(pd.DataFrame({"n": [5, 5, 90], "selected": [0, 0, 1], "known": [True, True, False]}),
                               rule="median_split", n_sim=500, seed=1)
    hits = np.random.default_rng(1).multivariate_hypergeometric([5, 5, 90], 1, size=500)[:, :2].sum(axis=1)
    assert few.n_sim == int(hits.sum()) and few.probability == 1.0


def test_chance_of_flag_small_categories_and_errors():
    # c is under 2% of 101: drawn but not rated, so two rated categories of three: simulated
    r = ll144.chance_of_flag([50, 50, 1], rule="median_split", n_selected=50, n_sim=2000)
    assert r.method.startswith("simulation")
    assert abs(r.probability - _exact_two(50, 50, 50, 0.8, 0)[0]) < 0.04
    r = ll144.chance_of_flag([50, 50, 1], rule="median_split", n_selected=50, min_share=0.5)
    assert np.isnan(r.probability) and r.method == "not estimable: fewer than two rated categories"
    assert r.n_sim == 0 and r.rule == "median_split"
    r = ll144.chance_of_flag([10, 0, 10], rule="median_split", n_selected=0)
    assert r.method == "not estimable: no row is selected" and np.isnan(r.probability)
    with pytest.raises(ValueError, match=r"n_selected must be in \[0, 20\], got 21"):
        ll144.chance_of_flag([10, 10], rule="median_split", n_selected=21)
    with pytest.raises(ValueError, match=r"n_selected must be in \[0, 20\], got -1"):
        ll144.chance_of_flag([10, 10], rule="median_split", n_selected=-1)
    with pytest.raises(ValueError, match="rule must be one of"):
        ll144.chance_of_flag([10, 10], rule="x", n_selected=3)
    with pytest.raises(ValueError, match="category counts"):
        ll144.chance_of_flag(pd.DataFrame({"n": [3, 4]}), rule="median_split")
    assert ll144.chance_of_flag([10, 10, 0], rule="median_split", n_selected=10).method.startswith("simulation")


# --- survivors of the first full run (issue 31, mut31) --------------------------------------

def test_lowest_of_one_draw_and_of_a_batch_of_tables():
    """The last axis is the categories: one draw (1-D) gives one ratio, a batch of batches (3-D) a table."""
    sizes, rated = np.array([2.0, 4.0, 3.0]), np.array([True, True, False])
    assert float(ll144._lowest(np.array([2.0, 1.0, 9.0]), sizes, rated)) == pytest.approx(0.25)  # (1/4) / (2/2)
    draws = np.array([[[2.0, 4.0, 0.0], [1.0, 4.0, 0.0]], [[0.0, 2.0, 0.0], [0.0, 0.0, 3.0]]])
    low = ll144._lowest(draws, sizes, rated)
    assert low.shape == (2, 2)
    np.testing.assert_allclose(low, [[1.0, 0.5], [0.0, np.nan]])


def test_chance_of_flag_reads_counts_of_any_numeric_dtype():
    """Group sizes given as floats (a float column, 30.0) or a 0/1 ``known`` column are the same counts."""
    want = ll144.chance_of_flag([30, 20, 10], rule="median_split", n_selected=30, n_sim=500, seed=2)
    got = ll144.chance_of_flag([30.0, 20.0, 10.0], rule="median_split", n_selected=30, n_sim=500, seed=2)
    assert got.probability == want.probability and got.n_sim == want.n_sim
    table = pd.DataFrame({"n": [30.0, 20.0, 10.0, 5.0], "selected": [15, 10, 5, 0], "known": [1, 1, 1, 0]})
    t = ll144.chance_of_flag(table, rule="median_split", n_sim=500, seed=2)
    as_bool = ll144.chance_of_flag(table.astype({"n": int, "known": bool}), rule="median_split", n_sim=500, seed=2)
    assert t.probability == as_bool.probability and t.null_median == as_bool.null_median


def test_chance_of_flag_edges_of_the_selected_count_and_the_rated_set():
    # everyone selected: every rate is 1, no ratio is under the threshold
    r = ll144.chance_of_flag([10, 10], rule="median_split", n_selected=20)
    assert r.method == "exact (hypergeometric)" and r.probability == 0
    # groups of one are rated: with one selected the other's ratio is 0 in every draw
    r = ll144.chance_of_flag([1, 1], rule="median_split", n_selected=1, min_share=0)
    assert r.method == "exact (hypergeometric)" and r.probability == 1
    # an empty group is never rated, even at min_share 0: the two others are as if alone
    r = ll144.chance_of_flag([10, 10, 0], rule="median_split", n_selected=10, min_share=0, n_sim=4000, seed=5)
    exact = _exact_two(10, 10, 10, 0.8, 0)[0]
    assert r.n_sim == 4000 and abs(r.probability - exact) < 4 * np.sqrt(exact * (1 - exact) / 4000)


def test_chance_of_flag_error_messages_in_full():
    with pytest.raises(ValueError, match=r"^category counts has no column 'selected'; its columns: \['n'\]$"):
        ll144.chance_of_flag(pd.DataFrame({"n": [3, 4]}), rule="median_split")
    with pytest.raises(ValueError, match=r"^chance_of_flag needs n_selected when given group sizes, not a counts table$"):
        ll144.chance_of_flag([3, 4], rule="median_split")


def test_chance_of_flag_not_estimable_results_keep_their_labels():
    for sizes, m, share, why in (([50, 50, 1], 50, 0.5, "fewer than two rated categories"),
                                 ([10, 0, 10], 0, 0.02, "no row is selected")):
        r = ll144.chance_of_flag(sizes, rule="selection_cut", n_selected=m, min_share=share, threshold=0.7,
                                 observed=0.3)
        assert (r.rule, r.threshold, r.n_sim, r.method, r.observed) == ("selection_cut", 0.7, 0, f"not estimable: {why}", 0.3)
        assert np.isnan(r.probability) and np.isnan(r.p_value)


def test_chance_of_flag_exact_when_the_first_group_is_the_larger():
    # 18 and 12 rows, 15 selected: the first group's count runs over 3..12 (not up to 15)
    r = ll144.chance_of_flag([18, 12], rule="median_split", n_selected=15, observed=0.5)
    flag, p, med = _exact_two(18, 12, 15, 0.8, 0.5)
    assert r.method.startswith("exact")
    assert r.probability == pytest.approx(flag) and r.p_value == pytest.approx(p) and r.null_median == pytest.approx(med)


def test_chance_of_flag_rates_a_category_exactly_at_min_share():
    # 2 of 100 rows is exactly 2%: rated (at or above the share), so three categories are drawn and rated
    r = ll144.chance_of_flag([49, 49, 2], rule="median_split", n_selected=50, n_sim=3000, seed=4)
    d = np.random.default_rng(4).multivariate_hypergeometric([49, 49, 2], 50, size=3000) / np.array([49, 49, 2])
    assert r.probability == pytest.approx((d.min(1) / d.max(1) < 0.8).mean())
    # rated, the group of two (rate 0, 1/2 or 1) is flagged far more often than the two large groups alone
    two = d[:, :2].min(1) / d[:, :2].max(1)
    assert r.probability > (two < 0.8).mean() + 0.2


def test_cut_of_an_empty_table_is_nan_without_a_warning():
    empty = pd.DataFrame({"s": pd.Series([], dtype=float)})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # np.median([]) would warn "Mean of empty slice"
        sel, cut = ll144._selected(empty, "s", "median_split", None, None)
    assert np.isnan(cut) and sel.size == 0


def test_category_counts_drops_unused_categories_and_names_the_table():
    df = pd.DataFrame({"sex": pd.Categorical(["F", "M", "F"], categories=["F", "M", "X"]), "score": [1.0, 2.0, 3.0]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no FutureWarning about observed=
        t = ll144.category_counts(df, "sex", rule="median_split")
    assert t["category"].tolist() == ["F", "M"] and t["n"].tolist() == [2, 1]  # no empty "X" row
    with pytest.raises(ValueError, match=r"^scores table has no column 'race'; its columns: \['sex', 'score'\]$"):
        ll144.category_counts(df, ["sex", "race"], rule="median_split")


def test_chance_of_flag_ties_with_the_threshold_and_the_observed_ratio():
    # 10 and 10 rows, 6 selected: x = 2 gives the ratio 2/4 = 0.5 exactly; "under" is strict,
    # "as low or lower" is not
    r = ll144.chance_of_flag([10, 10], rule="selection_cut", n_selected=6, threshold=0.5, observed=0.5)
    x = np.arange(7)
    pmf = stats.hypergeom.pmf(x, 20, 10, 6)
    low = np.minimum(x, 6 - x) / np.maximum(x, 6 - x)  # equal sizes: the ratio of the counts
    assert r.probability == pytest.approx(pmf[low < 0.5].sum()) and r.p_value == pytest.approx(pmf[low <= 0.5].sum())
    assert pmf[low == 0.5].sum() > 0.4  # the tie carries weight: < and <= differ


def test_chance_of_flag_simulation_keeps_labels_and_counts_tied_draws():
    sizes = [10, 10, 10]
    r = ll144.chance_of_flag(sizes, rule="selection_cut", n_selected=15, threshold=0.75, observed=0.5,
                             n_sim=2000, seed=8)
    assert (r.rule, r.threshold, r.observed) == ("selection_cut", 0.75, 0.5)
    c = np.random.default_rng(8).multivariate_hypergeometric(sizes, 15, size=2000)
    ties = 2 * c.min(1) == c.max(1)  # ratio exactly 1/2 in integers
    assert ties.sum() > 50
    assert r.p_value == pytest.approx((1 + np.sum(2 * c.min(1) <= c.max(1))) / 2001)
    # flagged is strictly under the threshold: a ratio of exactly 1/2 is not
    half = ll144.chance_of_flag(sizes, rule="selection_cut", n_selected=15, threshold=0.5, n_sim=2000, seed=8)
    assert half.probability == pytest.approx(np.mean(2 * c.min(1) < c.max(1)))


def test_chance_of_flag_with_no_draw_rated_is_nan_without_a_warning():
    # one row selected out of 2 rated rows and 10^6 unknown ones: no draw selects a rated row
    table = pd.DataFrame({"n": [1, 1, 10 ** 6], "selected": [0, 0, 1], "known": [True, True, False]})
    assert (np.random.default_rng(3).multivariate_hypergeometric([1, 1, 10 ** 6], 1, size=20)[:, :2] == 0).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no mean or median of an empty array
        r = ll144.chance_of_flag(table, rule="median_split", min_share=0, observed=0.5, n_sim=20, seed=3)
    assert r.n_sim == 0 and r.method.startswith("simulation")
    assert np.isnan(r.probability) and np.isnan(r.p_value) and np.isnan(r.null_median)


def test_impact_ratio_table_edges_by_hand():
    # every reference rate is 0 while a category under 2% has one selected: no ratio at all
    t = ll144.impact_ratio_table(pd.DataFrame({"category": ["a", "b"], "n": [100, 1], "selected": [0, 1]}))
    assert np.isnan(t["ratio"]).all() and not t["flag"].any()
    # a category of one row gets its interval; a category exactly at 2% is not under it
    one = ll144.impact_ratio_table(pd.DataFrame({"category": ["a", "b"], "n": [100, 1], "selected": [40, 1]}))
    assert np.isfinite(one.loc[1, "ci_low"]) and np.isfinite(one.loc[1, "ci_high"])
    at = ll144.impact_ratio_table(pd.DataFrame({"category": ["a", "b"], "n": [98, 2], "selected": [40, 2]}))
    assert at["under_2pct"].tolist() == [False, False] and at["ratio"].tolist() == [pytest.approx(40 / 98), 1.0]
    # no reference category at all (nothing known, or no rows): NaN, no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        z = ll144.impact_ratio_table(pd.DataFrame({"category": ["a"], "n": [0], "selected": [0]}))
        u = ll144.impact_ratio_table(pd.DataFrame({"category": ["unknown"], "n": [5], "selected": [2],
                                                   "known": [False]}))
    assert np.isnan(z["share"]).all() and np.isnan(u["ratio"]).all() and not u["reference"].any()
    # an empty known category does not count in the Šidák k: two categories with rows, k = 2
    e = ll144.impact_ratio_table(pd.DataFrame({"category": ["a", "b", "c"], "n": [10, 10, 0], "selected": [0, 3, 0]}))
    ci = stats.binomtest(3, 10).proportion_ci(confidence_level=0.95 ** (1 / 2), method="exact")
    assert e.loc[1, "rate_ci_low"] == pytest.approx(ci.low) and e.loc[1, "rate_ci_high"] == pytest.approx(ci.high)
    # a category of one row does count: k = 3
    o = ll144.impact_ratio_table(pd.DataFrame({"category": ["a", "b", "c"], "n": [10, 10, 1], "selected": [0, 3, 1]}))
    ci = stats.binomtest(3, 10).proportion_ci(confidence_level=0.95 ** (1 / 3), method="exact")
    assert o.loc[1, "rate_ci_low"] == pytest.approx(ci.low) and o.loc[1, "rate_ci_high"] == pytest.approx(ci.high)


def test_impact_ratio_table_box_leaves_unknown_and_empty_rows_without_bounds():
    counts = pd.DataFrame({"category": ["a", "b", "c", "unknown"], "n": [40, 40, 0, 10], "selected": [20, 10, 0, 5],
                           "known": [True, True, True, False]})
    for method in ("box", "pairwise_score"):
        t = ll144.impact_ratio_table(counts, ratio_method=method, min_share=0)
        assert np.isnan(t.loc[2:, ["ci_low", "ci_high"]].to_numpy(float)).all(), method
        assert np.isfinite(t.loc[:1, ["ci_low", "ci_high"]].to_numpy(float)).all(), method
    # a 0/1 "known" column reads as booleans
    as_int = ll144.impact_ratio_table(counts.assign(known=[1, 1, 1, 0]), min_share=0)
    pd.testing.assert_frame_equal(as_int.drop(columns="known"),
                                  ll144.impact_ratio_table(counts, min_share=0).drop(columns="known"))
    with pytest.raises(ValueError, match=r"^category counts has no column 'n'"):
        ll144.impact_ratio_table(counts.drop(columns="n"))


def test_box_of_a_single_row():
    lo, hi = ll144._box(np.array([1, 0]), np.array([1, 1]), 0.95, 1)
    for i, x in enumerate((1, 0)):
        ci = stats.binomtest(x, 1).proportion_ci(confidence_level=0.95, method="exact")
        assert lo[i] == pytest.approx(ci.low, abs=1e-12) and hi[i] == pytest.approx(ci.high, abs=1e-12)


@pytest.mark.parametrize("theta,x1,n1,x2,n2", [(0.5, 1, 3, 2, 2), (0.3, 1, 4, 1, 1)])
def test_mn_score_where_the_discriminant_is_below_one(theta, x1, n1, x2, n2):
    """Tiny counts put the restricted MLE's discriminant in (0, 1): still statsmodels' score test."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # statsmodels' odds ratio divides by 1 - p1 = 0 here
        ref = smp.test_proportions_2indep(x1, n1, x2, n2, value=theta, method="score", compare="ratio",
                                          correction=True)
    assert ll144._mn_score(theta, x1, n1, x2, n2) == pytest.approx(ref.statistic ** 2, rel=1e-9)


def test_rate_ratio_interval_zero_counts_warn_nothing_and_one_count_is_not_zero():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # log(0), x/0 and 0/0 are expected there, not warned
        for x1, x2 in ((0, 0), (0, 5), (5, 0)):
            lo, hi = ll144.rate_ratio_interval(x1, 30, x2, 30)
            assert (float(lo) == 0) == (x1 == 0) and np.isinf(hi) == (x2 == 0)
        low, high = ll144.pairwise_ratio_bounds([0, 5], [20, 20], [True, True])
    # a count of one is a count: finite, positive bounds that solve the score equation
    lo, hi = ll144.rate_ratio_interval(1, 30, 10, 30, alpha=0.1)
    z2 = stats.norm.ppf(0.95) ** 2
    assert 0 < float(lo) and _restricted_stat(float(lo), 1, 30, 10, 30) == pytest.approx(z2, rel=1e-4)
    lo, hi = ll144.rate_ratio_interval(10, 30, 1, 30, alpha=0.1)
    assert np.isfinite(hi) and _restricted_stat(float(hi), 10, 30, 1, 30) == pytest.approx(z2, rel=1e-4)
    # the default is 48 halvings of the search range
    assert ll144.rate_ratio_interval(18, 60, 30, 55) == ll144.rate_ratio_interval(18, 60, 30, 55, iters=48)


def test_rate_ratio_interval_at_the_edges_of_the_search():
    # a ratio of 1e-9 (log -20.7): the lower bound runs to the edge, e^-20, and is 0; the upper
    # bound is the mirror image; a bound inside (e^-20, e^-19) is kept
    lo, hi = ll144.rate_ratio_interval(1, 10 ** 9, 10 ** 6, 10 ** 6)
    assert float(lo) == 0
    lo, hi = ll144.rate_ratio_interval(10 ** 6, 10 ** 6, 1, 10 ** 9)
    assert np.isinf(hi)
    lo, hi = ll144.rate_ratio_interval(100, 3 * 10 ** 10, 10 ** 6, 10 ** 6)
    assert np.exp(-20) < float(lo) < np.exp(-19) and _restricted_stat(float(lo), 100, 3e10, 1e6, 1e6) == \
        pytest.approx(stats.norm.ppf(0.975) ** 2, rel=1e-3)
    lo, hi = ll144.rate_ratio_interval(10 ** 6, 10 ** 6, 100, 3 * 10 ** 10)
    assert np.exp(19) < float(hi) < np.exp(20)


def test_pairwise_bounds_of_a_one_row_category_and_a_clearly_better_first_one():
    x, n = np.array([1, 5]), np.array([1, 10])
    low, high = ll144.pairwise_ratio_bounds(x, n, np.array([True, True]))
    l01, u01 = (float(v) for v in ll144.rate_ratio_interval(1, 1, 5, 10))
    np.testing.assert_allclose(low, [min(1, l01), min(1, 1 / u01)])
    np.testing.assert_allclose(high, [min(1, u01), min(1, 1 / l01)])
    # the first is far better: the second's upper bound is 1 / L_01 < 1
    low, high = ll144.pairwise_ratio_bounds([30, 5], [50, 50], [True, True])
    l01 = float(ll144.rate_ratio_interval(30, 50, 5, 50)[0])
    assert l01 > 1 and high[1] == pytest.approx(1 / l01) and high[0] == 1


def test_chance_table_passes_every_setting_to_each_breakdown_and_rule():
    """chance_table is the loop of chance_of_flag (checked by enumeration above) over the
    breakdowns of breakdown_table: each row equals chance_of_flag on that breakdown's counts
    with the observed lowest ratio, at every setting given (none of them the default), under
    column names that are not the defaults."""
    rng = np.random.default_rng(4)
    df = pd.DataFrame({"g": rng.choice(["F", "M"], 120), "r": rng.choice(["A", "B", "C", "D"], 120, p=[.5, .3, .16, .04]),
                       "s": rng.normal(size=120)})
    kw = dict(select_top=0.3, threshold=0.9, min_share=0.05, n_sim=500, seed=3)
    got = ll144.chance_table(df, score="s", sex="g", race="r", rules=("selection_cut", "median_split"), **kw)
    assert list(got.columns) == ["breakdown", "rule", "n", "observed_lowest_ratio", "flag_rate", "flag_rate_text",
                                 "p_perm", "p_perm_text", "null_median_lowest_ratio", "n_sim", "method"]
    assert list(zip(got["rule"], got["breakdown"])) == [(rule, b) for rule in ("selection_cut", "median_split")
                                                        for b in ("sex", "race", "sex × race")]
    for row in got.itertuples(index=False):
        table = ll144.breakdown_table(df, score="s", sex="g", race="r", rule=row.rule, select_top=0.3, min_share=0.05)
        t = table[table["breakdown"] == row.breakdown]
        obs = ll144.lowest_ratio(t)
        r = ll144.chance_of_flag(t, rule=row.rule, threshold=0.9, min_share=0.05, observed=obs, n_sim=500, seed=3)
        assert row.n == 120 and row.observed_lowest_ratio == obs
        assert (row.flag_rate, row.flag_rate_text, row.p_perm, row.p_perm_text, row.null_median_lowest_ratio,
                row.n_sim, row.method) == (r.probability, r.probability_text, r.p_value, r.p_value_text,
                                           r.null_median, r.n_sim, r.method)
    assert np.isfinite(got["p_perm"]).all() and (got.loc[got["breakdown"] != "sex", "n_sim"] == 500).all()
    with pytest.raises(ValueError, match=r"^scores table has no column 'g'"):
        ll144.chance_table(df.drop(columns="g"), score="s", sex="g", race="r")
    # the paper's 10,000 draws from seed 0 by default (called, not read from the signature: a
    # wrapper, as mutmut's, can keep the signature and change the default)
    small = df.iloc[:40]
    pd.testing.assert_frame_equal(ll144.chance_table(small, score="s", sex="g", race="r", rules=("selection_cut",)),
                                  ll144.chance_table(small, score="s", sex="g", race="r", rules=("selection_cut",),
                                                     n_sim=10_000, seed=0))


def test_breakdown_table_passes_every_setting_to_each_breakdown():
    """breakdown_table stacks impact_ratio_table (checked by hand above) of each breakdown's
    counts, at the level, share and cut given, with ``breakdown`` as its first column and one
    running index."""
    rng = np.random.default_rng(5)
    df = pd.DataFrame({"g": rng.choice(["F", "M"], 90), "r": rng.choice(["A", "B", "C"], 90, p=[.6, .36, .04]),
                       "s": rng.normal(size=90)})
    got = ll144.breakdown_table(df, score="s", sex="g", race="r", rule="selection_cut", select_top=0.3, level=0.9,
                                min_share=0.05)
    parts = []
    for name, cols in (("sex", ["g"]), ("race", ["r"]), ("sex × race", ["g", "r"])):
        t = ll144.impact_ratio_table(ll144.category_counts(df, cols, "s", rule="selection_cut", select_top=0.3),
                                     level=0.9, min_share=0.05).drop(columns=cols)
        parts.append(t.assign(breakdown=name)[["breakdown", *t.columns]])
    want = pd.concat(parts, ignore_index=True)
    pd.testing.assert_frame_equal(got, want)
    assert got.columns[0] == "breakdown" and got.index.equals(pd.RangeIndex(len(got)))
    with pytest.raises(ValueError, match=r"^scores table has no column 'r'"):
        ll144.breakdown_table(df.drop(columns="r"), score="s", sex="g", race="r")
    pd.testing.assert_frame_equal(ll144.breakdown_table(df, score="s", sex="g", race="r"),
                                  ll144.breakdown_table(df, score="s", sex="g", race="r", level=0.95))


def test_scoring_rates_are_shares_above_the_median_at_the_level_and_share_given():
    # median of the ten scores 4.5; F: 6 of 1,2,3,6 above (1/4), M: 5,7,8 of 4,5,7,8 (3/4); X, 2 rows of 10,
    # under the 25% share asked: listed, not rated
    df = pd.DataFrame({"sex": ["F"] * 4 + ["M"] * 4 + ["X"] * 2, "s": [1, 2, 3, 6, 4, 5, 7, 8, 0, 9]})
    got = ll144.scoring_rates(df, "sex", "s", level=0.9, min_share=0.25)
    rate = dict(zip(got["category"], got["rate"]))
    assert (rate["F"], rate["M"]) == (0.25, 0.75)
    assert got.set_index("category").loc["F", "ratio"] == pytest.approx(1 / 3)
    want = ll144.impact_ratio_table(ll144.category_counts(df, "sex", "s", rule="median_split"), level=0.9,
                                    min_share=0.25)
    pd.testing.assert_frame_equal(got, want)
    pd.testing.assert_frame_equal(ll144.scoring_rates(df, "sex", "s"), ll144.scoring_rates(df, "sex", "s", level=0.95))


# --- selection rates at a cut and the per-category chance below four-fifths ------------------

def _cut_frame():
    """60 rows: F 30 and M 28 with interleaved scores, X 2 rows (3.3% of the rows) at the top."""
    sex = np.array(["F"] * 30 + ["M"] * 28 + ["X"] * 2)
    score = np.r_[np.arange(1, 60, 2), np.arange(2, 57, 2), [70.0, 71.0]].astype(float)
    return pd.DataFrame({"sex": sex, "s": score})


def _rates_by_hand(df, selected):
    """Each category's selected share, and its ratio to the highest share (every category rated)."""
    rate = {c: float(selected[df["sex"].to_numpy() == c].mean()) for c in ("F", "M", "X")}
    top = max(rate.values())
    return rate, {c: r / top for c, r in rate.items()}


def test_selection_rates_at_cut_selects_the_top_share_given_at_the_level_and_share_given():
    df = _cut_frame()
    y = df["s"].to_numpy()
    # top 40%: the scores at or above the 60th percentile of all 60 (numpy's linear interpolation)
    chosen = y >= np.quantile(y, 0.6)
    rate, ratio = _rates_by_hand(df, chosen)
    got = ll144.selection_rates_at_cut(df, "sex", "s", select_top=0.4, level=0.9, min_share=0.05)
    assert got["category"].tolist() == ["F", "M", "X"] and got["rule"].eq("selection_cut").all()
    assert got["selected"].tolist() == [int(chosen[df["sex"] == c].sum()) for c in ("F", "M", "X")]
    np.testing.assert_allclose(got["rate"], [rate[c] for c in ("F", "M", "X")], rtol=0, atol=1e-15)
    # X (2 of 60 rows) is under the 5% share asked: listed with its rate, out of the reference,
    # so the ratios are over the best of F and M
    assert got["under_2pct"].tolist() == [False, False, True]
    best = max(rate["F"], rate["M"])
    np.testing.assert_allclose(got["ratio"], [rate["F"] / best, rate["M"] / best, rate["X"] / best])
    want = ll144.impact_ratio_table(ll144.category_counts(df, "sex", "s", rule="selection_cut", select_top=0.4),
                                    level=0.9, min_share=0.05)
    pd.testing.assert_frame_equal(got, want)
    # a score threshold instead of a share: at or above it
    chosen = y >= 40.0
    rate, ratio = _rates_by_hand(df, chosen)
    got = ll144.selection_rates_at_cut(df, "sex", "s", select_top=None, threshold=40.0)
    assert (got["cut"] == 40.0).all()
    np.testing.assert_allclose(got["rate"], [rate[c] for c in ("F", "M", "X")], rtol=0, atol=1e-15)
    np.testing.assert_allclose(got["ratio"], [ratio[c] for c in ("F", "M", "X")], rtol=0, atol=1e-15)


def test_selection_rates_at_cut_defaults_rate_every_category_at_the_top_quarter():
    """The defaults, called (not read from the signature): the column ``score``, the top 25%,
    95% intervals and every category in the reference however small (the four-fifths rule
    has no 2% exclusion), so X's rate of 1 is the reference."""
    df = _cut_frame().rename(columns={"s": "score"})
    y = df["score"].to_numpy()
    chosen = y >= np.quantile(y, 0.75)
    rate, ratio = _rates_by_hand(df, chosen)
    got = ll144.selection_rates_at_cut(df, "sex")
    assert not got["under_2pct"].any() and got["reference"].tolist() == [False, False, True]
    np.testing.assert_allclose(got["ratio"], [ratio[c] for c in ("F", "M", "X")], rtol=0, atol=1e-15)
    assert ratio["X"] == 1.0 and ratio["M"] < 1.0
    want = ll144.impact_ratio_table(ll144.category_counts(df, "sex", "score", rule="selection_cut", select_top=0.25),
                                    level=0.95, min_share=0.0)
    pd.testing.assert_frame_equal(got, want)


def test_impact_ratio_table_reads_a_missing_ratio_as_parity_in_the_flag():
    """Nobody selected: every ratio is NaN and reads as 1 in the flag, so a threshold above 1
    (every ratio below it) flags each rated category and a threshold of 1 flags none."""
    counts = pd.DataFrame({"category": ["F", "M"], "n": [10, 10], "selected": [0, 0]})
    assert ll144.impact_ratio_table(counts, threshold=1.5)["flag"].tolist() == [True, True]
    assert ll144.impact_ratio_table(counts, threshold=1.0)["flag"].tolist() == [False, False]


def _chance_below_by_hand(sizes, m, rated, observed, *, threshold=0.8, n_sim=2000, seed=0):
    """chance_below draw by draw: the same multivariate hypergeometric draws, each draw's rated
    rates over their best (a draw with no rated row selected left out), counted in loops."""
    sizes = np.asarray(sizes, np.int64)
    draws = np.random.default_rng(seed).multivariate_hypergeometric(sizes, m, size=n_sim, method="marginals")
    k = len(sizes)
    below, at_or_below, flags, kept = np.zeros(k), np.zeros(k), 0, 0
    for d in draws:
        rates = [d[c] / sizes[c] if sizes[c] else 0.0 for c in range(k)]
        best = max(rates[c] for c in range(k) if rated[c])
        if best == 0:
            continue
        kept += 1
        for c in range(k):
            if rated[c]:
                below[c] += rates[c] / best < threshold
                at_or_below[c] += rates[c] / best <= observed[c] + 1e-9
        flags += min(rates[c] / best for c in range(k) if rated[c]) < threshold
    rated = np.asarray(rated, bool)
    finite = np.isfinite(np.asarray(observed, float))
    return (np.where(rated, below / kept, np.nan), np.where(rated & finite, at_or_below / kept, np.nan),
            flags / kept)


def test_chance_below_counts_the_draws_by_hand_from_2000_draws_of_seed_0():
    """Unrated categories (30 rows, and an empty one) are drawn but never rated; with 3 rows
    selected of 41, 38% of the draws select no rated row and are left out; the one-row
    category's rate is 0 or 1. Called at its defaults: 2,000 draws from seed 0."""
    sizes, rated = np.array([6, 4, 30, 1, 0]), np.array([True, True, False, True, False])
    observed = np.array([0.5, 1.0, 0.7, 0.0, np.nan])
    want_below, want_p, want_any = _chance_below_by_hand(sizes, 3, rated, observed)
    below, p = ll144.chance_below(sizes, 3, rated, observed=observed)
    np.testing.assert_allclose(below, want_below, rtol=0, atol=1e-12)
    np.testing.assert_allclose(p, want_p, rtol=0, atol=1e-12)
    assert np.isnan(p[2]) and np.isnan(below[2]) and np.isnan(p[4])  # unrated: no chance, no p
    below, p, any_flag = ll144.chance_below(sizes, 3, rated, observed=observed, any_flag=True)
    assert any_flag == pytest.approx(want_any, abs=1e-12)
    np.testing.assert_allclose(below, want_below, rtol=0, atol=1e-12)
    # more selected: the chance of some flag is strictly between 0 and 1
    sizes2, rated2, obs2 = np.array([20, 25, 30]), np.array([True, True, False]), np.array([0.9, 0.9, 0.9])
    want2 = _chance_below_by_hand(sizes2, 30, rated2, obs2, n_sim=500, seed=7)
    below, p, any_flag = ll144.chance_below(sizes2, 30, rated2, observed=obs2, n_sim=500, seed=7, any_flag=True)
    assert any_flag == pytest.approx(want2[2], abs=1e-12) and 0.2 < any_flag < 0.9
    np.testing.assert_allclose(below, want2[0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(p, want2[1], rtol=0, atol=1e-12)
    # sizes given as floats (counts read from a CSV) and observed ratios with a None are read alike
    b2, p2 = ll144.chance_below(sizes.astype(float), 3, rated, observed=[0.5, 1.0, 0.7, 0.0, None])
    np.testing.assert_allclose(b2, want_below, rtol=0, atol=1e-12)
    np.testing.assert_allclose(p2, want_p, rtol=0, atol=1e-12)


def test_chance_below_at_a_ratio_of_exactly_four_fifths():
    """5 and 5 rows, 9 selected: one category has 4 of 5 (ratio exactly 0.8, not below it) and
    the other 5 of 5, each half the time (hypergeometric: 5 / 10). The observed-ratio tie is
    inclusive up to 1e-9 above the observed ratio."""
    sizes, rated = np.array([5, 5]), np.array([True, True])
    below, p, any_flag = ll144.chance_below(sizes, 9, rated, observed=np.array([0.8 - 1e-9, 1.0]), any_flag=True)
    assert below.tolist() == [0.0, 0.0] and any_flag == 0.0
    assert p[0] == pytest.approx(stats.hypergeom.pmf(4, 10, 5, 9), abs=0.04) and p[1] == 1.0
    np.testing.assert_allclose(p, _chance_below_by_hand(sizes, 9, rated, [0.8 - 1e-9, 1.0])[1], rtol=0, atol=1e-12)
    # without observed ratios the p-values are a float array of NaN
    _, p = ll144.chance_below(sizes, 9, rated)
    assert p.dtype == float and p.shape == (2,) and np.isnan(p).all()


def test_chance_below_of_a_one_row_category_and_of_a_single_draw():
    rated = np.array([True, True])
    # everyone selected: the one-row category's rate is 1 of 1, as the other's 2 of 2
    below, _, any_flag = ll144.chance_below(np.array([1, 2]), 3, rated, any_flag=True)
    assert below.tolist() == [0.0, 0.0] and any_flag == 0.0
    # one draw selecting one row: whichever category has it has ratio 1, the other 0
    below, p, any_flag = ll144.chance_below(np.array([1, 2]), 1, rated, observed=np.array([1.0, 0.0]), n_sim=1,
                                            seed=3, any_flag=True)
    assert sorted(below.tolist()) == [0.0, 1.0] and any_flag == 1.0
    # every ratio is at most 1, and the second's is 0 exactly when the first's is 1
    assert p[0] == 1.0 and p[1] == below[1]


def test_chance_below_with_nobody_selected_is_nan_without_a_warning():
    """No draw selects a rated row: no ratio exists, so every probability is NaN (not 0)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        below, p, any_flag = ll144.chance_below(np.array([5, 5, 3]), 0, np.array([True, True, False]),
                                                observed=np.array([0.5, 1.0, 0.5]), any_flag=True)
        assert np.isnan(below).all() and np.isnan(p).all() and np.isnan(any_flag)
        # a draw that selects only unrated rows warns nothing either (no 0/0 is taken)
        ll144.chance_below(np.array([1, 40]), 1, np.array([True, False]), n_sim=50, any_flag=True)


def test_scoring_rates_reads_the_score_column_by_default():
    # median 4.5: F has one score above it of four, M three of four; F's ratio is 0.25 / 0.75
    df = pd.DataFrame({"gender": ["F"] * 4 + ["M"] * 4, "score": [1, 2, 3, 6, 4, 5, 7, 8]})
    t = ll144.scoring_rates(df, "gender").set_index("category")
    assert t["cut"].tolist() == [4.5, 4.5] and t["selected"].tolist() == [1, 3]
    assert t.loc["F", "ratio"] == pytest.approx(1 / 3) and t.loc["M", "reference"]
