"""The LL144 harness's fast subset: every interval and chance it checks stays in its band.

2,000 replications per row: a coverage 5 points under its promise (0.90 against at least
0.93) is 6 Monte Carlo SEs out, and so is a stated chance of a flag 5 points off.
"""

from popresume.coverage import COLUMNS
from popresume.coverage import ll144 as coverage_ll144


def test_fast_subset_in_band():
    t = coverage_ll144.run(fast=True, seed=0)
    assert list(t.columns) == COLUMNS
    assert set(t["family"]) == {"ll144"}
    assert {"coverage", "type_I_error"} <= set(t["kind"])
    assert t["setting"].str.startswith("median_split").any() and t["setting"].str.startswith("selection_cut").any()
    assert (t["reps"] >= 2000).all()
    out = t[~t["in_band"]]
    assert out.empty, out[["quantity", "setting", "rate", "band_low", "band_high"]].to_string()
