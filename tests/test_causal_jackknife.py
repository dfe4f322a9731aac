"""The delete-a-group jackknife variance (``EstimatorSpec(variance="jackknife")``, issue 37)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.stats import norm
from scipy.stats import t as student_t

from popresume.causal import EstimatorSpec, PSEEstimator, make_scm
from popresume.causal.functional import effects_from_psi
from popresume.causal.nuisance import CellMeans
from popresume.causal.results import jackknife_se
from popresume.coverage.causal import ROLES

CELLS = {"propensity": CellMeans(), "outcome": CellMeans()}


@pytest.fixture(scope="module")
def sample():
    return make_scm("basic", seed=0).sample(1000, seed=3)


def fit(data, **spec):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return PSEEstimator(data, ROLES, EstimatorSpec(**spec), learners=CELLS).fit()


def test_jackknife_se_of_a_mean_is_the_spread_of_the_group_means():
    # for a mean over G equal groups, the leave-one-group-out means give back sd(group means)/√G
    rng = np.random.default_rng(1)
    x = rng.normal(size=(60, 2)) * [1.0, 3.0]
    groups = np.arange(60) % 6
    loo = np.stack([x[groups != g].mean(axis=0) for g in range(6)])
    means = np.stack([x[groups == g].mean(axis=0) for g in range(6)])
    np.testing.assert_allclose(jackknife_se(loo), means.std(axis=0, ddof=1) / np.sqrt(6))
    with pytest.raises(ValueError, match="at least 2 groups, got 1"):
        jackknife_se(loo[:1])


def test_the_default_is_the_jackknife_and_the_influence_se_an_option(sample):
    r = fit(sample, n_boot=0).result_
    assert r.variance == "jackknife" and r.jack_psi.shape == (10, 5)
    np.testing.assert_allclose(r.se.to_numpy(), jackknife_se(effects_from_psi(r.jack_psi)))
    assert r.ci_method == "jackknife (10 groups, t on 9 df)"
    old = fit(sample, n_boot=0, variance="influence").result_
    assert old.jack_psi is None and old.variance == "influence"
    np.testing.assert_array_equal(old.se.to_numpy(), old.influence_se.to_numpy())
    np.testing.assert_array_equal(old.influence_se.to_numpy(), r.influence_se.to_numpy())  # the same fit
    assert old.ci_method == "normal (influence function)"


def test_the_jackknife_se_drives_the_intervals_and_tests(sample):
    est = fit(sample, n_boot=0, variance="jackknife", jackknife_groups=5)
    r = est.result_
    assert r.jack_psi.shape == (5, 5) and r.variance == "jackknife"
    se = jackknife_se(effects_from_psi(r.jack_psi))
    np.testing.assert_allclose(r.se.to_numpy(), se)
    # the refits move the estimates: the jackknife SE is not the influence SE
    assert np.abs(r.se.to_numpy() / r.influence_se.to_numpy() - 1).max() > 0.05
    # the leave-one-group-out estimates stay near the full-sample estimate
    assert np.abs(effects_from_psi(r.jack_psi) - r.effects.to_numpy()).max() < 5 * se.max()
    q = student_t.ppf(0.975, 4)
    ci = r.confint()
    np.testing.assert_allclose((ci["ci_high"] - ci["ci_low"]).to_numpy(), 2 * q * se)
    z = r.effects.to_numpy() / se
    np.testing.assert_allclose(r.pvalues.to_numpy(), 2 * student_t.sf(np.abs(z), 4))
    assert r.ci_method == "jackknife (5 groups, t on 4 df)"
    # an influence bootstrap afterwards keeps the jackknife's intervals and adds boot_se
    before = r.summary[["ci_low", "ci_high"]].copy()
    s = est.bootstrap(100).summary
    np.testing.assert_allclose(s[["ci_low", "ci_high"]].to_numpy(), before.to_numpy())
    assert s["boot_se"].notna().all()
    # the joint band is wider than the pointwise one, and scaled to the jackknife SE
    joint = r.confint(joint=True)
    assert ((joint["ci_high"] - joint["ci_low"]) > (ci["ci_high"] - ci["ci_low"]) - 1e-12).all()
    assert q > norm.ppf(0.975)


def test_the_average_variance_is_the_mean_of_the_two_with_a_normal_quantile(sample):
    # variance="average": the same refits as the jackknife; se = sqrt((influence^2 + jackknife^2) / 2), normal
    jack = fit(sample, n_boot=0, variance="jackknife", jackknife_groups=5).result_
    est = fit(sample, n_boot=0, variance="average", jackknife_groups=5)
    r = est.result_
    np.testing.assert_allclose(r.jack_psi, jack.jack_psi)  # the same draws
    assert r.variance == "average" and r.jack_average
    infl, jk = r.influence_se.to_numpy(), jackknife_se(effects_from_psi(r.jack_psi))
    se = np.sqrt((infl ** 2 + jk ** 2) / 2)
    np.testing.assert_allclose(r.se.to_numpy(), se)
    assert ((se - np.minimum(infl, jk)) > 0).any() and (se <= np.maximum(infl, jk) + 1e-15).all()  # between the two
    z = norm.ppf(0.975)
    ci = r.confint()
    np.testing.assert_allclose((ci["ci_high"] - ci["ci_low"]).to_numpy(), 2 * z * se)
    np.testing.assert_allclose(r.pvalues.to_numpy(), 2 * norm.sf(np.abs(r.effects.to_numpy() / se)))
    assert r.ci_method == "normal (mean of the influence and jackknife variances, 5 groups)"
    # the means' table and a later bootstrap keep the averaged SE
    psi_infl = r.psi["se"].to_numpy()
    np.testing.assert_allclose(psi_infl, np.sqrt((np.asarray(
        [np.std(r.phi[:, j], ddof=1) / np.sqrt(r.n) for j in range(5)]) ** 2 + jackknife_se(r.jack_psi) ** 2) / 2))
    before = r.summary[["ci_low", "ci_high"]].to_numpy()
    np.testing.assert_allclose(est.bootstrap(50).summary[["ci_low", "ci_high"]].to_numpy(), before)
    # the joint band: c from the influence SEs, no t over normal ratio, times the averaged SE
    joint = r.confint(joint=True)
    c = (joint["ci_high"] - joint["ci_low"]).to_numpy() / (2 * se)
    np.testing.assert_allclose(c, c[0])
    assert z < c[0] < 3.5


def test_the_refits_keep_the_folds_and_are_reproducible(sample):
    a = fit(sample, n_boot=0, variance="jackknife", jackknife_groups=4)
    b = fit(sample, n_boot=0, variance="jackknife", jackknife_groups=4, jackknife_jobs=2)
    np.testing.assert_allclose(a.result_.jack_psi, b.result_.jack_psi)
    # draw 0 by hand: the rows outside group 0, each with its fold of the fit
    from popresume.causal.crossfit import assign_folds
    group = assign_folds(a.data_.x1v, 4, np.random.default_rng(a.seed + 2))
    keep = np.flatnonzero(group != 0)
    by_hand = a._crossfit(a.fold_[keep], keep).phi.mean(axis=0)
    np.testing.assert_allclose(a.result_.jack_psi[0], by_hand)
    # a different fold assignment gives a different draw (the folds are not redrawn per group)
    other = a._crossfit(assign_folds(a.data_.x1v[keep], 5, np.random.default_rng(99)), keep).phi.mean(axis=0)
    assert np.abs(other - by_hand).max() > 1e-6


def test_a_refit_bootstrap_replaces_the_jackknife(sample):
    # the refit draws re-run the nuisances too: their percentiles are the intervals, the jackknife is dropped
    est = fit(sample, n_boot=0)
    assert est.result_.jack_psi is not None
    r = est.bootstrap(20, method="refit").result_
    assert r.jack_psi is None and r.variance == "influence" and r.ci_method == "refit bootstrap (20 draws)"
    lo, hi = np.quantile(effects_from_psi(r.boot_psi), [0.025, 0.975], axis=0)
    np.testing.assert_allclose(r.confint()["ci_low"].to_numpy(), lo)
    np.testing.assert_allclose(r.confint()["ci_high"].to_numpy(), hi)
    # asked for up front, the refit bootstrap skips the jackknife's refits
    assert fit(sample, n_boot=0, bootstrap="refit").result_.jack_psi is None
