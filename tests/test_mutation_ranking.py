"""popresume.ranking (rates, chance, clogit) on small cases computed by hand or by scipy /
statsmodels: every expected number here is derived in the test, not read from the code.

Written to kill mutants that ``scripts/mutation.py ranking`` found alive.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest, norm
from statsmodels.stats.proportion import proportion_confint

from popresume.ranking import chance, clogit, rates

# six runs of three résumés (groups A, B, C), one run with no top pick (all unranked):
# (shown order, index of the top pick in it or None)
RUNS = [("ABC", 0), ("BCA", 2), ("CAB", 0), ("ACB", 0), ("BAC", 0), ("CBA", 2), ("ABC", None)]
# top picks: A (r0), A (r1), C (r2), A (r3), B (r4), A (r5) -> A 4, B 1, C 1 of n = 6 runs with a top
# shown first: A r0 r3 r6, B r1 r4, C r2 r5


def hand_long(runs=RUNS, model="m", job="j"):
    rows = []
    for r, (order, top) in enumerate(runs):
        rest = [i for i in range(len(order)) if i != top]
        rank = {} if top is None else {j: k + 1 for k, j in enumerate([top] + rest)}
        for i, g in enumerate(order):
            rows.append({"model": model, "job": job, "run": f"r{r}", "position": i + 1, "demo": g,
                         "name": f"{g}{(r + i) % 4}", "rank": rank.get(i, np.nan), "found": top is not None,
                         "resume": i})
    return pd.DataFrame(rows)


# --- rates --------------------------------------------------------------------------------

def test_selection_rates_by_hand():
    s = rates.selection_rates(hand_long()).set_index("demo")
    assert list(s.index) == ["A", "B", "C"]
    assert s["top"].tolist() == [4, 1, 1] and s["top_og"].tolist() == [3, 2, 2]
    assert (s["n_runs"] == 6).all() and np.allclose(s["chance_rate"], 1 / 3)
    np.testing.assert_allclose(s["selection_rate"], [4 / 6, 1 / 6, 1 / 6])
    np.testing.assert_allclose(s["disparate_impact_ratio"], [1, 0.25, 0.25])
    lo, hi = proportion_confint(np.array([4, 1, 1]), 6, alpha=0.05, method="wilson")
    np.testing.assert_allclose(s["rate_ci_low"], lo)
    np.testing.assert_allclose(s["rate_ci_high"], hi)
    np.testing.assert_allclose(s["p_chance"], [binomtest(x, 6, 1 / 3).pvalue for x in (4, 1, 1)])
    # B's ratio to A: Wald on log(1/4) with var 1/1 + 1/4; lower bound one-sided at 1.96,
    # upper bound Bonferroni over k - 1 = 2 comparisons; its ratio to C (1/1) caps nothing
    se = np.sqrt(1 / 1 + 1 / 4)
    lo_b = min(np.exp(np.log(1 / 4) - norm.ppf(0.975) * se), np.exp(-norm.ppf(0.975) * np.sqrt(2)))
    hi_b = min(1.0, np.exp(np.log(1 / 4) + norm.ppf(1 - 0.05 / 4) * se))
    assert s.loc["B", "ratio_ci_low"] == pytest.approx(lo_b) and s.loc["B", "ratio_ci_high"] == pytest.approx(hi_b)
    p_b = min(1.0, 2 * 2 * norm.sf(np.log(4) / se))
    assert s.loc["B", "p_vs_best"] == pytest.approx(p_b)


def test_selection_rates_level_and_groups_per_model():
    """level reaches the Wilson and ratio intervals; k (the chance rate) is per model × job."""
    two = hand_long([("AB", 0), ("BA", 0), ("AB", 0), ("BA", 1)], model="n")
    both = pd.concat([hand_long(), two], ignore_index=True)
    s = rates.selection_rates(both, level=0.8).set_index(["model", "demo"])
    assert s.loc[("n", "A"), "chance_rate"] == 0.5 and s.loc[("m", "A"), "chance_rate"] == pytest.approx(1 / 3)
    assert s.loc[("n", "A"), "top"] == 3 and s.loc[("n", "B"), "top"] == 1 and s.loc[("n", "A"), "n_runs"] == 4
    assert s.loc[("n", "A"), "p_chance"] == pytest.approx(binomtest(3, 4, 0.5).pvalue)
    lo, hi = proportion_confint(3, 4, alpha=0.2, method="wilson")
    assert s.loc[("n", "A"), "rate_ci_low"] == pytest.approx(lo)
    assert s.loc[("n", "A"), "rate_ci_high"] == pytest.approx(hi)
    z = norm.ppf(0.9)  # two groups: one comparison, both sides at alpha / 2
    se = np.sqrt(1 / 1 + 1 / 3)
    assert s.loc[("n", "B"), "ratio_ci_low"] == pytest.approx(np.exp(np.log(1 / 3) - z * se))
    assert s.loc[("n", "B"), "ratio_ci_high"] == pytest.approx(min(1, np.exp(np.log(1 / 3) + z * se)))
    by_model = rates.selection_rates(both, by=["model"])
    assert list(by_model.columns[:2]) == ["model", "demo"] and len(by_model) == 5


def test_selection_rates_with_no_top_pick_anywhere():
    s = rates.selection_rates(hand_long([("AB", None), ("BA", None)]))
    assert (s["n_runs"] == 0).all() and (s["top"] == 0).all()
    assert s[["selection_rate", "disparate_impact_ratio", "p_chance", "ratio_ci_low", "p_vs_best"]].isna().all().all()


def test_ratio_intervals_zero_counts_shape_and_errors():
    # a zero count gets 0.5 in the logs and a lower bound of 0; all zero -> NaN
    low, high, p = rates.ratio_intervals([[10, 0], [0, 0]])
    se = np.sqrt(1 / 0.5 + 1 / 10)
    assert low[0, 1] == 0 and high[0, 1] == pytest.approx(np.exp(np.log(0.05) + norm.ppf(0.975) * se))
    assert p[0, 1] == pytest.approx(2 * norm.sf(np.log(20) / se)) and p[0, 0] == 1
    assert low[0, 0] == pytest.approx(min(1, np.exp(np.log(20) - norm.ppf(0.975) * se)))
    assert np.isnan(low[1]).all() and np.isnan(high[1]).all() and np.isnan(p[1]).all()
    with pytest.raises(ValueError, match="at least two groups"):
        rates.ratio_intervals([5])
    # the lower bound's z is one-sided at alpha/2 whatever k is; the upper one Bonferroni's
    top = np.array([50, 40, 30])
    low, high, p = rates.ratio_intervals(top, level=0.9)
    se = np.sqrt(1 / 30 + 1 / 50)
    assert low[2] == pytest.approx(np.exp(np.log(30 / 50) - norm.ppf(0.95) * se))
    assert high[2] == pytest.approx(min(np.exp(np.log(30 / h) + norm.ppf(1 - 0.1 / 4) * np.sqrt(1 / 30 + 1 / h))
                                        for h in (50, 40)))
    assert p[2] == pytest.approx(min(1, 4 * norm.sf(np.log(50 / 30) / se)))


def test_published_layout_and_compare():
    sel = rates.selection_rates(hand_long())
    lay = rates.published_layout(sel.iloc[::-1])
    assert lay.columns.tolist() == ["model", "job", "demo", "top", "selection_rate", "disparate_impact_ratio"]
    assert lay["top"].tolist() == [4, 1, 1] and lay.index.tolist() == [0, 1, 2]
    # ties keep their incoming order (stable): reversed input, C before B
    assert lay["demo"].tolist() == ["A", "C", "B"]
    pub = sel[["model", "job", "demo", "top", "selection_rate", "disparate_impact_ratio"]].copy()
    assert rates.compare_published(sel, pub)["match"].all()
    for col, delta in (("top", 1), ("selection_rate", 1e-9), ("disparate_impact_ratio", 1e-9)):
        bad = pub.copy()
        bad.loc[1, col] = bad.loc[1, col] + delta
        m = rates.compare_published(sel, bad)
        assert m["match"].tolist() == [True, False, True], col
    m = rates.compare_published(sel, pub)
    assert {"top_published", "top_ours", "selection_rate_ours"} <= set(m.columns)
    with pytest.raises(ValueError, match="published table"):
        rates.compare_published(sel, pub.drop(columns="top"))
    with pytest.raises(ValueError, match="selection-rate table"):
        rates.published_layout(sel.drop(columns="top"))


def test_min_max_ratios_by_hand():
    t = pd.DataFrame({"model": ["a"] * 3 + ["b"] * 2, "job": "j", "demo": ["X", "Y", "Z", "X", "Y"],
                      "selection_rate": [0.3, 0.5, 0.4, 0.4, 0.5]})
    m = rates.min_max_ratios(t).set_index("model")
    assert m.loc["a", "min_max_ratio"] == pytest.approx(0.6) and m.loc["a", "lowest"] == "X"
    assert m.loc["a", "highest"] == "Y" and bool(m.loc["a", "below_four_fifths"])
    # 0.4 is exactly four fifths of 0.5: not below
    assert m.loc["b", "min_max_ratio"] == pytest.approx(0.8) and not bool(m.loc["b", "below_four_fifths"])
    assert list(m.reset_index().columns[:2]) == ["model", "job"]
    with pytest.raises(ValueError, match="selection-rate table"):
        rates.min_max_ratios(t.drop(columns="demo"))


def test_adjust_pvalues_over_all_rows_by_hand():
    t = pd.DataFrame({"p_chance": [0.01, 0.04, 0.03, np.nan]})
    a = rates.adjust_pvalues(t)
    # Holm over the three p-values: 0.01*3, max(0.03*2, .03), max(0.04*1, .06)
    np.testing.assert_allclose(a["p_chance_holm"].iloc[:3], [0.03, 0.06, 0.06])
    # BH: 0.01*3/1, min(0.03*3/2, 0.04) = .04, 0.04*3/3
    np.testing.assert_allclose(a["p_chance_bh"].iloc[:3], [0.03, 0.04, 0.04])
    assert np.isnan(a["p_chance_holm"].iloc[3]) and list(t.columns) == ["p_chance"]
    with pytest.raises(ValueError, match="p-value table"):
        rates.adjust_pvalues(t, "p")


def test_rank_summary_by_hand():
    long = pd.DataFrame({"model": "m", "job": "j", "demo": ["A", "A", "A", "B", "B", "B"],
                         "rank": [1.0, 3.0, np.nan, 2.0, 2.0, 4.0]})
    r = rates.rank_summary(long, ks=(1, 2), level=0.9).set_index("demo")
    assert r.loc["A", "n"] == 3 and r.loc["A", "n_ranked"] == 2 and r.loc["A", "mean_rank"] == 2
    half = norm.ppf(0.95) * np.std([1, 3], ddof=1) / np.sqrt(2)
    assert r.loc["A", "mean_rank_ci_low"] == pytest.approx(2 - half)
    assert r.loc["A", "mean_rank_ci_high"] == pytest.approx(2 + half)
    assert r.loc["A", "top1_rate"] == pytest.approx(1 / 3) and r.loc["A", "top2_rate"] == pytest.approx(1 / 3)
    assert r.loc["B", "top1_rate"] == 0 and r.loc["B", "top2_rate"] == pytest.approx(2 / 3)
    assert "sd" not in r.columns and "top3_rate" not in r.columns
    assert list(rates.rank_summary(long).columns[:3]) == ["model", "job", "demo"]
    assert "top4_rate" in rates.rank_summary(long).columns


def test_rates_by_rule_stacks_each_rule():
    long = hand_long()
    long.loc[long["run"] == "r2", "found"] = [True, True, False]
    long["found"] = long["found"].astype(bool)
    out = rates.rates_by_rule(long)
    assert out["rule"].tolist() == ["last"] * 3 + ["unranked"] * 3 + ["drop"] * 3
    n = out.groupby("rule")["n_runs"].first()
    # "drop" loses run r2 (a name missing) and r6 (none found)
    assert n["last"] == 6 and n["unranked"] == 6 and n["drop"] == 5
    assert rates.rates_by_rule(long, ["drop"], level=0.8)["rule"].eq("drop").all()


# --- chance -------------------------------------------------------------------------------

def test_null_min_max_small_cases_and_defaults():
    # two groups, two runs: counts (2,0),(1,1),(0,2) with prob 1/4, 1/2, 1/4 -> ratio 1 w.p. 1/2
    d = chance.null_min_max(2, 2, n_sim=20_000, seed=3)
    assert set(np.unique(d)) == {0.0, 1.0} and abs(d.mean() - 0.5) < 4 * np.sqrt(0.25 / 20_000)
    assert len(chance.null_min_max(3)) == 10_000
    np.testing.assert_array_equal(chance.null_min_max(40, n_sim=50), chance.null_min_max(40, 8, n_sim=50, seed=0))
    # k = 8, 8 runs: ratio 1 only when each group wins once, prob 8!/8^8
    d8 = chance.null_min_max(8, n_sim=200_000, seed=1)
    p = np.prod(np.arange(1, 9)) / 8 ** 8
    assert abs((d8 == 1).mean() - p) < 4 * np.sqrt(p / 200_000)
    for bad in ((0, 2, 10), (5, 1, 10), (5, 2, 0)):
        with pytest.raises(ValueError, match="need n_runs >= 1"):
            chance.null_min_max(bad[0], bad[1], n_sim=bad[2])
    assert chance.null_min_max(1, 2, n_sim=1).shape == (1,)


def test_design_null_counts_chunks_and_errors():
    orders = np.array([[0, 1, 2], [1, 2, 0], [2, 0, 1], [0, 2, 1], [1, 0, 2]])
    winners = np.array([0, 2, 1, 0, 1])
    a = chance.design_null_counts(orders, winners, n_sim=23, seed=4)
    # the draws come from one stream in order: the chunk size does not change them
    np.testing.assert_array_equal(a, chance.design_null_counts(orders, winners, n_sim=23, seed=4, chunk=5))
    np.testing.assert_array_equal(a, chance.design_null_counts(orders, winners, n_sim=23, seed=4, chunk=1))
    assert a.shape == (23, 3) and (a.sum(axis=1) == 5).all() and a.dtype == np.int64
    assert len(chance.design_null_counts(orders, winners, n_sim=1)) == 1
    # one run: every permutation is the identity
    assert (chance.design_null_counts(orders[:1], winners[:1], n_sim=5) == [[1, 0, 0]]).all()
    assert len(chance.design_null_counts(orders, winners)) == 10_000
    # the identity permutation is drawn among many: the observed counts appear
    obs = np.bincount(orders[np.arange(5), winners], minlength=3)
    assert (chance.design_null_counts(orders, winners, n_sim=3000) == obs).all(axis=1).any()
    bad = ((orders[0], winners, 5), (orders, winners[:4], 5), (orders[:0], winners[:0], 5), (orders, winners, 0))
    for o, w, n in bad:
        with pytest.raises(ValueError, match="order matrix"):
            chance.design_null_counts(o, w, n_sim=n)


def test_design_of_by_hand():
    long = hand_long()
    extra = pd.DataFrame({"run": "r9", "position": [1, 2], "demo": ["A", "B"], "rank": [1.0, 2.0],
                          "model": "m", "job": "j", "name": "x", "found": True, "resume": 0})
    orders, winners, levels = chance.design_of(pd.concat([long, extra], ignore_index=True))
    # r6 has no top pick and r9 shows two résumés of three: both left out
    assert levels == ["A", "B", "C"]
    np.testing.assert_array_equal(orders, [[0, 1, 2], [1, 2, 0], [2, 0, 1], [0, 2, 1], [1, 0, 2], [2, 1, 0]])
    np.testing.assert_array_equal(winners, [0, 2, 0, 0, 0, 2])
    shuffled = long.sample(frac=1, random_state=1)
    o2, w2, _ = chance.design_of(shuffled)
    np.testing.assert_array_equal(o2, orders)
    np.testing.assert_array_equal(w2, winners)
    with pytest.raises(ValueError, match="ranking table"):
        chance.design_of(long.drop(columns="rank"))


def _exact_design_null(orders, winners):
    ratios = []
    for p in itertools.permutations(range(len(orders))):
        c = np.bincount(orders[list(p), winners], minlength=orders.max() + 1)
        ratios.append(c.min() / c.max() if c.max() else np.nan)
    return np.array(ratios)


def test_chance_table_against_the_enumerated_permutation_null():
    long = hand_long()
    orders, winners, _ = chance.design_of(long)
    exact = _exact_design_null(orders, winners)  # 720 permutations of six runs
    obs = 1 / 4
    t = chance.chance_table(long, n_sim=20_000, threshold=0.5).iloc[0]
    assert t["min_max_ratio"] == obs and t["n_runs"] == 6 and t["n_sim"] == 20_000
    assert t["null"] == chance.DESIGN_NULL and (t["model"], t["job"]) == ("m", "j")
    se = 0.5 / np.sqrt(20_000)
    assert abs(t["null_p"] - (exact <= obs).mean()) < 4 * se + 1e-9
    assert abs(t["flag_rate_under_null"] - (exact < 0.5).mean()) < 4 * se + 1e-9
    # uniform: six multinomial draws over three groups, enumerated
    uni = [np.bincount(c, minlength=3) for c in itertools.product(range(3), repeat=6)]
    uni = np.array([c.min() / c.max() for c in uni])
    assert abs(t["null_p_uniform"] - (uni <= obs).mean()) < 4 * se
    assert abs(t["flag_rate_uniform"] - (uni < 0.5).mean()) < 4 * se
    assert t["null_p_text"] == chance.format_probability(t["null_p"], 20_000)
    # the default threshold is four fifths
    d = chance.chance_table(long, n_sim=20_000).iloc[0]
    assert abs(d["flag_rate_under_null"] - (exact < 0.8).mean()) < 4 * se + 1e-9
    assert abs(d["flag_rate_uniform"] - (uni < 0.8).mean()) < 4 * se + 1e-9


def test_chance_table_seeds_each_cell_and_counts_ties_as_low():
    a = hand_long(model="a")
    both = pd.concat([a, hand_long(model="b")], ignore_index=True)
    t = chance.chance_table(both, n_sim=300, seed=5)
    # cell i is drawn with seed + i
    one = chance.chance_table(hand_long(model="b"), n_sim=300, seed=6).iloc[0]
    assert t.iloc[1]["null_p"] == one["null_p"] and t.iloc[1]["null_p_uniform"] == one["null_p_uniform"]
    assert t["model"].tolist() == ["a", "b"]
    # a balanced design where every permutation gives the observed ratio: p = 1 (<= counts ties)
    tie = hand_long([("AB", 0), ("BA", 0)])
    tt = chance.chance_table(tie, n_sim=50).iloc[0]
    assert tt["min_max_ratio"] == 1 and tt["null_p"] == 1 and tt["flag_rate_under_null"] == 0
    with pytest.raises(ValueError, match="ranking table"):
        chance.chance_table(tie.drop(columns="position"))


def test_null_draws_labels_and_picks_the_narrowest_null():
    a, b = hand_long(model="a"), hand_long([("AB", 0), ("BA", 0)] * 3, model="b")
    both = pd.concat([a, b], ignore_index=True)
    t = chance.chance_table(both, n_sim=200)
    d = chance.null_draws(both, t, n_sim=100, seed=2)
    keys = list(d)
    assert keys == ["uniform fair ranker, 6 runs", "design null, b j"]
    # model b: the first résumé always wins and each group is first equally often: ratio 1
    assert (d[keys[1]] == 1).all() and len(d[keys[0]]) == 100
    # the uniform ranker at the first row's runs (6) and the chosen cell's alternatives (2)
    np.testing.assert_array_equal(d[keys[0]], chance.null_min_max(6, 2, n_sim=100, seed=2))
    assert chance.null_draws(both, t.iloc[:0]) == {}
    with pytest.raises(ValueError, match="chance table"):
        chance.null_draws(both, t.drop(columns="n_runs"))


def test_null_quantiles_match_the_draws():
    q = chance.null_quantiles([5, 50], k=3, qs=(0.1, 0.5), n_sim=400, seed=7, threshold=0.5)
    assert q.columns.tolist() == ["n_runs", "q0.1", "q0.5", "flag_rate_under_null"]
    d = chance.null_min_max(50, 3, n_sim=400, seed=7)
    assert q.loc[1, "q0.1"] == np.quantile(d, 0.1) and q.loc[1, "q0.5"] == np.quantile(d, 0.5)
    assert q.loc[1, "flag_rate_under_null"] == (d < 0.5).mean() and q["n_runs"].tolist() == [5, 50]
    dflt = chance.null_quantiles([20], n_sim=300)
    d8 = chance.null_min_max(20, 8, n_sim=300, seed=0)
    assert dflt.loc[0, "q0.025"] == np.quantile(d8, 0.025) and dflt.loc[0, "q0.975"] == np.quantile(d8, 0.975)
    assert dflt.loc[0, "flag_rate_under_null"] == (d8 < 0.8).mean()


def test_ratio_of_counts():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a draw with no top pick is 0/0: NaN, not a warning
        r = chance._ratio(np.array([[2, 4, 3], [0, 0, 0], [5, 5, 5]]))
    np.testing.assert_allclose(r, [0.5, np.nan, 1])


# --- conditional logit --------------------------------------------------------------------

def test_design_columns_reference_and_dropped_runs():
    long = hand_long()
    X, y, strata, names = clogit.design(long, reference="B")
    # r6 has no top pick: dropped; reference B first, so dummies for A and C
    assert X.columns.tolist() == ["demo_A", "demo_C", "position_2", "position_3", "resume_1", "resume_2"]
    assert len(X) == 18 and y.sum() == 6 and len(np.unique(strata)) == 6 and "r6" not in strata
    r1 = long[long["run"] == "r1"]
    np.testing.assert_array_equal(X.loc[r1.index, "demo_A"], (r1["demo"] == "A").astype(float))
    np.testing.assert_array_equal(y[strata == "r1"], [0, 0, 1])
    np.testing.assert_array_equal(names[:3], long["name"].iloc[:3])
    assert X.dtypes.eq(float).all()
    Xn, *_ = clogit.design(long, position=False, resume=False, reference="A")
    assert Xn.columns.tolist() == ["demo_B", "demo_C"]
    Xr, *_ = clogit.design(long.drop(columns="resume"), resume=False, reference="C")
    assert Xr.columns.tolist() == ["demo_A", "demo_B", "position_2", "position_3"]
    with pytest.raises(ValueError, match="reference group 'W_M' not in the data"):
        clogit.design(long)
    with pytest.raises(ValueError, match="ranking table"):
        clogit.design(long.drop(columns="resume"))


def test_identified_sets_aside_terms_never_chosen_in_turn():
    X = pd.DataFrame({"t1": [1, 0, 0, 1, 0, 0], "t2": [1, 0, 0, 0, 0, 0], "t3": [0, 1, 0, 0, 1, 0]}, dtype=float)
    y = np.array([0, 1, 0, 0, 0, 1.0])
    strata = np.array([0, 0, 0, 1, 1, 1])
    keep, dropped = clogit.identified(X, y, strata)
    # t1 is never chosen (2 runs): its rows go; t2 then has no row left
    assert keep.tolist() == [False, True, True, False, True, True]
    assert set(dropped) == {"t1", "t2"}
    assert dropped["t1"] == ("never ranked first in 2 runs: its coefficient is minus infinity, so its "
                             "alternatives are left out of their runs")
    assert dropped["t2"] == "no alternative left with this term"
    keep, dropped = clogit.identified(X[["t3"]], y, strata)
    assert keep.all() and dropped == {}


def _sm_fit(X, y, strata):
    from statsmodels.discrete.conditional_models import ConditionalLogit

    model = ConditionalLogit(y, X, groups=strata)
    start = np.asarray(model.fit(disp=False, method="bfgs", maxiter=200).params)
    return np.asarray(model.fit(start_params=start, disp=False, method="newton", maxiter=100).params)


def test_fit_newton_against_statsmodels_and_convergence():
    rng = np.random.default_rng(0)
    n, k = 40, 3
    X = rng.normal(size=(n * k, 2))
    strata = np.repeat(np.arange(n), k)[::-1]  # strata labels not in order of appearance
    y = np.zeros(n * k)
    u = X @ [1.0, -0.5] + rng.gumbel(size=n * k)
    for s in range(n):
        rows = np.flatnonzero(strata == s)
        y[rows[u[rows].argmax()]] = 1
    b = clogit.fit_newton(X, y, strata)
    np.testing.assert_allclose(b, _sm_fit(X, y, strata), atol=1e-5)
    # a large shift of X leaves the within-run differences: the fit is the same (softmax is stable)
    np.testing.assert_allclose(clogit.fit_newton(X + 500, y, strata), b, atol=1e-8)
    with pytest.raises(ValueError, match="did not converge in 1 Newton steps"):
        clogit.fit_newton(X, y, strata, maxiter=1)
    assert np.abs(clogit.fit_newton(X, y, strata, tol=1e-2) - b).max() < 0.05


def test_score_hessian_against_numeric_derivatives():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(12, 2))
    s_idx = np.repeat(np.arange(4), 3)
    y = np.tile([1.0, 0, 0], 4)
    b = np.array([0.3, -0.2])
    pieces, H, ll = clogit._score_hessian(X, y, s_idx, b)

    def loglik(beta):
        eta = X @ beta
        return sum(eta[s_idx == s][0] - np.log(np.exp(eta[s_idx == s]).sum()) for s in range(4))

    assert ll == pytest.approx(loglik(b))
    h = 1e-5
    grad = [(loglik(b + h * e) - loglik(b - h * e)) / (2 * h) for e in np.eye(2)]
    np.testing.assert_allclose(pieces.sum(axis=0), grad, rtol=1e-6)
    hess = [[(loglik(b + h * e + h * f) - loglik(b + h * e - h * f) - loglik(b - h * e + h * f)
              + loglik(b - h * e - h * f)) / (4 * h * h) for f in np.eye(2)] for e in np.eye(2)]
    np.testing.assert_allclose(H, hess, rtol=1e-4)
    p = clogit._strata_probs(X, s_idx, b)
    np.testing.assert_allclose(np.bincount(s_idx, weights=p), 1)
    eta = X @ b
    np.testing.assert_allclose(p[:3], np.exp(eta[:3]) / np.exp(eta[:3]).sum())


def _choice_long(n_runs=120, seed=0, beta_b=0.7):
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(n_runs):
        groups = rng.permutation(["W_M", "B_W", "A_M"])
        u = np.array([beta_b * (g == "B_W") for g in groups]) + np.array([0.5, 0, 0]) + rng.gumbel(size=3)
        top = int(u.argmax())
        rank = {j: i + 1 for i, j in enumerate([top] + [i for i in range(3) if i != top])}
        for i, g in enumerate(groups):
            rows.append({"model": "m", "job": "j", "run": r, "position": i + 1, "demo": g,
                         "name": f"{g}{rng.integers(10)}", "rank": rank[i], "resume": int(rng.integers(2))})
    return pd.DataFrame(rows)


def test_conditional_logit_table_by_hand():
    long = _choice_long()
    res = clogit.conditional_logit(long, level=0.9, cluster="run").set_index("term")
    X, y, strata, names = clogit.design(long)
    b = _sm_fit(X.to_numpy(), y, strata)
    np.testing.assert_allclose(res.loc[X.columns, "coef"], b, atol=1e-5)
    # the run-clustered sandwich: the per-run scores summed, CRV1 factor
    pieces, H, _ = clogit._score_hessian(X.to_numpy(), y, np.asarray(strata), res.loc[X.columns, "coef"].to_numpy())
    run_sums = pd.DataFrame(pieces).groupby(strata).sum().to_numpy()
    bread = np.linalg.inv(-H)
    G, N, K = len(run_sums), len(y), X.shape[1]
    se = np.sqrt(np.diag(bread @ run_sums.T @ run_sums @ bread * G / (G - 1) * (N - 1) / (N - K)))
    np.testing.assert_allclose(res.loc[X.columns, "se"], se, rtol=1e-6)
    z = norm.ppf(0.95)
    np.testing.assert_allclose(res["ci_low"], res["coef"] - z * res["se"])
    np.testing.assert_allclose(res["ci_high"], res["coef"] + z * res["se"])
    np.testing.assert_allclose(res["z"], res["coef"] / res["se"])
    np.testing.assert_allclose(res["p"], 2 * norm.sf(np.abs(res["coef"] / res["se"])))
    np.testing.assert_allclose(res["odds_ratio"], np.exp(res["coef"]))
    assert (res["n_runs"] == 120).all() and (res["n_names"] == long["name"].nunique()).all()
    assert res["spec"].eq("group + position + résumé").all() and res["cluster"].eq("run").all()
    assert res["estimable"].all() and res["reason"].eq("").all() and res["model"].eq("m").all()
    spec = clogit.conditional_logit(long, position=False, resume=False)
    assert spec["spec"].eq("group").all() and spec["term"].tolist() == ["demo_A_M", "demo_B_W"]
    assert clogit.conditional_logit(long, resume=False)["spec"].iloc[0] == "group + position"
    assert clogit.conditional_logit(long, position=False)["spec"].iloc[0] == "group + résumé"
    assert clogit.conditional_logit(long, position=False, resume=False, reference="A_M")["term"].tolist() == \
        ["demo_B_W", "demo_W_M"]


def test_conditional_logit_default_is_two_way_and_name_differs():
    long = _choice_long(seed=3)
    d = clogit.conditional_logit(long, position=False, resume=False)
    X, y, strata, names = clogit.design(long, position=False, resume=False)
    b = clogit.fit_newton(X.to_numpy(), y, strata)
    for cluster in clogit.CLUSTERS:
        se = np.sqrt(np.diag(clogit.cluster_cov(X.to_numpy(), y, strata, names, b, cluster=cluster)))
        got = clogit.conditional_logit(long, position=False, resume=False, cluster=cluster)
        np.testing.assert_allclose(got["se"], se, rtol=1e-8)
    np.testing.assert_allclose(d["se"], clogit.conditional_logit(long, position=False, resume=False,
                                                                cluster="two-way")["se"])
    assert d["cluster"].eq("two-way").all()


def test_conditional_logit_not_estimable_and_errors():
    long = _choice_long(40, seed=1)
    # B_W picked in every run it is shown in, and shown in every run: no maximum
    always = long.copy()
    for r, run in always.groupby("run"):
        order = [run.index[run["demo"] == "B_W"][0]] + [i for i in run.index if run.loc[i, "demo"] != "B_W"]
        always.loc[order, "rank"] = [1, 2, 3]
    res = clogit.conditional_logit(always, position=False, resume=False)
    assert not res["estimable"].any() and res["coef"].isna().all()
    assert res["reason"].str.contains("demo_B_W is ranked first in every run").all()
    # a group never ranked first: set aside with NaN statistics, the other estimated
    never = long.copy()
    for r, run in never.groupby("run"):
        order = [i for i in run.index if run.loc[i, "demo"] != "A_M"] + list(run.index[run["demo"] == "A_M"])
        never.loc[order, "rank"] = [1, 2, 3]
    res = clogit.conditional_logit(never, position=False, resume=False).set_index("term")
    assert not res.loc["demo_A_M", "estimable"] and np.isnan(res.loc["demo_A_M", ["coef", "se", "p"]]).all()
    assert "never ranked first in 40 runs" in res.loc["demo_A_M", "reason"]
    assert res.loc["demo_B_W", "estimable"] and np.isfinite(res.loc["demo_B_W", "se"])
    with pytest.raises(ValueError, match="unknown engine 'r'"):
        clogit.conditional_logit(long, engine="r")
    with pytest.raises(ValueError, match=r"unknown cluster 'ad'; use one of \['two-way', 'run', 'name'\]"):
        clogit.conditional_logit(long, cluster="ad")
    X, y, strata, names = clogit.design(long)
    with pytest.raises(ValueError, match="unknown cluster 'ad'"):
        clogit.cluster_cov(X.to_numpy(), y, strata, names, np.zeros(X.shape[1]), cluster="ad")
    with pytest.raises(ValueError, match="ranking table"):
        clogit.conditional_logit(long.drop(columns="job"))
    # two runs, five terms: singular
    two = long[long["run"].isin([0, 1])]
    with pytest.raises(ValueError, match=r"m / j: singular design with 2 run\(s\), too few to estimate its"):
        clogit.conditional_logit(two)


# --- survivors of the first full run (issue 31, mut31) --------------------------------------

def test_statsmodels_engine_is_statsmodels_and_agrees(monkeypatch, capsys):
    """engine="statsmodels" fits with statsmodels' ConditionalLogit (BFGS, then Newton), quietly,
    and agrees with the numpy engine, which the tests above prove against statsmodels by hand."""
    from statsmodels.discrete import conditional_models as cm

    long = _choice_long(60, seed=2)
    calls = []
    fit = cm.ConditionalLogit.fit

    def spy(self, *a, **kw):
        calls.append(kw.get("method"))
        return fit(self, *a, **kw)

    monkeypatch.setattr(cm.ConditionalLogit, "fit", spy)
    s = clogit.conditional_logit(long, engine="statsmodels", position=False, resume=False, cluster="run")
    assert calls == ["bfgs", "newton"] and capsys.readouterr().out == ""
    n = clogit.conditional_logit(long, position=False, resume=False, cluster="run")
    np.testing.assert_allclose(s["coef"], n["coef"], atol=1e-6)
    np.testing.assert_allclose(s["se"], n["se"], rtol=1e-5)


def test_conditional_logit_keeps_the_order_of_the_cells_and_says_why_not_estimable():
    long = pd.concat([_choice_long(40, seed=1).assign(model="b"), _choice_long(40, seed=4).assign(model="a")],
                     ignore_index=True)
    res = clogit.conditional_logit(long, position=False, resume=False)
    assert res["model"].tolist() == ["b", "b", "a", "a"]  # as they come, not sorted
    always = _choice_long(30, seed=5)
    for r, run in always.groupby("run"):
        order = [run.index[run["demo"] == "B_W"][0]] + [i for i in run.index if run.loc[i, "demo"] != "B_W"]
        always.loc[order, "rank"] = [1, 2, 3]
    res = clogit.conditional_logit(always, position=False, resume=False)
    assert res["reason"].eq("demo_B_W is ranked first in every run: the likelihood has no maximum").all()


def test_rates_tables_keep_the_order_of_the_cells_and_name_the_table():
    t = pd.DataFrame({"model": ["b", "b", "a", "a"], "job": "j", "demo": ["X", "Y", "X", "Y"],
                      "selection_rate": [0.3, 0.5, 0.4, 0.5]})
    assert rates.min_max_ratios(t)["model"].tolist() == ["b", "a"]
    with pytest.raises(ValueError, match=r"^selection-rate table has no column 'demo'"):
        rates.min_max_ratios(t.drop(columns="demo"))
    with pytest.raises(ValueError, match=r"^p-value table has no column 'p'"):
        rates.adjust_pvalues(pd.DataFrame({"q": [0.1]}), "p")
    long = pd.DataFrame({"model": "m", "job": "j", "demo": ["B", "B", "A", "A"], "rank": [1.0, 2.0, 3.0, 1.0]})
    r = rates.rank_summary(long)
    assert r["demo"].tolist() == ["A", "B"]  # sorted by group
    # the default level is 95%
    half = norm.ppf(0.975) * np.std([3, 1], ddof=1) / np.sqrt(2)
    assert r.loc[0, "mean_rank_ci_low"] == pytest.approx(2 - half) and r.loc[0, "mean_rank_ci_high"] == pytest.approx(2 + half)
    with pytest.raises(ValueError, match=r"^ranking table has no column 'rank'"):
        rates.rank_summary(long.drop(columns="rank"))


def test_adjust_pvalues_per_family_with_a_missing_family_label():
    t = pd.DataFrame({"f": ["a", "a", None, None], "p_chance": [0.01, 0.04, 0.02, 0.03]})
    a = rates.adjust_pvalues(t, family=["f"])
    # family "a": Holm 0.02, 0.04; the unlabelled rows are a family of their own: 0.04, 0.04
    np.testing.assert_allclose(a["p_chance_holm"], [0.02, 0.04, 0.04, 0.04])
    # BH: a: 0.01 * 2 / 1, 0.04 * 2 / 2; unlabelled: min(0.02 * 2, 0.03), 0.03 * 2 / 2
    np.testing.assert_allclose(a["p_chance_bh"], [0.02, 0.04, 0.03, 0.03])


def test_null_quantiles_defaults_are_eight_groups_and_ten_thousand_draws():
    q = chance.null_quantiles([400])
    d = chance.null_min_max(400, 8, n_sim=10_000, seed=0)
    assert q.loc[0, "q0.5"] == np.quantile(d, 0.5) and q.loc[0, "q0.025"] == np.quantile(d, 0.025)
    assert q.loc[0, "flag_rate_under_null"] == (d < 0.8).mean()


def test_strata_probs_do_not_overflow():
    # utilities near 800: exp overflows unless the run's maximum is taken off first
    X = np.array([[800.0], [799.0], [0.0], [1.0]])
    p = clogit._strata_probs(X, np.array([0, 0, 1, 1]), np.array([1.0]))
    e = np.exp([1.0, 0.0])
    np.testing.assert_allclose(p, [e[0] / e.sum(), e[1] / e.sum(), e[1] / e.sum(), e[0] / e.sum()])


def test_selection_rates_first_shown_counts_and_empty_cells():
    # shown first: B, B, A (C never): top_og is per group in the groups' order, 0 for C
    s = rates.selection_rates(hand_long([("BAC", 0), ("BCA", 1), ("ACB", 2)])).set_index("demo")
    assert s["top_og"].tolist() == [1, 2, 0] and s["top"].tolist() == [0, 2, 1]
    # a run that lost its position-1 row still counts its top pick
    long = hand_long()
    long = long.drop(long.index[(long["run"] == "r0") & (long["position"] == 1)])
    long.loc[(long["run"] == "r0") & (long["position"] == 2), "rank"] = 1.0
    s = rates.selection_rates(long).set_index("demo")
    assert s["n_runs"].iloc[0] == 6 and s.loc["B", "top"] == 2 and s["top_og"].sum() == 6
    # the cells come as they are, not sorted; the table is named in full
    both = pd.concat([hand_long(model="b"), hand_long(model="a")], ignore_index=True)
    assert rates.selection_rates(both)["model"].tolist() == ["b"] * 3 + ["a"] * 3
    with pytest.raises(ValueError, match=r"^ranking table has no column 'rank'"):
        rates.selection_rates(both.drop(columns="rank"))
    with warnings.catch_warnings():
        # no 0/0 warning from the rates where no run has a top pick (the Wilson interval's own aside)
        warnings.filterwarnings("error", category=RuntimeWarning, module=r"popresume\.ranking\.rates")
        e = rates.selection_rates(hand_long([("AB", None), ("BA", None)]))
    assert e["selection_rate"].dtype == float and e["selection_rate"].isna().all()


def _ties_long():
    # two groups, six runs, A on top twice and B four times: min/max 2/4 = 0.5, a value that
    # both nulls hit often (counts 2 and 4)
    return hand_long([("AB", 0), ("BA", 0), ("AB", 0), ("BA", 0), ("AB", 1), ("BA", 0)])


def test_chance_table_draws_ties_and_defaults():
    long = _ties_long()
    orders, winners, _ = chance.design_of(long)
    t = chance.chance_table(long, n_sim=400, seed=3, threshold=0.5).iloc[0]
    null = chance._ratio(chance.design_null_counts(orders, winners, n_sim=400, seed=3))
    uni = chance.null_min_max(6, 2, n_sim=400, seed=3)
    assert t["min_max_ratio"] == 0.5 and (null == 0.5).mean() > 0.2 and (uni == 0.5).mean() > 0.2
    # "as low or lower" counts the ties; "flagged" is strictly under the threshold
    assert t["null_p"] == (null <= 0.5).mean() and t["flag_rate_under_null"] == (null < 0.5).mean()
    assert t["null_p_uniform"] == (uni <= 0.5).mean() and t["flag_rate_uniform"] == (uni < 0.5).mean()
    # the design null of the six-run design (a varied null): its draws are the cell's n_sim at seed + i
    h = hand_long()
    ho, hw, _ = chance.design_of(h)
    th = chance.chance_table(h, n_sim=300, seed=2).iloc[0]
    hnull = chance._ratio(chance.design_null_counts(ho, hw, n_sim=300, seed=2))
    assert th["null_p"] == (hnull <= 0.25 + 1e-12).mean() and th["flag_rate_under_null"] == (hnull < 0.8).mean()
    d = chance.chance_table(long)
    assert d["n_sim"].iloc[0] == 10_000
    pd.testing.assert_frame_equal(d, chance.chance_table(long, n_sim=10_000, seed=0))
    # a group never on top counts as 0 (ratio 0), and cells come as they are, not sorted
    never = hand_long([("ABC", 0), ("BCA", 0), ("CAB", 1)], model="z")
    both = pd.concat([never, _ties_long()], ignore_index=True)
    c = chance.chance_table(both, n_sim=50)
    assert c["model"].tolist() == ["z", "m"] and c["min_max_ratio"].tolist() == [0.0, 0.5]
    with pytest.raises(ValueError, match=r"^ranking table has no column 'rank'"):
        chance.chance_table(both.drop(columns="rank"))
    with pytest.raises(ValueError, match=r"^ranking table has no column 'rank'"):
        chance.design_of(both.drop(columns="rank"))


def test_fit_newton_halves_a_step_that_overshoots():
    # 50 alternatives per run: x = 0 for the first, 1 for the other 49; the first is chosen in
    # half the runs, another in the rest. The MLE solves 1/(1 + 49 e^b) = 1/2: b = -ln 49. At
    # b = 0 the curvature is 49/50 * 1/50 = 0.0196 and the score per run -0.48, so the full
    # Newton step is -24.5, where the log-likelihood (-12.25 per run against -ln 50 = -3.91)
    # is lower: only step halving reaches the maximum.
    from popresume.ranking import clogit

    runs, k = 6, 50
    strata = np.repeat(np.arange(runs), k)
    X = np.tile(np.r_[0.0, np.ones(k - 1)], runs)[:, None]
    y = np.zeros(runs * k)
    for r in range(runs):
        y[r * k + (0 if r % 2 == 0 else 1)] = 1.0
    _, s_idx = np.unique(strata, return_inverse=True)
    _, _, ll0 = clogit._score_hessian(X, y, s_idx, np.zeros(1))
    _, _, ll_full = clogit._score_hessian(X, y, s_idx, np.array([-24.5]))
    assert ll_full < ll0  # the design does what the comment says
    np.testing.assert_allclose(clogit.fit_newton(X, y, strata), [-np.log(49)], atol=1e-8)
