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
