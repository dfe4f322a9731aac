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
