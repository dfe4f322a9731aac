"""Property tests: path-specific effects move the right way under a planted shift.

On the discrete SCMs of popresume.causal.scm (exact effects), a shift planted in the
score moves exactly the effects whose path it lies on:

* a direct shift (δ points for every x1 applicant) moves TE and NDE by δ and leaves NIE,
  BIE and RIE alone, in the truth, in the plug-in estimate and in the cross-fitted
  estimate (with cell-mean learners, whose fits shift by exactly δ);
* a shift through the business-necessity mediator (γ points per unit of B) leaves NDE
  alone and moves the indirect effects in proportion to γ, the way the truth moves.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from popresume.causal import estimate_pse, make_scm, plugin_pse
from popresume.causal.nuisance import CellMeans

ROLES = dict(x="x", x0="x0", x1="x1", z=["z"], b=["b"], r=["r"], y="y")
FEW = settings(max_examples=5, deadline=None, database=None)
shifts = st.floats(-5, 5, allow_nan=False).filter(lambda v: abs(v) > 0.05)
kinds = st.sampled_from(["basic", "no_direct", "high_card_r"])


def _truth(scm, m):
    scm = type(scm)(**{**scm.__dict__, "m": m})
    return scm.true_effects()


@FEW
@given(kinds, shifts)
def test_direct_shift_moves_te_and_nde_only_in_truth(kind, delta):
    scm = make_scm(kind)
    before = scm.true_effects()
    m = scm.m.copy()
    m[1] += delta
    after = _truth(scm, m)
    assert after["NDE"] - before["NDE"] == pytest.approx(delta)
    assert after["TE"] - before["TE"] == pytest.approx(delta)
    for e in ("NIE", "BIE", "RIE"):
        assert after[e] == pytest.approx(before[e], abs=1e-9)


# samples where every (z, r, b) cell holds both groups (the plug-in needs positivity)
SAMPLES = {kind: make_scm(kind).sample(4000, seed=0) for kind in ("basic", "no_direct")}


@FEW
@given(st.sampled_from(sorted(SAMPLES)), shifts)
def test_direct_shift_moves_the_plugin_estimate_by_delta(kind, delta):
    d = SAMPLES[kind]
    before = plugin_pse(d, **ROLES)["estimate"]
    shifted = d.assign(y=d["y"] + delta * (d["x"] == "x1"))
    after = plugin_pse(shifted, **ROLES)["estimate"]
    assert after["NDE"] - before["NDE"] == pytest.approx(delta, abs=1e-8)
    assert after["TE"] - before["TE"] == pytest.approx(delta, abs=1e-8)
    for e in ("NIE", "BIE", "RIE"):
        assert after[e] == pytest.approx(before[e], abs=1e-8)


@pytest.mark.parametrize("delta", [-2.0, 3.0])
def test_direct_shift_moves_the_crossfit_estimate_by_delta(delta):
    # one example per sign (the estimator is the slow part): the cell-mean fits shift by
    # exactly delta; the clipped, normalised weights leave a small remainder
    d = SAMPLES["basic"]
    learners = {"propensity": CellMeans(), "outcome": CellMeans()}
    before = estimate_pse(d, **ROLES, n_boot=0, learners=learners)["estimate"]
    shifted = d.assign(y=d["y"] + delta * (d["x"] == "x1"))
    after = estimate_pse(shifted, **ROLES, n_boot=0, learners=learners)["estimate"]
    assert after["NDE"] - before["NDE"] == pytest.approx(delta, rel=0.01)
    assert after["TE"] - before["TE"] == pytest.approx(delta, rel=0.01)
    for e in ("NIE", "BIE", "RIE"):
        assert after[e] == pytest.approx(before[e], abs=0.01 * abs(delta))


@FEW
@given(kinds, shifts)
def test_mediator_shift_leaves_nde_and_moves_bie_with_gamma(kind, gamma):
    scm = make_scm(kind)
    before = scm.true_effects()
    b_values = np.arange(scm.m.shape[-1], dtype=float)
    after = _truth(scm, scm.m + gamma * b_values)
    assert after["NDE"] == pytest.approx(before["NDE"], abs=1e-9)
    # X tilts B upward in every SCM (x_b increasing), so E[B] is larger under a_b = 1:
    # the BIE moves with the sign of gamma
    assert np.sign(after["BIE"] - before["BIE"]) == np.sign(gamma)
    # and in proportion to it (the effects are linear in m)
    unit = _truth(scm, scm.m + b_values)["BIE"] - before["BIE"]
    assert after["BIE"] - before["BIE"] == pytest.approx(gamma * unit, rel=1e-9)


@FEW
@given(shifts)
def test_mediator_shift_moves_the_plugin_estimate_like_the_truth(gamma):
    scm = make_scm("basic")
    d = SAMPLES["basic"]
    before = plugin_pse(d, **ROLES)["estimate"]
    after = plugin_pse(d.assign(y=d["y"] + gamma * d["b"]), **ROLES)["estimate"]
    assert after["NDE"] == pytest.approx(before["NDE"], abs=1e-8)  # NDE holds B at its x0 law
    b_values = np.arange(scm.m.shape[-1], dtype=float)
    true_unit = _truth(scm, scm.m + b_values)["NIE"] - scm.true_effects()["NIE"]
    moved = (after["NIE"] - before["NIE"]) / gamma
    # the per-unit move is the empirical E[B] difference: near the true one on 4000 rows
    assert moved == pytest.approx(true_unit, abs=0.12)
    assert np.sign(after["NIE"] - before["NIE"]) == np.sign(gamma)
