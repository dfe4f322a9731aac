"""Coverage of the ranking audit's intervals and tests, by simulation with a known truth.

Three kinds of number, each checked where the ranking chapter (08b) and ``popresume ranking``
print it (docs/DESIGN.md §5):

* **Impact-ratio intervals** (:func:`popresume.ranking.rates.ratio_intervals`). ``n`` runs of
  a forced choice among eight groups give one multinomial draw of top counts with known
  shares; the true ratios are ``p_g / max_h p_h``. Truths: parity, one group at 0.8×,
  GPT-4-retail-like shares (Bloomberg's recorded top counts) and well apart; 200 and 1,000
  runs. A row is the share of (replication, group) intervals that cover the group's ratio.
  The interval is conservative by construction (a union bound over the comparisons), so its
  rows carry the band (0.93, 1.00): the promise is "at least 95%". The old percentile
  bootstrap (each draw's ratio to its own best) is a comparison row with the nominal band,
  expected to leave it near parity.
* **Conditional-logit Wald tests** (:func:`popresume.ranking.clogit.conditional_logit`) on the
  real Bloomberg design of a model × job (its runs, names, positions and résumé texts as
  shipped in ``data/ranking/``). Choices are simulated from the logit fitted to the recorded
  replies with its position and résumé terms kept and every group term set to 0, optionally
  with a random effect per name (SD ``name_sd``, mean 0 in every group: names that differ,
  groups that do not). Each replication re-randomises the design as Bloomberg did: each run
  gets the names and groups, in their order, of a randomly permuted run (so every group is
  still shown first 125 times), while positions and résumé texts stay. A row is the share of the seven group terms' nominal 5% Wald tests that
  reject, per clustering of the SEs (two-way run × name: the default; by run; by name: the
  previous default).
* **The chance nulls** (:mod:`popresume.ranking.chance`) on the same simulated fair rankers
  with name SD 0 (they favour positions and texts, never groups or names: the sharp null the
  randomisation test is about): the design-based null's p-value must reject
  at most 5% at the 5% level (band 0-0.07: the min/max ratio is discrete, so a randomisation
  test is conservative), the uniform multinomial's is a comparison row; and the share of fair
  rankers the four-fifths rule flags must match the flag rate the design null states for them
  (``nominal`` = the mean stated rate, band ±3.5 Monte Carlo SEs), where the uniform null's
  fixed rate (0.64 at 1,000 runs) is a comparison row.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy.stats import norm
from threadpoolctl import threadpool_limits

from popresume.coverage import summarize, table
from popresume.ll144 import FOUR_FIFTHS
from popresume.ranking import chance, clogit
from popresume.ranking.bloomberg import load_bloomberg_ranks
from popresume.ranking.rates import ratio_intervals

FAMILY = "ranking"
LEVEL = 0.95
CONSERVATIVE = (0.93, 1.0)
#: model × job cells of Bloomberg's design the logit and chance rows use (fast: the first)
CELLS = (("gpt-4", "retail"), ("gpt-3.5-turbo", "software engineer"), ("gpt-3.5-turbo", "HR specialist"),
         ("gpt-4", "HR specialist"))


def _ratio_truths() -> dict[str, np.ndarray]:
    long = load_bloomberg_ranks(["gpt-4"])
    retail = long[(long["job"] == "retail") & (long["rank"] == 1)]["demo"].value_counts().sort_index()
    return {"parity": np.ones(8), "one group at 0.8x": np.r_[0.8, np.ones(7)],
            "GPT-4-retail-like shares": retail.to_numpy(float),
            "well apart": np.array([2.0, 1.6, 1.3, 1.0, 1.0, 0.9, 0.8, 0.7])}


def old_percentile_bootstrap(top: np.ndarray, rng: np.random.Generator, n_boot: int = 400):
    """The previous impact-ratio interval, kept for comparison: multinomial draws at the
    observed shares, each group's rate over the draw's highest rate, percentile interval."""
    n = top.sum(axis=-1, keepdims=True)
    draws = np.stack([rng.multinomial(int(m), t / m, size=n_boot) for t, m in zip(top, n[:, 0])]).astype(float)
    ratios = draws / draws.max(axis=2, keepdims=True)
    a = (1 - LEVEL) / 2
    return np.quantile(ratios, a, axis=1), np.quantile(ratios, 1 - a, axis=1)


def ratio_rows(*, reps: int, sizes=(200, 1000), seed: int = 0, interval=None, old: bool = False) -> list[dict]:
    """Coverage of the impact-ratio intervals (``interval``: top counts -> (low, high, ...),
    default :func:`popresume.ranking.rates.ratio_intervals` at 95%)."""
    interval = interval or (lambda top: ratio_intervals(top, LEVEL))
    rng = np.random.default_rng(seed)
    rows = []
    for name, weights in _ratio_truths().items():
        shares = weights / weights.sum()
        truth = shares / shares.max()
        for n in sizes:
            top = rng.multinomial(n, shares, size=reps)
            low, high = interval(top)[:2]
            hits = (low <= truth + 1e-12) & (truth <= high + 1e-12)
            rows.append(summarize(hits.ravel(), family=FAMILY, quantity="impact ratio CI (pairwise log ratios)",
                                  setting=f"{name}, {n} runs", kind="coverage", nominal=LEVEL,
                                  band_override=CONSERVATIVE))
            if old:
                low, high = old_percentile_bootstrap(top[: max(reps // 4, 50)], rng)
                hits = (low <= truth + 1e-12) & (truth <= high + 1e-12)
                rows.append(summarize(hits.ravel(), family=FAMILY,
                                      quantity="impact ratio CI (old percentile bootstrap, comparison)",
                                      setting=f"{name}, {n} runs", kind="coverage", nominal=LEVEL))
    return rows


class _Cell:
    """One model × job of Bloomberg's design, with the logit fitted to its recorded replies."""

    def __init__(self, model: str, job: str):
        long = load_bloomberg_ranks([model])
        long = long[long["job"] == job].sort_values(["run", "position"]).reset_index(drop=True)
        X, y, strata, names = clogit.design(long)
        if len(X) != len(long) or len(long) % 8:
            raise ValueError(f"{model} {job}: every run must show 8 résumés and have a top pick")
        keep, dropped = clogit.identified(X, y, strata)
        cols = [t for t in X.columns if t not in dropped]
        b = pd.Series(clogit.fit_newton(X.loc[keep, cols].to_numpy(), y[keep], strata[keep]), index=cols)
        self.X = X.to_numpy()
        self.columns = list(X.columns)
        self.group_cols = [i for i, t in enumerate(self.columns) if t.startswith("demo_")]
        # no group effect (the null the tests are about); a term never ranked first keeps probability 0
        b0 = np.array([0.0 if t.startswith("demo_") else b.get(t, 0.0) for t in self.columns])
        self.eta = np.where(keep, self.X @ b0, -np.inf)
        levels = sorted(long["demo"].unique())
        self.codes = pd.Categorical(long["demo"], categories=levels).codes.reshape(-1, 8)
        self.col_level = np.array([levels.index(t.removeprefix("demo_")) for t in self.columns
                                   if t.startswith("demo_")])
        _, self.s_idx = np.unique(strata, return_inverse=True)
        _, n_idx = np.unique(names, return_inverse=True)
        self.n_idx = n_idx.reshape(-1, 8)
        self.position = long["position"].to_numpy(int)
        self.label = f"{model} {job}"

    def simulate(self, rng: np.random.Generator, name_sd: float):
        """One experiment under the null: the design re-randomised (each run gets the names and
        groups, in their order, of a randomly permuted run; positions and texts stay) and choices
        drawn from the logit with no group effect. Returns ``X, y, names, orders, winners``."""
        perm = rng.permutation(len(self.codes))
        orders, names = self.codes[perm], self.n_idx[perm].ravel()
        X = self.X.copy()
        X[:, self.group_cols] = (orders.ravel()[:, None] == self.col_level[None, :]).astype(float)
        eta = self.eta + rng.normal(0, name_sd, names.max() + 1)[names] + rng.gumbel(size=len(self.eta))
        winners = eta.reshape(-1, 8).argmax(axis=1)
        y = np.zeros(len(eta))
        y[np.arange(len(winners)) * 8 + winners] = 1.0
        return X, y, names, orders, winners


def clogit_and_chance_rows(*, cells=CELLS[:1], reps: int, name_sds=(0.0, 0.3), n_null: int = 200,
                           seed: int = 0) -> list[dict]:
    """Type-I error of the logit's group Wald tests per clustering, and the chance nulls' type-I
    error and flag rates, on the real design of each cell (module docstring)."""
    crit = norm.ppf(1 - (1 - LEVEL) / 2)
    rows = []
    for c, (model, job) in enumerate(cells):
        cell = _Cell(model, job)
        for s, sd in enumerate(name_sds):
            rng = np.random.default_rng([seed, c, s])
            rejects = {k: [] for k in clogit.CLUSTERS}
            p_design, p_uniform, flagged, stated = [], [], [], []
            for _ in range(reps):
                X, y, names, orders, winners = cell.simulate(rng, sd)
                keep, dropped = clogit.identified(pd.DataFrame(X, columns=cell.columns), y, cell.s_idx)
                cols = [i for i, t in enumerate(cell.columns) if t not in dropped]
                Xk = X[np.ix_(keep, cols)]
                b = clogit.fit_newton(Xk, y[keep], cell.s_idx[keep])
                group = np.isin(cols, cell.group_cols)
                for kind in clogit.CLUSTERS:
                    cov = clogit.cluster_cov(Xk, y[keep], cell.s_idx[keep], names[keep], b, cluster=kind)
                    z = b[group] / np.sqrt(np.diag(cov)[group])
                    rejects[kind].extend(np.abs(z) > crit)
                if sd > 0:  # names nested in groups: the chance nulls' sharp null needs names that do not matter
                    continue
                counts = np.bincount(orders[np.arange(len(winners)), winners], minlength=8)
                obs = counts.min() / counts.max()
                null = chance.design_null_counts(orders, winners, n_sim=n_null, seed=int(rng.integers(2**31)))
                null = null.min(axis=1) / null.max(axis=1)
                uni = chance.null_min_max(len(winners), 8, n_sim=n_null, seed=int(rng.integers(2**31)))
                p_design.append((null <= obs + 1e-12).mean() <= 1 - LEVEL)
                p_uniform.append((uni <= obs + 1e-12).mean() <= 1 - LEVEL)
                flagged.append(obs < FOUR_FIFTHS)
                stated.append((null < FOUR_FIFTHS).mean())
            setting = f"{cell.label} design, no group effect, name SD {sd:g}"
            names = {"two-way": "two-way run × name (default)", "run": "by run",
                     "name": "by name only (previous default, comparison)"}
            for kind in clogit.CLUSTERS:
                rows.append(summarize(rejects[kind], family=FAMILY,
                                      quantity=f"logit group Wald test, SEs clustered {names[kind]}",
                                      setting=setting, kind="type_I_error", nominal=1 - LEVEL))
            if sd > 0:
                continue
            rows.append(summarize(p_design, family=FAMILY, quantity="design-based chance null, p <= 0.05",
                                  setting=setting, kind="type_I_error", nominal=1 - LEVEL,
                                  band_override=(0.0, 0.07)))
            rows.append(summarize(p_uniform, family=FAMILY,
                                  quantity="uniform multinomial chance null, p <= 0.05 (comparison)",
                                  setting=setting, kind="type_I_error", nominal=1 - LEVEL))
            mc = math.sqrt(max(np.mean(flagged) * (1 - np.mean(flagged)), 1e-4) / reps)
            for label, promised in (("design null", float(np.mean(stated))),
                                    ("uniform null, comparison", float(np.mean(
                                        chance.null_min_max(len(winners), 8, n_sim=4000, seed=seed)
                                        < FOUR_FIFTHS)))):
                half = max(3.5 * mc, 0.02)
                rows.append(summarize(flagged, family=FAMILY,
                                      quantity=f"four-fifths flag of a fair ranker vs the {label}'s stated rate",
                                      setting=setting, kind="type_I_error", nominal=promised,
                                      band_override=(max(promised - half, 0.0), min(promised + half, 1.0))))
    return rows


def run(fast: bool = False, seed: int = 0) -> pd.DataFrame:
    """The ranking family of the coverage harness (module docstring). ``fast``: one cell, few
    replications, for the test suite."""
    with threadpool_limits(1):  # small matrices: BLAS threads only contend
        return _run(fast, seed)


def _run(fast: bool, seed: int) -> pd.DataFrame:
    if fast:
        rows = ratio_rows(reps=400, sizes=(1000,), seed=seed)
        rows += clogit_and_chance_rows(cells=CELLS[:1], reps=150, name_sds=(0.0, 0.3), n_null=200, seed=seed)
    else:
        rows = ratio_rows(reps=4000, seed=seed, old=True)
        rows += clogit_and_chance_rows(cells=CELLS, reps=500, n_null=1000, seed=seed)
    return table(rows)


__all__ = ["FAMILY", "CELLS", "ratio_rows", "clogit_and_chance_rows", "old_percentile_bootstrap", "run"]
