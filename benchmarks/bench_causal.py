"""Benchmark: one full PSE table with 500-draw CIs on 17,632 rows (the nurse sample), 2 cores.

Prints: the cross-fitted fit (tuning included), the 500-draw influence bootstrap, the
total (target < 60 s), and the full refit bootstrap with a few draws, with the cost per
draw of each method and their ratio, all measured in the same run.

    .venv/bin/python benchmarks/bench_causal.py [--n 17632] [--refit-draws 3] [--threads 2]
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
import pandas as pd


def data(n: int, seed: int = 0) -> tuple[pd.DataFrame, dict]:
    """Profiles from popresume.population (the nurse occupation) with a synthetic score."""
    from popresume.causal import default_roles
    from popresume.grouping import add_groups
    from popresume.population import generate_population

    p = add_groups(generate_population(["nurse"], {"nurse": n}, seed=seed))
    rng = np.random.default_rng(seed)
    edu = p["edu_group"].map({"low": 0.0, "medium": 1.0, "high": 2.0}).to_numpy()
    score = (70 + 0.8 * (p["gender"] == "M") + 2.0 * edu + 0.15 * p["exp_year"]
             - 0.6 * (p["fn_gender"] == "female") + 0.5 * (p["region"] == "West") + rng.normal(0, 4, len(p)))
    p["score"] = score.to_numpy()
    return p, default_roles("gender")


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=17632)
    ap.add_argument("--n-boot", type=int, default=500)
    ap.add_argument("--refit-draws", type=int, default=3)
    ap.add_argument("--threads", type=int, default=None, help="XGBoost threads per fit (default: the package's, 1)")
    a = ap.parse_args(argv)
    from popresume.causal import PSEEstimator, PSEWarning, nuisance

    if a.threads is not None:
        nuisance.XGB_FIXED["n_jobs"] = a.threads
    print(f"XGBoost threads per fit: {nuisance.XGB_FIXED['n_jobs']}")

    t0 = time.perf_counter()
    df, roles = data(a.n)
    print(f"data: {len(df)} rows, roles {roles} ({time.perf_counter() - t0:.1f} s, not counted)")
    print(f"cores: {os.cpu_count()}, load average before: {os.getloadavg()[0]:.1f}")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PSEWarning)
        t = time.perf_counter()
        est = PSEEstimator(df, **roles, y="score", folds=5, seed=0).fit()
        t_fit = time.perf_counter() - t
        t = time.perf_counter()
        est.bootstrap(a.n_boot)
        t_boot = time.perf_counter() - t
        table = est.summary()
        t = time.perf_counter()
        est.bootstrap(a.refit_draws, method="refit")
        t_refit = time.perf_counter() - t
    for w in caught:
        print("warning:", w.message)
    print(table[["estimate", "se", "ci_low", "ci_high"]].round(3).to_string())
    print(est.diagnostics()["params"].to_string())
    total = t_fit + t_boot
    per_inf = t_boot / a.n_boot
    per_refit = t_refit / a.refit_draws
    print(f"\ncross-fitted fit (tuning included): {t_fit:6.1f} s")
    print(f"influence bootstrap, {a.n_boot} draws: {t_boot:6.2f} s ({per_inf * 1e3:.2f} ms/draw)")
    verdict = "met" if total < 60 else "MISSED"
    print(f"TOTAL full table with {a.n_boot}-draw CIs: {total:6.1f} s  (target < 60 s: {verdict})")
    print(f"refit bootstrap, {a.refit_draws} draws: {t_refit:6.1f} s ({per_refit:.1f} s/draw)")
    print(f"ratio per draw refit / influence: {per_refit / per_inf:,.0f}x; "
          f"a {a.n_boot}-draw refit table would take ~{t_fit + a.n_boot * per_refit:,.0f} s "
          f"({(t_fit + a.n_boot * per_refit) / total:,.0f}x the influence table)")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
