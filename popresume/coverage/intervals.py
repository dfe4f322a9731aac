"""The Wilson interval of a measured rate, for the harness tables and the book's appendix.

A coverage or a type-I error measured over R replications is k hits in R: its 95% interval
is Wilson's (1927) score interval, from statsmodels' ``proportion_confint(method="wilson")``,
which stays honest at 20 of 20 where rate ± 2 SE collapses to a point. The harness calls a
row in band only where that interval says so (``causal.causal_verdict``); this module gives
the interval and its printed form.
"""

from __future__ import annotations

import math

import pandas as pd
from statsmodels.stats.proportion import proportion_confint

BINOMIAL_KINDS = ("coverage", "type_I_error", "estimable_share")


def wilson(hits: int, reps: int) -> tuple[float, float]:
    """The 95% Wilson interval of ``hits`` in ``reps``; NaNs when ``reps`` is 0.

    >>> [round(v, 3) for v in wilson(89, 100)]
    [0.814, 0.937]
    """
    if reps == 0:
        return float("nan"), float("nan")
    lo, hi = proportion_confint(int(hits), int(reps), alpha=0.05, method="wilson")
    return float(lo), float(hi)


def rate_with_interval(rate: float, low: float, high: float) -> str:
    """"0.947 [0.915, 0.966]"; "–" for a rate that was not measured (no replication).

    >>> rate_with_interval(0.947, 0.9151, 0.9664), rate_with_interval(float("nan"), 0, 0)
    ('0.947 [0.915, 0.966]', '–')
    """
    if not math.isfinite(rate):
        return "–"
    return f"{rate:.3f} [{low:.3f}, {high:.3f}]"


def wilson_column(t: pd.DataFrame) -> list[str]:
    """Each row's rate with its Wilson interval (binomial kinds); rate ± 2 MC errors otherwise."""
    out = []
    for _, r in t.iterrows():
        if r["kind"] in BINOMIAL_KINDS:
            reps = int(r["reps"])
            out.append(rate_with_interval(r["rate"], *wilson(round(r["rate"] * reps), reps)))
        else:
            out.append(rate_with_interval(r["rate"], r["rate"] - 2 * r["mc_se"], r["rate"] + 2 * r["mc_se"]))
    return out
