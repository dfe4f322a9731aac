"""The coverage harness: every interval and test the project prints, checked by simulation.

Each module of this package simulates data with a known truth for one family of numbers
(``causal``: the five path-specific effects; ``ll144``: LL144 rates and impact ratios;
``ranking``: ranking rates, the conditional logit and the chance nulls) and returns one
tidy table in the shape of :data:`COLUMNS`: for each quantity and setting, the share of
replications whose interval covered the truth (``kind="coverage"``) or whose test rejected
a true null (``kind="type_I_error"``), with its Monte Carlo standard error.

``benchmarks/bench_coverage.py`` (``make calibrate``) runs the full harness and writes the
table the book's appendix shows; the tests run each family's ``fast=True`` subset and fail
when a measured rate leaves its band (docs/DESIGN.md §3, "Uncertainty").
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from statsmodels.stats.proportion import proportion_confint

from popresume.errors import require_columns
from popresume.paths import REPO_ROOT

COLUMNS = ["family", "quantity", "setting", "kind", "nominal", "rate", "mc_se", "reps",
           "band_low", "band_high", "in_band"]

# Nominal 95% intervals must cover 93-97% of the time, nominal 5% tests reject 3-7%:
# the band the tools promise wherever they call a number estimable.
COVERAGE_BAND = (0.93, 0.97)
TYPE_I_BAND = (0.03, 0.07)


def band(kind: str) -> tuple[float, float]:
    """The acceptance band of a measured rate of this kind."""
    if kind == "coverage":
        return COVERAGE_BAND
    if kind == "type_I_error":
        return TYPE_I_BAND
    raise ValueError(f"kind must be 'coverage' or 'type_I_error', got {kind!r}")


def summarize(hits: Sequence[bool] | np.ndarray, *, family: str, quantity: str, setting: str,
              kind: str, nominal: float, band_override: tuple[float, float] | None = None) -> dict:
    """One row of the harness table from per-replication outcomes.

    ``hits`` are the replications' booleans: the interval covered the truth (coverage) or
    the test rejected (type-I error). The Monte Carlo SE is the binomial ``sqrt(r(1-r)/R)``.
    ``band_override`` widens or narrows the band for a row that documents its own (for
    instance a conservative test whose promise is ``rate <= nominal``).
    """
    h = np.asarray(hits, dtype=float)
    h = h[~np.isnan(h)]
    reps = int(h.size)
    if reps == 0:
        raise ValueError(f"{family}/{quantity}/{setting}: no replication produced a result")
    rate = float(h.mean())
    lo, hi = band_override if band_override is not None else band(kind)
    return {"family": family, "quantity": quantity, "setting": setting, "kind": kind,
            "nominal": float(nominal), "rate": rate,
            "mc_se": math.sqrt(max(rate * (1 - rate), 1e-12) / reps), "reps": reps,
            "band_low": lo, "band_high": hi, "in_band": bool(lo <= rate <= hi)}


def table(rows: Sequence[dict]) -> pd.DataFrame:
    """The rows as the harness table (columns in :data:`COLUMNS` order)."""
    return pd.DataFrame(list(rows), columns=COLUMNS)


def results_csv():
    """Where ``benchmarks/bench_coverage.py`` writes the latest full run (``make calibrate``)."""
    return REPO_ROOT / "benchmarks" / "results" / "coverage.csv"


def read_results(path=None) -> pd.DataFrame:
    """The harness table of the latest full run; a missing file or column raises one ``ValueError``."""
    path = results_csv() if path is None else path
    try:
        t = pd.read_csv(path)
    except FileNotFoundError:
        raise ValueError(f"coverage table {path} not found: run `make calibrate`") from None
    require_columns(t, COLUMNS, f"coverage table {path}")
    return t


def band_verdict(row) -> str:
    """"in band", "OUTSIDE" or "outside, within MC error" for one row of the harness table.

    A measured rate outside its band is "OUTSIDE" only when the band lies outside the rate's
    95% Monte Carlo interval: for the binomial kinds (coverage, type-I error) the Wilson
    interval of ``rate × reps`` hits in ``reps`` (statsmodels' ``proportion_confint``), which
    stays honest at 20 of 20 where ``rate ± 2·mc_se`` collapses to a point; for a ratio
    (``projection_ratio``) rate ± 2·mc_se.
    """
    if row["in_band"]:
        return "in band"
    if row["kind"] in ("coverage", "type_I_error"):
        reps = int(row["reps"])
        lo, hi = proportion_confint(round(row["rate"] * reps), reps, alpha=0.05, method="wilson")
    else:
        lo, hi = row["rate"] - 2 * row["mc_se"], row["rate"] + 2 * row["mc_se"]
    apart = hi < row["band_low"] or lo > row["band_high"]
    return "OUTSIDE" if apart else "outside, within MC error"


def shown(t: pd.DataFrame) -> pd.DataFrame:
    """The table as the book shows it: rate ± MC error, reps, the band, and a verdict per row.

    The verdict (:func:`band_verdict`) is "in band"; "OUTSIDE" when the band lies outside the
    rate's 95% Monte Carlo interval (a miscalibration the replications show); or "outside,
    within MC error" when the rate misses the band by less (more replications would tell).
    Rows of kind ``estimable_share`` (a description) have no band and an empty verdict.
    """
    def verdict(r) -> str:
        return "" if r["kind"] == "estimable_share" else band_verdict(r)

    def band_text(r) -> str:
        return "" if r["kind"] == "estimable_share" else f"{r['band_low']:.2f}-{r['band_high']:.2f}"

    return pd.DataFrame({
        "family": t["family"], "quantity": t["quantity"], "setting": t["setting"], "kind": t["kind"],
        "measured": [f"{r:.3f} ± {m:.3f}" for r, m in zip(t["rate"], t["mc_se"])],
        "reps": t["reps"].astype(int), "band": [band_text(r) for _, r in t.iterrows()],
        "verdict": [verdict(r) for _, r in t.iterrows()],
    })
