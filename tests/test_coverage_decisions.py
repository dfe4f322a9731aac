"""The recorded-decisions harness's fast subset: every interval and test of
popresume.decisions.analyses it checks stays in its band on the records' own designs; and
the arm-df interval of a cluster-level contrast against a hand computation."""

import numpy as np
import pandas as pd

from popresume.coverage import COLUMNS
from popresume.coverage import decisions as coverage_decisions
from popresume.decisions import analyses


def test_fast_subset_in_band():
    t = coverage_decisions.run(fast=True, seed=0)
    assert list(t.columns) == COLUMNS
    assert set(t["family"]) == {"decisions"}
    assert {"coverage", "type_I_error"} <= set(t["kind"])
    assert t["quantity"].str.contains("quality").any() and t["quantity"].str.contains("name clusters").any()
    known = [(q, s) in coverage_decisions.KNOWN_UNCALIBRATED for q, s in zip(t["quantity"], t["setting"])]
    out = t[~t["in_band"] & ~np.array(known)]
    assert out.empty, out[["quantity", "setting", "rate", "band_low", "band_high"]].to_string()
    # job fit varying by industry: 3 independent units in 9 résumé clusters; the interval is
    # not calibrated for industries beyond Derbyshire's three, and the row says so
    assert any(known) and (t.loc[known, "rate"] < 0.93).all()
    # the own-file contrasts of `popresume audit --decisions`, through design_coverage
    assert t["quantity"].str.startswith("own-file validity").sum() == 2
    # analyses.CALIBRATION (the validity table's `calibrated` column) says what the harness
    # measured: calibrated where each of its rows is in band, not where one is a known failure
    rows = t.set_index(["quantity", "setting"])
    for (source, contrast), (calibrated, harness, why) in analyses.CALIBRATION.items():
        assert all(h in rows.index for h in harness), (source, contrast)
        if calibrated:
            assert rows.loc[list(harness), "in_band"].all(), (source, contrast)
        else:
            assert any(h in coverage_decisions.KNOWN_UNCALIBRATED for h in harness), (source, contrast)


def test_the_calibration_reasons_quote_the_full_harness_run():
    """A number a reason quotes is the full run's (benchmarks/results/coverage.csv), rounded."""
    from popresume.coverage import read_results

    full = read_results().set_index(["quantity", "setting"])
    for (source, contrast), (calibrated, harness, why) in analyses.CALIBRATION.items():
        if not calibrated:
            bad = [h for h in harness if h in coverage_decisions.KNOWN_UNCALIBRATED]
            assert f"covered {full.loc[bad[0], 'rate']:.2f}" in why


def test_design_calibration_refuses_a_design_one_resume_dominates():
    """Job fit with résumé fixed effects: 12 balanced résumés are calibrated; when one résumé
    holds 30 of every 33 rows, the résumé-clustered interval sees one résumé's effect only
    (its deviation, SD 5, against an SE of about 1: coverage far under 0.93) and is refused."""
    item, job = (a.ravel() for a in np.meshgrid(np.arange(12), np.arange(4), indexing="ij"))
    d = pd.DataFrame({"item": item, "job": job, "fit": (job % 2 == item % 2).astype(float), "outcome": 0.0})
    sub, kw = analyses.own_contrasts(d, fit="fit", quality=None)["job_fit"]
    ok = coverage_decisions.design_calibration(sub, "_t", kw, job="job", reps=200)
    assert ok["calibrated"] and ok["calibration"].startswith("calibrated:") and ok["coverage"] >= 0.9
    heavy = pd.concat([d[d["item"].isin([1, 2, 3])]] + [d[d["item"] == 0]] * 30, ignore_index=True)
    sub, kw = analyses.own_contrasts(heavy, fit="fit", quality=None)["job_fit"]
    bad = coverage_decisions.design_calibration(sub, "_t", kw, job="job", reps=200)
    assert not bad["calibrated"] and bad["coverage"] < 0.8 and "under 0.93" in bad["calibration"]


def test_arm_df_is_the_two_sample_t_on_cluster_means():
    """One reply per cluster and no cells: the arm-df interval is the pooled two-sample t
    interval's estimate with the CR1 SE on min(G1, G0) − 1 df (hand-computed)."""
    from scipy import stats

    y = np.array([1.0, 2.0, 4.0, 3.0, 7.0, 9.0, 8.0, 6.0, 10.0])
    g = np.array([0, 0, 0, 1, 1, 1, 1, 1, 1], float)
    d = pd.DataFrame({"outcome": y, "g": g, "c": np.arange(9)})
    r = analyses.clustered_effect(d, "g", cells=None, cluster="c", arm_df=True)
    assert np.isclose(r["estimate"], y[g == 1].mean() - y[g == 0].mean())
    half = stats.t.ppf(0.975, 2) * r["se"]
    assert np.isclose(r["ci_high"] - r["estimate"], half) and np.isclose(r["estimate"] - r["ci_low"], half)
    plain = analyses.clustered_effect(d, "g", cells=None, cluster="c")
    assert np.isclose(plain["se"], r["se"]) and plain["ci_high"] - plain["ci_low"] < r["ci_high"] - r["ci_low"]
