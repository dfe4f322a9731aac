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
truth, its half-width, the tool's ``estimable`` verdict and the numbers of its identification
table (:mod:`popresume.causal.identification`). Settings start with the learner's name.

The table (:func:`table_from_records`) has one ``coverage`` row per learner, design, n and
effect, with three measured rates side by side, each with its Wilson interval
(:mod:`popresume.coverage.intervals`): the coverage among the replications the tool calls
estimable (``rate``, the promise the tool makes; band 0.93-0.97), the coverage among all
replications (``coverage_all``, every interval counted as the paper reports them) and the
share called estimable (``estimable_share``, the rule's power); its ``verdict``
(:func:`causal_verdict`) is "in band" only with a Wilson interval at or above 0.90 and, on the
good design at n >= 1,000, a share of at least 0.9. ``rule`` names the estimable rule of the
replications (the tool's own verdict is recorded per replication; records without one are
read under the ESS floors, :func:`estimable_mask`) and ``held_out`` whether the design and
size took no part in choosing that rule's thresholds (:data:`CHOSEN_ON`). Then
``projection_ratio`` rows: mean(half-width × √n) at the largest n over the smallest, among the
estimable replications where the projection is called valid (the effect estimable at both
n), else over all replications. Where the half-width shrinks like 1/√n the ratio is 1; the
band is 1/1.25-1.25 (:data:`PROJECTION_BAND`).

More kinds of rows isolate the parts:

* "oracle nuisances": the influence values φ computed with the *true* propensities and
  regressions of the SCM (``DiscreteSCM.true_nuisances``), so the intervals' machinery
  alone (influence-function SE, normal and bootstrap intervals, the effects' linear map) is
  checked, with no learner in the way; thousands of replications cost seconds;
* "proxy reveals X" (``make_scm("proxy_reveals")``): a mediator nearly reveals the
  attribute; the rule should call the paths not estimable, and the coverage among all
  replications shows why;
* "audit pipeline" (:func:`popresume.audit.calibration.audit_replicate`): ``popresume audit
  --screener synthetic`` itself, with XGBoost as the tool builds it (tuned on every fit) and the synthetic screener's exact
  truth, over seeds, for race and gender and two occupations (:data:`AUDIT`). The SCM designs
  can run with the same learner (:func:`simulate_tool_defaults`).

``fast=True`` runs the oracle rows (1,500 replications) and the cell-means learner with
normal intervals at n = 4,000: the subset the tests run. The full run adds n = 1,000 and
n = 8,000, the weak design and XGBoost (about 1-3 s per replication and core tuned once,
10-12 s tuned on every fit, the reason for the replication counts).
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

from popresume.causal import PSEEstimator, make_scm
from popresume.causal import identification as ident
from popresume.causal.bootstrap import influence_bootstrap
from popresume.causal.effects import PSEWarning
from popresume.causal.functional import PSI_TRIPLES, effects_from_psi, influence, weights
from popresume.causal.identification import (MAX_CLIPPED_SHARE, MIN_ESS, MIN_ESS_SHARE, is_estimable,
                                             mediated_ess_floor)
from popresume.causal.nuisance import CellMeans, Learners
from popresume.causal.results import PSEResult, jackknife_se, variance_se
from popresume.causal.spec import DEFAULTS, VARIANCES
from popresume.schema import PSE_NAMES

from . import COLUMNS, COVERAGE_BAND, results_csv
from .intervals import rate_with_interval, wilson

FAMILY = "causal"
DESIGNS = {"good overlap": "basic", "weak overlap": "weak_overlap", "proxy reveals X": "proxy_reveals"}
# replications per design and learner. The cell-means learner (saturated, exact on these
# discrete designs, ~50x faster than XGBoost) affords 300 samples per cell (MC error of a 95%
# coverage +-1.3 points); the XGBoost default (tuned once per design on a pilot sample) 300 on
# the good design, where its mediated effects decide their ESS floor, and 100 (+-2.2 points)
# on the weak one. The oracle rows cost milliseconds each.
# ``cheap_reps``: where a fit is cheap (the cell-means learner at n <= ``cheap_n``, 0.2 s a
# replication) every design gets 1,000 replications (MC error of a 95% coverage +-0.7 points:
# a true 0.92 reads 0.93 or more about one time in eight, against about a quarter at 300).
FULL = {"n": (1000, 4000, 8000), "n_boot": 500, "oracle_reps": 2000, "cheap_reps": 1000, "cheap_n": 2000,
        "learners": {"cell means": {"basic": 300, "weak_overlap": 300, "proxy_reveals": 40},
                     "XGBoost": {"basic": 300, "weak_overlap": 100, "proxy_reveals": 20}}}
# the fast subset: n = 4,000, where the good design's mediated effects clear MIN_ESS_MEDIATED, and 200
# samples (MC error +-1.5 points, so a true 0.90 lands in the band about 2.5% of the time)
FAST = {"n": (4000,), "n_boot": 0, "oracle_reps": 1500,
        "learners": {"cell means": {"basic": 200, "proxy_reveals": 30}}}
# half-width × √n may change by at most a factor PROJECTION_TOLERANCE either way between the
# smallest and largest n (a band symmetric on the log scale)
PROJECTION_TOLERANCE = 1.25
PROJECTION_BAND = (1 / PROJECTION_TOLERANCE, PROJECTION_TOLERANCE)
ROLES = dict(x="x", x0="x0", x1="x1", z=["z"], b=["b"], r=["r"], y="y")


def tuned_learners(kind: str, n: int, *, seed: int = 0):
    """XGBoost with the Appendix C.5 hyperparameters chosen once on a pilot sample of the design."""
    pilot = make_scm(kind, seed=0).sample(n, seed=10_000_019 + seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PSEWarning)
        est = PSEEstimator(pilot, **ROLES, seed=seed, variance="influence").fit()  # for its tuning only
    params = {role: {k: v for k, v in p.items() if k != "cv_score"} for role, p in est._learners.params.items()}
    return Learners(tune=False, params=params)


def replicate(kind: str, n: int, rep: int, *, learners, n_boot: int, seed: int = 0,
              learner: str = "XGBoost", variance: str = "influence") -> list[dict]:
    """One sample of ``make_scm(kind)``: per effect its interval, coverage, half-width and overlap numbers.

    ``variance``: the estimator's ``EstimatorSpec.variance``; with the jackknife's refits
    ("jackknife", "average") the record also keeps the jackknife SE (``se_jackknife``)."""
    scm = make_scm(kind, seed=0)
    truth = scm.true_effects()
    d = scm.sample(n, seed=seed * 1_000_003 + n * 7919 + rep)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PSEWarning)
        est = PSEEstimator(d, **ROLES, seed=rep, learners=learners, variance=variance).fit()
        if n_boot:
            est.bootstrap(n_boot)
    res = est.result_
    ci = res.confint()
    ident = res.identification_table()
    se_infl, se_folds = res.influence_se, fold_se(res)
    extra = pd.DataFrame(index=list(PSE_NAMES))
    if res.jack_psi is not None:
        extra["se_jackknife"] = jackknife_se(effects_from_psi(res.jack_psi))
    out = []
    for e in PSE_NAMES:
        lo, hi = float(ci.loc[e, "ci_low"]), float(ci.loc[e, "ci_high"])
        out.append({"learner": learner, "kind": kind, "n": n, "rep": rep, "effect": e, "truth": float(truth[e]),
                    "estimate": float(res.effects[e]), "ci_low": lo, "ci_high": hi,
                    "covered": bool(lo <= truth[e] <= hi), "half_width": (hi - lo) / 2,
                    "se_influence": float(se_infl[e]), "se_folds": float(se_folds[e]), **extra.loc[e].to_dict(),
                    "estimable": bool(ident.loc[e, "estimable"]), "rule": rule_label(), **_overlap_numbers(ident, e)})
    return out


def fold_se(res: PSEResult) -> pd.Series:
    """The between-fold SE of each effect: the SD of the K per-fold means of the influence
    values over √K (the first split's folds), recorded beside the influence SE so that the
    records can compare the two; no interval of the tool uses it."""
    phi = effects_from_psi(res.phi_reps[0])
    folds = np.unique(res.fold)
    theta = np.stack([phi[res.fold == k].mean(axis=0) for k in folds])
    return pd.Series(theta.std(axis=0, ddof=1) / np.sqrt(len(folds)), index=list(PSE_NAMES))


# The audit pipeline itself (``popresume audit --screener synthetic``): a population from the
# generator, the synthetic screener's scores and its exact truth, the estimator at the audit's
# defaults (XGBoost tuned on every fit, 5 folds, the default variance). Two occupations, both
# attributes; one replication is one seed.
AUDIT = {"occupations": ("accountant", "nurse"), "attributes": ("race", "gender"), "n": (2000, 3000)}
# the records' learner labels of the tool's own defaults start with this; tool_learner adds the variance
AUDIT_LEARNER = "XGBoost, tool defaults"


def _overlap_numbers(ident: pd.DataFrame, effect: str) -> dict:
    """Every number of the estimator's identification row (the rule's inputs, whatever the rule)."""
    row = ident.loc[effect]
    return {k: float(v) for k, v in row.items() if k != "estimable" and isinstance(v, (int, float, np.number))
            and not isinstance(v, bool)}


ESS_FLOOR_RULE = "ESS floors (50; mediated 750 / 2,000; 10% of rows)"


def rule_label() -> str:
    """Which estimable rule the installed estimator applies by default, for the records' ``rule`` column."""
    if ident.DEFAULT_RULE == "ess-floor":
        return ESS_FLOOR_RULE
    return support_label(PSEResult.max_pareto_k)  # the estimator's default tail check (None: opt-in, off)


def support_label(max_pareto_k: float | None) -> str:
    """The ``rule`` label of ``estimable_rule="support"`` with this tail check (None: k̂ not checked)."""
    tail = f", Pareto k <= {max_pareto_k:g}" if max_pareto_k is not None else "; Pareto k reported, not checked"
    return (f"support (clipped <= {ident.MAX_CLIPPED_SHARE:.0%}, ESS >= {ident.MIN_ESS:.0f}, "
            f"nested{tail})")


def reread_support(records: pd.DataFrame, *, max_pareto_k: float | None = None) -> pd.DataFrame:
    """The records called again under ``estimable_rule="support"`` with this tail check, from
    their recorded ``clipped_share``, ``min_ess`` and ``pareto_k`` (the numbers the rule reads;
    the intervals do not depend on the rule), labelled by :func:`support_label`. Each fit's
    NDE, NIE, BIE and RIE then share one verdict (:func:`popresume.causal.identification.together`),
    as ``identification_table`` gives them: a fit is a (learner, kind, n, rep)."""
    ok = pd.Series([is_estimable(e, c, ess, n, k, rule="support", max_pareto_k=max_pareto_k)
                    for e, c, ess, n, k in zip(records["effect"], records["clipped_share"], records["min_ess"],
                                               records["n"], records["pareto_k"])], index=records.index)
    nested = records["effect"].isin(ident.NESTED)
    fit = [records[c] for c in ("learner", "kind", "n", "rep")]
    all_nested = (ok | ~nested).groupby(fit).transform("all")
    return records.assign(estimable=ok & (all_nested | ~nested), rule=support_label(max_pareto_k))


def simulate_tool_defaults(*, reps: range, ns=(1000, 2000), kinds=("basic",), n_jobs: int = 1,
                           records_path=None, seed: int = 0, variance: str = DEFAULTS.variance) -> pd.DataFrame:
    """:func:`replicate` on the SCM designs with the estimator's own learner (XGBoost tuned on
    every fit, :data:`AUDIT_LEARNER`) and its default 500 draws, replications outer (so
    every cell grows together), appended to ``records_path`` as they arrive, under
    ``EstimatorSpec.variance`` ``variance`` (by default the estimator's) and the learner
    label :func:`tool_learner` gives it (each variance has rows of its own in the table)."""
    return run_appending([delayed(replicate)(kind, n, rep, learners=None, n_boot=FULL["n_boot"], seed=seed,
                                             learner=tool_learner(variance), variance=variance)
                          for rep in reps for n in ns for kind in kinds], n_jobs=n_jobs, records_path=records_path)


def tool_learner(variance: str = DEFAULTS.variance) -> str:
    """The records' learner label of the tool's defaults with this ``EstimatorSpec.variance``
    (by default the estimator's), e.g. "XGBoost, tool defaults, jackknife variance"."""
    if variance not in VARIANCES:
        raise ValueError(f"variance must be one of {list(VARIANCES)}, got {variance!r}")
    return f"{AUDIT_LEARNER}, {variance} variance"


def average_records(records: pd.DataFrame, jackknife: pd.DataFrame) -> pd.DataFrame:
    """The records ``variance="average"`` gives, read off fits already recorded twice.

    ``records``: harness records of the tool's defaults under the influence variance
    (``tool_learner("influence")``);
    ``jackknife``: ``bench_causal.py jackknife --learner tool`` records of the same designs, n
    and replications (columns ``scm``, ``n``, ``rep``, ``effect``, ``estimate``,
    ``se_influence``, ``se_jackknife_10``). Both fit the same sample with the same seed, and the
    jackknife's refits use the seed the estimator's ``variance="average"`` uses, so each
    matched replication's record under that variance (:func:`reinterval`) keeps every other
    number of its record: exactly what :func:`replicate` with ``variance="average"`` returns
    (``tests/test_coverage_causal.py`` checks it). A matched pair whose estimates differ is
    refused. Only the replications both hold are returned.
    """
    key = ["kind", "n", "rep", "effect"]
    jk = jackknife.rename(columns={"scm": "kind", "se_jackknife_10": "se_jackknife"})
    jk = jk[key + ["estimate", "se_influence", "se_jackknife"]].drop_duplicates(key)
    base = records[records["learner"] == tool_learner("influence")].drop(columns=["se_influence", "se_jackknife"],
                                                             errors="ignore")
    both = base.merge(jk, on=key, suffixes=("", "_jk"))
    if not np.allclose(both["estimate"], both["estimate_jk"], rtol=1e-9, atol=1e-12):
        raise ValueError("the jackknife records are not of the same fits: their estimates differ")
    return reinterval(both.drop(columns="estimate_jk"), "average")


def reinterval(records: pd.DataFrame, variance: str, *, groups: int = 10) -> pd.DataFrame:
    """Records carrying both SEs of their fit (``se_influence``, ``se_jackknife`` from ``groups``
    groups) under another jackknife-based ``EstimatorSpec.variance``: the interval that variance
    prints (``"jackknife"``: est ± t(G − 1)·se_J; ``"average"``: est ± z·√((se_I² + se_J²)/2),
    as :class:`~popresume.causal.results.PSEResult` builds them), its half-width and coverage,
    under the learner label :func:`tool_learner` gives it. Everything else is the same fit's."""
    if variance not in ("jackknife", "average"):
        raise ValueError(f"reinterval reads 'jackknife' or 'average' off the recorded SEs, got {variance!r}")
    se, q = variance_se(variance, records["se_influence"], records["se_jackknife"], groups)
    lo, hi = records["estimate"] - q * se, records["estimate"] + q * se
    return records.assign(learner=tool_learner(variance), ci_low=lo, ci_high=hi, half_width=q * se,
                          covered=(lo <= records["truth"]) & (records["truth"] <= hi))


def run_appending(jobs: list, *, n_jobs: int = 1, records_path=None) -> pd.DataFrame:
    """Run joblib ``jobs`` (each returning a list of record dicts), appending each to ``records_path`` on arrival."""
    out = []
    for block in Parallel(n_jobs=n_jobs, return_as="generator")(jobs):
        out += block
        if records_path is not None:
            new = not Path(records_path).exists()
            pd.DataFrame(block).to_csv(records_path, mode="a", header=new, index=False)
    return pd.DataFrame(out)


def oracle_replicates(kind: str, n: int, reps: range, *, n_boot: int = 0, seed: int = 0) -> list[dict]:
    """Samples with φ from the SCM's true nuisances: the interval machinery alone, no learner."""
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
             ns: tuple[int, ...] | None = None, config: dict | None = None) -> pd.DataFrame:
    """The replications of every design: one row per (design, n, replication, effect).

    ``config``: a dict shaped like :data:`FULL` (``n``, ``n_boot``, ``oracle_reps``, ``learners``,
    optionally ``cheap_reps`` / ``cheap_n``: the cell-means count at n <= ``cheap_n``)
    instead of :data:`FULL` / :data:`FAST`. Its learner names are "cell means", "XGBoost"
    (tuned once per design on a pilot sample; both with the influence variance) and a
    :func:`tool_learner` label (XGBoost as ``estimate_pse`` and ``popresume audit`` build it,
    tuned on every fit, with the variance the label names).
    """
    cfg = config if config is not None else FAST if fast else FULL
    ns = cfg["n"] if ns is None else ns
    chunk = 250
    jobs = [delayed(oracle_replicates)("basic", ns[0], range(k, min(k + chunk, cfg.get("oracle_reps", 0))),
                                       n_boot=0 if fast else 200, seed=seed)
            for k in range(0, cfg.get("oracle_reps", 0), chunk)]
    for learner, kinds in cfg["learners"].items():
        for kind, kind_reps in kinds.items():
            for n in ns:
                if learner == "cell means":
                    fitted = {"propensity": CellMeans(), "outcome": CellMeans()}
                elif learner.startswith(AUDIT_LEARNER):
                    fitted = None  # the estimator's default: XGBoost tuned on every fit
                else:
                    fitted = tuned_learners(kind, n, seed=seed)
                count = kind_reps if reps is None else reps
                if learner == "cell means" and n <= cfg.get("cheap_n", 0) and reps is None:
                    count = max(count, cfg.get("cheap_reps", 0))
                variance = next((v for v in VARIANCES if learner == tool_learner(v)), "influence")
                jobs += [delayed(replicate)(kind, n, rep, learners=fitted, n_boot=cfg["n_boot"], seed=seed,
                                            learner=learner, variance=variance)
                         for rep in range(count)]
    rows = Parallel(n_jobs=n_jobs)(jobs)
    return pd.DataFrame([r for block in rows for r in block])


def estimable_mask(records: pd.DataFrame, *, max_clipped_share: float | None = None,
                   min_ess: float | None = None, min_ess_mediated: float | None = None,
                   min_ess_share: float | None = None) -> pd.Series:
    """The ESS-floor rule (``estimable_rule="ess-floor"``) on recorded replications.

    The thresholds default to the estimator's.

    The mediated effects' floor follows each record's ``learner`` as the estimator's does
    (``mediated_ess_floor``: 750 for "cell means", 2,000 for XGBoost); ``min_ess_mediated``
    replaces it for every learner. ``min_ess_share``: the ESS share of the rows below which NDE,
    NIE, BIE and RIE are not estimable (``identification.MIN_ESS_SHARE``)."""
    # the rule these records were made under: the ESS floors (rule="ess-floor" of the estimator)

    # the floor each record's learner gets in the estimator (the harness names its learners)
    floors = {name: mediated_ess_floor(CellMeans() if name == "cell means" else None)
              for name in (records["learner"].unique() if "learner" in records else ["XGBoost"])}
    learner = records["learner"] if "learner" in records else pd.Series("XGBoost", index=records.index)
    mediated = learner.map(floors) if min_ess_mediated is None else pd.Series(float(min_ess_mediated),
                                                                            index=records.index)
    thresholds = dict(max_clipped_share=MAX_CLIPPED_SHARE if max_clipped_share is None else max_clipped_share,
                      min_ess=MIN_ESS if min_ess is None else min_ess,
                      min_ess_share=MIN_ESS_SHARE if min_ess_share is None else min_ess_share)
    ok = [is_estimable(e, c, ess, n, rule="ess-floor", min_ess_mediated=mm, **thresholds)
          for e, c, ess, n, mm in zip(records["effect"], records["clipped_share"], records["min_ess"], records["n"],
                                      mediated)]
    return pd.Series(ok, index=records.index, dtype=bool)


def design_label(kind: str) -> str:
    """The words for a records' ``kind``: "good overlap", "oracle nuisances, good overlap",
    "audit pipeline, synthetic screener, nurses, race"."""
    if kind.startswith("oracle:"):
        return f"oracle nuisances, {design_label(kind.split(':', 1)[1])}"
    if kind.startswith("audit:"):
        _, occupation, attribute = kind.split(":")
        return f"audit pipeline, synthetic screener, {occupation}s, {attribute}"
    return next(k for k, v in DESIGNS.items() if v == kind)


# The columns a causal coverage row has beyond popresume.coverage.COLUMNS. For a row of kind
# "coverage": ``rate``/``reps``/``mc_se`` are the coverage among the replications called
# estimable (the tool's promise), ``coverage_low``/``coverage_high`` its Wilson interval;
# ``coverage_all`` (with ``reps_all`` and its Wilson interval) counts every replication's
# interval, withheld or not; ``estimable_share`` is the share called estimable. ``verdict``
# applies :func:`causal_verdict`; ``rule`` names the estimable rule that called the
# replications; ``held_out`` says whether the design and size took no part in choosing that
# rule's thresholds.
CAUSAL_COLUMNS = ["coverage_low", "coverage_high", "coverage_all", "coverage_all_low", "coverage_all_high",
                  "reps_all", "estimable_share", "estimable_share_low", "estimable_share_high", "verdict", "rule",
                  "held_out"]
# A row is in band only when its coverage among estimable replications is in 0.93-0.97 with a
# Wilson interval that stays at or above WILSON_FLOOR (at 300 replications a true 0.92 lands in
# the band about a quarter of the time; its Wilson interval then reaches below 0.90), and, on
# the good-overlap design at n >= SHARE_FLOOR_N, at least SHARE_FLOOR of the replications are
# called estimable (a rule with power).
WILSON_FLOOR = 0.90
SHARE_FLOOR, SHARE_FLOOR_N = 0.9, 1000
# The designs and sizes each rule's thresholds were chosen on (the rest are held out).
# The ESS floors were placed on the SCM designs at n = 1,000-8,000. The support rule's 1% cap on
# clipping was chosen on the weak design at n = 1,000 and 4,000, its ESS of 50 on the three
# designs at n = 1,000 (popresume.causal.identification), and its Pareto-k line (Vehtari et
# al. 2024) was checked on the synthetic screener's audits of accountants at n = 3,000 and of
# both occupations at n = 2,000 (where it was made opt-in; the estimator's sweeps).
CHOSEN_ON = {ESS_FLOOR_RULE:
             {(k, n) for k in ("basic", "weak_overlap", "proxy_reveals") for n in (1000, 2000, 4000, 8000)},
             "support": {("basic", 1000), ("weak_overlap", 1000), ("weak_overlap", 4000), ("proxy_reveals", 1000),
                         ("audit:accountant:race", 3000), ("audit:accountant:gender", 3000),
                         *((f"audit:{o}:{a}", 2000) for o in ("accountant", "nurse") for a in ("race", "gender"))}}


LEARNER_LABELS = {"XGBoost": "XGBoost tuned once per design"}


def causal_verdict(rate: float, low: float, high: float, share: float, *, share_required: bool) -> str:
    """The verdict of one causal coverage row (the rule of ``WILSON_FLOOR`` and ``SHARE_FLOOR``).

    "in band"; "OUTSIDE" (the Wilson interval lies clear of 0.93-0.97: a miscalibration the
    replications show); "too few replications" (the rate is in the band but its Wilson
    interval reaches below 0.90, or it misses the band by less than the interval);
    "share estimable under 0.9" (calibrated where reported, but the rule withholds too
    often on a design with good overlap); "none estimable".

    >>> causal_verdict(0.95, 0.93, 0.965, 1.0, share_required=True)
    'in band'
    >>> causal_verdict(0.95, 0.89, 0.98, 1.0, share_required=False)
    'too few replications'
    >>> causal_verdict(0.95, 0.93, 0.965, 0.5, share_required=True)
    'share estimable under 0.9'
    """
    band_low, band_high = COVERAGE_BAND
    if not math.isfinite(rate):
        return "none estimable"
    if high < band_low or low > band_high:
        return "OUTSIDE"
    if not (band_low <= rate <= band_high and low >= WILSON_FLOOR):
        return "too few replications"
    if share_required and share < SHARE_FLOOR:
        return "share estimable under 0.9"
    return "in band"


def _estimable(records: pd.DataFrame, thresholds: dict) -> pd.Series:
    """The recorded verdict of the tool (column ``estimable``) where present, else :func:`estimable_mask`."""
    if "estimable" not in records or thresholds:
        return estimable_mask(records, **thresholds)
    have = records["estimable"].notna()
    out = records["estimable"].where(have, False).astype(bool)
    if not have.all():
        out[~have] = estimable_mask(records[~have])
    return out


def coverage_row(g: pd.DataFrame, *, quantity: str, setting: str, rule: str, held_out: bool,
                 share_required: bool) -> dict:
    """One causal coverage row from the replications ``g`` of one effect (columns ``covered``, ``estimable``)."""
    ok = g[g["estimable"]]
    k, m = int(ok["covered"].sum()), len(ok)
    rate = k / m if m else float("nan")
    lo, hi = wilson(k, m)
    all_k, reps_all = int(g["covered"].sum()), len(g)
    all_lo, all_hi = wilson(all_k, reps_all)
    share = m / reps_all
    sh_lo, sh_hi = wilson(m, reps_all)
    verdict = causal_verdict(rate, lo, hi, share, share_required=share_required)
    band_low, band_high = COVERAGE_BAND
    return {"family": FAMILY, "quantity": quantity, "setting": setting, "kind": "coverage", "nominal": 0.95,
            "rate": rate, "mc_se": math.sqrt(max(rate * (1 - rate), 1e-12) / m) if m else float("nan"),
            "reps": m, "band_low": band_low, "band_high": band_high, "in_band": verdict == "in band",
            "coverage_low": lo, "coverage_high": hi, "coverage_all": all_k / reps_all, "coverage_all_low": all_lo,
            "coverage_all_high": all_hi, "reps_all": reps_all, "estimable_share": share,
            "estimable_share_low": sh_lo, "estimable_share_high": sh_hi, "verdict": verdict, "rule": rule,
            "held_out": held_out}


def table_from_records(records: pd.DataFrame, **thresholds) -> pd.DataFrame:
    """The harness table from :func:`simulate`'s (and :func:`popresume.audit.calibration.simulate_audit`'s) records.

    One ``coverage`` row per learner, design, n and effect, in :data:`popresume.coverage.COLUMNS`
    plus :data:`CAUSAL_COLUMNS`; then the ``projection_ratio`` rows. A replication is
    estimable by its recorded ``estimable`` (the tool's own verdict) or, for records without
    one, by :func:`estimable_mask`; ``thresholds`` re-read every record under other thresholds
    of the ESS-floor rule.
    """
    rec = records.assign(estimable=_estimable(records, thresholds).to_numpy())
    if "learner" not in rec:
        rec["learner"] = "XGBoost"
    if "rule" not in rec or thresholds:
        rec["rule"] = ESS_FLOOR_RULE + (
            f", re-read with {thresholds}" if thresholds else "")
    rec["rule"] = rec["rule"].fillna(ESS_FLOOR_RULE)
    rows = []
    for (learner, kind, n, rule), g in rec.groupby(["learner", "kind", "n", "rule"], sort=False):
        oracle = kind.startswith("oracle:")
        who = f"{LEARNER_LABELS.get(learner, learner)}: "
        base = f"{design_label(kind)}, n={n}" if oracle else f"{who}{design_label(kind)}, n={n}"
        chosen = CHOSEN_ON.get(rule.split(" (")[0] if rule.startswith("support") else rule, set())
        held_out = (kind.split(":")[-1] if oracle else kind, int(n)) not in chosen
        for e in PSE_NAMES:
            ge = g[g["effect"] == e]
            if oracle:  # no learner, nothing to call not estimable
                ge = ge.assign(estimable=True)
            rows.append(coverage_row(ge, quantity=e, rule="none (true nuisances)" if oracle else rule,
                                     held_out=held_out,
                                     setting=f"{base} (the interval machinery alone)" if oracle else base,
                                     share_required=(kind == "basic" and n >= SHARE_FLOOR_N)))
    for (learner, kind, rule), by_design in rec.groupby(["learner", "kind", "rule"], sort=False):
        dn = sorted(by_design["n"].unique())
        if kind.startswith("oracle:") or len(dn) < 2:
            continue
        n1, n2 = dn[0], dn[-1]
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
                         "setting": f"{LEARNER_LABELS.get(learner, learner)}: {design_label(kind)}, "
                                    f"half-width×√n at n={n2} over n={n1}, "
                                    + ("estimable replications (projection valid)" if called
                                       else "all replications (projection not valid)"),
                         "rate": ratio, "mc_se": mc, "reps": int(min(len(a), len(b))),
                         "band_low": lo, "band_high": hi, "in_band": bool(lo <= ratio <= hi), "rule": rule})
    return pd.DataFrame(rows, columns=COLUMNS + CAUSAL_COLUMNS)


def shown_causal(t: pd.DataFrame) -> pd.DataFrame:
    """The causal coverage rows as the book shows them: the three rates side by side, each
    with its Wilson interval, the counts, the verdict, the rule and whether the row was held out."""
    t = t[t["kind"] == "coverage"]
    return pd.DataFrame({
        "setting": t["setting"], "effect": t["quantity"],
        "coverage, estimable [Wilson 95%]": [rate_with_interval(*v) for v in
                                             zip(t["rate"], t["coverage_low"], t["coverage_high"])],
        "coverage, all [Wilson 95%]": [rate_with_interval(*v) for v in
                                       zip(t["coverage_all"], t["coverage_all_low"], t["coverage_all_high"])],
        "share estimable [Wilson 95%]": [rate_with_interval(*v) for v in zip(
            t["estimable_share"], t["estimable_share_low"], t["estimable_share_high"])],
        "estimable / all replications": [f"{int(a)} / {int(b)}" for a, b in zip(t["reps"], t["reps_all"])],
        "verdict": t["verdict"], "rule": t["rule"],
        "held out": ["yes" if h in (True, "True") else "no" for h in t["held_out"]],
    }).reset_index(drop=True)


def records_csv():
    """Where the full causal run (``make calibrate``) writes its per-replication records."""
    return results_csv().with_name("coverage_causal_records.csv.gz")


def unique_replications(records: pd.DataFrame) -> pd.DataFrame:
    """One record per replication and effect: a replication read under several rules
    (:func:`reread_support`) has the same interval each time, so analyses of the intervals count it once."""
    return records.drop_duplicates(["learner", "kind", "n", "rep", "effect"])


def spread_table(records: pd.DataFrame) -> pd.DataFrame:
    """Why a coverage is low, per learner, design, n and effect, from :func:`simulate`'s records.

    ``se_over_sd``: the mean interval half-width / 1.96 (the SE the interval implies) over the
    standard deviation of the errors (estimate − truth) across replications, which is the SE's
    target (1 when the interval's width is right; 0.85 means 15% too narrow; on a fixed design
    the SD of the estimates, on the audit pipeline the truth of each sample taken out). ``bias_over_sd``: the mean error
    (estimate − truth) over that SD (0 when unbiased; beyond ±0.3 a bias moves coverage). The
    oracle rows are left out (they have no learner).
    """
    rec = records[records["learner"] != "oracle"]
    if "rep" in rec:
        rec = unique_replications(rec)
    rows = []
    for (learner, kind, n, effect), g in rec.groupby(["learner", "kind", "n", "effect"], sort=False):
        sd = float((g["estimate"] - g["truth"]).std())  # the errors: the audit's truth moves with its sample
        rows.append({"learner": learner, "design": design_label(kind), "n": int(n), "effect": effect,
                     "se_over_sd": float((g["half_width"] / 1.959964).mean()) / sd,
                     "bias_over_sd": float((g["estimate"] - g["truth"]).mean()) / sd, "reps": len(g)})
    return pd.DataFrame(rows)


def run(fast: bool = False, seed: int = 0, records_path=None) -> pd.DataFrame:
    """The causal family's harness table (see the module docstring); ``fast``: the tests' subset.

    ``records_path``: also write the per-replication records there (CSV, gzip by suffix), so
    that a change of the estimable rule's thresholds can be re-read from them
    (:func:`table_from_records` with ``max_clipped_share=...``) without simulating again. The
    replications there with the tool's own tuning (:data:`AUDIT_LEARNER`: the audit pipeline
    and ``--tool-defaults``, hours of fits that this run does not repeat) are kept.
    """
    records = simulate(fast=fast, seed=seed, n_jobs=1 if fast else 2)
    if records_path is not None:
        if Path(records_path).exists():
            old = pd.read_csv(records_path)
            records = pd.concat([records, old[old["learner"].str.startswith(AUDIT_LEARNER)]], ignore_index=True)
        records.to_csv(records_path, index=False)
    return table_from_records(records)


def withholding_summary(causal: pd.DataFrame, *, called: float = 0.9, covering: tuple[float, float] = (0.93, 0.97)
                        ) -> dict:
    """What the estimable rule costs and which rows are held out, from the harness's causal rows.

    ``causal``: the ``family == "causal"`` rows of the coverage table (:func:`table_from_records`).
    Among the fitted coverage rows (the oracle rows left out), a good-overlap row is *lost* when
    the rule calls it estimable in fewer than ``called`` of its replications although the
    intervals of all of them (withheld or not) cover within ``covering``: the rule withholds
    intervals that are right. Returns ``good`` (good-overlap rows), ``lost`` (those lost),
    ``lost_effects`` (their effects, sorted), ``fitted`` (fitted coverage rows), ``held_out``
    (rows whose design and size took no part in choosing their rule's thresholds) and
    ``held_out_designs`` (rule -> the designs of those rows, sorted).
    """
    fitted = causal[(causal["kind"] == "coverage") & ~causal["setting"].str.startswith("oracle")]
    good = fitted[fitted["setting"].str.contains(": good overlap, n=", regex=False)]
    lost = good[(good["estimable_share"] < called) & good["coverage_all"].between(*covering)]
    held = fitted[fitted["held_out"].astype(str) == "True"]
    return {"good": len(good), "lost": len(lost), "lost_effects": sorted(set(lost["quantity"])),
            "fitted": len(fitted), "held_out": len(held),
            "held_out_designs": {rule: sorted({s.split(": ", 1)[1] for s in g["setting"]})
                                 for rule, g in held.groupby("rule", sort=False)}}


def replication_checks(records: pd.DataFrame, *, max_pareto_k: float = 0.7, max_clipped: float = 0.01) -> dict:
    """The checks chapter 12 quotes from the harness's per-replication records.

    ``records``: :func:`simulate`'s records, each replication once (:func:`unique_replications`).
    Returns

    - ``max_abs_bias_over_sd``: the largest |bias| / SD (:func:`spread_table`) on the good- and
      weak-overlap designs;
    - ``weak``: for XGBoost on the weak-overlap design at the largest n, the NDE replications
      that pass the clipping and ESS checks without the ESS-share floor (``n``, ``passing``,
      ``covered``, and the smallest ESS as a share of the rows, ``share_low``-``share_high``),
      or None when there are none;
    - ``good_p5``: (lowest, highest) over learners and n of the 5th percentile of that share for
      NDE on the good-overlap design (what the share floor must stay under);
    - ``tail``: per audit-pipeline design and n, RIE's median Pareto k̂, the replications with
      k̂ above ``max_pareto_k`` and with a clipped share above ``max_clipped`` (empty when the
      records carry no ``pareto_k``).
    """
    spread = spread_table(records)
    scm = spread[spread["design"].isin(["good overlap", "weak overlap"])]
    nde = records[records["effect"] == "NDE"].assign(share=lambda d: d["min_ess"] / d["n"])
    big = int(nde["n"].max())
    passed = estimable_mask(nde, min_ess_share=0.0)  # the clipping and ESS checks, without the share floor
    weak = nde[passed & (nde["learner"] == "XGBoost") & (nde["kind"] == "weak_overlap") & (nde["n"] == big)]
    p5 = nde[nde["kind"] == "basic"].groupby(["learner", "n"])["share"].quantile(0.05)
    tail_rows = []
    if "pareto_k" in records:
        tail = records[records["kind"].str.startswith("audit:") & records["pareto_k"].notna()
                       & (records["effect"] == "RIE")]
        for (kind, n), g in tail.groupby(["kind", "n"], sort=True):
            tail_rows.append({"design": design_label(kind), "n": int(n), "median_k": float(g["pareto_k"].median()),
                              "above_k": int((g["pareto_k"] > max_pareto_k).sum()), "reps": len(g),
                              "clipped_above": int((g["clipped_share"] > max_clipped).sum())})
    return {
        "max_abs_bias_over_sd": float(scm["bias_over_sd"].abs().max()),
        "weak": None if weak.empty else {"n": big, "passing": len(weak), "covered": int(weak["covered"].sum()),
                                         "share_low": float(weak["share"].min()),
                                         "share_high": float(weak["share"].max())},
        "good_p5": (float(p5.min()), float(p5.max())),
        "tail": pd.DataFrame(tail_rows, columns=["design", "n", "median_k", "above_k", "reps", "clipped_above"]),
    }
