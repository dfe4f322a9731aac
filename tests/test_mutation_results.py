"""The intervals of ``popresume.causal.results`` on hand-made results whose answers are known
here without the module: how repetitions combine (``aggregate_reps``, ``rep_se``), the
bootstrap percentile interval, the jackknife's t interval, and the simultaneous (sup-t) band
over bootstrap draws and over Gaussian draws, alone and with the jackknife. Written for the
mutants ``scripts/mutation.py causal.results`` found alive (issue 38); each test takes well
under a second.

Effects are written by hand from the means, in ``PSI_NAMES`` order (ψ000, ψ111, ψ100, ψ101,
ψ110): TE = ψ111 − ψ000, NDE = ψ100 − ψ000, NIE = ψ111 − ψ100, BIE = ½(ψ111 − ψ101 + ψ110 − ψ100),
RIE = ½(ψ111 − ψ110 + ψ101 − ψ100).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from popresume.causal.results import PSEResult, aggregate_reps, rep_se

EFFECTS = ["TE", "NDE", "NIE", "BIE", "RIE"]
MEANS = ["psi_000", "psi_111", "psi_100", "psi_101", "psi_110"]
PSI = np.array([1.0, 1.6, 1.2, 1.1, 1.3])
# the effects of PSI by the formulas above
EST = np.array([0.6, 0.2, 0.4, 0.5 * (0.5 + 0.1), 0.5 * (0.3 - 0.1)])


def _by_hand_effects(m: np.ndarray) -> np.ndarray:
    """The five effects of means in the last axis (the formulas of the module docstring)."""
    p000, p111, p100, p101, p110 = np.moveaxis(np.asarray(m, float), -1, 0)
    return np.stack([p111 - p000, p100 - p000, p111 - p100, 0.5 * (p111 - p101 + p110 - p100),
                     0.5 * (p111 - p110 + p101 - p100)], axis=-1)


def _hadamard_phi(scales) -> np.ndarray:
    """(1, 8, 5) influence values: column j is ±scales[j] along five orthogonal, zero-sum sign
    patterns (columns 1-5 of the 8 × 8 Sylvester-Hadamard matrix), so the sample covariance is
    diagonal, var_j = 8 s_j² / 7, and the SE of mean j is s_j / √7."""
    h = np.array([[1.0]])
    for _ in range(3):
        h = np.block([[h, h], [h, -h]])
    return (h[:, 1:6] * np.asarray(scales, float))[None]


# --- aggregate_reps and rep_se -----------------------------------------------------------------
def test_aggregate_reps_median_and_mean_on_either_axis():
    v = np.array([[1.0, 10.0], [2.0, 20.0], [6.0, 60.0]])
    np.testing.assert_allclose(aggregate_reps(v, "median"), [2.0, 20.0])
    np.testing.assert_allclose(aggregate_reps(v, "mean"), [3.0, 30.0])
    np.testing.assert_allclose(aggregate_reps(v, "mean", axis=1), [5.5, 11.0, 33.0])
    np.testing.assert_allclose(aggregate_reps(v, "median", axis=1), [5.5, 11.0, 33.0])
    with pytest.raises(ValueError, match=r"aggregate must be one of .*median.*mean.*got 'avg'"):
        aggregate_reps(v, "avg")


def test_rep_se_two_repetitions_median_adds_the_spread_of_the_estimates():
    # rep 1: φ = (0, 2), θ = 1, var (ddof 1) 2, /n = 1; rep 2: φ = (3, 5), θ = 4, var/n = 1.
    # median of two: θ̂ = 2.5, (θ_m − θ̂)² = 2.25 each, so median(1 + 2.25, 1 + 2.25) = 3.25.
    # mean: φ̄ = (1.5, 3.5), SD √2, over √2: 1.
    phi = np.array([[[0.0], [2.0]], [[3.0], [5.0]]])
    np.testing.assert_allclose(rep_se(phi, "median"), [math.sqrt(3.25)], rtol=1e-12)
    np.testing.assert_allclose(rep_se(phi, "mean"), [1.0], rtol=1e-12)


# --- pointwise intervals -------------------------------------------------------------------------
def _ramp_boot() -> np.ndarray:
    """101 draws of the means, ψ = (1, 2, 3, 4, 5) × a with a = 0, 1, ..., 100, so the effects'
    draws are a, 2a, −a, 0, −a."""
    return np.arange(101.0)[:, None] * np.arange(1.0, 6.0)


@pytest.mark.parametrize("level, lo_a, hi_a", [(0.9, 5.0, 95.0), (0.8, 10.0, 90.0)])
def test_bootstrap_percentile_interval_of_each_effect_and_mean(level, lo_a, hi_a):
    phi = np.zeros((1, 4, 5))
    phi[0, :, 1] = [0.0, 0.0, 2.0, 2.0]
    res = PSEResult(PSI, phi, boot_psi=_ramp_boot(), boot_kind="influence")
    # the (1 − level)/2 and (1 + level)/2 percentiles of a = 0..100 (linear interpolation) are lo_a, hi_a
    ci = res.confint(level)
    assert list(ci.index) == EFFECTS and ci.index.name == "effect" and list(ci.columns) == ["ci_low", "ci_high"]
    np.testing.assert_allclose(ci["ci_low"], [lo_a, 2 * lo_a, -hi_a, 0.0, -hi_a], atol=1e-9)
    np.testing.assert_allclose(ci["ci_high"], [hi_a, 2 * hi_a, -lo_a, 0.0, -lo_a], atol=1e-9)
    ci = res.confint(level, psi=True)
    assert list(ci.index) == MEANS and ci.index.name == "effect"
    np.testing.assert_allclose(ci["ci_low"], lo_a * np.arange(1.0, 6.0), atol=1e-9)
    np.testing.assert_allclose(ci["ci_high"], hi_a * np.arange(1.0, 6.0), atol=1e-9)


@pytest.mark.parametrize("aggregate, se0", [("mean", 1.0), ("median", math.sqrt(3.25))])
def test_psi_interval_combines_repetitions_by_the_result_s_rule(aggregate, se0):
    # ψ000's influence values: the two repetitions of test_rep_se_two_repetitions_...; others 0
    phi = np.zeros((2, 2, 5))
    phi[0, :, 0], phi[1, :, 0] = [0.0, 2.0], [3.0, 5.0]
    ci = PSEResult(PSI, phi, aggregate=aggregate).confint(0.95, psi=True)
    half = stats.norm.ppf(0.975) * np.array([se0, 0, 0, 0, 0])
    np.testing.assert_allclose(ci["ci_low"], PSI - half, rtol=1e-12)
    np.testing.assert_allclose(ci["ci_high"], PSI + half, rtol=1e-12)


def _jack(g: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """``g`` (even) leave-one-group-out means PSI ± a_j (signs alternating, a_j = 0.1 (j + 1)): their mean
    is PSI, Σ_g (θ_(g) − θ̄)² = g a_j², so the jackknife SE is √((g − 1)/g · g a_j²) = a_j √(g − 1)."""
    assert g % 2 == 0
    a = 0.1 * np.arange(1.0, 6.0)
    signs = np.where(np.arange(g) % 2 == 0, 1.0, -1.0)[:, None]
    return PSI + signs * a, a * math.sqrt(g - 1)


def test_jackknife_interval_is_t_on_g_minus_1_df_even_with_bootstrap_draws():
    jack, se_psi = _jack(4)
    res = PSEResult(PSI, _hadamard_phi([0.5, 0.25, 1.0, 2.0, 0.0]), boot_psi=_ramp_boot(), boot_kind="influence",
                    jack_psi=jack)
    q = stats.t.ppf(0.95, 3)
    ci = res.confint(0.9, psi=True)
    np.testing.assert_allclose(ci["ci_low"], PSI - q * se_psi, rtol=1e-12)
    np.testing.assert_allclose(ci["ci_high"], PSI + q * se_psi, rtol=1e-12)
    # the effects' jackknife SE, from the effects of each group's means
    eff = _by_hand_effects(jack)
    se = np.sqrt(3 / 4 * ((eff - eff.mean(axis=0)) ** 2).sum(axis=0))
    ci = res.confint(0.9)
    np.testing.assert_allclose(ci["ci_low"], EST - q * se, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ci["ci_high"], EST + q * se, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("level", [0.0, 1.0, 1.5, -0.2])
def test_level_outside_zero_one_is_refused_with_the_value(level):
    res = PSEResult(PSI, _hadamard_phi([0.5] * 5))
    with pytest.raises(ValueError, match=rf"level must be in \(0, 1\), got {level}"):
        res.confint(level)


# --- simultaneous bands ------------------------------------------------------------------------------
# ψ SEs s_j / √7 from _hadamard_phi; ψ110 has SE 0, so it takes no part in the maximum
SCALES = np.array([0.5, 0.25, 1.0, 2.0, 0.0])


def _band_draws() -> np.ndarray:
    """101 draws of the means: ψ_j = offset_j + r_j · d · SE_j with d = −50..50, r = (1, ½, ¼, 1)
    and ψ110 moving with d though its SE is 0. Each draw's largest |ψ_j − mean_j| / SE_j is |d|
    (r_j ≤ 1), and the 0.9 quantile of |d| over the 101 draws is 45 (sorted |d|: 0, 1, 1, 2, 2, ...)."""
    d = np.arange(-50.0, 51.0)[:, None]
    se = SCALES / math.sqrt(7)
    r = np.array([1.0, 0.5, 0.25, 1.0, 0.0])
    offset = np.array([3.0, -2.0, 7.0, 1.0, 5.0])
    return offset + d * r * se + d * np.array([0, 0, 0, 0, 1.0])


def test_sup_t_band_over_bootstrap_draws_by_hand():
    res = PSEResult(PSI, _hadamard_phi(SCALES), boot_psi=_band_draws(), boot_kind="influence")
    ci = res.confint(0.9, joint=True, psi=True)
    se = SCALES / math.sqrt(7)
    assert list(ci.index) == MEANS and ci.index.name == "effect"
    np.testing.assert_allclose(ci["ci_low"], PSI - 45.0 * se, rtol=1e-9)
    np.testing.assert_allclose(ci["ci_high"], PSI + 45.0 * se, rtol=1e-9)


def test_sup_t_band_with_the_jackknife_scales_c_by_t_over_normal():
    jack, se_psi = _jack(6)
    res = PSEResult(PSI, _hadamard_phi(SCALES), boot_psi=_band_draws(), boot_kind="influence", jack_psi=jack)
    c = 45.0 * stats.t.ppf(0.95, 5) / stats.norm.ppf(0.95)  # the influence c, on G − 1 = 5 df
    ci = res.confint(0.9, joint=True, psi=True)
    np.testing.assert_allclose(ci["ci_low"], PSI - c * se_psi, rtol=1e-9)
    np.testing.assert_allclose(ci["ci_high"], PSI + c * se_psi, rtol=1e-9)


def _reproduced_gaussian_c(cov: np.ndarray, se: np.ndarray, level: float, seed: int = 0, n_sim: int = 10_000):
    """The level quantile of max_j |Z_j| / se_j over the default simulation (NumPy's generator
    with ``seed``, ``n_sim`` draws, eigh factorisation), zero-SE columns left out."""
    z = np.random.default_rng(seed).multivariate_normal(np.zeros(len(se)), cov, size=n_sim, method="eigh")
    keep = se > 0
    return float(np.quantile((np.abs(z[:, keep]) / se[keep]).max(axis=1), level))


def test_gaussian_sup_t_band_of_independent_means_is_the_sidak_quantile():
    # four independent means with SE > 0 (ψ110's is 0): max_j |Z_j| ≤ c with chance level when
    # (2Φ(c) − 1)⁴ = level, i.e. c = Φ⁻¹((1 + level^(1/4)) / 2)
    res = PSEResult(PSI, _hadamard_phi(SCALES))
    se = SCALES / math.sqrt(7)
    for level in (0.95, 0.9):
        sidak = stats.norm.ppf((1 + level ** 0.25) / 2)
        ci = res.confint(level, joint=True, psi=True)
        half = (ci["ci_high"] - ci["ci_low"]).to_numpy() / 2
        np.testing.assert_allclose((ci["ci_high"] + ci["ci_low"]) / 2, PSI, rtol=1e-12)
        assert half[4] == 0.0
        c = half[:4] / se[:4]
        np.testing.assert_allclose(c, c[0], rtol=1e-9)  # one c for all
        assert c[0] == pytest.approx(sidak, abs=0.05)
        # the default simulation: seed 0, 10,000 draws, eigh (the printed numbers are reproducible)
        cov = np.diag(SCALES ** 2 / 7)
        assert c[0] == pytest.approx(_reproduced_gaussian_c(cov, se, level), rel=1e-9)
    # another seed is another simulation, and the same seed the same band
    default, other = res.confint(0.95, joint=True, psi=True), res.confint(0.95, joint=True, psi=True, seed=5)
    assert not np.allclose(other["ci_low"].to_numpy()[:4], default["ci_low"].to_numpy()[:4], rtol=1e-6)
    assert res.confint(0.95, joint=True, psi=True, seed=5).equals(other)


def test_gaussian_sup_t_band_of_perfectly_correlated_effects_is_the_pointwise_interval():
    # only ψ111 moves (φ = 0, 0, 2, 2, SE √(1/3)): TE and NIE carry it whole, BIE and RIE half,
    # NDE not at all, so max_j |Z_j| / SE_j is one |N(0, 1)| and c is close to z_0.975
    phi = np.zeros((1, 4, 5))
    phi[0, :, 1] = [0.0, 0.0, 2.0, 2.0]
    res = PSEResult(PSI, phi)
    s = math.sqrt(1 / 3)
    se = np.array([s, 0.0, s, s / 2, s / 2])
    ci = res.confint(0.95, joint=True)
    assert list(ci.index) == EFFECTS and ci.index.name == "effect"
    half = (ci["ci_high"] - ci["ci_low"]).to_numpy() / 2
    np.testing.assert_allclose((ci["ci_high"] + ci["ci_low"]) / 2, EST, rtol=1e-12)
    assert half[1] == 0.0
    c = half[[0, 2, 3, 4]] / se[[0, 2, 3, 4]]
    np.testing.assert_allclose(c, c[0], rtol=1e-9)
    assert c[0] == pytest.approx(stats.norm.ppf(0.975), abs=0.05)
    w = np.array([1.0, 0.0, 1.0, 0.5, 0.5])  # each effect's weight on ψ111; Var(mean φ111) = (4/3)/4
    assert c[0] == pytest.approx(_reproduced_gaussian_c(np.outer(w, w) / 3, se, 0.95), rel=1e-6)


def test_gaussian_sup_t_band_with_the_jackknife():
    jack, se_psi = _jack(4)
    res = PSEResult(PSI, _hadamard_phi(SCALES), jack_psi=jack)
    se = SCALES / math.sqrt(7)
    c = _reproduced_gaussian_c(np.diag(SCALES ** 2 / 7), se, 0.9) * stats.t.ppf(0.95, 3) / stats.norm.ppf(0.95)
    ci = res.confint(0.9, joint=True, psi=True)
    np.testing.assert_allclose(ci["ci_low"], PSI - c * se_psi, rtol=1e-9)
    np.testing.assert_allclose(ci["ci_high"], PSI + c * se_psi, rtol=1e-9)
