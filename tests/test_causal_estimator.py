"""The cross-fitted DML estimator against synthetic SCMs with exact effects (docs/DESIGN.md §3)."""

import warnings

import numpy as np
import pandas as pd
import pytest

from popresume.causal import (EFFECT_WEIGHTS, PSEEstimator, PSEWarning, estimate_pse, make_scm, plugin_pse,
                              plugin_psi)
from popresume.causal.functional import PSI_TRIPLES, influence, weights
from popresume.causal.nuisance import CellMeans

ROLES = dict(x="x", x0="x0", x1="x1", z=["z"], b=["b"], r=["r"], y="y")
CELL = {"propensity": CellMeans(), "outcome": CellMeans()}


def test_effect_algebra_exact(tmp_path):
    scm = make_scm("basic")
    d = scm.sample(3000, seed=3)
    tab, est = estimate_pse(d, **ROLES, n_boot=50, learners=CELL, return_estimator=True, identification="paper")
    e = tab["estimate"]
    assert e["TE"] == pytest.approx(e["NDE"] + e["NIE"], abs=1e-12)
    assert e["NIE"] == pytest.approx(e["BIE"] + e["RIE"], abs=1e-12)
    # the same algebra holds draw by draw, so the truth too
    t = scm.true_effects()
    assert t["NIE"] == pytest.approx(t["BIE"] + t["RIE"], abs=1e-12)
    assert list(tab.index) == ["TE", "NDE", "NIE", "BIE", "RIE"]
    assert {"estimate", "se", "ci_low", "ci_high", "significant"} <= set(tab.columns)
    assert (tab["ci_low"] <= tab["estimate"]).all() and (tab["estimate"] <= tab["ci_high"]).all()
    assert list(est.psi_table().index) == list(PSI_TRIPLES)
    assert tab.attrs == {}  # results live on the estimator, not in attrs
    both = pd.concat([tab, tab])
    assert len(both) == 10
    tab.to_parquet(tmp_path / "t.parquet")


def test_influence_function_with_true_nuisances_is_unbiased():
    """Lemma 2: with the true μ and π, mean φ = ψ (checked on a large sample)."""
    scm = make_scm("basic", seed=1)
    d = scm.sample(200_000, seed=0)
    z = d["z"].str[1:].astype(int).to_numpy()
    r = d["r"].str[1:].astype(int).to_numpy()
    b = d["b"].to_numpy()
    x1 = (d["x"] == "x1").to_numpy()
    px = scm.px1_z
    # true propensities by Bayes' rule on the tables
    p_z = px[z]
    num_r = px[z] * scm.pr_xz[1, z, r]
    p_rz = num_r / (num_r + (1 - px[z]) * scm.pr_xz[0, z, r])
    num_b = num_r * scm.pb_xrz[1, z, r, b]
    p_brz = num_b / (num_b + (1 - px[z]) * scm.pr_xz[0, z, r] * scm.pb_xrz[0, z, r, b])
    for name, (ay, ab, ar) in PSI_TRIPLES.items():
        mu3 = scm.m[ay, z, r, b]
        mu2_tab = (scm.pb_xrz[ab] * scm.m[ay]).sum(axis=2)  # (z, r)
        mu1_tab = (scm.pr_xz[ar] * mu2_tab).sum(axis=1)  # (z,)
        w = weights(x1, (ay, ab, ar), p_z, p_rz, p_brz, normalize=False)
        phi = influence(d["y"].to_numpy(), w, mu3, mu2_tab[z, r], mu1_tab[z])
        assert phi.mean() == pytest.approx(scm.psi((ay, ab, ar)), abs=4 * phi.std() / np.sqrt(len(phi)))
        assert np.mean(w.raw_means) == pytest.approx(1.0, abs=0.03)


@pytest.mark.parametrize("kind", ["basic", "high_card_r", "weak_overlap", "no_direct"])
def test_recovers_scm_effects(kind):
    scm = make_scm(kind)
    d = scm.sample(20_000, seed=11)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PSEWarning)  # weak_overlap clips on purpose
        tab = estimate_pse(d, **ROLES, n_boot=100, learners=CELL)
    err = (tab["estimate"] - scm.true_effects()).abs()
    assert (err < 4 * tab["se"] + 0.02).all(), pd.DataFrame({"err": err, "se": tab["se"]})


def test_xgboost_default_recovers_effects():
    scm = make_scm("basic")
    d = scm.sample(4000, seed=5)
    grid = {"n_estimators": [10, 50], "max_depth": [1, 3], "reg_lambda": [1, 5]}  # small grid: test speed
    tab, est = estimate_pse(d, **ROLES, n_boot=100, folds=3, tune_rows=800, grid=grid, return_estimator=True)
    err = (tab["estimate"] - scm.true_effects()).abs()
    assert (err < 4 * tab["se"] + 0.03).all(), pd.DataFrame({"err": err, "se": tab["se"]})
    diag = est.diagnostics
    assert set(diag["params"].index) == {"propensity", "mu3", "nested"}
    assert diag["params"]["n_estimators"].isin([10, 50]).all()
    assert {"min", "max", "n_clipped"} <= set(diag["propensity"].columns)
    assert (diag["weights"]["ess"] > 0).all()
    assert diag["weights"]["raw_mean"].between(0.5, 1.5).all()


# The repeated-sample calibration test lives in tests/test_coverage_causal.py (the harness's
# fast subset, bands 0.93-0.97 with a stated Monte Carlo error).


def test_plugin_matches_exact_and_dml_on_large_discrete_data():
    scm = make_scm("basic", seed=4)
    d = scm.sample(60_000, seed=2)
    pl = plugin_pse(d, **ROLES)
    tab = estimate_pse(d, **ROLES, n_boot=0, learners=CELL)
    assert np.abs(pl["estimate"] - scm.true_effects()).max() < 0.05
    assert np.abs(pl["estimate"] - tab["estimate"]).max() < 0.02
    psi = plugin_psi(d, **ROLES)
    assert np.allclose(EFFECT_WEIGHTS.to_numpy() @ psi.to_numpy(), pl["estimate"].to_numpy())


def test_plugin_on_tiny_table_by_hand():
    # one binary z, no b/r variation beyond one level: ψ reduces to Eqs. (6)-(7)
    d = pd.DataFrame({"x": ["a", "a", "b", "b", "a", "b"], "z": [0, 1, 0, 1, 1, 0],
                      "b": [1] * 6, "r": ["k"] * 6, "y": [1.0, 2.0, 4.0, 6.0, 4.0, 5.0]})
    pl = plugin_pse(d, x="x", x0="a", x1="b", z=["z"], b=["b"], r=["r"], y="y")
    # E[Y|a,z=0]=1, E[Y|a,z=1]=3, E[Y|b,z=0]=4.5, E[Y|b,z=1]=6, P(z=0)=1/2
    te = 0.5 * (4.5 - 1) + 0.5 * (6 - 3)
    assert pl.loc["TE", "estimate"] == pytest.approx(te)
    assert pl.loc["NIE", "estimate"] == pytest.approx(0.0)


def test_refit_bootstrap_and_point_estimate_from_original_sample():
    scm = make_scm("basic")
    d = scm.sample(6000, seed=9)
    est = PSEEstimator(d, **ROLES, folds=3, learners=CELL, variance="influence").fit()  # the bootstraps' own CIs
    point = est.effects_.copy()
    t_inf = est.bootstrap(100).summary
    t_ref = est.bootstrap(30, method="refit").summary
    assert np.allclose(t_ref["estimate"], point) and np.allclose(t_inf["estimate"], point)
    assert "refit" in t_ref["ci_method"].iloc[0]
    # the two bootstraps agree on the spread (at small n, ~1500 rows over 72 cells, the
    # saturated learner makes the refit spread up to 2x wider: second-order nuisance noise)
    ratio = t_ref["boot_se"] / t_inf["boot_se"]
    assert ratio.between(0.6, 1.7).all(), ratio


def test_refit_folds_follow_original_ids(monkeypatch):
    """Duplicates of a row never sit in both a training and an evaluation fold."""
    import popresume.causal.crossfit as cf
    seen = []
    orig = cf.crossfit_phi

    def spy(Xz, Xrz, Xbrz, x1, y, fold, *a, **k):
        seen.append((Xbrz.copy(), y.copy(), fold.copy()))
        return orig(Xz, Xrz, Xbrz, x1, y, fold, *a, **k)

    scm = make_scm("basic")
    d = scm.sample(600, seed=1)
    d["y"] = d["y"] + np.arange(len(d)) * 1e-6  # make every original row identifiable by y
    est = PSEEstimator(d, **ROLES, folds=3, learners=CELL).fit()
    monkeypatch.setattr(cf, "crossfit_phi", spy)
    est.bootstrap(3, method="refit")
    assert len(seen) == 3
    for _, y, fold in seen:
        per_id = pd.DataFrame({"y": y, "fold": fold}).groupby("y")["fold"].nunique()
        assert (per_id == 1).all()
        assert pd.Series(y).duplicated().any()  # there were duplicates to check


def test_self_normalisation_switch_and_raw_means():
    scm = make_scm("basic")
    d = scm.sample(3000, seed=2)
    a = PSEEstimator(d, **ROLES, learners=CELL, normalize=True).fit()
    b = PSEEstimator(d, **ROLES, learners=CELL, normalize=False).fit()
    assert not np.allclose(a.effects_, b.effects_)
    assert np.allclose(a.weights_["raw_mean"], b.weights_["raw_mean"])
    assert (a.weights_["raw_mean"] - 1).abs().max() < 0.2


def test_categorical_and_numeric_columns_mixed():
    scm = make_scm("basic")
    d = scm.sample(2000, seed=4)
    d["age"] = np.random.default_rng(0).integers(18, 45, len(d))  # numeric confounder, no effect
    d["b_cat"] = d["b"].map({0: "low", 1: "mid", 2: "mid", 3: "high"})
    tab = estimate_pse(d, x="x", x0="x0", x1="x1", z=["z", "age"], b=["b", "b_cat"], r=["r"], y="y",
                       n_boot=50, learners=CELL, folds=3, identification="paper")
    assert np.isfinite(tab[["estimate", "ci_low", "ci_high"]].to_numpy()).all()


def test_tune_xgb_paper_grid_picks_by_cv():
    """Appendix C.5 grid; a pure-noise outcome must get a small model, a strong signal a bigger one."""
    from popresume.causal.nuisance import PAPER_GRID, tune_xgb

    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 3)).astype(np.float32)
    noise = tune_xgb(X, rng.normal(size=600), "outcome", max_rows=600, cv=2)
    signal = tune_xgb(X, 3 * np.sin(2 * X[:, 0]) * X[:, 1] + 0.1 * rng.normal(size=600), "outcome", max_rows=600,
                      cv=2)
    for p in (noise, signal):
        assert p["n_estimators"] in PAPER_GRID["n_estimators"] and p["max_depth"] in PAPER_GRID["max_depth"]
    assert noise["n_estimators"] * noise["max_depth"] < signal["n_estimators"] * signal["max_depth"]
    prop = tune_xgb(X, (X[:, 0] > 0).astype(int), "propensity", max_rows=600, cv=2,
                    grid={"n_estimators": [5, 50], "max_depth": [1, 2], "reg_lambda": [1]})
    assert prop["cv_score"] < 0.1  # Brier score of an almost separable propensity


# ---------------------------------------------------------------- the DoubleML-shaped API
def test_learners_carry_threads_and_tuned_params_do_not_leak():
    from popresume.causal import Learners
    from popresume.causal.nuisance import XGB_FIXED

    with pytest.raises(TypeError):
        XGB_FIXED["n_jobs"] = 4  # read-only: no module state to mutate
    spec = Learners(grid={"n_estimators": [5, 10], "max_depth": [1, 2], "reg_lambda": [1]}, tune_rows=200)
    inf = {"variance": "influence"}  # the tuning is under test, not the jackknife's refits
    a = PSEEstimator(make_scm("basic").sample(400, seed=1), **ROLES, folds=3, learners=spec, **inf).fit()
    b = PSEEstimator(make_scm("no_direct", seed=3).sample(400, seed=2), **ROLES, folds=3, learners=spec, **inf).fit()
    assert spec.params == {}  # the specification is never filled by fitting
    pa, pb = a.diagnostics["params"], b.diagnostics["params"]
    assert set(pa.index) == set(pb.index) == {"propensity", "mu3", "nested"}
    assert not pa["cv_score"].equals(pb["cv_score"])  # each estimator tuned on its own data
    # refitting tunes again on a fresh copy: the same numbers, nothing carried over
    first = a.effects_.copy()
    assert np.allclose(a.fit().effects_, first)
    # the thread count is the learners' own, fixed params skip tuning
    two = Learners(threads=2, params={"mu3": {"n_estimators": 5, "max_depth": 1, "reg_lambda": 1.0}}).spawn()
    assert two.get("mu3", "outcome", None, None).get_params()["n_jobs"] == 2


def test_psedata_validates_once_and_is_reused():
    from popresume.causal import PSEData

    d = make_scm("basic").sample(1500, seed=4)
    data = PSEData(d, **ROLES)
    assert (data.n, data.n_x0 + data.n_x1) == (1500, 1500)
    assert data.Xbrz.shape[0] == 1500 and data.roles["z"] == ["z"]
    from_frame = PSEEstimator(d, **ROLES, learners=CELL).fit().bootstrap(50).summary
    from_data = PSEEstimator(data, learners=CELL).fit().bootstrap(50).summary
    pd.testing.assert_frame_equal(from_frame, from_data)
    assert np.allclose(plugin_psi(data, **ROLES), plugin_psi(d, **ROLES))
    with pytest.raises(ValueError, match="differ from those the PSEData was built with"):
        plugin_psi(data, **{**ROLES, "z": ["r"], "r": ["z"]})


def test_result_object_intervals_tests_and_no_attrs():
    d = make_scm("basic").sample(3000, seed=6)
    # the influence variance: its normal p-values and the influence bootstrap's percentile intervals
    tab, est = estimate_pse(d, **ROLES, n_boot=300, learners=CELL, return_estimator=True, identification="paper",
                            variance="influence")
    res = est.result_
    assert tab.attrs == {} and res.summary.equals(tab)
    assert res.phi.shape == (3000, 5) and np.allclose(res.phi.mean(axis=0), res.psi["estimate"])
    point, joint = res.confint(), res.confint(joint=True)
    assert ((joint["ci_low"] < point["ci_low"]) & (joint["ci_high"] > point["ci_high"])).all()
    wide = res.confint(0.99)
    assert ((wide["ci_low"] < point["ci_low"]) & (wide["ci_high"] > point["ci_high"])).all()
    # without draws the joint band comes from the influence-function covariance
    est.fit()
    normal_joint = est.result_.confint(joint=True)
    assert (normal_joint["ci_high"] - normal_joint["ci_low"] > 2 * 1.96 * est.result_.se.to_numpy()).all()
    p = res.pvalues
    from scipy.stats import norm
    assert np.allclose(p, 2 * norm.sf(np.abs(tab["estimate"] / tab["se"])))
    holm, bh = res.p_adjust("holm"), res.p_adjust("bh")
    assert (holm["p_adj"] >= p - 1e-15).all() and (holm["p_adj"] >= bh["p_adj"] - 1e-15).all()
    with pytest.raises(ValueError, match="unknown p-value adjustment"):
        res.p_adjust("sidak-ish")
    assert {"propensity", "weights", "params", "n_clipped", "warnings", "n_rep"} <= set(res.diagnostics)


def test_repeated_crossfitting_median_and_mean():
    d = make_scm("basic").sample(2000, seed=8)
    inf = dict(learners=CELL, variance="influence")  # DoubleML's median SE is an influence-variance rule
    one = PSEEstimator(d, **ROLES, **inf).fit().bootstrap(100)
    rep1 = PSEEstimator(d, **ROLES, **inf, n_rep=1, aggregate="mean").fit().bootstrap(100)
    pd.testing.assert_frame_equal(one.summary, rep1.summary)  # n_rep=1 is the single split, any aggregate
    med = PSEEstimator(d, **ROLES, **inf, n_rep=4).fit().bootstrap(100)
    mean = PSEEstimator(d, **ROLES, **inf, n_rep=4, aggregate="mean").fit().bootstrap(100)
    reps = med.result_.rep_estimates
    assert len(reps) == 4 and reps.std().gt(0).all()  # the splits differ
    assert np.allclose(reps.iloc[0], one.effects_)  # the first split is the single-split fit
    psi_reps = med.result_.phi_reps.mean(axis=1)
    assert np.allclose(med.psi_, np.median(psi_reps, axis=0)) and np.allclose(mean.psi_, psi_reps.mean(axis=0))
    e = med.effects_
    assert e["TE"] == pytest.approx(e["NDE"] + e["NIE"], abs=1e-12)  # medians of ψ keep the algebra
    # DoubleML's SE for the median adds the spread of the split estimates: never below the smallest split SE
    split_se = np.array([effects_from_psi_rows(med.result_.phi_reps[m]) for m in range(4)])
    assert (med.summary["se"].to_numpy() >= split_se.min(axis=0) - 1e-12).all()
    with pytest.raises(ValueError, match="n_rep"):
        PSEEstimator(d, **ROLES, learners=CELL, n_rep=0)
    with pytest.raises(ValueError, match="aggregate"):
        PSEEstimator(d, **ROLES, learners=CELL, aggregate="mode")


def effects_from_psi_rows(phi):
    from popresume.causal import effects_from_psi
    return effects_from_psi(phi).std(axis=0, ddof=1) / np.sqrt(len(phi))


def test_small_groups_warn_with_the_numbers():
    d = make_scm("basic").sample(400, seed=3)
    tiny = pd.concat([d[d.x == "x0"].head(13), d[d.x == "x1"].head(7)], ignore_index=True)
    with pytest.warns(PSEWarning, match=r"unreliable intervals: the group x='x1' has 7 of 20 rows.*effective sample"):
        PSEEstimator(tiny, **ROLES, folds=3, tune=False).fit()
    with warnings.catch_warnings():
        warnings.simplefilter("error", PSEWarning)
        PSEEstimator(make_scm("basic").sample(3000, seed=3), **ROLES, learners=CELL,
                     variance="influence").fit()  # large: silent


def test_refit_bootstrap_is_an_estimator_method_and_the_circle_is_gone():
    import ast
    import inspect

    import popresume.causal.bootstrap as bs

    imported = {n.module for n in ast.walk(ast.parse(inspect.getsource(bs)))
                if isinstance(n, ast.ImportFrom) and n.module}
    assert not any("crossfit" in m for m in imported), imported
    est = PSEEstimator(make_scm("basic").sample(900, seed=2), **ROLES, folds=3, learners=CELL).fit()
    draws = est.refit_draws(4, seed=5)
    assert draws.shape == (4, 5) and np.isfinite(draws).all()
    assert np.allclose(est.refit_draws(4, seed=5), draws)  # reproducible by seed


def test_coverage_study_variants_share_one_fit():
    from popresume.causal.scm import coverage_study

    base, _ = coverage_study("basic", n=800, reps=3, n_boot=50, plugin=False)
    est, cov = coverage_study("basic", n=800, reps=3, n_boot=50, plugin=False, n_rep=(1, 3),
                              aggregate=("median", "mean"), bagged=3)
    assert set(cov["method"]) == {"DML", "DML, n_rep=3 (median)", "DML, n_rep=3 (mean)", "refit-bagged (3)",
                                  "naive difference"}
    same = est[est.method == "DML"].reset_index(drop=True)
    pd.testing.assert_frame_equal(same[base.columns], base[base.method == "DML"].reset_index(drop=True))
    assert cov["rmse"].notna().all()
