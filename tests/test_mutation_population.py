"""Population (P1 summaries) and P2 (experience) statistics against closed forms and
scipy/statsmodels references, through the public functions only.

Written to kill the mutants ``scripts/mutation.py population`` found alive.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.contingency_tables import Table2x2

from popresume import experience, population
from popresume.schema import EDU_LEVELS

HS, SOME, ASSOC, BA, MA = EDU_LEVELS[:5]


def _profiles(rows):
    """rows: (occupation, gender, race, age, edu_level, count)."""
    out = []
    for occ, g, r, age, edu, k in rows:
        out += [dict(occupation=occ, gender=g, race=r, age=age, edu_level=edu, exp_year=max(age - 22, 0))] * k
    return pd.DataFrame(out)


P = _profiles([
    ("nurse", "F", "White", 30, BA, 6), ("nurse", "F", "Black", 30, ASSOC, 3), ("nurse", "M", "White", 40, ASSOC, 4),
    ("nurse", "M", "API", 40, BA, 2), ("nurse", "F", "White", 22, BA, 5),  # the 22-year-olds are below 25
    ("teacher", "F", "White", 35, MA, 2), ("teacher", "M", "Black", 28, HS, 2),
])


def test_log_odds_ratio_matches_statsmodels_with_half_counts():
    # nurses 25+: F BA+ 6, F Assoc 3; M BA+ 2, M Assoc 4 (+0.5 each cell)
    lor, se = population.log_odds_ratio(P, "nurse", "gender", "F", "M", (BA, MA), ASSOC)
    ref = Table2x2(np.array([[6.5, 3.5], [2.5, 4.5]]))
    assert lor == pytest.approx(ref.log_oddsratio)
    assert se == pytest.approx(ref.log_oddsratio_se)
    # swapping the groups flips the sign, not the SE
    lor2, se2 = population.log_odds_ratio(P, "nurse", "gender", "M", "F", (BA, MA), ASSOC)
    assert lor2 == pytest.approx(-lor) and se2 == pytest.approx(se)
    # min_age=18 brings in five more F BA+ rows
    lor18, _ = population.log_odds_ratio(P, "nurse", "gender", "F", "M", BA, ASSOC, min_age=18)
    assert lor18 == pytest.approx(Table2x2(np.array([[11.5, 3.5], [2.5, 4.5]])).log_oddsratio)


def test_association_tests_match_scipy_and_skip_degenerate_tables():
    t = population.association_tests(P, pairs=(("gender", "edu_level"),)).set_index("occupation")
    nurse = P[P.occupation == "nurse"]
    ref = stats.chi2_contingency(pd.crosstab(nurse["gender"], nurse["edu_level"]).to_numpy())
    assert t.loc["nurse", "chi2"] == pytest.approx(ref[0])
    assert t.loc["nurse", "p_value"] == pytest.approx(ref[1])
    assert t.loc["nurse", "dof"] == 1 and t.loc["nurse", "n"] == 20
    assert t.loc["nurse", "pair"] == "gender × edu_level"
    # teachers: gender and education perfectly aligned (2 x 2, dof 1)
    assert t.loc["teacher", "dof"] == 1
    one = population.association_tests(P[P.gender == "F"], pairs=(("gender", "edu_level"),))
    assert one["dof"].tolist() == [0, 0] and one["chi2"].isna().all() and one["p_value"].isna().all()


def test_ba_plus_shares_by_hand():
    s = population.ba_plus_shares(P, "gender").set_index(["occupation", "gender"])
    assert s.loc[("nurse", "F"), "share_ba_plus"] == pytest.approx(6 / 9)
    assert s.loc[("nurse", "F"), "n"] == 9
    assert s.loc[("nurse", "M"), "share_ba_plus"] == pytest.approx(2 / 6)
    assert s.loc[("teacher", "F"), "share_ba_plus"] == 1.0 and s.loc[("teacher", "M"), "share_ba_plus"] == 0.0
    young = population.ba_plus_shares(P, "gender", min_age=18).set_index(["occupation", "gender"])
    assert young.loc[("nurse", "F"), "share_ba_plus"] == pytest.approx(11 / 14)


def test_summarize_by_hand():
    s = population.summarize(P)
    assert list(s.index) == ["nurse", "teacher"]
    assert s.loc["nurse", "n"] == 20
    assert s.loc["nurse", "pct_women"] == pytest.approx(70.0)
    assert s.loc["nurse", "pct_White"] == pytest.approx(75.0)
    assert s.loc["nurse", "pct_Black"] == pytest.approx(15.0) and s.loc["nurse", "pct_API"] == pytest.approx(10.0)
    assert s.loc["nurse", "mean_age"] == pytest.approx(round((6 * 30 + 3 * 30 + 4 * 40 + 2 * 40 + 5 * 22) / 20, 1))
    assert s.loc["nurse", "pct_bachelor_plus"] == pytest.approx(65.0)
    assert s.loc["teacher", "pct_bachelor_plus"] == pytest.approx(50.0)
    assert s.loc["teacher", "mean_exp_year"] == pytest.approx((2 * 13 + 2 * 6) / 4)


def test_edu_years_and_unknown_level():
    np.testing.assert_array_equal(experience.edu_years([HS, SOME, ASSOC, BA]), [12.0, 13.0, 14.0, 16.0])
    with pytest.raises(ValueError, match=r"^unknown edu_level 'PhD'; expected one of \["):
        experience.edu_years([HS, "PhD"])


def test_hierarchical_sigma_closed_form():
    # weights 1: cell variance is the mean square residual; shrink toward the parent with n = count
    r = np.array([1.0, -1.0, 2.0, -2.0, 3.0, -3.0])
    age = np.array([25, 26, 25, 41, 42, 43])
    g = np.array(["F", "F", "F", "M", "M", "M"])
    w = np.ones(6)
    k = 2.0
    t = experience.hierarchical_sigma(r, age, g, w, shrinkage=k).set_index(["level", "gender", "age_band"])
    v_all = np.mean(r ** 2)
    assert t.loc[("all", "*", -1), "sigma"] == pytest.approx(np.sqrt(v_all))
    assert t.loc[("all", "*", -1), "n_eff"] == pytest.approx(6)
    v_f = (3 * np.mean(r[:3] ** 2) + k * v_all) / (3 + k)
    assert t.loc[("gender", "F", -1), "sigma"] == pytest.approx(np.sqrt(v_f))
    v_m = (3 * np.mean(r[3:] ** 2) + k * v_all) / (3 + k)
    # M ages 41, 42, 43 are in band 40; F ages 25, 26 in band 25
    cell = (3 * np.mean(r[3:] ** 2) + k * v_m) / (3 + k)
    assert t.loc[("gender×age", "M", 40), "sigma"] == pytest.approx(np.sqrt(cell))
    # the F cell holds the whole F group, shrunk once more toward the F level
    cell_f = (3 * np.mean(r[:3] ** 2) + k * v_f) / (3 + k)
    assert t.loc[("gender×age", "F", 25), "sigma"] == pytest.approx(np.sqrt(cell_f))
    # unequal weights: Kish's effective n = (sum w)^2 / sum w^2
    w2 = np.array([1.0, 3.0, 1.0, 1.0, 1.0, 1.0])
    t2 = experience.hierarchical_sigma(r, age, g, w2, shrinkage=k).set_index(["level", "gender", "age_band"])
    assert t2.loc[("gender", "F", -1), "n_eff"] == pytest.approx(25 / 11)
    assert t2.loc[("all", "*", -1), "sigma"] == pytest.approx(np.sqrt(np.sum(w2 * r ** 2) / w2.sum()))
    only_f = experience.hierarchical_sigma(r[:3], age[:3], g[:3], w[:3], shrinkage=k).set_index(["level", "gender"])
    assert only_f.loc[("gender", "M"), "n_eff"] == 0  # an absent gender falls back to the overall σ
    assert only_f.loc[("gender", "M"), "sigma"] == pytest.approx(np.sqrt(np.mean(r[:3] ** 2)))


def test_truncnorm_sample_matches_scipy_moments():
    rng = np.random.default_rng(0)
    mu, sigma, lo, hi = 3.0, 4.0, 0.0, 10.0
    x = experience.truncnorm_sample(np.full(40000, mu), sigma, lo, hi, rng)
    ref = stats.truncnorm((lo - mu) / sigma, (hi - mu) / sigma, loc=mu, scale=sigma)
    assert x.min() >= lo and x.max() <= hi
    assert x.mean() == pytest.approx(ref.mean(), abs=4 * ref.std() / 200)
    assert x.std() == pytest.approx(ref.std(), rel=0.03)
    assert stats.kstest(x[:5000], ref.cdf).pvalue > 1e-3


def test_truncnorm_sample_far_tails_fall_back_to_the_bound():
    rng = np.random.default_rng(1)
    x = experience.truncnorm_sample([-500.0, 500.0, 5.0], [1.0, 1.0, 1e-12], 0.0, 10.0, rng)
    np.testing.assert_allclose(x, [0.0, 10.0, 5.0])


class _FixedClassifier:
    """Says P(target | x) = 0.2 + 0.6 * (female) whatever it was fitted on."""

    def fit(self, X, y, sample_weight=None):
        self.fitted = (len(X), float(np.sum(sample_weight)))
        return self

    def predict_proba(self, X):
        c = 0.2 + 0.6 * X[:, 5]  # column 5 of the classifier design is the female indicator
        return np.column_stack([1 - c, c])


def test_density_ratio_weights_are_the_odds_rescaled_to_mean_one():
    src = pd.DataFrame({"age": [30, 30, 40, 40], "gender": ["F", "M", "M", "M"], "educ_years": [16.0] * 4})
    tgt = pd.DataFrame({"age": [30, 35], "gender": ["F", "F"], "educ_years": [16.0, 14.0]})
    clf = _FixedClassifier()
    w = experience.density_ratio_weights(src, tgt, classifier=clf, clip_quantile=None)
    odds = np.array([4.0, 0.25, 0.25, 0.25])  # 0.8/0.2 for F, 0.2/0.8 for M
    np.testing.assert_allclose(w, odds / odds.mean())
    # the two classes are balanced: total weight = number of rows, half to each class
    assert clf.fitted == (6, pytest.approx(6.0))
    clipped = experience.density_ratio_weights(src, tgt, classifier=_FixedClassifier(), clip_quantile=0.5)
    assert clipped.mean() == pytest.approx(1.0) and np.ptp(clipped) == pytest.approx(0.0)
    with pytest.raises(ValueError, match=r"^target weights must be non-negative with a positive sum$"):
        experience.density_ratio_weights(src, tgt, target_weight=[1.0, -1.0], classifier=_FixedClassifier())
    with pytest.raises(ValueError, match="positive sum"):
        experience.density_ratio_weights(src, tgt, target_weight=[0.0, 0.0], classifier=_FixedClassifier())


def test_density_ratio_weights_recover_a_known_shift():
    # source ages uniform on 25..44, target twice as dense above 35: the weights' ratio ~ 2
    rng = np.random.default_rng(2)
    n = 4000
    age_s = rng.integers(25, 45, n)
    age_t = np.where(rng.random(n) < 2 / 3, rng.integers(35, 45, n), rng.integers(25, 35, n))
    src = pd.DataFrame({"age": age_s, "gender": "F", "educ_years": 16.0})
    tgt = pd.DataFrame({"age": age_t, "gender": "F", "educ_years": 16.0})
    w = experience.density_ratio_weights(src, tgt, clip_quantile=None)
    assert w.mean() == pytest.approx(1.0)
    ratio = w[age_s >= 35].mean() / w[age_s < 35].mean()
    assert 1.6 < ratio < 2.5  # the true ratio is 2; the quadratic logistic design smooths the step


class _Recorder:
    """Records what density_ratio_weights fits on and returns fixed probabilities ``c``."""

    def __init__(self, c):
        self.c = np.asarray(c, float)

    def fit(self, X, y, sample_weight=None):
        self.X, self.y, self.sw = np.asarray(X), np.asarray(y), np.asarray(sample_weight)
        return self

    def predict_proba(self, X):
        self.Xp = np.asarray(X)
        return np.column_stack([1 - self.c, self.c])


def _design_by_hand(age, female, educ, black=None, gender_term=True):
    a, e = (np.asarray(age, float) - 35.0) / 10.0, (np.asarray(educ, float) - 14.0) / 3.0
    f = np.asarray(female, float)
    cols = [a, a ** 2, e, e ** 2, a * e] + ([f, f * a, f * e] if gender_term else [])
    if black is not None:
        cols.append(np.asarray(black, float))
    return np.column_stack(cols)


def test_density_ratio_weights_design_labels_and_balanced_sample_weights():
    src = pd.DataFrame({"age": [25, 45, 35], "gender": ["F", "M", "F"], "educ_years": [12.0, 16.0, 17.0],
                        "race": ["Black", "White", None]})
    tgt = pd.DataFrame({"age": [55, 30], "gender": ["M", "F"], "educ_years": [14.0, 18.0],
                        "race": ["White", "Black"]})
    c = [0.5, 0.75, 0.2]
    rec = _Recorder(c)
    w = experience.density_ratio_weights(src, tgt, classifier=rec, clip_quantile=None,
                                         source_weight=[1.0, 2.0, 1.0], target_weight=[3.0, 1.0])
    xs = _design_by_hand([25, 45, 35], [1, 0, 1], [12, 16, 17], [1, 0, 0])
    xt = _design_by_hand([55, 30], [0, 1], [14, 18], [0, 1])
    np.testing.assert_allclose(rec.X, np.vstack([xs, xt]))
    np.testing.assert_allclose(rec.Xp, xs)  # probabilities are asked for the source rows only
    np.testing.assert_array_equal(rec.y, [0, 0, 0, 1, 1])
    # each class has total weight n/2 = 2.5, split within the class by its base weights
    np.testing.assert_allclose(rec.sw, [2.5 / 4, 5.0 / 4, 2.5 / 4, 2.5 * 3 / 4, 2.5 / 4])
    odds = np.array([1.0, 3.0 * 2.0, 0.25])  # c/(1-c) times the source base weight
    np.testing.assert_allclose(w, odds / odds.mean())
    # without a race column on either side there is no race column in the design
    rec2 = _Recorder(c)
    experience.density_ratio_weights(src.drop(columns="race"), tgt, classifier=rec2, gender_term=False)
    np.testing.assert_allclose(rec2.X, np.vstack([_design_by_hand([25, 45, 35], [1, 0, 1], [12, 16, 17], gender_term=False),
                                                  _design_by_hand([55, 30], [0, 1], [14, 18], gender_term=False)]))
    rec3 = _Recorder(c)
    experience.density_ratio_weights(src, tgt.drop(columns="race"), classifier=rec3)
    assert rec3.X.shape == (5, 8)


def test_density_ratio_weights_clip_probabilities_and_quantile():
    src = pd.DataFrame({"age": [30, 31, 32, 33, 34], "gender": ["F"] * 5, "educ_years": [16.0] * 5})
    tgt = pd.DataFrame({"age": [30], "gender": ["F"], "educ_years": [16.0]})
    # c = 0 and 1 are clipped to 1e-6 and 1 - 1e-6 before the odds
    c = np.array([0.0, 1.0, 0.5, 0.5, 0.5])
    w = experience.density_ratio_weights(src, tgt, classifier=_Recorder(c), clip_quantile=None)
    odds = np.array([1e-6 / (1 - 1e-6), (1 - 1e-6) / 1e-6, 1.0, 1.0, 1.0])
    np.testing.assert_allclose(w, odds / odds.mean(), rtol=1e-9)
    # clip at the 0.75 quantile (numpy's linear rule): odds 1, 3, 1, 9, 1/3 -> sorted 1/3,1,1,3,9; q = 3
    c2 = np.array([0.5, 0.75, 0.5, 0.9, 0.25])
    w2 = experience.density_ratio_weights(src, tgt, classifier=_Recorder(c2), clip_quantile=0.75)
    capped = np.array([1.0, 3.0, 1.0, 3.0, 1 / 3])
    np.testing.assert_allclose(w2, capped / capped.mean())
    # clip_quantile=1 leaves the weights unclipped
    w3 = experience.density_ratio_weights(src, tgt, classifier=_Recorder(c2), clip_quantile=1.0)
    raw = np.array([1.0, 3.0, 1.0, 9.0, 1 / 3])
    np.testing.assert_allclose(w3, raw / raw.mean())
    # default clip is the 0.99 quantile
    w4 = experience.density_ratio_weights(src, tgt, classifier=_Recorder(c2))
    q = np.quantile(raw, 0.99)
    np.testing.assert_allclose(w4, np.minimum(raw, q) / np.minimum(raw, q).mean())


class _FixedUniforms:
    """A stand-in generator whose ``random(shape)`` returns the given uniforms."""

    def __init__(self, u):
        self.u = np.asarray(u, float)

    def random(self, shape):
        return np.broadcast_to(self.u, shape).copy()


def test_truncnorm_sample_is_scipys_inverse_cdf_at_the_uniforms():
    u = np.array([0.1, 0.5, 0.9, 0.25, 0.999])
    mu = np.array([3.0, -2.0, 8.0, 5.0, 0.5])
    sigma = np.array([4.0, 1.5, 2.0, 0.5, 3.0])
    lo = np.array([0.0, -3.0, 1.0, 4.0, 0.0])
    hi = np.array([10.0, 4.0, 9.0, 5.5, 2.0])
    x = experience.truncnorm_sample(mu, sigma, lo, hi, _FixedUniforms(u))
    ref = stats.truncnorm.ppf(u, (lo - mu) / sigma, (hi - mu) / sigma, loc=mu, scale=sigma)
    np.testing.assert_allclose(x, ref, rtol=1e-7, atol=1e-9)
    # scalars broadcast against an array of means; the shape asked of the generator is the broadcast one
    x2 = experience.truncnorm_sample(mu, 2.0, 0.0, 6.0, _FixedUniforms(0.5))
    ref2 = stats.truncnorm.ppf(0.5, (0.0 - mu) / 2.0, (6.0 - mu) / 2.0, loc=mu, scale=2.0)
    np.testing.assert_allclose(x2, ref2, rtol=1e-7)
    # u at the ends stays inside the bounds
    x3 = experience.truncnorm_sample([0.0, 0.0], 1.0, -1.0, 1.0, _FixedUniforms([0.0, 1.0 - 1e-17]))
    np.testing.assert_allclose(x3, [-1.0, 1.0], atol=1e-6)


def test_truncnorm_sample_degenerate_and_zero_sigma():
    # sigma 0 is floored: draws sit at mu (inside) or at the nearer bound (outside)
    x = experience.truncnorm_sample([5.0, -1.0, 12.0], 0.0, 0.0, 10.0, _FixedUniforms(0.3))
    np.testing.assert_allclose(x, [5.0, 0.0, 10.0], atol=1e-6)
    # far tails with a real sigma: both CDF values round to the same number
    x = experience.truncnorm_sample([-100.0, 100.0], 1.0, 0.0, 10.0, _FixedUniforms(0.7))
    np.testing.assert_array_equal(x, [0.0, 10.0])
    # an interval of CDF mass just above 1e-12 is sampled, not collapsed to the bound
    mu, lo, hi = 0.0, 7.0, 8.0  # P(7 < Z < 8) ~ 1.3e-12
    assert stats.norm.sf(7) - stats.norm.sf(8) > 1e-12
    x = experience.truncnorm_sample(mu, 1.0, lo, hi, _FixedUniforms(0.5))
    assert lo < float(x) < hi


# teachers first (not alphabetical), shares that need rounding, an age exactly 25
Q = _profiles([
    ("teacher", "F", "White", 25, BA, 1), ("teacher", "M", "Black", 26, HS, 2),
    ("nurse", "F", "API", 25, MA, 1), ("nurse", "M", "White", 24, BA, 1), ("nurse", "F", "Black", 30, SOME, 1),
    ("nurse", "M", "White", 31, ASSOC, 1),
])


def test_summarize_keeps_first_seen_order_and_rounds_to_one_decimal():
    s = population.summarize(Q)
    assert list(s.index) == ["teacher", "nurse"]
    assert list(s.columns) == ["n", "pct_women", "pct_White", "pct_Black", "pct_API", "mean_age", "mean_exp_year",
                               "pct_bachelor_plus"]
    assert s.loc["teacher", "n"] == 3
    assert s.loc["teacher", "pct_women"] == 33.3  # 100/3 rounded to one decimal
    assert s.loc["teacher", "pct_Black"] == 66.7 and s.loc["teacher", "pct_White"] == 33.3
    assert s.loc["teacher", "pct_API"] == 0.0
    assert s.loc["teacher", "mean_age"] == 25.7  # 77/3
    assert s.loc["teacher", "mean_exp_year"] == 3.7  # (3 + 4 + 4)/3
    assert s.loc["teacher", "pct_bachelor_plus"] == 33.3
    assert s.loc["nurse", "pct_bachelor_plus"] == 50.0 and s.loc["nurse", "pct_API"] == 25.0


def test_ba_plus_shares_sorted_and_age_25_included():
    s = population.ba_plus_shares(Q, "gender")
    assert list(s.columns) == ["occupation", "gender", "share_ba_plus", "n"]
    assert s[["occupation", "gender"]].values.tolist() == [["nurse", "F"], ["nurse", "M"], ["teacher", "F"],
                                                            ["teacher", "M"]]
    # nurse F: ages 25 (MA) and 30 (some college); nurse M: only 31 (assoc) -- 24 is below 25
    assert s["share_ba_plus"].tolist() == [0.5, 0.0, 1.0, 0.0]
    assert s["n"].tolist() == [2, 1, 1, 2]
    r = population.ba_plus_shares(Q, "race", min_age=26).set_index(["occupation", "race"])
    assert list(r.index) == [("nurse", "Black"), ("nurse", "White"), ("teacher", "Black")]
    assert r["n"].tolist() == [1, 1, 2]


def test_log_odds_ratio_age_boundary_single_levels_and_occupation_filter():
    # nurse, F vs M, high = Master's (a string), low = some college + associate's (a list)
    lor, se = population.log_odds_ratio(Q, "nurse", "gender", "F", "M", MA, [SOME, ASSOC])
    # F: MA 1 (age 25 counts), low 1; M: MA 0, low 1 (the 24-year-old BA is out anyway)
    n = np.array([[1.5, 1.5], [0.5, 1.5]])
    assert lor == pytest.approx(np.log(1.5 / 1.5) - np.log(0.5 / 1.5))
    assert se == pytest.approx(np.sqrt((1 / n).sum()))
    # min_age=24 brings in the M BA row only when BA counts as high
    lor24, se24 = population.log_odds_ratio(Q, "nurse", "gender", "F", "M", (BA, MA), (SOME, ASSOC), min_age=24)
    assert lor24 == pytest.approx(np.log(1.5 / 1.5) - np.log(1.5 / 1.5))
    assert se24 == pytest.approx(np.sqrt(4 / 1.5))
    # teachers: F BA 1, low none; M HS 2 (a string low level)
    lt, st = population.log_odds_ratio(Q, "teacher", "gender", "F", "M", BA, HS)
    assert lt == pytest.approx(np.log(1.5 / 0.5) - np.log(0.5 / 2.5))
    assert st == pytest.approx(np.sqrt(1 / 1.5 + 1 / 0.5 + 1 / 0.5 + 1 / 2.5))


def test_association_tests_order_names_and_counts():
    t = population.association_tests(Q)
    assert list(t.columns) == ["occupation", "pair", "chi2", "dof", "p_value", "n"]
    assert t["occupation"].tolist() == ["teacher", "teacher", "nurse", "nurse"]
    assert t["pair"].tolist() == ["gender × edu_level", "race × edu_level"] * 2
    assert t["n"].tolist() == [3, 3, 4, 4]
    nurse = Q[Q.occupation == "nurse"]
    ref = stats.chi2_contingency(pd.crosstab(nurse["race"], nurse["edu_level"]).to_numpy())
    row = t.iloc[3]
    assert row["chi2"] == pytest.approx(ref[0]) and row["p_value"] == pytest.approx(ref[1])
    assert row["dof"] == (3 - 1) * (4 - 1)
    assert isinstance(row["dof"], (int, np.integer))
    # categorical columns with unused levels: the empty rows/columns are dropped before the test
    cat = nurse.assign(race=pd.Categorical(nurse["race"], categories=["White", "Black", "API", "Other"]),
                       edu_level=pd.Categorical(nurse["edu_level"], categories=list(EDU_LEVELS)))
    tc = population.association_tests(cat, pairs=(("race", "edu_level"),))
    assert tc.loc[0, "dof"] == 6 and tc.loc[0, "chi2"] == pytest.approx(ref[0])


def test_density_ratio_weights_default_classifier_is_sklearns_default_logistic_regression():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(3)
    n = 300
    src = pd.DataFrame({"age": rng.integers(22, 50, n), "gender": rng.choice(["F", "M"], n),
                        "educ_years": rng.choice([12.0, 14.0, 16.0, 18.0], n)})
    tgt = pd.DataFrame({"age": rng.integers(30, 60, n), "gender": rng.choice(["F", "M"], n, p=[0.7, 0.3]),
                        "educ_years": rng.choice([12.0, 16.0], n)})
    w = experience.density_ratio_weights(src, tgt, clip_quantile=None)
    ref = experience.density_ratio_weights(src, tgt, clip_quantile=None,
                                           classifier=LogisticRegression(tol=1e-10, max_iter=10000))
    np.testing.assert_allclose(w, ref, rtol=0.01)  # the default stops at tol 1e-4; C = 2 differs by 9%


def test_truncnorm_sample_each_argument_can_carry_the_shape():
    # one array argument, the others scalars: every draw gets its own uniform
    rng = np.random.default_rng(4)
    for kw in (dict(sigma=np.ones(50)), dict(lo=np.full(50, -1.0)), dict(hi=np.full(50, 1.0))):
        args = dict(mu=0.0, sigma=1.0, lo=-1.0, hi=1.0) | kw
        x = experience.truncnorm_sample(args["mu"], args["sigma"], args["lo"], args["hi"], rng)
        assert x.shape == (50,) and len(np.unique(x)) == 50
    # object-dtype numbers (a pandas object column) are read as floats
    x = experience.truncnorm_sample(np.array([1.0, 2.0], dtype=object), np.array([1.0, 1.0], dtype=object),
                                    0.0, 3.0, _FixedUniforms(0.5))
    np.testing.assert_allclose(x, stats.truncnorm.ppf(0.5, [-1.0, -2.0], [2.0, 1.0], loc=[1.0, 2.0]))


def test_truncnorm_sample_stays_finite_and_inside_the_bounds_at_the_extremes():
    # infinite bounds: u = 0, or p rounding to 1, must not give an infinite draw
    x = experience.truncnorm_sample([0.0, 0.0], 1.0, [-np.inf, 0.5], np.inf, _FixedUniforms([0.0, 1 - 2.0 ** -53]))
    assert np.isfinite(x).all() and x[0] < -5 and x[1] > 5
    # the inverse CDF far in a tail rounds a little past the bound: the draw is put back on it
    assert special_round_trip_below(7.0)
    x = experience.truncnorm_sample(0.0, 1.0, 7.0, np.inf, _FixedUniforms(0.0))
    assert float(x) >= 7.0
    x = experience.truncnorm_sample(0.0, 1.0, 6.0, 6.5, _FixedUniforms(1 - 2.0 ** -53))
    assert 6.0 <= float(x) <= 6.5
    # CDF mass below 1e-12 (P(7.2 < Z < 8) ~ 3e-13): the draw collapses onto the nearer bound
    assert stats.norm.sf(7.2) - stats.norm.sf(8.0) < 1e-12
    x = experience.truncnorm_sample([0.0, 0.0], 1.0, [7.2, -8.0], [8.0, -7.2], _FixedUniforms(0.5))
    np.testing.assert_array_equal(x, [7.2, -7.2])


def special_round_trip_below(z):
    """True when Phi^-1(Phi(z)) < z in floating point (so the unclipped draw would leave [z, inf))."""
    from scipy import special

    return bool(special.ndtri(special.ndtr(z)) < z)


def test_density_ratio_weights_options_at_their_edges():
    src = pd.DataFrame({"age": [30, 31, 32], "gender": ["F", "M", "F"], "educ_years": [16.0] * 3})
    tgt = pd.DataFrame({"age": [30, 40], "gender": ["F", "M"], "educ_years": [16.0, 12.0]})
    c = np.array([0.5, 0.75, 0.9])
    raw = np.array([1.0, 3.0, 9.0])
    # any clip_quantile of 1 or more leaves the weights unclipped
    w = experience.density_ratio_weights(src, tgt, classifier=_Recorder(c), clip_quantile=1.5)
    np.testing.assert_allclose(w, raw / raw.mean())
    # a zero target weight is allowed (only negative ones, or a zero total, are refused)
    rec = _Recorder(c)
    experience.density_ratio_weights(src, tgt, classifier=rec, target_weight=[0.0, 2.0])
    np.testing.assert_allclose(rec.sw, [2.5 / 3] * 3 + [0.0, 2.5])
    # weights that arrive as object-dtype numbers are read as floats
    rec = _Recorder(c)
    w = experience.density_ratio_weights(src, tgt, classifier=rec, clip_quantile=None,
                                         target_weight=np.array([1, 3], dtype=object),
                                         source_weight=np.array([1, 1, 2], dtype=object))
    assert rec.sw.dtype == np.float64 and w.dtype == np.float64
    np.testing.assert_allclose(rec.sw, [2.5 / 4, 2.5 / 4, 5.0 / 4, 2.5 / 4, 7.5 / 4])
    np.testing.assert_allclose(w, np.array([1.0, 3.0, 18.0]) / 22 * 3)


def test_association_tests_a_degenerate_pair_does_not_hide_the_next_pair():
    only_f = Q[(Q.gender == "F") & (Q.occupation == "nurse")]  # API MA, Black some college
    t = population.association_tests(only_f)
    assert t["pair"].tolist() == ["gender × edu_level", "race × edu_level"]
    assert t.loc[0, "dof"] == 0 and np.isnan(t.loc[0, "chi2"])
    ref = stats.chi2_contingency(pd.crosstab(only_f["race"], only_f["edu_level"]).to_numpy())
    assert t.loc[1, "dof"] == 1 and t.loc[1, "chi2"] == pytest.approx(ref[0])


def test_density_ratio_weights_default_fit_converges_on_a_concentrated_target():
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    rng = np.random.default_rng(0)
    n = 20000  # a target packed into one corner of a wide source: lbfgs needs over 100 iterations
    src = pd.DataFrame({"age": rng.integers(18, 90, n), "gender": rng.choice(["F", "M"], n),
                        "educ_years": rng.choice([12.0, 20.0], n), "race": rng.choice(["Black", "White"], n)})
    tgt = pd.DataFrame({"age": rng.integers(85, 90, 50), "gender": "F", "educ_years": 20.0, "race": "Black"})
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        w = experience.density_ratio_weights(src, tgt, clip_quantile=None)
    assert np.isfinite(w).all() and w.mean() == pytest.approx(1.0)


# ---------------------------------------------------------------- sample_occupation and experience_model
# Small real inputs: a hand-made tidy ACS extract (so P̂1 has a few cells with known weights) and,
# for P2, a synthetic user table recording race and collar on every row. Every expected draw is
# rebuilt here by inverse-CDF lookups in NumPy, consuming one generator in the documented order
# P1 → P2 → P3 (first names) → P4 (surnames), n uniforms each.
from popresume.experience import fit_experience_model  # noqa: E402
from popresume.sources.experience_data import load_experience_source  # noqa: E402
from popresume.sources.names import first_name_table, surname_table  # noqa: E402

LABORER = "construction_laborer"  # blue collar: the trees' missing-collar branch is the white one
# (gender, race, age, state, edu_level, person weight); men only at age 30, women at 30 and 31
ACS_CELLS = [("F", "White", 30, "CA", BA, 5.0), ("F", "White", 31, "NY", HS, 1.0),
             ("F", "Black", 31, "TX", ASSOC, 3.0), ("M", "Black", 30, "NY", MA, 2.0),
             ("M", "API", 30, "WA", BA, 1.0), ("M", "White", 30, "OH", SOME, 2.0)]
REGION = {"CA": "West", "NY": "Northeast", "TX": "South", "WA": "West", "OH": "Midwest"}
EDU_YEARS_BY_HAND = {HS: 12.0, SOME: 13.0, ASSOC: 14.0, BA: 16.0, MA: 18.0}


def _acs(cells, occupation=LABORER, occ_code=6260):
    return pd.DataFrame([dict(occupation=occupation, occ_code=occ_code, year=2023, gender=g, race=r, hispanic=False,
                              age=a, state=s, edu_level=e, employed=True, weight=w) for g, r, a, s, e, w in cells])


def _p1(cells):
    """P̂1 by hand: the cells sorted by (gender, race, age, state, edu_level), p = weight / total."""
    cells = sorted(cells)
    w = np.array([c[-1] for c in cells])
    return pd.DataFrame([c[:-1] for c in cells], columns=["gender", "race", "age", "state", "edu_level"]).assign(
        p=w / w.sum())


def _target(cells):
    """What P2 is reweighted to: P̂1 summed over state, by (age, gender, race, edu_level)."""
    tot = {}
    for g, r, a, s, e, w in cells:
        tot[(a, g, r, e)] = tot.get((a, g, r, e), 0.0) + w
    keys = sorted(k for k, v in tot.items() if v > 0)
    w = np.array([tot[k] for k in keys])
    return pd.DataFrame(keys, columns=["age", "gender", "race", "edu_level"]), w / w.sum()


def _user_source(n=500, seed=11):
    """An experience table whose share of potential years worked falls with Black race and blue collar."""
    rng = np.random.default_rng(seed)
    age = rng.integers(20, 56, n)
    black, white_collar = rng.random(n) < 0.4, rng.random(n) < 0.5
    share = 0.95 - 0.5 * black - 0.35 * ~white_collar
    exp = np.clip(np.rint(share * (age - 18) + rng.normal(0, 1, n)), 0, age - 18)
    return pd.DataFrame({"age": age, "gender": rng.choice(["F", "M"], n), "educ_years": rng.choice([12.0, 14.0, 16.0, 18.0], n),
                         "exp_year": exp.astype(float), "race": np.where(black, "Black", "other"),
                         "collar": np.where(white_collar, "white", "blue")})


def _inverse_cdf(p, u):
    cum = np.cumsum(p)
    return np.minimum(np.searchsorted(cum, u * cum[-1], side="right"), len(cum) - 1)


@pytest.fixture
def fresh_memo(monkeypatch):
    """An empty P2 memo (and name-table cache), so each test fits what it checks."""
    monkeypatch.setattr(population, "_EXPERIENCE_CACHE", {})
    monkeypatch.setattr(population, "_NAME_CACHE", {})
    return population


def test_sample_occupation_draws_p1_then_p2_then_first_names_then_surnames(fresh_memo):
    n, src = 240, _user_source()
    out = population.sample_occupation(LABORER, n, np.random.default_rng(5), age_range=(30, 31), acs=_acs(ACS_CELLS),
                                       experience_source=src)
    assert list(out.columns) == ["resume_id", "occupation", "gender", "race", "age", "birth_year", "state", "region",
                                 "edu_level", "exp_year", "first_name", "surname"]
    assert [out[c].dtype for c in ("age", "birth_year", "exp_year")] == [np.dtype("int64")] * 3
    # the same draws by hand
    rng = np.random.default_rng(5)
    cells = sorted(ACS_CELLS)
    w = np.array([c[-1] for c in cells])
    rows = [cells[i] for i in _inverse_cdf(w / w.sum(), rng.random(n))]
    gender, race, age, state, edu = (np.array([r[k] for r in rows], dtype=object) for k in range(5))
    age = age.astype(int)
    target, tp = _target(ACS_CELLS)
    # a user's table: race and collar enter the mean, gender too; fitted with seed 0
    model = fit_experience_model(src, target, occupation=LABORER, target_weight=tp, seed=0)
    assert model.covariates == ("race", "collar")
    exp = model.sample(age, gender, edu, rng, race=race, collar="blue")
    table = first_name_table([1992, 1993])
    by_sex_year = {k: (t["name"].to_numpy(), t["p"].to_numpy()) for k, t in table.groupby(["sex", "year"])}
    u = rng.random(n)
    first = [by_sex_year[(gender[i], 2023 - age[i])][0][_inverse_cdf(by_sex_year[(gender[i], 2023 - age[i])][1],
                                                                      u[i:i + 1])[0]] for i in range(n)]
    by_race = {r: (t["name"].to_numpy(), t["p"].to_numpy()) for r in set(race) for t in [surname_table(r)]}
    u = rng.random(n)
    surname = [by_race[race[i]][0][_inverse_cdf(by_race[race[i]][1], u[i:i + 1])[0]] for i in range(n)]
    assert out["resume_id"].tolist() == [f"construction_laborer-{i:06d}" for i in range(1, n + 1)]
    assert (out["occupation"] == LABORER).all()
    for col, want in (("gender", gender), ("race", race), ("state", state), ("edu_level", edu),
                      ("region", [REGION[s] for s in state]), ("first_name", first), ("surname", surname)):
        assert out[col].tolist() == list(want), col
    np.testing.assert_array_equal(out["age"], age)
    np.testing.assert_array_equal(out["birth_year"], 2023 - age)
    np.testing.assert_array_equal(out["exp_year"], exp)
    # the data reach every branch: both ages for women, only 30 for men, White and Black laborers
    assert set(zip(gender, age)) == {("F", 30), ("F", 31), ("M", 30)} and {"White", "Black", "API"} <= set(race)
    # race and collar move exp_year here: without them the draws differ (so the check above can fail)
    assert not np.array_equal(model.sample(age, gender, edu, np.random.default_rng(9), race=race, collar="blue"),
                              model.sample(age, gender, edu, np.random.default_rng(9), race=None, collar=None))
    # the first-name table read covers exactly the birth years of ages 30-31
    assert [k for k in population._NAME_CACHE if k[0] == "first"] == [("first", (1992, 1993))]
    # the P2 it used is the one memoised for this occupation and P̂1: asking again fits nothing new
    assert len(population._EXPERIENCE_CACHE) == 1
    p1 = population.p1_table(LABORER, age_range=(30, 31), acs=_acs(ACS_CELLS))
    pd.testing.assert_frame_equal(p1, _p1(ACS_CELLS), check_dtype=False)
    again = population.experience_model(LABORER, p1, source=src)
    assert len(population._EXPERIENCE_CACHE) == 1 and again is next(iter(population._EXPERIENCE_CACHE.values()))
    assert again.occupation == LABORER


def test_sample_occupation_arguments_reach_p1_and_a_seed_repeats_the_draws(fresh_memo):
    from popresume.sources.calibration import default_p1

    n = 80
    cols = ["gender", "race", "age", "state", "edu_level"]

    def p1_draws(table, seed):
        return table.iloc[_inverse_cdf(table["p"].to_numpy(), np.random.default_rng(seed).random(n))][cols]

    # defaults: the embedded seeded P̂1, ages 18-44, all three race groups
    out = population.sample_occupation("nurse", n, np.random.default_rng(3))
    want = p1_draws(default_p1("nurse", age_range=(18, 44), races=("White", "Black", "API"), method="seeded"), 3)
    assert out[cols].values.tolist() == want.values.tolist()
    # each argument reaches P̂1: ages 40-41, two race groups, independent margins
    out = population.sample_occupation("nurse", n, np.random.default_rng(3), age_range=(40, 41),
                                       races=("Black", "White"), p1_method="margins")
    want = p1_draws(default_p1("nurse", age_range=(40, 41), races=("White", "Black"), method="margins"), 3)
    assert out[cols].values.tolist() == want.values.tolist()
    assert set(out["age"]) == {40, 41} and set(out["race"]) == {"White", "Black"}
    np.testing.assert_array_equal(out["birth_year"], 2023 - out["age"])
    assert (out["exp_year"] >= 0).all() and (out["exp_year"] <= out["age"] - 18).all()
    # a generator in the same state gives the same profiles; another seed, others
    again = population.sample_occupation("nurse", n, np.random.default_rng(3), age_range=(40, 41),
                                         races=("Black", "White"), p1_method="margins")
    pd.testing.assert_frame_equal(again, out)
    other = population.sample_occupation("nurse", n, np.random.default_rng(4), age_range=(40, 41),
                                         races=("Black", "White"), p1_method="margins")
    assert not other[cols].equals(out[cols])


def test_experience_model_measured_rows_give_a_gender_free_p2_reweighted_to_p1(fresh_memo):
    p1 = _p1(ACS_CELLS)
    m = population.experience_model("nurse", p1)
    assert m.occupation == "nurse" and m.gender_term is False and m.covariates == ()
    target, tp = _target(ACS_CELLS)
    src = load_experience_source("measured")
    ref = fit_experience_model(src, target, occupation="nurse", target_weight=tp, seed=0, gender_term=False)
    age = np.repeat(np.arange(19, 45), 2)
    gender = np.tile(["F", "M"], len(age) // 2)
    educ = np.full(len(age), 16.0)
    np.testing.assert_allclose(m.mean(age, gender, educ), ref.mean(age, gender, educ), rtol=1e-12)
    np.testing.assert_allclose(m.sigma(age, gender), ref.sigma(age, gender), rtol=1e-12)
    # no gender term: a woman and a man of the same age and schooling share the mean and σ
    mu = m.mean(age, gender, educ)
    np.testing.assert_array_equal(mu[0::2], mu[1::2])
    # reweighted to P̂1's cells, each weighted by its p: the balance table's target column by hand
    w = np.array([c[-1] for c in ACS_CELLS])
    bal = m.diagnostics["balance"]["target"]
    assert bal["mean age"] == pytest.approx(np.dot(w, [c[2] for c in ACS_CELLS]) / w.sum())
    assert bal["share female"] == pytest.approx(np.dot(w, [c[0] == "F" for c in ACS_CELLS]) / w.sum())
    assert bal["mean years of schooling"] == pytest.approx(
        np.dot(w, [EDU_YEARS_BY_HAND[c[4]] for c in ACS_CELLS]) / w.sum())
    assert m.diagnostics["n_source"] == int((src["age"] > 18).sum())
    # seed reaches the trees: seed 1 is the seed-1 fit, not the seed-0 one
    m1 = population.experience_model("nurse", p1, seed=1)
    ref1 = fit_experience_model(src, target, occupation="nurse", target_weight=tp, seed=1, gender_term=False)
    np.testing.assert_allclose(m1.mean(age, gender, educ), ref1.mean(age, gender, educ), rtol=1e-12)
    assert np.abs(m1.mean(age, gender, educ) - mu).max() > 1e-6


def test_experience_model_named_sources_and_a_memo_keyed_on_p1_content_source_and_seed(fresh_memo):
    p1 = _p1(ACS_CELLS)
    a = population.experience_model("nurse", p1)
    # the same P̂1 in another row order, or with cells of probability 0, is the same P̂1
    assert population.experience_model("nurse", p1.copy()) is a
    assert population.experience_model("nurse", p1.iloc[::-1].reset_index(drop=True)) is a
    zero = pd.DataFrame([("F", "API", 30, "WA", BA, 0.0), ("M", "API", 31, "CA", HS, 0.0)], columns=p1.columns)
    assert population.experience_model("nurse", pd.concat([zero, p1], ignore_index=True)) is a
    assert len(population._EXPERIENCE_CACHE) == 1
    # another P̂1 (the same cells, other weights), occupation or seed: another fit
    assert population.experience_model("nurse", p1.assign(p=p1["p"].to_numpy()[::-1])) is not a
    assert population.experience_model("teacher", p1) is not a
    assert population.experience_model("nurse", p1, seed=1) is not a
    # "psid": the earlier default keeps a gender term, and its mean uses neither race nor collar
    psid = population.experience_model("nurse", p1, source="psid")
    assert psid is not a and psid.gender_term is True and psid.covariates == ()
    assert psid.diagnostics["n_source"] == int((load_experience_source("psid")["age"] > 18).sum())
    # the default's rows given as a user's table: a user's table keeps gender and is memoised apart
    table = population.experience_model("nurse", p1, source=load_experience_source("measured"))
    assert table is not a and table.gender_term is True
    user = population.experience_model("nurse", p1, source=_user_source())
    assert user is not table and user.covariates == ("race", "collar")
    # user tables are memoised by their content
    assert population.experience_model("nurse", p1, source=load_experience_source("measured")) is table
    assert population.experience_model("nurse", p1, source=_user_source()) is user


def test_hierarchical_sigma_default_shrinkage_and_each_band_of_a_gender():
    # women in bands 25 and 30, men in band 25 alongside them: a cell is one gender's rows in one band
    r = np.array([1.0, -2.0, 3.0, -1.0, 0.5, -4.0, 2.0])
    age = np.array([25, 27, 31, 33, 26, 28, 29])
    g = np.array(["F", "F", "F", "F", "M", "M", "M"])
    t = experience.hierarchical_sigma(r, age, g, np.ones(7)).set_index(["level", "gender", "age_band"])
    k = 20.0  # the default shrinkage: 20 pseudo-observations
    v_all = np.mean(r ** 2)
    v_f = (4 * np.mean(r[:4] ** 2) + k * v_all) / (4 + k)
    v_m = (3 * np.mean(r[4:] ** 2) + k * v_all) / (3 + k)
    assert t.loc[("gender", "F", -1), "sigma"] == pytest.approx(np.sqrt(v_f))
    cells = {("F", 25): (r[:2], v_f), ("F", 30): (r[2:4], v_f), ("M", 25): (r[4:], v_m)}
    for (gv, band), (rc, parent) in cells.items():
        want = np.sqrt((len(rc) * np.mean(rc ** 2) + k * parent) / (len(rc) + k))
        assert t.loc[("gender×age", gv, band), "sigma"] == pytest.approx(want), (gv, band)
        assert t.loc[("gender×age", gv, band), "n_eff"] == len(rc)


def test_hierarchical_sigma_reads_integer_residuals_and_weights_as_floats():
    # 3.5e9 squared is past int64's 9.2e18: integers must become floats before squaring
    big = 3_500_000_000
    r = np.array([big, -big, big, -big], dtype=np.int64)
    age, g = np.array([30, 31, 40, 41]), np.array(["F", "F", "M", "M"])
    t = experience.hierarchical_sigma(r, age, g, np.ones(4)).set_index(["level", "gender"])
    assert t.loc[("all", "*"), "sigma"].item() == pytest.approx(float(big))
    w = np.full(4, big, dtype=np.int64)  # Kish's n = (Σw)² / Σw² = 4 needs float sums
    t = experience.hierarchical_sigma(np.array([1.0, -1.0, 2.0, -2.0]), age, g, w).set_index(["level", "gender"])
    assert t.loc[("all", "*"), "n_eff"].item() == pytest.approx(4.0)
    assert t.loc[("all", "*"), "sigma"].item() == pytest.approx(np.sqrt(2.5))
    # residuals given as text (a CSV column read without dtypes) are parsed as numbers
    t = experience.hierarchical_sigma(["1", "-1", "2", "-2"], age, g, np.ones(4)).set_index(["level", "gender"])
    assert t.loc[("all", "*"), "sigma"].item() == pytest.approx(np.sqrt(2.5))
