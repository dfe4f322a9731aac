"""popresume.multiplicity against statsmodels' multipletests and hand-computed cases.

Written to kill the mutants ``scripts/mutation.py multiplicity`` found alive: every
adjuster, the NaN policy, the [0, 1] check, the cap at 1 and the dispatch by name.
"""

from __future__ import annotations

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

from popresume import multiplicity

P = np.array([0.01, 0.04, 0.03, 0.005, 0.2, 0.6])
SM_METHOD = {"holm": "holm", "bh": "fdr_bh", "bonferroni": "bonferroni"}


@pytest.mark.parametrize("method", ["holm", "bh", "bonferroni"])
def test_agrees_with_statsmodels(method):
    rng = np.random.default_rng(3)
    for p in [P, rng.uniform(0, 0.2, 9), rng.uniform(0, 1, 25), np.array([0.5]), np.array([0.3, 0.3, 0.3])]:
        ours = multiplicity.adjust_p(p, method)
        ref = multipletests(p, method=SM_METHOD[method])[1]
        np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-12)


def test_bonferroni_by_hand():
    # m = 3: each p times 3, capped at 1
    np.testing.assert_allclose(multiplicity.bonferroni([0.01, 0.2, 0.5]), [0.03, 0.6, 1.0])


def test_holm_by_hand_with_running_maximum():
    # sorted 0.01, 0.02, 0.04 -> 3*0.01 = 0.03, 2*0.02 = 0.04, 1*0.04 = 0.04
    np.testing.assert_allclose(multiplicity.holm([0.04, 0.01, 0.02]), [0.04, 0.03, 0.04])
    # the running maximum: sorted 0.01, 0.011 -> 0.02, max(0.02, 0.011) = 0.02
    np.testing.assert_allclose(multiplicity.holm([0.011, 0.01]), [0.02, 0.02])


def test_bh_by_hand_with_running_minimum():
    # m = 3, sorted 0.01, 0.02, 0.04: 0.03, 0.03, 0.04 -> running min from the top keeps them
    np.testing.assert_allclose(multiplicity.benjamini_hochberg([0.04, 0.01, 0.02]), [0.04, 0.03, 0.03])
    # the running minimum from the top: sorted 0.02, 0.021 -> 0.04, 0.021 -> min 0.021 for both
    np.testing.assert_allclose(multiplicity.benjamini_hochberg([0.021, 0.02]), [0.021, 0.021])


@pytest.mark.parametrize("fn", [multiplicity.holm, multiplicity.bonferroni])
def test_capped_at_one(fn):
    # (BH never needs the cap: its largest adjusted value is the largest p itself)
    out = fn([0.9, 0.8, 0.95])
    assert out.max() == 1.0
    assert (out <= 1.0).all()


@pytest.mark.parametrize("fn", [multiplicity.holm, multiplicity.benjamini_hochberg, multiplicity.bonferroni])
def test_nan_omitted_from_family_size(fn):
    # NaN stays NaN and m counts only the two real p-values
    out = fn([0.01, np.nan, 0.02])
    assert np.isnan(out[1])
    ref = fn([0.01, 0.02])
    np.testing.assert_allclose(out[[0, 2]], ref)
    assert fn([0.01, np.nan]).tolist()[0] == pytest.approx(0.01)


def test_all_nan_gives_all_nan():
    out = multiplicity.holm([np.nan, np.nan])
    assert out.shape == (2,) and np.isnan(out).all()
    assert multiplicity.bonferroni([]).shape == (0,)


@pytest.mark.parametrize("method", ["holm", "bh", "bonferroni"])
def test_nan_raise(method):
    with pytest.raises(ValueError, match=r"^p-values contain NaN at positions \[1, 3\]$"):
        multiplicity.adjust_p([0.1, np.nan, 0.2, np.nan], method, nan="raise")
    # no NaN: "raise" changes nothing
    np.testing.assert_allclose(multiplicity.adjust_p([0.1, 0.2], method, nan="raise"),
                               multiplicity.adjust_p([0.1, 0.2], method))


@pytest.mark.parametrize("bad", [[-0.1, 0.2], [0.2, 1.5]])
def test_out_of_range_rejected(bad):
    with pytest.raises(ValueError, match=r"^p-values must lie in \[0, 1\]; got \[(-0\.1|1\.5)\]$"):
        multiplicity.holm(bad)


def test_bounds_zero_and_one_accepted():
    np.testing.assert_allclose(multiplicity.bonferroni([0.0, 1.0]), [0.0, 1.0])


def test_two_dimensional_rejected():
    with pytest.raises(ValueError, match=r"^p-values must be a one-dimensional sequence$"):
        multiplicity.holm([[0.1, 0.2]])


def test_ties_keep_input_order():
    # stable ordering: equal p-values get equal adjusted values wherever they sit
    out = multiplicity.holm([0.02, 0.01, 0.02, 0.01])
    np.testing.assert_allclose(out, [0.04, 0.04, 0.04, 0.04])


def test_adjust_p_dispatch_and_default():
    p = [0.01, 0.02, 0.04]
    np.testing.assert_allclose(multiplicity.adjust_p(p), multiplicity.holm(p))
    np.testing.assert_allclose(multiplicity.adjust_p(p, "bh"), [0.03, 0.03, 0.04])
    np.testing.assert_allclose(multiplicity.adjust_p(p, "bonferroni"), [0.03, 0.06, 0.12])
    np.testing.assert_allclose(multiplicity.adjust_p(p, "holm"), [0.03, 0.04, 0.04])
    assert set(multiplicity.ADJUSTERS) == {"holm", "bh", "bonferroni"}


def test_adjust_p_passes_nan_policy():
    with pytest.raises(ValueError, match="NaN"):
        multiplicity.adjust_p([np.nan, 0.1], "bh", nan="raise")
    out = multiplicity.adjust_p([np.nan, 0.1], "bonferroni", nan="omit")
    assert np.isnan(out[0]) and out[1] == pytest.approx(0.1)


def test_adjust_p_unknown_method():
    with pytest.raises(ValueError, match=r"^unknown p-value adjustment 'sidak'; use one of \['holm', 'bh', 'bonferroni'\]$"):
        multiplicity.adjust_p([0.1], "sidak")


def test_integer_input_gives_float_output():
    # p-values given as integers (0 and 1 are valid): the result is float, NaN-capable
    for fn in (multiplicity.holm, multiplicity.benjamini_hochberg, multiplicity.bonferroni):
        out = fn([0, 1, 1])
        assert out.dtype == np.float64
        np.testing.assert_array_equal(out, [0.0, 1.0, 1.0])


def test_out_of_range_message_lists_only_the_bad_values():
    with pytest.raises(ValueError, match=r"got \[-0\.1\]$"):
        multiplicity.holm([-0.1, 0.0, 0.2])
    with pytest.raises(ValueError, match=r"got \[1\.5\]$"):
        multiplicity.holm([1.0, 1.5])
