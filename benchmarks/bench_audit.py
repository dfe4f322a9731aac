"""Benchmark of the audit grid.

1. The book's default grid (configs/default_audit.yaml: 5 occupations × 3 formats ×
   2 attributes, 400 applicants per occupation) from a cold cache, on this machine.
2. The paper's full 60,884-profile grid with the embedding screener is a CLI command;
   it is printed here. With ``--fraction F`` (default 0.02) we time the two stages that
   scale with n — embedding scoring and one tuned estimate — on a fraction F of the
   largest occupation and extrapolate linearly to the full grid (stated as an
   extrapolation, not a measurement).

    python benchmarks/bench_audit.py [--fraction 0.02] [--skip-default]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import warnings

import pandas as pd

from popresume.audit.config import load_config
from popresume.audit.grid import run_audit
from popresume.paths import REPO_ROOT
from popresume.schema import DEFAULT_SIZES


def default_grid() -> float:
    cfg = load_config(REPO_ROOT / "configs" / "default_audit.yaml")
    with tempfile.TemporaryDirectory() as cache:
        t = time.perf_counter()
        res = run_audit(cfg, n_jobs=2, progress=False, cache_dir=cache)
        wall = time.perf_counter() - t
    print(f"default grid: {len(res)} audits, {sum(cfg.sizes.values()):,} profiles, wall {wall:.1f} s "
          f"on {os.cpu_count()} cores (cold cache)")
    print(pd.Series(res.timings).round(1).to_string())
    return wall


def full_grid_extrapolation(fraction: float) -> None:
    from popresume.causal import default_roles, estimate_pse
    from popresume.grouping import add_groups
    from popresume.population import generate_population
    from popresume.resumes import render_texts
    from popresume.screeners import get_screener, score_resumes

    total = sum(DEFAULT_SIZES.values())
    print("\nfull paper grid (text with the embedding screener; image formats synthetic):")
    print("  popresume audit --config configs/paper_full.yaml --jobs 2 --out results_full.csv")
    occ = max(DEFAULT_SIZES, key=DEFAULT_SIZES.get)
    n = max(200, int(DEFAULT_SIZES[occ] * fraction))
    prof = add_groups(generate_population([occ], {occ: n}, seed=0))
    texts = render_texts(prof, seed=0)
    scr = get_screener("embedding")
    score_resumes(scr, texts.head(8), cache=False)  # load the model outside the timing
    t = time.perf_counter()
    sc = score_resumes(scr, texts, cache=False)
    per_resume = (time.perf_counter() - t) / n
    data = prof.merge(sc[["resume_id", "score"]], on="resume_id")
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        estimate_pse(data, **default_roles("gender"), y="score", folds=5, n_boot=500, tune=True)
    per_row_est = (time.perf_counter() - t) / n
    # text: 60,884 résumés scored once; 5 occupations × 2 attributes estimates on n_occ rows each
    score_s = per_resume * total
    est_s = per_row_est * total * 2  # both attributes
    print(f"  measured on {n} {occ} profiles ({fraction:.0%} of {DEFAULT_SIZES[occ]:,}): "
          f"{per_resume * 1000:.1f} ms per résumé scored, {per_row_est * 1000:.2f} ms per row per tuned estimate")
    print(f"  EXTRAPOLATED (linear in n) to the 60,884-profile text grid: scoring ≈ {score_s / 60:.0f} min, "
          f"estimation of 10 text audits ≈ {est_s / 60:.0f} min on one process")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--fraction", type=float, default=0.02)
    ap.add_argument("--skip-default", action="store_true")
    a = ap.parse_args()
    if not a.skip_default:
        default_grid()
    full_grid_extrapolation(a.fraction)
