"""The statistics chapter 12 quotes from the causal harness: what the estimable rule costs
(``withholding_summary``) and the checks on the per-replication records
(``replication_checks``), on tables whose answers are known by construction."""

from __future__ import annotations

import numpy as np
import pandas as pd

from popresume.coverage.causal import replication_checks, withholding_summary


def _row(setting, quantity, share, cov_all, *, held="False", rule="ess-floor", kind="coverage"):
    return {"family": "causal", "kind": kind, "setting": setting, "quantity": quantity, "estimable_share": share,
            "coverage_all": cov_all, "held_out": held, "rule": rule}


def test_withholding_summary_counts_the_rows_it_should():
    causal = pd.DataFrame([
        _row("XGBoost: good overlap, n=1000", "NDE", 0.5, 0.95),                 # lost: withheld, covers
        _row("XGBoost: good overlap, n=1000", "BIE", 0.5, 0.80),                 # withheld, does not cover
        _row("XGBoost: good overlap, n=2000", "RIE", 0.95, 0.95, held="True"),   # called estimable
        _row("XGBoost: weak overlap, n=1000", "NIE", 0.2, 0.95, held="True", rule="support"),
        _row("oracle nuisances: good overlap, n=1000", "TE", 0.1, 0.95),         # oracle rows are left out
        _row("XGBoost: good overlap, n=1000", "TE", 0.1, 0.95, kind="projection_ratio"),
    ])
    s = withholding_summary(causal, called=0.9, covering=(0.93, 0.97))
    assert (s["good"], s["lost"], s["lost_effects"]) == (3, 1, ["NDE"])
    assert (s["fitted"], s["held_out"]) == (4, 2)
    assert s["held_out_designs"] == {"ess-floor": ["good overlap, n=2000"], "support": ["weak overlap, n=1000"]}
    # a stricter "called" loses the row that was called estimable 95% of the time too
    assert withholding_summary(causal, called=0.99)["lost_effects"] == ["NDE", "RIE"]


def _records() -> pd.DataFrame:
    rows = []
    rng = np.random.default_rng(0)
    for kind, bias in (("basic", 0.0), ("weak_overlap", 0.5)):
        for rep in range(40):
            err = rng.normal(bias, 1.0)
            for effect in ("TE", "NDE"):
                rows.append({"learner": "XGBoost", "kind": kind, "n": 5000, "rep": rep, "effect": effect,
                             "estimate": err, "truth": 0.0, "half_width": 1.96, "clipped_share": 0.0,
                             "min_ess": 5000 * (0.5 if kind == "basic" else 0.3) + rep, "covered": abs(err) < 1.96,
                             "pareto_k": np.nan})
    for rep, k in enumerate([0.2, 0.5, 0.8, 0.9]):
        rows.append({"learner": "XGBoost", "kind": "audit:nurse:race", "n": 2000, "rep": rep, "effect": "RIE",
                     "estimate": 0.1 * rep, "truth": 0.0, "half_width": 1.0, "clipped_share": 0.02 if rep == 3 else 0.0,
                     "min_ess": 1500.0, "covered": True, "pareto_k": k})
    return pd.DataFrame(rows)


def test_replication_checks_read_the_records():
    records = _records()
    checks = replication_checks(records, max_pareto_k=0.7, max_clipped=0.01)
    weak = records[(records["kind"] == "weak_overlap") & (records["effect"] == "NDE")]
    err = weak["estimate"] - weak["truth"]
    assert np.isclose(checks["max_abs_bias_over_sd"], abs(err.mean()) / err.std())
    w = checks["weak"]
    assert (w["n"], w["passing"], w["covered"]) == (5000, 40, int(weak["covered"].sum()))
    assert np.isclose(w["share_low"], 0.3) and np.isclose(w["share_high"], (1500 + 39) / 5000)
    basic = records[(records["kind"] == "basic") & (records["effect"] == "NDE")]
    p5 = (basic["min_ess"] / basic["n"]).quantile(0.05)
    assert np.allclose(checks["good_p5"], (p5, p5))
    tail = checks["tail"]
    assert tail[["median_k", "above_k", "reps", "clipped_above"]].iloc[0].tolist() == [0.65, 2, 4, 1]
    assert "nurses, race" in tail["design"].iloc[0]


def test_replication_checks_without_weak_or_tail():
    records = _records()
    records = records[records["kind"] == "basic"].drop(columns="pareto_k")
    checks = replication_checks(records)
    assert checks["weak"] is None
    assert checks["tail"].empty and list(checks["tail"].columns)[:2] == ["design", "n"]
