"""Coverage of the five path-specific effects' 95% intervals, and of the estimable rule.

Data come from the discrete SCMs of :mod:`popresume.causal.scm`, whose TE, NDE, NIE, BIE and
RIE are computed exactly: ``"basic"`` (good overlap: every propensity in [0.12, 0.88]) and
``"weak_overlap"`` (P(X = x1 | Z) as extreme as 0.05, and R nearly revealing X, so 15% of
the true P(X = x1 | B, R, Z) lie outside [0.01, 0.99]: the first-name-and-gender regime of
an audit). Each replication fits the estimator with its defaults (5 folds, nested
cross-fitting, 500 influence-bootstrap draws) and one of two learners: the cell-means
learner (saturated, exact on these designs, fast) and the XGBoost default (the
hyperparameters tuned on the Appendix C.5 grid once per design on a pilot sample and then
fixed, as in an audit grid). It records per effect the interval, whether it covered the
truth, its half-width, and the two overlap numbers the estimable rule reads
(:mod:`popresume.causal.identification`). Settings start with the learner's name.

The table (:func:`table_from_records`) has, per design (overlap × n) and effect:

* ``coverage``, setting "... all replications (paper rule)": every interval counted, as the
  paper reports them;
* ``coverage``, setting "... estimable replications (overlap rule)": only the replications
  whose effect the rule calls estimable, the promise the tool makes (band 0.93-0.97);
* ``estimable_share``: the share of replications called estimable (no band: a description);
* ``projection_ratio``: mean(half-width × √n) at the largest n over the smallest, among the
  estimable replications where the projection is called valid (the effect estimable at
  both n), else over all replications. Where the half-width shrinks like 1/√n the ratio is
  1; the band is 0.8-1.25.

Two more kinds of rows isolate the parts:

* "oracle nuisances": the influence values φ computed with the *true* propensities and
  regressions of the SCM (``DiscreteSCM.true_nuisances``), so the intervals' machinery
  alone (influence-function SE, normal and bootstrap intervals, the effects' linear map) is
  checked, with no learner in the way; thousands of replications cost seconds;
* "proxy reveals X" (``make_scm("proxy_reveals")``): a mediator nearly reveals the
  attribute; the rule should call the paths not estimable, and the paper rule's intervals
  show why.

``fast=True`` runs the oracle rows (1,500 replications) and the cell-means learner with
normal intervals at n = 4,000: the subset the tests run. The full run adds n = 1,000 and
n = 8,000 (where XGBoost's mediated effects clear their higher ESS floor,
``identification.MIN_ESS_MEDIATED_FLEXIBLE``), the weak design and XGBoost (about 1-3 s per
replication and core, the reason for its replication count).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd

from popresume.schema import PSE_NAMES

from . import summarize, table

FAMILY = "causal"
DESIGNS = {"good overlap": "basic", "weak overlap": "weak_overlap", "proxy reveals X": "proxy_reveals"}
# replications per design and learner. The cell-means learner (saturated, exact on these
# discrete designs, ~50x faster than XGBoost) affords 300 samples per cell (MC error of a 95%
# coverage +-1.3 points); the XGBoost default (tuned once per design on a pilot sample) 300 on
# the good design, where its mediated effects decide their ESS floor, and 100 (+-2.2 points)
# on the weak one. The oracle rows cost milliseconds each.
FULL = {"n": (1000, 4000, 8000), "n_boot": 500, "oracle_reps": 2000,
        "learners": {"cell means": {"basic": 300, "weak_overlap": 300, "proxy_reveals": 40},
                     "XGBoost": {"basic": 300, "weak_overlap": 100, "proxy_reveals": 20}}}
# the fast subset: n = 4,000, where the good design's mediated effects clear MIN_ESS_MEDIATED, and 200
# samples (MC error +-1.5 points, so a true 0.90 lands in the band about 2.5% of the time)
FAST = {"n": (4000,), "n_boot": 0, "oracle_reps": 1500,
        "learners": {"cell means": {"basic": 200, "proxy_reveals": 30}}}
PROJECTION_BAND = (0.8, 1.25)
ROLES = dict(x="x", x0="x0", x1="x1", z=["z"], b=["b"], r=["r"], y="y")


def tuned_learners(kind: str, n: int, *, seed: int = 0):
    """XGBoost with the Appendix C.5 hyperparameters chosen once on a pilot sample of the design."""
    from popresume.causal import PSEEstimator, make_scm
    from popresume.causal.effects import PSEWarning
    from popresume.causal.nuisance import Learners

    pilot = make_scm(kind, seed=0).sample(n, seed=10_000_019 + seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PSEWarning)
        est = PSEEstimator(pilot, **ROLES, seed=seed).fit()
    params = {role: {k: v for k, v in p.items() if k != "cv_score"} for role, p in est._learners.params.items()}
    return Learners(tune=False, params=params)


def replicate(kind: str, n: int, rep: int, *, learners, n_boot: int, seed: int = 0,
              learner: str = "XGBoost") -> list[dict]:
    """One sample of ``make_scm(kind)``: per effect its interval, coverage, half-width and overlap numbers."""
    from popresume.causal import PSEEstimator, make_scm
    from popresume.causal.effects import PSEWarning

    scm = make_scm(kind, seed=0)
    truth = scm.true_effects()
    d = scm.sample(n, seed=seed * 1_000_003 + n * 7919 + rep)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PSEWarning)
        est = PSEEstimator(d, **ROLES, seed=rep, learners=learners).fit()
        if n_boot:
            est.bootstrap(n_boot)
    res = est.result_
    ci = res.confint()
    ident = res.identification_table()
    out = []
    for e in PSE_NAMES:
        lo, hi = float(ci.loc[e, "ci_low"]), float(ci.loc[e, "ci_high"])
        out.append({"learner": learner, "kind": kind, "n": n, "rep": rep, "effect": e, "truth": float(truth[e]),
                    "estimate": float(res.effects[e]), "ci_low": lo, "ci_high": hi,
                    "covered": bool(lo <= truth[e] <= hi), "half_width": (hi - lo) / 2,
                    "clipped_share": float(ident.loc[e, "clipped_share"]), "min_ess": float(ident.loc[e, "min_ess"])})
    return out


def oracle_replicates(kind: str, n: int, reps: range, *, n_boot: int = 0, seed: int = 0) -> list[dict]:
    """Samples with φ from the SCM's true nuisances: the interval machinery alone, no learner."""
    from popresume.causal import make_scm
    from popresume.causal.bootstrap import influence_bootstrap
    from popresume.causal.functional import PSI_TRIPLES, influence, weights
    from popresume.causal.results import PSEResult

    scm = make_scm(kind, seed=0)
    truth = scm.true_effects().to_numpy()
    out = []
    for rep in reps:
        z, x, r, b, y = scm.draw(n, seed=seed * 1_000_003 + n * 7919 + rep + 5_000_000)
        phi = np.empty((n, len(PSI_TRIPLES)))
        for j, triple in enumerate(PSI_TRIPLES.values()):
            nu = scm.nuisances_at(z, r, b, triple)
            w = weights(x == 1, triple, nu["p_z"], nu["p_rz"], nu["p_brz"], normalize=False)
            phi[:, j] = influence(y, w, nu["mu3"], nu["mu2"], nu["mu1"])
        boot = influence_bootstrap(phi, n_boot, seed=rep) if n_boot else None  # (n_boot, 5)
        res = PSEResult(phi.mean(axis=0), phi[None], boot_psi=boot, boot_kind="influence" if n_boot else None)
        ci = res.confint().to_numpy()
        est = res.effects.to_numpy()
        for j, e in enumerate(PSE_NAMES):
            lo, hi = ci[j]
            out.append({"learner": "oracle", "kind": f"oracle:{kind}", "n": n, "rep": rep, "effect": e, "truth": truth[j],
                        "estimate": est[j], "ci_low": lo, "ci_high": hi, "covered": bool(lo <= truth[j] <= hi),
                        "half_width": (hi - lo) / 2, "clipped_share": 0.0, "min_ess": float("inf")})
    return out


def simulate(*, fast: bool = False, seed: int = 0, n_jobs: int = 1, reps: int | None = None,
             ns: tuple[int, ...] | None = None) -> pd.DataFrame:
    """The replications of every design: one row per (design, n, replication, effect)."""
    from joblib import Parallel, delayed

    from popresume.causal.nuisance import CellMeans

    cfg = FAST if fast else FULL
    ns = cfg["n"] if ns is None else ns
    chunk = 250
    jobs = [delayed(oracle_replicates)("basic", ns[0], range(k, min(k + chunk, cfg["oracle_reps"])),
                                       n_boot=0 if fast else 200, seed=seed)
            for k in range(0, cfg["oracle_reps"], chunk)]
    for learner, kinds in cfg["learners"].items():
        for kind, kind_reps in kinds.items():
            for n in ns:
                if learner == "cell means":
                    fitted = {"propensity": CellMeans(), "outcome": CellMeans()}
                else:
                    fitted = tuned_learners(kind, n, seed=seed)
                jobs += [delayed(replicate)(kind, n, rep, learners=fitted, n_boot=cfg["n_boot"], seed=seed,
                                            learner=learner)
                         for rep in range(kind_reps if reps is None else reps)]
    rows = Parallel(n_jobs=n_jobs)(jobs)
    return pd.DataFrame([r for block in rows for r in block])


def estimable_mask(records: pd.DataFrame, *, max_clipped_share: float | None = None,
                   min_ess: float | None = None, min_ess_mediated: float | None = None,
                   min_ess_share: float | None = None) -> pd.Series:
    """The overlap rule on recorded replications (thresholds default to the estimator's).

    The mediated effects' floor follows each record's ``learner`` as the estimator's does
    (``mediated_ess_floor``: 750 for "cell means", 2,000 for XGBoost); ``min_ess_mediated``
    replaces it for every learner. ``min_ess_share``: the ESS share of the rows below which NDE,
    NIE, BIE and RIE are not estimable (``identification.MIN_ESS_SHARE``)."""
    from popresume.causal.identification import (MAX_CLIPPED_SHARE, MIN_ESS, MIN_ESS_SHARE, is_estimable,
                                                 mediated_ess_floor)
    from popresume.causal.nuisance import CellMeans

    # the floor each record's learner gets in the estimator (the harness names its learners)
    floors = {name: mediated_ess_floor(CellMeans() if name == "cell means" else None)
              for name in (records["learner"].unique() if "learner" in records else ["XGBoost"])}
    learner = records["learner"] if "learner" in records else pd.Series("XGBoost", index=records.index)
    mediated = learner.map(floors) if min_ess_mediated is None else pd.Series(float(min_ess_mediated),
                                                                            index=records.index)
    thresholds = dict(max_clipped_share=MAX_CLIPPED_SHARE if max_clipped_share is None else max_clipped_share,
                      min_ess=MIN_ESS if min_ess is None else min_ess,
                      min_ess_share=MIN_ESS_SHARE if min_ess_share is None else min_ess_share)
    ok = [is_estimable(e, c, ess, n, min_ess_mediated=mm, **thresholds)
          for e, c, ess, n, mm in zip(records["effect"], records["clipped_share"], records["min_ess"], records["n"],
                                      mediated)]
    return pd.Series(ok, index=records.index, dtype=bool)


def _label(kind: str) -> str:
    if kind.startswith("oracle:"):
        return f"oracle nuisances, {_label(kind.split(':', 1)[1])}"
    return next(k for k, v in DESIGNS.items() if v == kind)


def table_from_records(records: pd.DataFrame, **thresholds) -> pd.DataFrame:
    """The harness table (``popresume.coverage.COLUMNS``) from :func:`simulate`'s records."""
    rec = records.assign(estimable=estimable_mask(records, **thresholds))
    rows = []
    if "learner" not in rec:
        rec["learner"] = "XGBoost"
    for (learner, kind, n), g in rec.groupby(["learner", "kind", "n"], sort=False):
        base = f"{_label(kind)}, n={n}" if kind.startswith("oracle:") else f"{learner}: {_label(kind)}, n={n}"
        for e in PSE_NAMES:
            ge = g[g["effect"] == e]
            if kind.startswith("oracle:"):  # no learner, nothing to call not estimable
                rows.append(summarize(ge["covered"], family=FAMILY, quantity=e, kind="coverage", nominal=0.95,
                                      setting=f"{base} (the interval machinery alone)"))
                continue
            rows.append(summarize(ge["covered"], family=FAMILY, quantity=e, kind="coverage", nominal=0.95,
                                  setting=f"{base}, all replications (paper rule)"))
            ok = ge[ge["estimable"]]
            if len(ok):
                rows.append(summarize(ok["covered"], family=FAMILY, quantity=e, kind="coverage", nominal=0.95,
                                      setting=f"{base}, estimable replications (overlap rule)"))
            rows.append(summarize(ge["estimable"], family=FAMILY, quantity=e, kind="estimable_share",
                                  nominal=float("nan"), setting=base, band_override=(0.0, 1.0)))
    ns = sorted(rec["n"].unique())
    if len(ns) >= 2:
        n1, n2 = ns[0], ns[-1]
        for (learner, kind), by_design in rec.groupby(["learner", "kind"], sort=False):
            if kind.startswith("oracle:"):
                continue
            for e in PSE_NAMES:
                sub = by_design[by_design["effect"] == e]
                # valid where the effect is called estimable at both n (most replications);
                # elsewhere the ratio over all replications shows what the projection would miss
                called = sub[sub["n"] == n1]["estimable"].mean() > 0.5 and sub[sub["n"] == n2]["estimable"].mean() > 0.5
                use = sub["estimable"] if called else pd.Series(True, index=sub.index)
                a = sub[(sub["n"] == n1) & use]["half_width"] * math.sqrt(n1)
                b = sub[(sub["n"] == n2) & use]["half_width"] * math.sqrt(n2)
                if len(a) < 2 or len(b) < 2:
                    continue
                ratio = float(b.mean() / a.mean())
                mc = ratio * math.sqrt((a.std() / a.mean()) ** 2 / len(a) + (b.std() / b.mean()) ** 2 / len(b))
                lo, hi = PROJECTION_BAND
                rows.append({"family": FAMILY, "quantity": e, "kind": "projection_ratio", "nominal": 1.0,
                             "setting": f"{learner}: {_label(kind)}, half-width×√n at n={n2} over n={n1}, "
                                        + ("estimable replications (projection valid)" if called
                                           else "all replications (projection not valid)"),
                             "rate": ratio, "mc_se": mc, "reps": int(min(len(a), len(b))),
                             "band_low": lo, "band_high": hi, "in_band": bool(lo <= ratio <= hi)})
    return table(rows)


def records_csv():
    """Where the full causal run (``make calibrate``) writes its per-replication records."""
    from . import results_csv

    return results_csv().with_name("coverage_causal_records.csv.gz")


def spread_table(records: pd.DataFrame) -> pd.DataFrame:
    """Why a coverage is low, per learner, design, n and effect, from :func:`simulate`'s records.

    ``se_over_sd``: the mean interval half-width / 1.96 (the SE the interval implies) over the
    standard deviation of the estimates across replications, which is the SE's target (1 when
    the interval's width is right; 0.85 means 15% too narrow). ``bias_over_sd``: the mean error
    (estimate − truth) over that SD (0 when unbiased; beyond ±0.3 a bias moves coverage). The
    oracle rows are left out (they have no learner).
    """
    rec = records[records["learner"] != "oracle"]
    rows = []
    for (learner, kind, n, effect), g in rec.groupby(["learner", "kind", "n", "effect"], sort=False):
        sd = float(g["estimate"].std())
        rows.append({"learner": learner, "design": _label(kind), "n": int(n), "effect": effect,
                     "se_over_sd": float((g["half_width"] / 1.959964).mean()) / sd,
                     "bias_over_sd": float((g["estimate"] - g["truth"]).mean()) / sd, "reps": len(g)})
    return pd.DataFrame(rows)


def run(fast: bool = False, seed: int = 0, records_path=None) -> pd.DataFrame:
    """The causal family's harness table (see the module docstring); ``fast``: the tests' subset.

    ``records_path``: also write the per-replication records there (CSV, gzip by suffix), so
    that a change of the estimable rule's thresholds can be re-read from them
    (:func:`table_from_records` with ``max_clipped_share=...``) without simulating again.
    """
    records = simulate(fast=fast, seed=seed, n_jobs=1 if fast else 2)
    if records_path is not None:
        records.to_csv(records_path, index=False)
    return table_from_records(records)
