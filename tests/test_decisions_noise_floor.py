"""decisions.analyses.noise_floor_one_scale: reruns and placebo edits on one scale, checked on
simulated re-cinq-shaped replies with a known truth (pure noise, or a real placebo shift)."""

import numpy as np
import pandas as pd
import pytest

from popresume.decisions import analyses


def recinq_like(shift: float = 0.0, sd: float = 1.0, runs: int = 5, jobs: int = 40, seed: int = 0):
    rng = np.random.default_rng(seed)
    rows = []
    variants = [("baseline", "baseline")] + [(f"placebo_{i}", "placebo") for i in range(7)]
    for j in range(jobs):
        for variant, signal in variants:
            for r in range(1, runs + 1):
                y = 5.0 + (shift if signal == "placebo" else 0.0) + rng.normal(0, sd)
                rows.append({"source": "recinq", "model": "m", "job": f"jd{j}", "item": "resume_base",
                             "variant": variant, "signal": signal, "name": pd.NA, "run": r, "outcome": y})
    return pd.DataFrame(rows)


def test_pure_noise_gives_one_on_each_scale_and_0_45_unmatched():
    t = analyses.noise_floor_one_scale(recinq_like())
    assert t.columns.tolist() == analyses.ONE_SCALE_COLUMNS and len(t) == 1
    r = t.iloc[0]
    assert r["runs_per_cell"] == 5 and r["run_sd"] == pytest.approx(1.0, abs=0.05)
    assert r["ratio_single"] == pytest.approx(1.0, abs=0.06)
    assert r["ratio_means"] == pytest.approx(1.0, abs=0.15)
    # what chapter 08c used to set side by side: placebo on 5-run means against single-reply reruns
    assert r["placebo_means"] / r["rerun_single"] == pytest.approx(1 / np.sqrt(5), abs=0.07)
    assert "10" in r["rerun_means_how"] and r["n_placebo_pairs"] == 7 * 40 * 25


def test_a_placebo_that_moves_scores_stands_above_the_floor():
    r = analyses.noise_floor_one_scale(recinq_like(shift=1.0)).iloc[0]
    assert r["ratio_means"] > 2.0 and r["ratio_single"] > 1.2


def test_models_without_placebo_edits_have_no_row():
    d = recinq_like()
    assert analyses.noise_floor_one_scale(d[d["signal"] == "baseline"]).empty
