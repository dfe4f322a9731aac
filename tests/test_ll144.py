"""popresume.ll144: hand-computed cases, agreement with scipy/statsmodels, and properties."""

import doctest
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from popresume import ll144


def six_rows():
    # median of all six scores = 3.5; the woman of unknown race (score 6) is above it
    return pd.DataFrame({"gender": ["F", "F", "F", "M", "M", "M"],
                         "race": ["A", "B", None, "A", "B", "B"],
                         "score": [1.0, 2.0, 6.0, 3.0, 4.0, 5.0]})


def test_docstring_examples_run():
    result = doctest.testmod(ll144, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 8 and result.failed == 0


def test_unknown_race_counts_for_sex_with_one_median():
    """The one rule: one median of every scored row; a row with an unknown race counts for sex.

    By hand: scores above 3.5 are 6 (F), 4 and 5 (M): F 1/3, M 2/3, sex ratio 0.5. Dropping the
    unknown-race row first (the old chance baseline) would give median 3, F 0/2, M 2/3, ratio 0.
    """
    df = six_rows()
    t = ll144.breakdown_table(df, min_share=0).set_index(["breakdown", "category"])
    assert t.loc[("sex", "F"), "n"] == 3 and t.loc[("sex", "F"), "selected"] == 1
    assert t.loc[("sex", "F"), "ratio"] == pytest.approx(0.5)
    assert t.loc[("race", "unknown"), "n"] == 1 and np.isnan(t.loc[("race", "unknown"), "ratio"])
    assert t.loc[("sex × race", "unknown"), "n"] == 1
    assert ("sex", "unknown") not in t.index
    chance = ll144.chance_table(df, min_share=0, n_sim=200, rules=("median_split",)).set_index("breakdown")
    assert chance.loc["sex", "observed_lowest_ratio"] == pytest.approx(0.5)
    assert chance.loc["sex", "n"] == 6 and chance.loc["race", "n"] == 6


def test_counts_by_hand_both_rules():
    df = pd.DataFrame({"g": ["a"] * 4 + ["b"] * 4, "score": [1, 2, 3, 4, 5, 6, 7, 8]})
    med = ll144.category_counts(df, "g", "score", rule="median_split").set_index("category")
    assert med.loc["a", "selected"] == 0 and med.loc["b", "selected"] == 4 and med["cut"].iloc[0] == 4.5
    # top 25%: the 0.75 quantile of 1..8 is 6.25 -> 7 and 8 selected
    cut = ll144.category_counts(df, "g", "score", rule="selection_cut", select_top=0.25).set_index("category")
    assert list(cut["selected"]) == [0, 2] and cut["cut"].iloc[0] == pytest.approx(6.25)
    df["chosen"] = [True, False, False, False, True, True, False, False]
    flag = ll144.category_counts(df, "g", "chosen", rule="selection_cut").set_index("category")
    assert list(flag["selected"]) == [1, 2] and np.isnan(flag["cut"].iloc[0])


def test_under_2pct_left_out_of_the_reference():
    # c: 1 row of 101 (< 2%) with the highest rate; the reference is the best of a and b
    counts = pd.DataFrame({"category": ["a", "b", "c"], "n": [50, 50, 1], "selected": [20, 25, 1]})
    t = ll144.impact_ratio_table(counts).set_index("category")
    assert bool(t.loc["c", "under_2pct"]) and not t["under_2pct"][["a", "b"]].any()
    assert t.loc["a", "ratio"] == pytest.approx(0.4 / 0.5)
    assert t.loc["c", "ratio"] == pytest.approx(1 / 0.5) and not t.loc["c", "flag"]
    assert bool(t.loc["b", "reference"]) and t["reference"].sum() == 1
    assert bool(t.loc["a", "flag"]) is False  # 0.8 is not under 0.8
    t0 = ll144.impact_ratio_table(counts, min_share=0).set_index("category")
    assert t0.loc["a", "ratio"] == pytest.approx(0.4) and bool(t0.loc["a", "flag"])


def test_rate_intervals_agree_with_scipy_binomtest():
    counts = pd.DataFrame({"category": ["a", "b", "c"], "n": [40, 25, 60], "selected": [12, 0, 60]})
    t = ll144.impact_ratio_table(counts)
    conf = 0.95 ** (1 / 3)  # Šidák over the three categories
    for x, n, lo, hi in zip(t["selected"], t["n"], t["rate_ci_low"], t["rate_ci_high"]):
        ci = stats.binomtest(int(x), int(n)).proportion_ci(confidence_level=conf, method="exact")
        assert lo == pytest.approx(ci.low, abs=1e-9) and hi == pytest.approx(ci.high, abs=1e-9)


@pytest.mark.parametrize("x1,n1,x2,n2", [(10, 30, 12, 30), (0, 30, 5, 30), (5, 30, 0, 30),
                                         (120, 500, 250, 500), (3, 28, 100, 229), (28, 28, 20, 30)])
def test_ratio_interval_agrees_with_statsmodels_score(x1, n1, x2, n2):
    from statsmodels.stats.proportion import confint_proportions_2indep

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = confint_proportions_2indep(x1, n1, x2, n2, compare="ratio", method="score", alpha=0.05)
    lo, hi = ll144.rate_ratio_interval(x1, n1, x2, n2, alpha=0.05, continuity=False)
    assert float(lo) == pytest.approx(max(ref[0], 0.0), rel=1e-6, abs=1e-9)
    assert float(hi) == pytest.approx(ref[1], rel=1e-6) if np.isfinite(ref[1]) else np.isinf(hi)


def test_continuity_correction_covers_a_median_split_at_parity():
    """Two groups of 50 split at the median: the count above it is hypergeometric (a fixed total).

    Exact coverage of a ratio of 1, summed over the hypergeometric law: the uncorrected score
    interval falls under 0.93; the corrected one does not.
    """
    x = np.arange(51)
    pmf = stats.hypergeom.pmf(x, 100, 50, 50)
    cover = {}
    for cc in (False, True):
        lo, hi = ll144.rate_ratio_interval(x, 50, 50 - x, 50, continuity=cc)
        cover[cc] = pmf[(lo <= 1) & (hi >= 1)].sum()
    assert cover[False] < 0.93 and cover[True] >= 0.95
    # and it is wider than the uncorrected interval, never narrower
    lo0, hi0 = ll144.rate_ratio_interval(x[1:], 50, 50 - x[1:], 50, continuity=False)
    lo1, hi1 = ll144.rate_ratio_interval(x[1:], 50, 50 - x[1:], 50)
    assert np.all(lo1 <= lo0 + 1e-12) and np.all(hi1 >= hi0 - 1e-12)


def test_pairwise_bounds_two_groups_are_the_score_interval_capped_at_one():
    lo, hi = ll144.rate_ratio_interval(30, 100, 50, 100, alpha=0.05)  # one pair: no adjustment
    t = ll144.impact_ratio_table(pd.DataFrame({"category": ["F", "M"], "n": [100, 100], "selected": [30, 50]}))
    assert t.loc[0, "ci_low"] == pytest.approx(float(lo)) and t.loc[0, "ci_high"] == pytest.approx(float(hi))
    assert t.loc[1, "ci_low"] == pytest.approx(min(1.0, 1 / float(hi))) and t.loc[1, "ci_high"] == 1.0


def test_properties_on_random_tables():
    rng = np.random.default_rng(3)
    for _ in range(15):
        k = int(rng.integers(2, 7))
        n = rng.integers(5, 200, size=k)
        sel = rng.binomial(n, rng.uniform(0.05, 0.95, size=k))
        t = ll144.impact_ratio_table(pd.DataFrame({"category": list("abcdefg"[:k]), "n": n, "selected": sel}),
                                     min_share=0)
        r = t["ratio"].to_numpy()
        assert np.all((r >= 0) & (r <= 1)) and r.max() == pytest.approx(1.0)
        assert np.all(t["ci_low"] <= r + 1e-9) and np.all(r <= t["ci_high"] + 1e-9)
        assert np.all((t["ci_low"] >= 0) & (t["ci_high"] <= 1))
        box = ll144.impact_ratio_table(t[["category", "n", "selected"]], min_share=0, ratio_method="box")
        assert np.all(box["ci_low"] <= r + 1e-9) and np.all(r <= box["ci_high"] + 1e-9)


def test_chance_of_flag_exact_by_hand_and_by_simulation():
    # 20 women, 20 men, 20 selected: lowest ratio min(x, 20-x)/max(...) < 0.8 iff x <= 8 or x >= 12
    exact = ll144.chance_of_flag([20, 20], rule="median_split", n_selected=20)
    assert exact.method.startswith("exact") and exact.n_sim == 0
    assert exact.probability == pytest.approx(2 * stats.hypergeom.cdf(8, 40, 20, 20))
    # the same null by draws (an empty third colour forces the simulation)
    counts = pd.DataFrame({"n": [20, 20, 0], "selected": [10, 10, 0], "known": [True, True, False]})
    sim = ll144.chance_of_flag(counts, rule="median_split", n_sim=20_000, seed=1)
    assert sim.n_sim == 20_000
    se = np.sqrt(exact.probability * (1 - exact.probability) / sim.n_sim)
    assert abs(sim.probability - exact.probability) < 4 * se
    # the observed x = 10 is the least extreme: P(lowest <= 1) = 1
    assert ll144.chance_of_flag([20, 20], rule="median_split", n_selected=20, observed=1.0).p_value == 1.0


def test_chance_of_flag_matches_label_permutation():
    """The hypergeometric draws are the permutation null of the labels (kept group sizes, tied scores)."""
    rng = np.random.default_rng(0)
    n = 120
    df = pd.DataFrame({"g": rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2]),
                       "score": rng.integers(1, 6, n).astype(float)})
    counts = ll144.category_counts(df, "g", "score", rule="median_split")
    stated = ll144.chance_of_flag(counts, rule="median_split", n_sim=20_000, seed=2).probability
    above = (df["score"] > df["score"].median()).to_numpy()
    labels = df["g"].to_numpy()
    size = counts.set_index("category")["n"]
    flags = []
    for _ in range(2000):
        perm = rng.permutation(labels)
        rate = np.array([above[perm == c].sum() / size[c] for c in size.index])
        flags.append((rate / rate.max()).min() < ll144.FOUR_FIFTHS)
    se = np.sqrt(stated * (1 - stated) / 2000)
    assert abs(np.mean(flags) - stated) < 4 * se + 0.005


def test_probability_text_shows_bounds_and_supported_digits():
    assert ll144.format_probability(0.0, 1000) == "< 0.001"
    assert ll144.format_probability(1.0, 1000) == "> 0.999"
    assert ll144.format_probability(0.4213, 1000) == "0.42"  # MC SE 0.016: two decimals
    assert ll144.format_probability(0.4213, 100_000) == "0.421"
    assert ll144.format_probability(0.003, 10_000) == "0.003"
    r = ll144.ChanceOfFlag("selection_cut", 0.8, 0.0, 1000, "simulation", observed=0.3, p_value=1 / 1001)
    assert r.probability_text == "< 0.001" and r.p_value_text == "< 0.001"
    assert "selection_cut" in r.text and "< 0.001" in r.text


def test_chance_table_labels_both_rules():
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"gender": rng.choice(["F", "M"], 300), "race": rng.choice(["A", "B", "C"], 300),
                       "score": rng.normal(size=300)})
    t = ll144.chance_table(df, n_sim=500)
    assert list(t["rule"]) == ["median_split"] * 3 + ["selection_cut"] * 3
    assert list(t["breakdown"]) == ["sex", "race", "sex × race"] * 2
    sex = t[t["breakdown"] == "sex"]
    assert (sex["n_sim"] == 0).all()  # two categories: exact
    # a tool ignoring sex is flagged more often at the top-25% cut than at the median
    assert sex["flag_rate"].iloc[1] > sex["flag_rate"].iloc[0]


def test_bad_input_is_one_line():
    df = six_rows()
    with pytest.raises(ValueError, match="rule must be one of"):
        ll144.category_counts(df, "gender", "score", rule="top")
    with pytest.raises(ValueError, match="has no column 'sex'"):
        ll144.category_counts(df, "sex", "score", rule="median_split")
    df.loc[2, "score"] = np.nan
    with pytest.raises(ValueError, match="missing score at row 2"):
        ll144.category_counts(df, "gender", "score", rule="median_split")
    with pytest.raises(ValueError, match="select_top must be in"):
        ll144.category_counts(six_rows(), "gender", "score", rule="selection_cut", select_top=1.5)
    with pytest.raises(ValueError, match="needs n_selected"):
        ll144.chance_of_flag([10, 10], rule="median_split")


def test_ll144_sits_below_every_layer():
    """It imports only popresume.errors of the package (docs/DESIGN.md §1)."""
    import ast
    from pathlib import Path

    tree = ast.parse(Path(ll144.__file__).read_text(encoding="utf-8"))
    own = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("popresume"):
            own.add(node.module)
        elif isinstance(node, ast.Import):
            own |= {a.name for a in node.names if a.name.startswith("popresume")}
    assert own == {"popresume.errors"}


def test_chance_of_flag_with_nobody_selected_is_not_estimable():
    """Constant scores select nobody under the median split: no ratio exists, so the chance
    of a flag is not estimable (it raised IndexError)."""
    df = pd.DataFrame({"sex": ["F", "M"] * 20, "score": [5.0] * 40})
    counts = ll144.category_counts(df, "sex", "score", rule="median_split")
    assert int(counts["selected"].sum()) == 0
    r = ll144.chance_of_flag(counts, rule="median_split")
    assert np.isnan(r.probability) and r.method.startswith("not estimable")


# -- published audits: the same engine on printed counts ------------------------------------
def _published(rows):
    cat, n, sel, rate, ratio = zip(*rows)
    return pd.DataFrame({"category": cat, "known": True, "n": n, "selected": sel, "printed_rate": rate,
                         "published_ratio": ratio})


def test_published_ratios_agree_with_impact_ratio_table():
    """Whole counts: the engine's ratio on printed counts is impact_ratio_table's on the same counts."""
    counts = pd.DataFrame({"category": ["A", "B", "C", "D"], "n": [400, 300, 5, 295], "selected": [120, 60, 4, 30]})
    raw = ll144.impact_ratio_table(counts)
    pub = ll144.published_ratios(counts.assign(known=True, printed_rate=np.nan, published_ratio=np.nan))
    # share of all rows: C is 0.5% (under 2%) and out of the reference in both
    assert pub["under_2pct"].tolist() == raw["under_2pct"].tolist() == [False, False, True, False]
    np.testing.assert_allclose(pub["ratio_2pct"], raw["ratio"])
    # the maximum rule keeps C (rate 0.8) in the reference: A's ratio is 0.3 / 0.8
    assert pub.loc[0, "ratio"] == pytest.approx(0.375)


def test_published_status_by_hand():
    t = ll144.published_ratios(_published([
        ("A", 100, 50, 0.50, 1.00),        # the top category: matches
        ("B", 100, 40, 0.40, 0.80),        # 0.4 / 0.5: matches
        ("C", 100, 30.5, 0.305, 0.62),     # 0.61, 0.01 off: matches; selected is n × rate
        ("D", 100, 33, 0.33, 0.64),        # 0.66 by the maximum rule, 0.02 off: see below
        ("E", 100, 20, 0.20, 1.20),        # above 1: the audit's own comparator
        ("F", 100, 10, 0.10, 0.90),        # no reading of the printed rates gives 0.9
        ("G", 0, 0, 0.0, 0.0),             # no applicants
    ]))
    s = dict(zip(t["category"], t["status"]))
    assert s["A"] == s["B"] == s["C"] == "matches"
    assert s["E"] == "own comparator" and s["F"] == "not reproducible from the printed rates"
    assert s["G"] == "no counts"
    assert t["counts_reconstructed"].tolist() == [False, False, True, False, False, False, False]
    # D: 0.33 / 0.5 = 0.66 is 0.02 off; the rounding range is [0.325 / 0.505, 0.335 / 0.495] = [0.644, 0.677],
    # 0.64 is within 0.01 of it
    assert s["D"] == "rounding"


def test_published_own_comparator_and_under_2pct():
    # the audit printed B as 1.00: A's 0.9 is 0.45 / 0.5, not 0.45 / 0.6 (C, the top rate)
    t = ll144.published_ratios(_published([("A", 500, 225, 0.45, 0.90), ("B", 400, 200, 0.50, 1.00),
                                           ("C", 300, 180, 0.60, 1.20)]))
    assert t["status"].tolist() == ["own comparator", "own comparator", "own comparator"]
    assert t.loc[0, "own_comparator"] == "B" and t.loc[0, "ratio_own"] == pytest.approx(0.9)
    # a category of 1% with the top rate: the published ratios leave it out of the reference
    t = ll144.published_ratios(_published([("A", 600, 240, 0.40, 0.80), ("B", 390, 195, 0.50, 1.00),
                                           ("S", 10, 9, 0.90, 1.80)]))
    assert t["under_2pct"].tolist() == [False, False, True]
    assert t.loc[0, "status"] == "under-2% rule" and t.loc[0, "ratio"] == pytest.approx(0.4 / 0.9)


def test_published_ratio_above_one_is_never_not_reproducible():
    rng = np.random.default_rng(4)
    for _ in range(200):
        k = rng.integers(2, 6)
        n = rng.integers(0, 200, k)
        sel = np.floor(n * rng.uniform(0, 1, k))
        t = ll144.published_ratios(_published(zip(list("ABCDEF")[:k], n, sel, np.round(sel / np.maximum(n, 1), 2),
                                                  np.round(rng.uniform(0, 1.6, k), 2))))
        assert set(t["status"]) <= set(ll144.PUBLISHED_STATUSES)
        above = t["published_ratio"] > 1
        assert not t.loc[above, "status"].eq("not reproducible from the printed rates").any()


def test_four_fifths_literal_lives_in_ll144_only():
    """The threshold is written once: no 0.8 in the decisions package, the LL144 chapter or their tests."""
    import pathlib
    import re

    root = pathlib.Path(__file__).resolve().parents[1]
    files = [*sorted((root / "popresume" / "decisions").glob("*.py")), root / "notebooks" / "08d_ll144_published.py"]
    literal = re.compile(r"(?<![\d.])0\.80?(?![\d])|0_8")
    hits = [f"{f.name}:{i}" for f in files for i, line in enumerate(f.read_text().splitlines(), 1)
            if literal.search(line)]
    assert hits == []
    assert ll144.CHANCE_COLUMN == "chance_below_0_8"


def test_chance_below_exact_by_hand_and_against_the_draws():
    """Two categories of 30 and 50, 40 selected: the first's count x is hypergeometric, its
    ratio x/30 over the higher rate; summed by hand, and the draws agree within their error."""
    x = np.arange(0, 31)
    pmf = stats.hypergeom.pmf(x, 80, 30, 40)
    r0, r1 = x / 30, (40 - x) / 50
    ratio0 = r0 / np.maximum(r0, r1)
    below, p = ll144.chance_below_exact([30, 50], 40, observed=np.array([0.7, 1.0]))
    assert below[0] == pytest.approx(pmf[ratio0 < ll144.FOUR_FIFTHS].sum(), abs=1e-12)
    assert p[0] == pytest.approx(pmf[ratio0 <= 0.7 + 1e-9].sum(), abs=1e-12) and p[1] == pytest.approx(1.0)
    drawn, p_drawn = ll144.chance_below(np.array([30, 50]), 40, np.array([True, True]),
                                        observed=np.array([0.7, 1.0]), n_sim=40_000, seed=2)
    np.testing.assert_allclose(drawn, below, atol=0.01)
    np.testing.assert_allclose(p_drawn, p, atol=0.01)
