"""Coverage of the LL144 impact-ratio intervals and calibration of the chance of a flag.

Known truths, simulated (docs/DESIGN.md §7):

* **Selection at a fixed cut** (``selection_cut``): each category's selected count is
  Binomial(n_i, p_i) with known rates, so the true impact ratios are ``p_i / max_j p_j``.
  Truths: parity (all p = 0.5), one category at 0.8× (0.4 against 0.5), and well apart
  (rates from 0.2 to 0.6).
* **The LL144 median split** (``median_split``): scores Normal(μ_i, 1); a category's true
  scoring rate is P(Y > m) with m the median of the population mixture (group weights
  n_i / N), and the sample's own median makes the cut, as in an audit.
* Group sizes: 30 and 500 per category (k = 2 and 4), and the unbalanced sizes of an LL144
  sex × race table at n = 800 (:data:`LL144_SIZES`, smallest category 28).

Rows: the share of replications in which the intervals of
:func:`popresume.ll144.impact_ratio_table` (continuity-corrected score intervals of the
pairwise rate ratios, Bonferroni over the pairs) cover **every** category's true ratio (their promise:
simultaneous, at least 95%) and in which they cover category 0's (the disadvantaged one
where one is). A ratio of 1 sits on the interval's cap, so coverage at parity and with many
categories is above 95% by construction; these rows carry the band (0.93, 1.00), and a
coverage 5 points under 95% still fails them. The full run adds two comparisons: the
intervals from the Šidák box of Clopper–Pearson rate intervals (``ratio_method="box"``,
wider), and the old percentile bootstrap (each rate resampled within its group, the ratio
to the resample's best rate, 500 draws: the method the report and the ranking tables used),
"impact ratio CI (old percentile bootstrap)", whose band is the nominal one and which is
expected to leave it near parity.

The chance of a flag: a tool that ignores the attribute (integer scores 1-10 with ties, the
same for every category) is run ``reps`` times; the share of runs whose lowest ratio is under
0.8 must match the mean probability :func:`popresume.ll144.chance_of_flag` states for those
runs (``kind="type_I_error"``, ``nominal`` = the stated probability, band ±3.5 Monte Carlo
SEs), for the median split and for the top-25% selection cut; and its permutation p-value of
the lowest ratio must reject at most 5% of the time at the 5% level (band 0-0.07: the lowest
ratio is discrete, so the test is conservative).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, stats

from popresume import ll144
from popresume.coverage import summarize, table

FAMILY = "ll144"
LEVEL = 0.95
#: Category sizes of an LL144 sex × race table at n = 800 (F/M × White, Hispanic, Black, Asian:
#: ACS-like shares 0.61, 0.18, 0.14, 0.07 and 47% women).
LL144_SIZES = (229, 68, 53, 28, 259, 76, 60, 27)
CONSERVATIVE = (0.93, 1.0)


def _truths(k: int) -> dict[str, np.ndarray]:
    return {"parity": np.full(k, 0.5),
            "one at 0.8x": np.r_[0.4, np.full(k - 1, 0.5)],
            "apart": np.linspace(0.2, 0.6, k)}


def _cover(lo: np.ndarray, hi: np.ndarray, truth: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per replication: every category covered, category 0 covered."""
    tol = 1e-12
    inside = (lo <= truth + tol) & (truth <= hi + tol)
    return inside.all(axis=1), inside[:, 0]


def _new_bounds(x: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return ll144.pairwise_ratio_bounds(x, sizes, np.ones(x.shape[1], bool), level=LEVEL)


def _box_bounds(x: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    lo, hi = ll144._box(x, np.broadcast_to(sizes, x.shape), LEVEL, x.shape[1])
    return ll144.ratio_bounds(lo, hi, np.ones(x.shape[1], bool))


def _old_bounds(x: np.ndarray, sizes: np.ndarray, rng: np.random.Generator, n_boot: int = 500):
    """The old percentile bootstrap: rates resampled within groups, each over the draw's best rate."""
    p = x / sizes
    draws = rng.binomial(sizes, p[:, None, :], size=(x.shape[0], n_boot, x.shape[1])) / sizes
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = draws / draws.max(axis=2, keepdims=True)
    a = (1 - LEVEL) / 2
    return np.nanquantile(ratio, a, axis=1), np.nanquantile(ratio, 1 - a, axis=1)


def _rows_for(hits_all, hits_one, *, quantity: str, setting: str, band_override=CONSERVATIVE) -> list[dict]:
    return [summarize(hits_all, family=FAMILY, quantity=f"{quantity}, every category", setting=setting,
                      kind="coverage", nominal=LEVEL, band_override=band_override),
            summarize(hits_one, family=FAMILY, quantity=f"{quantity}, category 0", setting=setting,
                      kind="coverage", nominal=LEVEL, band_override=band_override)]


def binomial_rows(sizes, name: str, reps: int, rng: np.random.Generator, *, old: bool) -> list[dict]:
    """Coverage at a fixed cut (binomial counts) under the three truths."""
    sizes = np.asarray(sizes)
    rows = []
    for truth_name, p in _truths(len(sizes)).items():
        truth = p / p.max()
        x = rng.binomial(sizes, p, size=(reps, len(sizes)))
        setting = f"selection_cut, {truth_name}, {name}"
        rows += _method_rows(x, sizes, truth, setting, rng, old=old)
    return rows


def _method_rows(x, sizes, truth, setting: str, rng: np.random.Generator, *, old: bool) -> list[dict]:
    """The rows of one setting's simulated counts ``x``: the new interval, and with ``old`` the
    box and the old percentile bootstrap as comparisons."""
    rows = _rows_for(*_cover(*_new_bounds(x, sizes), truth), quantity="impact ratio CI", setting=setting)
    if old:
        rows += _rows_for(*_cover(*_box_bounds(x, sizes), truth), quantity="impact ratio CI (box)", setting=setting)
        rows += _rows_for(*_cover(*_old_bounds(x, sizes, rng), truth),
                          quantity="impact ratio CI (old percentile bootstrap)", setting=setting,
                          band_override=None)
    return rows


def _mixture_median(mu: np.ndarray, w: np.ndarray) -> float:
    return optimize.brentq(lambda m: np.sum(w * stats.norm.sf(m - mu)) - 0.5, mu.min() - 10, mu.max() + 10)


def median_split_rows(sizes, name: str, reps: int, rng: np.random.Generator, *, old: bool,
                      truths=("parity", "apart")) -> list[dict]:
    """Coverage of the LL144 median split (the sample median makes the cut), at parity and apart."""
    sizes = np.asarray(sizes)
    k = len(sizes)
    rows = []
    shifts = {"parity": np.zeros(k), "apart": np.linspace(-0.6, 0.3, k)}
    for truth_name in truths:
        mu = shifts[truth_name]
        m = _mixture_median(mu, sizes / sizes.sum())
        rate = stats.norm.sf(m - mu)
        truth = rate / rate.max()
        group = np.repeat(np.arange(k), sizes)
        y = rng.normal(size=(reps, sizes.sum())) + mu[group]
        above = y > np.median(y, axis=1, keepdims=True)
        x = np.stack([above[:, group == j].sum(axis=1) for j in range(k)], axis=1)
        setting = f"median_split, {truth_name}, {name}"
        rows += _method_rows(x, sizes, truth, setting, rng, old=old)
    return rows


def chance_rows(sizes, name: str, rule: str, reps: int, rng: np.random.Generator, *, n_sim: int,
                p_reps: int) -> list[dict]:
    """Calibration of the stated chance of a flag, and the size of its permutation p-value."""
    sizes = np.asarray(sizes)
    k = len(sizes)
    group = np.repeat(np.arange(k), sizes)
    y = rng.integers(1, 11, size=(reps, sizes.sum())).astype(float)
    if rule == "median_split":
        sel = y > np.median(y, axis=1, keepdims=True)
    else:
        sel = y >= np.quantile(y, 1 - ll144.SELECT_TOP, axis=1, keepdims=True)
    x = np.stack([sel[:, group == j].sum(axis=1) for j in range(k)], axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = x / sizes
        low = (rate / rate.max(axis=1, keepdims=True)).min(axis=1)
    m_sel = x.sum(axis=1)
    stated = {m: ll144.chance_of_flag(sizes, rule=rule, n_selected=int(m), n_sim=n_sim, seed=int(m)).probability
              for m in np.unique(m_sel)}
    p_stated = np.array([stated[m] for m in m_sel])
    nominal = float(p_stated.mean())
    half = 3.5 * math.sqrt(max(nominal * (1 - nominal), 1e-12) / reps)
    setting = f"{rule}, no disparity, {name}"
    rows = [summarize(low < ll144.FOUR_FIFTHS, family=FAMILY, quantity="chance of a flag (stated vs observed)",
                      setting=setting, kind="type_I_error", nominal=nominal,
                      band_override=(max(0.0, nominal - half), min(1.0, nominal + half)))]
    if not p_reps:
        return rows
    rej = [ll144.chance_of_flag(sizes, rule=rule, n_selected=int(m_sel[i]), observed=float(low[i]),
                                n_sim=n_sim, seed=i).p_value <= 0.05 for i in range(min(p_reps, reps))]
    rows.append(summarize(rej, family=FAMILY, quantity="permutation p of the lowest ratio at 5%", setting=setting,
                          kind="type_I_error", nominal=0.05, band_override=(0.0, 0.07)))
    return rows


def run(fast: bool = False, seed: int = 0):
    """The LL144 rows of the harness table (:func:`popresume.coverage.table`).

    ``fast=True``: 2,000 replications at n = 30 per category (k = 2) and the LL144 sex × race
    sizes, the median split at parity, and the chance rows (2,000 runs; the p-value's size only
    where it is exact, n = 30 × 2);
    the full run adds n = 500, k = 4, the median split apart, the box intervals and the old
    percentile bootstrap for comparison.
    """
    rng = np.random.default_rng(seed)
    reps = 2000
    rows = []
    sets = [((30, 30), "n=30 x 2"), (LL144_SIZES, "LL144 sex x race, n=800")]
    if not fast:
        sets += [((500, 500), "n=500 x 2"), ((30,) * 4, "n=30 x 4"), ((500,) * 4, "n=500 x 4")]
    for sizes, name in sets:
        rows += binomial_rows(sizes, name, reps, rng, old=not fast)
    for sizes, name in ([(LL144_SIZES, "LL144 sex x race, n=800")] if fast else sets):
        if fast:
            rows += median_split_rows(sizes, name, reps, rng, old=False, truths=("parity",))
        else:
            rows += median_split_rows(sizes, name, reps, rng, old=True)
    # the p-value's size: 2,000 runs where it is exact (two categories); 1,000 from draws in the full run
    chance_sets = [((30, 30), "n=30 x 2", 2000), (LL144_SIZES, "LL144 sex x race, n=800", 0 if fast else 1000)]
    for sizes, name, p_reps in chance_sets:
        for rule in ll144.RULES:
            rows += chance_rows(sizes, name, rule, 2000, rng, n_sim=2000 if fast else 10_000, p_reps=p_reps)
    return table(rows)
