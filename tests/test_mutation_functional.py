"""popresume.causal.functional and .plugin on cases small enough to compute by hand.

Written to kill mutants that ``scripts/mutation.py causal.functional`` found alive: the DR
weights of docs/DESIGN.md §3 for each kind of triple, the influence value, Kish's effective
sample size, the effect weights of Eqs. (1)-(5) and the discrete plug-in sum of Eqs. (6)-(10)
on a table whose conditional frequencies are written out below.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from popresume.causal import functional as fn
from popresume.causal import plugin

X1 = np.array([1, 0, 1, 0])
P_Z = np.array([0.5, 0.4, 0.8, 0.25])
P_RZ = np.array([0.6, 0.5, 0.7, 0.2])
P_BRZ = np.array([0.3, 0.9, 0.4, 0.5])


@pytest.mark.parametrize("triple", [(1, 0, 1), (0, 1, 0), (1, 1, 0), (0, 0, 1)])
def test_weights_by_the_formula_of_each_triple(triple):
    a_y, a_b, a_r = triple

    def p(a, p1):  # P(X = a | .) written out
        return p1 if a == 1 else 1 - p1

    ind = {1: X1.astype(float), 0: 1.0 - X1}
    pi1 = ind[a_r] / p(a_r, P_Z)
    pi2 = ind[a_b] * p(a_r, P_RZ) / (p(a_b, P_RZ) * p(a_r, P_Z))
    pi3 = ind[a_y] * p(a_b, P_BRZ) * p(a_r, P_RZ) / (p(a_y, P_BRZ) * p(a_b, P_RZ) * p(a_r, P_Z))
    raw = fn.weights(X1, triple, P_Z, P_RZ, P_BRZ, normalize=False)
    np.testing.assert_allclose(raw.pi1, pi1)
    np.testing.assert_allclose(raw.pi2, pi2)
    np.testing.assert_allclose(raw.pi3, pi3)
    assert raw.raw_means == pytest.approx((pi1.mean(), pi2.mean(), pi3.mean()))
    norm = fn.weights(X1, triple, P_Z, P_RZ, P_BRZ)  # normalised by default
    np.testing.assert_allclose(norm.pi1, pi1 / pi1.mean())
    np.testing.assert_allclose(norm.pi2, pi2 / pi2.mean())
    np.testing.assert_allclose(norm.pi3, pi3 / pi3.mean())
    assert norm.raw_means == raw.raw_means


def test_weights_by_hand_one_row_and_an_all_zero_weight():
    # X = x1 on the only row, triple (1, 0, 1): pi1 = 1/.5, pi2 = 0 (X != a_b),
    # pi3 = (1 - .3) * .6 / (.3 * (1 - .6) * .5) = 7
    w = fn.weights(np.array([True]), (1, 0, 1), np.array([0.5]), np.array([0.6]), np.array([0.3]),
                   normalize=False)
    assert w.pi1 == pytest.approx([2.0]) and w.pi2 == pytest.approx([0.0]) and w.pi3 == pytest.approx([7.0])
    # normalising leaves a weight whose mean is 0 as it is (no division by zero)
    n = fn.weights(np.array([True]), (1, 0, 1), np.array([0.5]), np.array([0.6]), np.array([0.3]))
    assert n.pi1 == pytest.approx([1.0]) and n.pi2 == pytest.approx([0.0]) and n.pi3 == pytest.approx([1.0])
    assert n.raw_means == pytest.approx((2.0, 0.0, 7.0))
    assert fn.weights([1, 0], (0, 0, 0), np.array([0.5, 0.5]), np.array([0.5, 0.5]), np.array([0.5, 0.5]),
                      normalize=False).pi1 == pytest.approx([0.0, 2.0])


def test_influence_by_hand():
    w = fn.Weights(np.array([2.0, 0.5]), np.array([3.0, 0.0]), np.array([4.0, 1.0]), (0, 0, 0))
    y, mu3, mu2, mu1 = np.array([1.0, 2.0]), np.array([0.5, 1.0]), np.array([0.25, 3.0]), np.array([0.1, 2.0])
    # row 1: 4(1 - .5) + 3(.5 - .25) + 2(.25 - .1) + .1 = 2 + .75 + .3 + .1
    # row 2: 1(2 - 1) + 0 + .5(3 - 2) + 2 = 3.5
    np.testing.assert_allclose(fn.influence(y, w, mu3, mu2, mu1), [3.15, 3.5])


def test_effective_sample_size_and_p_of():
    assert fn.effective_sample_size([1, 1, 2]) == pytest.approx(16 / 6)
    assert fn.effective_sample_size([3, 3, 3, 3]) == pytest.approx(4.0)
    assert fn.effective_sample_size([0, 0]) == 0.0 and fn.effective_sample_size([0, 5, 0]) == pytest.approx(1.0)
    assert fn.effective_sample_size(np.array([1, 2], dtype=int)) == pytest.approx(9 / 5)
    np.testing.assert_allclose(fn.p_of(1, np.array([0.2, 0.7])), [0.2, 0.7])
    np.testing.assert_allclose(fn.p_of(0, np.array([0.2, 0.7])), [0.8, 0.3])


def test_effect_weights_are_eqs_1_to_5():
    a, b, c, d, e = 1.0, 5.0, 2.0, 7.0, 11.0  # psi_000, 111, 100, 101, 110
    te, nde, nie, bie, rie = fn.effects_from_psi([a, b, c, d, e])
    assert (te, nde, nie) == (b - a, c - a, b - c)
    assert bie == pytest.approx(0.5 * ((b - d) + (e - c))) and rie == pytest.approx(0.5 * ((b - e) + (d - c)))
    batch = fn.effects_from_psi(np.array([[a, b, c, d, e], [0, 1, 0, 0, 0]], dtype=int))
    assert batch.shape == (2, 5) and batch.dtype == float
    np.testing.assert_allclose(batch[1], [1, 0, 1, 0.5, 0.5])
    assert fn.PSI_TRIPLES == {"psi_000": (0, 0, 0), "psi_111": (1, 1, 1), "psi_100": (1, 0, 0),
                              "psi_101": (1, 0, 1), "psi_110": (1, 1, 0)}
    assert fn.PSI_NAMES == ("psi_000", "psi_111", "psi_100", "psi_101", "psi_110")
    assert list(fn.EFFECT_WEIGHTS.index) == ["TE", "NDE", "NIE", "BIE", "RIE"]
    assert list(fn.EFFECT_WEIGHTS.columns) == list(fn.PSI_NAMES)


# --- the plug-in on a written-out table ------------------------------------------------------
# z = 0 stratum: rows (x, r, b, y). x0: r=0 (b 0, 1), r=1 (b 0, 1, 1); x1: r=0 (b 0, 1, 0),
# r=1 (b 0, 1, 1, 1). The z = 1 stratum repeats it twice with y + 10, so P(z = 1) = 2/3 and
# every conditional frequency is the same in both strata.
X0_ROWS = [(0, 0, 1.0), (0, 1, 2.0), (1, 0, 3.0), (1, 1, 5.0), (1, 1, 7.0)]
X1_ROWS = [(0, 0, 2.0), (0, 1, 6.0), (0, 0, 4.0), (1, 0, 4.0), (1, 1, 8.0), (1, 1, 10.0), (1, 1, 9.0)]
P_R1 = {0: 3 / 5, 1: 4 / 7}  # P(r = 1 | x)
P_B1 = {0: {0: 1 / 2, 1: 2 / 3}, 1: {0: 1 / 3, 1: 3 / 4}}  # P(b = 1 | x, r)
MEAN = {0: {(0, 0): 1, (0, 1): 2, (1, 0): 3, (1, 1): 6}, 1: {(0, 0): 3, (0, 1): 6, (1, 0): 4, (1, 1): 9}}


def _table():
    rows = []
    for z, copies, shift in ((0, 1, 0.0), (1, 2, 10.0)):
        for x, group in ((0, X0_ROWS), (1, X1_ROWS)):
            rows += [{"x": "m" if x == 0 else "w", "z": f"z{z}", "r": f"r{r}", "b": f"b{b}", "y": y + shift}
                     for r, b, y in group] * copies
    return pd.DataFrame(rows)


def _psi_by_hand(a_y, a_b, a_r):
    def pr(r):
        return P_R1[a_r] if r else 1 - P_R1[a_r]

    def pb(b, r):
        return P_B1[a_b][r] if b else 1 - P_B1[a_b][r]

    z0 = sum(pr(r) * pb(b, r) * MEAN[a_y][(r, b)] for r in (0, 1) for b in (0, 1))
    return z0 + 10 * 2 / 3  # the z = 1 stratum shifts every mean by 10


ROLES = dict(x="x", x0="m", x1="w", z=["z"], b=["b"], r=["r"], y="y")


def test_plugin_psi_by_hand():
    psi = plugin.plugin_psi(_table(), **ROLES)
    assert list(psi.index) == list(fn.PSI_NAMES)
    for name, triple in fn.PSI_TRIPLES.items():
        assert psi[name] == pytest.approx(_psi_by_hand(*triple)), name
    eff = plugin.plugin_pse(_table(), **ROLES)
    assert list(eff.index) == ["TE", "NDE", "NIE", "BIE", "RIE"] and eff.index.name == "effect"
    by = {n: _psi_by_hand(*t) for n, t in fn.PSI_TRIPLES.items()}
    assert eff.loc["NDE", "estimate"] == pytest.approx(by["psi_100"] - by["psi_000"])
    assert eff.loc["BIE", "estimate"] == pytest.approx(
        0.5 * (by["psi_111"] - by["psi_101"] + by["psi_110"] - by["psi_100"]))


def test_plugin_missing_rows_are_dropped_when_asked():
    gap = pd.DataFrame([{"x": "m", "z": "z0", "r": "r0", "b": "b0", "y": np.nan}])
    d = pd.concat([_table(), gap], ignore_index=True)
    with pytest.warns(UserWarning, match="dropping 1"):
        psi = plugin.plugin_psi(d, **ROLES, missing="drop")
    assert psi["psi_000"] == pytest.approx(_psi_by_hand(0, 0, 0))


def test_plugin_names_the_cell_without_support():
    t = _table()
    # no x1 row in z = 1: P(r | x1, z = 1) undefined
    no_z = t[~((t["x"] == "w") & (t["z"] == "z1"))]
    with pytest.raises(ValueError, match=r"no row with X='w' in confounder cell \{'z': 'z1'\}"):
        plugin.plugin_psi(no_z, **ROLES)
    # no x1 row with r = 0, b = 1 in z = 0: E[Y | x1, b=1, r=0, z=0] is needed by psi_100,
    # where P(b = 1 | x0, r = 0, z = 0) > 0
    no_b = t[~((t["x"] == "w") & (t["r"] == "r0") & (t["b"] == "b1") & (t["z"] == "z0"))]
    with pytest.raises(ValueError, match=r"no row with X='w' in cell \{'z': 'z0', 'r': 'r0', 'b': 'b1'\}.*E\[Y"):
        plugin.plugin_psi(no_b, **ROLES)
    # x0 never has r = 1 in z = 0: P(b | x0, r = 1, z = 0) undefined for the triples with a_b = x0
    no_r = t[~((t["x"] == "m") & (t["r"] == "r1") & (t["z"] == "z0"))]
    with pytest.raises(ValueError, match=r"no row with X='m' in cell \{'z': 'z0', 'r': 'r1'\}.*P\(b \| x, r, z\)"):
        plugin.plugin_psi(no_r, **ROLES)


def test_plugin_defaults_score_column_and_raise_on_missing():
    t = _table().rename(columns={"y": "score"})
    roles = {k: v for k, v in ROLES.items() if k != "y"}
    psi = plugin.plugin_psi(t, **roles)
    assert psi["psi_111"] == pytest.approx(_psi_by_hand(1, 1, 1))
    assert plugin.plugin_pse(t, **roles).loc["TE", "estimate"] == pytest.approx(
        _psi_by_hand(1, 1, 1) - _psi_by_hand(0, 0, 0))
    gap = pd.DataFrame([{"x": "m", "z": "z0", "r": "r0", "b": "b0", "score": np.nan}])
    with pytest.raises(ValueError, match="missing values"):
        plugin.plugin_psi(pd.concat([t, gap], ignore_index=True), **roles)
    with pytest.warns(UserWarning, match="dropping 1"):
        eff = plugin.plugin_pse(pd.concat([t, gap], ignore_index=True), **roles, missing="drop")
    assert eff.loc["TE", "estimate"] == pytest.approx(_psi_by_hand(1, 1, 1) - _psi_by_hand(0, 0, 0))


def test_plugin_without_a_confounder_and_one_row_cells_named():
    # no z: psi is the z = 0 stratum's sum alone
    z0 = _table().query("z == 'z0'")
    psi = plugin.plugin_psi(z0, **{**ROLES, "z": []})
    assert psi["psi_101"] == pytest.approx(_psi_by_hand(1, 0, 1) - 10 * 2 / 3)
    # a confounder cell with a single row, of x0 only: named in the error, with X = x1
    one = pd.concat([_table(), pd.DataFrame([{"x": "m", "z": "z9", "r": "r0", "b": "b0", "y": 1.0}])],
                    ignore_index=True)
    with pytest.raises(ValueError, match=r"no row with X='w' in confounder cell \{'z': 'z9'\}"):
        plugin.plugin_psi(one, **ROLES)
    other = pd.concat([_table(), pd.DataFrame([{"x": "w", "z": "z9", "r": "r0", "b": "b0", "y": 1.0}])],
                      ignore_index=True)
    with pytest.raises(ValueError, match=r"no row with X='m' in confounder cell \{'z': 'z9'\}"):
        plugin.plugin_psi(other, **ROLES)


def test_effective_sample_size_of_small_weights():
    """Kish's ESS does not depend on the weights' scale: weights summing to 1 (sum of squares
    under 1) give the same ESS as any multiple of them (issue 31, mut31)."""
    assert fn.effective_sample_size([0.5, 0.5]) == pytest.approx(2.0)
    assert fn.effective_sample_size([0.1, 0.1, 0.2]) == pytest.approx(16 / 6)
    assert fn.effective_sample_size([0.0, 0.0]) == 0.0


# ---- pareto_k: the PSIS tail diagnostic, against a likelihood maximised here ----------

def _gpd_shape_by_profile(x):
    """Maximum-likelihood shape k of a generalised Pareto (location 0) fitted to ``x``,
    found without scipy's fit: with θ = k/σ the likelihood's maximum over k for a fixed θ is
    k(θ) = mean(log(1 + θx)) (Zhang and Stephens 2009, §2), leaving a profile log-likelihood
    n·(log(θ/k(θ)) − k(θ) − 1) in θ alone, searched on a grid and refined. Only θ > 0 is
    searched (a heavy tail, k > 0), so the inputs below have heavy tails."""
    from scipy import optimize

    x = np.asarray(x, dtype=float)

    def neg_profile(theta):
        k = np.mean(np.log1p(theta * x))
        return np.log(k / theta) + k + 1

    grid = np.geomspace(1e-6, 1e6, 1201) / x.mean()
    i = int(np.argmin([neg_profile(t) for t in grid]))
    assert 0 < i < len(grid) - 1, "the maximum is not inside the grid: not a heavy tail"
    best = optimize.minimize_scalar(neg_profile, bounds=(grid[i - 1], grid[i + 1]),
                                    method="bounded", options={"xatol": 1e-14})
    return float(np.mean(np.log1p(best.x * x)))


def _psis_tail_by_hand(w):
    """The M = ⌊min(S/5, 3√S)⌋ largest of the S positive weights, less the (M+1)-th largest."""
    w = np.sort([v for v in w if v > 0])
    s = len(w)
    m = int(np.floor(min(s / 5, 3 * np.sqrt(s))))
    return w[s - m:] - w[s - m - 1]


# 20 small weights under a threshold of 1.0 and five above it: S = 25, M = min(5, 15) = 5,
# so the excesses over the 6th largest (1.0) are these, written out.
EXCESS5 = np.array([0.1, 0.4, 1.0, 2.5, 9.0])
W25 = np.r_[np.linspace(0.5, 1.0, 20), 1.0 + EXCESS5]


def test_pareto_k_five_excesses_by_hand():
    """S = 25 is the smallest S with M = 5: the fit is made, on exactly the five hand-written
    excesses over the sixth largest weight (each of them positive, two of them under 1)."""
    k = fn.pareto_k(W25)
    assert isinstance(k, float)
    assert k == pytest.approx(_gpd_shape_by_profile(EXCESS5), abs=1e-4)
    assert k > 0.1  # heavy: the profile search is inside its grid
    np.testing.assert_allclose(_psis_tail_by_hand(W25), EXCESS5, atol=1e-12)
    # one weight fewer: S = 24, M = 4, no fit
    assert np.isnan(fn.pareto_k(W25[1:]))
    # the order of the weights does not matter
    assert fn.pareto_k(W25[::-1]) == k


@pytest.mark.parametrize("sigma, size", [(1.5, 100), (2.0, 100), (1.5, 1000), (2.0, 1000)])
def test_pareto_k_tail_size_rule_and_fit(sigma, size):
    """Weights at the quantiles of a log-normal of log-sd ``sigma``, self-normalised to mean 1
    (so most are under 1), with zeros and NaN among them that count as absent. Its tail is not
    exactly Pareto, so k̂ moves with the tail size: at S = 100 the tail is S/5 = 20 weights
    (3√S = 30), at S = 1,000 it is ⌊3√S⌋ = 94 (S/5 = 200)."""
    from scipy.stats import norm

    u = (np.arange(size) + 0.5) / size
    w = np.exp(sigma * norm.ppf(u))
    w = w / w.mean()
    m = 20 if size == 100 else 94
    excess = _psis_tail_by_hand(w)
    assert len(excess) == m
    expected = _gpd_shape_by_profile(excess)
    assert expected > 0.1
    mixed = np.r_[np.zeros(size // 2), w, [np.nan, np.nan]]
    assert fn.pareto_k(w) == pytest.approx(expected, abs=1e-4)
    assert fn.pareto_k(mixed) == pytest.approx(expected, abs=1e-4)
    # another tail size gives another k̂ on these weights (so the size rule is what is checked)
    ws = np.sort(w)
    for other in (int(0.3 * size), int(4 * np.sqrt(size)), m - 3):
        assert abs(_gpd_shape_by_profile(ws[size - other:] - ws[size - other - 1]) - expected) > 1e-3


def test_pareto_k_does_not_depend_on_the_weights_scale():
    """k̂ is a shape: multiplying every weight by 2^20 (exact in floating point) leaves the
    excesses over their mean bit for bit the same, so the fit gives the same number."""
    u = (np.arange(300) + 0.5) / 300
    w = (1 - u) ** -0.7
    assert fn.pareto_k(w * 2.0**20) == fn.pareto_k(w)
    assert fn.pareto_k(W25 * 2.0**20) == fn.pareto_k(W25)
    assert fn.pareto_k(w * 2.0**20) == pytest.approx(_gpd_shape_by_profile(_psis_tail_by_hand(w)), abs=1e-4)


def test_pareto_k_needs_five_positive_excesses():
    """The sixth largest weight (1.0) repeated in the tail: excesses 0, 0.4, 1, 2.5, 9 are only
    four positive ones though the five tail weights take five values: not estimable (NaN)."""
    w = np.r_[np.linspace(0.5, 0.9, 19), [1.0, 1.0, 1.4, 2.0, 3.5, 10.0]]
    assert len(w) == 25
    np.testing.assert_allclose(_psis_tail_by_hand(w), [0.0, 0.4, 1.0, 2.5, 9.0], atol=1e-12)
    assert np.isnan(fn.pareto_k(w))


# S = 50: M = min(10, 21.2) = 10; the threshold (11th largest) is 1.0
BELOW50 = np.r_[np.linspace(0.5, 0.99, 39), [1.0]]


def test_pareto_k_tie_rule_at_half_the_tail():
    """Ten tail weights taking five values to two decimals (5 = M/2, not under it) are fitted;
    taking four (under M/2, though all ten excesses are positive) they are not: NaN. Weights
    that differ only in the third decimal count as one value."""
    five = 1.0 + np.array([0.1, 0.101, 0.4, 0.401, 1.0, 1.001, 2.5, 2.501, 9.0, 9.001])
    k = fn.pareto_k(np.r_[BELOW50, five])
    assert k == pytest.approx(_gpd_shape_by_profile(five - 1.0), abs=1e-4)
    exact = 1.0 + np.array([0.1, 0.1, 0.4, 0.4, 1.0, 1.0, 2.5, 2.5, 9.0, 9.0])
    assert fn.pareto_k(np.r_[BELOW50, exact]) == pytest.approx(_gpd_shape_by_profile(exact - 1.0), abs=1e-4)
    four = 1.0 + np.array([0.1, 0.101, 0.102, 0.4, 0.401, 1.0, 1.001, 9.0, 9.001, 9.002])
    assert len(np.unique(four.round(2))) == 4 and (four > 1.0).all()
    assert np.isnan(fn.pareto_k(np.r_[BELOW50, four]))


def test_pareto_k_not_estimable_inputs():
    """NaN, not an error, for: no weights, all zero, all NaN, fewer than 25 positive ones
    (M under 5), and all equal; missing values given as None or pandas' NA count as absent."""
    for w in ([], np.zeros(100), np.full(100, np.nan), np.arange(1.0, 25.0), np.ones(1000),
              np.r_[np.zeros(1000), np.arange(1.0, 25.0)]):
        k = fn.pareto_k(w)
        assert isinstance(k, float) and np.isnan(k)
    expected = _gpd_shape_by_profile(EXCESS5)
    assert fn.pareto_k(list(W25) + [None, None]) == pytest.approx(expected, abs=1e-4)
    na = pd.Series(list(W25) + [pd.NA], dtype="Float64")
    assert fn.pareto_k(na) == pytest.approx(expected, abs=1e-4)
