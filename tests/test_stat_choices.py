"""Every statistical choice a reviewer would check, pinned on a small case with a value
computed here: the SE of the causal effects (closed forms), the degrees of freedom of every
t interval (scipy.stats.t by hand), and the family of the corrections the causal result and
the decisions tables print (statsmodels' multipletests). Issue 38; each test runs in well
under a second.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from popresume.causal.results import PSEResult, rep_se
from popresume.decisions import analyses
from popresume.schema import PSE_NAMES


# --- the causal SE: the SE of a mean of known influence values --------------------------------
def test_rep_se_one_repetition_is_the_sd_over_root_n():
    # φ = 0, 0, 2, 2: mean 1, squared deviations sum to 4, variance (ddof 1) 4/3, SE sqrt(4/3)/2
    phi = np.array([[[0.0], [0.0], [2.0], [2.0]]])
    for how in ("median", "mean"):
        np.testing.assert_allclose(rep_se(phi, how), [math.sqrt(1 / 3)], rtol=1e-12)


def test_rep_se_mean_and_median_over_repetitions_by_hand():
    # three repetitions of two units: φ = (0, 2), (1, 1), (3, 5)
    phi = np.array([[[0.0], [2.0]], [[1.0], [1.0]], [[3.0], [5.0]]])
    # mean: the per-unit average φ̄ = (4/3, 8/3); its SD (ddof 1) is (4/3)/√2, over √2: 2/3
    np.testing.assert_allclose(rep_se(phi, "mean"), [2 / 3], rtol=1e-12)
    # median: θ_m = 1, 1, 4 (median 1); σ²_m = var/n = 1, 0, 1; σ²_m + (θ_m − 1)² = 1, 0, 10 -> median 1
    np.testing.assert_allclose(rep_se(phi, "median"), [1.0], rtol=1e-12)
    # a second column twice the first: SEs scale with it
    np.testing.assert_allclose(rep_se(np.concatenate([phi, 2 * phi], axis=2), "median"), [1.0, 2.0])


def _hand_result():
    """Five means whose influence values give the effects closed-form SEs: only ψ111 varies,
    φ = 0, 0, 2, 2 (SE sqrt(1/3)); TE and NIE carry all of it, NDE none, BIE and RIE half."""
    phi = np.zeros((1, 4, 5))
    phi[0, :, 1] = [0.0, 0.0, 2.0, 2.0]
    psi = np.array([1.0, 1.6, 1.2, 1.1, 1.3])  # ψ000, ψ111, ψ100, ψ101, ψ110
    return PSEResult(psi, phi)


def test_pse_result_se_interval_and_p_on_a_closed_form_case():
    res = _hand_result()
    s = math.sqrt(1 / 3)
    se = pd.Series([s, 0.0, s, s / 2, s / 2], index=list(PSE_NAMES))
    est = pd.Series([0.6, 0.2, 0.4, 0.5 * (0.5 + 0.1), 0.5 * (0.3 - 0.1)], index=list(PSE_NAMES))
    np.testing.assert_allclose(res.effects, est, atol=1e-12)
    np.testing.assert_allclose(res.se, se, atol=1e-12)
    ci = res.confint(0.9)
    z = stats.norm.ppf(0.95)
    np.testing.assert_allclose(ci["ci_low"], est - z * se, atol=1e-12)
    np.testing.assert_allclose(ci["ci_high"], est + z * se, atol=1e-12)
    # NDE: SE 0 and a non-zero estimate is an infinite z (p = 0)
    p = np.where(se > 0, 2 * stats.norm.sf(np.abs(est / se.replace(0, np.nan))), 0.0)
    np.testing.assert_allclose(res.pvalues, p, atol=1e-12)
    adj = res.p_adjust()  # Holm by default
    assert list(adj.columns) == ["estimate", "p", "p_adj"]
    assert adj.index.name == "effect" and list(adj.index) == list(PSE_NAMES)
    np.testing.assert_allclose(adj["estimate"], est, atol=1e-12)
    np.testing.assert_allclose(adj["p"], p, atol=1e-12)
    np.testing.assert_allclose(adj["p_adj"], multipletests(p, method="holm")[1], atol=1e-12)
    np.testing.assert_allclose(res.p_adjust("bh")["p_adj"], multipletests(p, method="fdr_bh")[1], atol=1e-12)


def test_pse_result_psi_interval_uses_the_sd_of_each_mean():
    res = _hand_result()
    ci = res.confint(0.95, psi=True)
    z = stats.norm.ppf(0.975)
    half = np.array([0.0, math.sqrt(1 / 3), 0.0, 0.0, 0.0]) * z
    np.testing.assert_allclose(ci["ci_high"] - ci["ci_low"], 2 * half, atol=1e-12)


# --- the decisions contrast: t on min(G1, G0) − 1 or G − 1 degrees of freedom -----------------
def _arm_design(seed=0, g1=3, g0=6, per=4):
    """``g1`` treated and ``g0`` control clusters of ``per`` rows; the term is constant within a cluster."""
    rng = np.random.default_rng(seed)
    rows = []
    for c in range(g1 + g0):
        shift = rng.normal(0, 1)
        for i in range(per):
            rows.append({"cl": f"c{c}", "t": float(c < g1), "cell": f"k{i}", "outcome": 1.0 * (c < g1) + shift
                         + rng.normal(0, 0.5)})
    return pd.DataFrame(rows)


def _cluster_se(y, x, groups):
    """CR1 sandwich SE of the slope of demeaned y on demeaned x (no other regressor):
    (Σx²)⁻¹ √(Σ_g (Σ_g x e)²) with the G/(G − 1) · (N − 1)/(N − K) factor, K = 1."""
    b = (x @ y) / (x @ x)
    e = y - b * x
    scores = pd.Series(x * e).groupby(groups).sum().to_numpy()
    G, N = len(scores), len(y)
    return b, math.sqrt((scores @ scores) / (x @ x) ** 2 * G / (G - 1) * (N - 1) / (N - 1))


def test_clustered_effect_arm_df_is_the_smaller_arm_minus_one():
    d = _arm_design()
    y = d["outcome"].to_numpy() - d["outcome"].mean()
    x = d["t"].to_numpy() - d["t"].mean()
    b, se = _cluster_se(y, x, d["cl"].to_numpy())
    for level in (0.95, 0.8):
        r = analyses.clustered_effect(d, "t", cells=None, cluster="cl", level=level, arm_df=True)
        assert r["estimate"] == pytest.approx(b, rel=1e-10) and r["se"] == pytest.approx(se, rel=1e-8)
        q = stats.t.ppf(0.5 + level / 2, 3 - 1)  # min(G1 = 3, G0 = 6) − 1 = 2
        assert r["ci_low"] == pytest.approx(b - q * se, rel=1e-8)
        assert r["ci_high"] == pytest.approx(b + q * se, rel=1e-8)
        assert r["p"] == pytest.approx(2 * stats.t.sf(abs(b) / se, 2), rel=1e-8)
        # without arm_df: statsmodels' cluster t on G − 1 = 8
        r = analyses.clustered_effect(d, "t", cells=None, cluster="cl", level=level)
        q = stats.t.ppf(0.5 + level / 2, 9 - 1)
        assert r["ci_low"] == pytest.approx(b - q * se, rel=1e-8)
        assert r["p"] == pytest.approx(2 * stats.t.sf(abs(b) / se, 8), rel=1e-8)


def test_clustered_effect_arm_df_counts_the_arm_with_fewer_clusters_either_way():
    d = _arm_design(seed=2, g1=5, g0=2)  # now the control arm is the smaller: df 1
    r = analyses.clustered_effect(d, "t", cells=None, cluster="cl", level=0.95, arm_df=True)
    q = stats.t.ppf(0.975, 1)
    assert r["ci_high"] - r["ci_low"] == pytest.approx(2 * q * r["se"], rel=1e-10)
    one = _arm_design(seed=2, g1=1, g0=4)  # one cluster in an arm: no interval, and it says why
    r = analyses.clustered_effect(one, "t", cells=None, cluster="cl", arm_df=True)
    assert np.isnan(r["ci_low"]) and np.isnan(r["p"]) and "one cl in an arm of t" in r["reason"]


def test_clustered_effect_with_a_term_varying_within_clusters_keeps_g_minus_one():
    # arm_df asks for the arm count only when the term is constant within every cluster
    d = _arm_design(seed=4)
    d["t"] = (d["cell"].isin(["k0", "k1"])).astype(float)
    r = analyses.clustered_effect(d, "t", cells=None, cluster="cl", level=0.95, arm_df=True)
    q = stats.t.ppf(0.975, 9 - 1)
    assert r["ci_high"] - r["ci_low"] == pytest.approx(2 * q * r["se"], rel=1e-10)


def test_interaction_arm_df_is_the_smaller_arm_minus_one():
    a = _arm_design(seed=5).assign(model="a")
    b = _arm_design(seed=6).assign(model="b", outcome=lambda x: x["outcome"] + 0.5 * x["t"])
    d = pd.concat([a, b], ignore_index=True)
    d["later"] = (d["model"] == "b").astype(float)
    d["inter"] = d["t"] * d["later"]
    d["mc"] = d["cell"] + "|" + d["model"]
    plain = analyses._interaction(d, "t", "inter", "mc", "cl", 0.95)
    arm = analyses._interaction(d, "t", "inter", "mc", "cl", 0.95, arm_df=True)
    assert arm["estimate"] == pytest.approx(plain["estimate"])
    # the statsmodels interval is on G − 1 = 8 df: its half-width gives the SE back
    se = (plain["ci_high"] - plain["ci_low"]) / (2 * stats.t.ppf(0.975, 8))
    q = stats.t.ppf(0.975, 2)  # clusters c0-c2 treated in both models, c3-c8 not: min(3, 6) − 1
    assert arm["ci_high"] - arm["ci_low"] == pytest.approx(2 * q * se, rel=1e-8)
    assert arm["p"] == pytest.approx(2 * stats.t.sf(abs(arm["estimate"]) / se, 2), rel=1e-8)


def test_validity_paired_contrast_is_a_t_on_n_minus_one():
    from popresume.screeners.validity import paired_contrast

    a, b = np.array([3.0, 5.0, 4.0, 8.0, np.nan]), np.array([1.0, 2.0, 4.0, 3.0, 1.0])
    r = paired_contrast(a, b, level=0.9)
    d = np.array([2.0, 3.0, 0.0, 5.0])  # the pair with a NaN is left out: n = 4
    half = stats.t.ppf(0.95, 3) * d.std(ddof=1) / 2
    assert r["n"] == 4 and r["estimate"] == pytest.approx(2.5)
    assert r["ci_low"] == pytest.approx(2.5 - half) and r["ci_high"] == pytest.approx(2.5 + half)
    lo, hi = stats.ttest_1samp(d, 0).confidence_interval(0.9)
    assert (r["ci_low"], r["ci_high"]) == pytest.approx((lo, hi))


# --- the decisions families: drift over its contrasts, competence per contrast ---------------
def test_competence_keyword_contrast_is_hc1_on_n_minus_two_and_holm_is_per_contrast(monkeypatch):
    # two settings, each with a job-fit contrast and a keyword contrast whose p-values are given
    p = {("s1", "matched − mismatched"): 0.01, ("s2", "matched − mismatched"): 0.04,
         ("s1", "keyword-stuffed − plain"): 0.02, ("s2", "keyword-stuffed − plain"): 0.5}
    monkeypatch.setattr(analyses, "_contrast", lambda source, m, contrast, level: {
        "estimate": 1.0, "ci_low": 0.0, "ci_high": 2.0, "n": 10, "p": p[(m["model"].iloc[0], "matched − mismatched")]})
    rng = np.random.default_rng(0)
    rows = []
    for model, gap in (("s1", 3.0), ("s2", 0.2)):
        for i in range(20):
            for v in ("plain", "keyword_stuffed"):
                rows.append({"source": "webster", "model": model, "signal": "keyword", "job": "Finance",
                             "variant": v, "outcome": 5 + gap * (v == "keyword_stuffed") + rng.normal()})
    df = pd.DataFrame(rows)
    out = analyses.competence(df)
    # the keyword contrast: OLS on [1, stuffed], HC1 sandwich by hand, t on n − 2 df
    for model, g in df.groupby("model"):
        x = g["variant"].eq("keyword_stuffed").to_numpy(float)
        X, y = np.column_stack([np.ones_like(x), x]), g["outcome"].to_numpy()
        bread = np.linalg.inv(X.T @ X)
        b = bread @ X.T @ y
        e = y - X @ b
        n = len(y)
        se = math.sqrt((bread @ (X.T * e**2) @ X @ bread)[1, 1] * n / (n - 2))
        row = out[(out["model"] == model) & (out["contrast"] == "keyword-stuffed − plain")].iloc[0]
        q = stats.t.ppf(0.975, n - 2)
        assert row["estimate"] == pytest.approx(b[1])
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((b[1] - q * se, b[1] + q * se), rel=1e-8)
        assert row["p"] == pytest.approx(2 * stats.t.sf(abs(b[1]) / se, n - 2), rel=1e-8)
    for contrast, g in out.groupby("contrast"):
        np.testing.assert_allclose(g["p_holm"], multipletests(g["p"], method="holm")[1], err_msg=contrast)
    pooled = multipletests(out["p"], method="holm")[1]
    assert not np.allclose(out["p_holm"], pooled)


def test_drift_holm_is_over_every_contrast_of_the_two_models(monkeypatch):
    # the p-values of the differences are given in turn; the family is the whole table
    given = iter([0.001, 0.02, 0.03, 0.04, 0.2, 0.5])
    monkeypatch.setattr(analyses, "_interaction", lambda *a, **k: {"estimate": 1.0, "ci_low": 0.0, "ci_high": 2.0,
                                                                    "p": next(given)})
    rows = []
    for model in ("a", "b"):
        for item in ("resumeF1", "resumeF2", "resumeT1"):
            for job in ("jobF", "jobT"):
                for name, race, sex in (("n1", "White", "male"), ("n2", "Black", "female"), ("n3", "Asian", "male")):
                    rows.append({"source": "derbyshire", "model": model, "item": item, "job": job, "name": name,
                                 "race": race, "sex": sex, "run": 0, "outcome": float(len(item) + len(name))})
    out = analyses.drift(pd.DataFrame(rows))
    assert list(out["contrast"]) == ["job_fit", "quality", "race: Asian − White", "race: Black − White",
                                     "sex: female − male"]
    np.testing.assert_allclose(out["p"], [0.001, 0.02, 0.03, 0.04, 0.2])
    np.testing.assert_allclose(out["p_holm"], multipletests(out["p"], method="holm")[1])
