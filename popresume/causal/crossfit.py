"""L-fold cross-fitting of ψ(a_y, a_b, a_r) for the five triples at once, and the estimator class.

PopResume's Lemma 1 (§3.2, the DML-UCA procedure of Jung et al. 2024) applied to the
uncentred influence function of its Lemma 2 (Appendix C.2, ``functional``) with general
weights: for each fold ℓ every nuisance is fit on the other folds only and φ is evaluated
on fold ℓ. The nested
regressions need pseudo-outcomes on the training rows:

* μ2's target μ3(B, R, a_y, Z) on a training row of fold k comes, by default
  (``nested_crossfit=True``), from a μ3 fit on the folds other than ℓ *and* k, so μ2
  never learns from μ3's in-sample fit (the outcome noise μ3 memorised). The L(L−1)/2
  pair fits are shared between outer folds.
* μ1's target μ2(R, Z) is μ2's own prediction on its training rows: μ2 is a smooth
  regression of already-averaged targets, and a further level of nesting would cost
  another L(L−1)(L−2)/6 fits per family for no visible gain in our coverage studies.

μ2 is fit on the training rows with X = a_b and μ1 on those with X = a_r, exactly the
conditional expectations μ2(r,z) = E[μ3(B,r,a_y,z) | r, X=a_b, z] and
μ1(z) = E[μ2(R,z) | X=a_r, z] of docs/DESIGN.md §3.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

from popresume.progress import progress_bar

from .bootstrap import influence_bootstrap
from .data import PSEData
from .effects import PSEWarning
from .functional import PSI_LABELS, PSI_NAMES, PSI_TRIPLES, effective_sample_size, influence, pareto_k, weights
from .identification import MAX_CLIPPED_SHARE, MIN_ESS, mediated_ess_floor
from .nuisance import Learners, fit_predict
from .results import PSEResult, aggregate_reps
from .spec import DEFAULTS, EstimatorSpec, make_spec, unknown_options


# --------------------------------------------------------------------------- folds
def assign_folds(x1: np.ndarray, folds: int, rng: np.random.Generator) -> np.ndarray:
    """Fold id per row, stratified on X so every fold holds both groups in proportion."""
    x1 = np.asarray(x1, bool)
    out = np.empty(len(x1), dtype=np.int64)
    for g in (False, True):
        idx = np.flatnonzero(x1 == g)
        if len(idx) < folds:
            raise ValueError(f"the group X={'x1' if g else 'x0'} has {len(idx)} rows, fewer than folds={folds}: "
                             f"a group would be absent from a fold; use fewer folds or more data")
        perm = rng.permutation(idx)
        out[perm] = (np.arange(len(idx)) + rng.integers(folds)) % folds
    return out


# --------------------------------------------------------------------------- cross-fitting
@dataclass
class CrossfitResult:
    phi: np.ndarray  # (n, 5) per-unit influence values, PSI_NAMES order
    propensity: pd.DataFrame  # per propensity model: min, max (before clipping), n_clipped
    weights: pd.DataFrame  # per triple × π: raw mean (mean over folds), ESS, max
    fold: np.ndarray


def crossfit_phi(Xz: np.ndarray, Xrz: np.ndarray, Xbrz: np.ndarray, x1: np.ndarray, y: np.ndarray,
                 fold: np.ndarray, learners: Learners, *, clip: float = DEFAULTS.clip,
                 normalize: bool = DEFAULTS.normalize, nested_crossfit: bool = DEFAULTS.nested_crossfit,
                 seed: int = DEFAULTS.seed) -> CrossfitResult:
    """φ for the five triples on every row, each row's nuisances fit without its fold."""
    n = len(y)
    x1 = np.asarray(x1, bool)
    y = np.asarray(y, float)
    L = int(fold.max()) + 1
    for l in range(L):
        ev = fold == l
        for g in (False, True):
            if not (x1[ev] == g).any():
                raise ValueError(f"fold {l} has no row with X={'x1' if g else 'x0'}: a group is absent from a fold")
    X3 = np.concatenate([Xbrz, x1[:, None].astype(np.float32)], axis=1)

    def at(a):  # μ3 design at X = a
        return np.concatenate([Xbrz, np.full((n, 1), a, np.float32)], axis=1)

    X3a = {0: at(0), 1: at(1)}
    phi = np.zeros((n, len(PSI_NAMES)))
    prop_stats = {m: {"min": np.inf, "max": -np.inf, "n_clipped": 0} for m in ("p(x1|Z)", "p(x1|R,Z)", "p(x1|B,R,Z)")}
    raw_means = {(t, k): [] for t in PSI_NAMES for k in ("pi1", "pi2", "pi3")}
    all_w = {(t, k): np.zeros(n) for t in PSI_NAMES for k in ("pi1", "pi2", "pi3")}
    pair_cache: dict[frozenset, dict[int, np.ndarray]] = {}

    def mu3_pair(l, k):
        """μ3 fit without folds l and k; predictions at a = 0, 1 on the rows of fold k."""
        key = frozenset((l, k))
        if key not in pair_cache:
            tr = (fold != l) & (fold != k)
            rows = (fold == l) | (fold == k)
            est = learners.get("mu3", "outcome", X3[tr], y[tr], seed)
            p0, p1 = fit_predict(est, "outcome", X3[tr], y[tr], [X3a[0][rows], X3a[1][rows]])
            full0, full1 = np.full(n, np.nan), np.full(n, np.nan)
            full0[rows], full1[rows] = p0, p1
            pair_cache[key] = {0: full0, 1: full1}
        return pair_cache[key]

    for l in range(L):
        ev, tr = fold == l, fold != l
        # propensities, clipped to [clip, 1 - clip]
        props = {}
        for name, Xm in (("p(x1|B,R,Z)", Xbrz), ("p(x1|R,Z)", Xrz), ("p(x1|Z)", Xz)):
            est = learners.get("propensity", "propensity", Xm[tr], x1[tr].astype(int), seed)
            (p,) = fit_predict(est, "propensity", Xm[tr], x1[tr].astype(int), [Xm[ev]])
            st = prop_stats[name]
            st["min"], st["max"] = min(st["min"], float(p.min())), max(st["max"], float(p.max()))
            st["n_clipped"] += int(((p < clip) | (p > 1 - clip)).sum())
            props[name] = np.clip(p, clip, 1 - clip)
        # μ3 on the held-out fold, and its out-of-fold pseudo-outcomes on the training rows
        est = learners.get("mu3", "outcome", X3[tr], y[tr], seed)
        m3 = fit_predict(est, "outcome", X3[tr], y[tr], [X3a[0][ev], X3a[1][ev]]
                         + ([] if nested_crossfit else [X3a[0][tr], X3a[1][tr]]))
        mu3_ev = {0: m3[0], 1: m3[1]}
        pseudo3 = {0: np.full(n, np.nan), 1: np.full(n, np.nan)}
        if nested_crossfit:
            for k in range(L):
                if k == l:
                    continue
                pk = mu3_pair(l, k)
                rows = fold == k
                pseudo3[0][rows], pseudo3[1][rows] = pk[0][rows], pk[1][rows]
        else:
            pseudo3[0][tr], pseudo3[1][tr] = m3[2], m3[3]
        # μ2 per (a_y, a_b), fit on training rows with X = a_b
        mu2_ev, mu2_tr = {}, {}
        for (a_y, a_b) in sorted({(t[0], t[1]) for t in PSI_TRIPLES.values()}):
            sub = tr & (x1 == bool(a_b))
            target = pseudo3[a_y][sub]
            est = learners.get("nested", "outcome", Xrz[sub], target, seed)
            pe, pt = fit_predict(est, "outcome", Xrz[sub], target, [Xrz[ev], Xrz[tr]])
            mu2_ev[(a_y, a_b)], mu2_tr[(a_y, a_b)] = pe, pt
        # μ1 per triple, fit on training rows with X = a_r; then φ on the held-out fold
        tr_idx = np.flatnonzero(tr)
        for j, (name, (a_y, a_b, a_r)) in enumerate(PSI_TRIPLES.items()):
            subm = x1[tr] == bool(a_r)
            target = mu2_tr[(a_y, a_b)][subm]
            est = learners.get("nested", "outcome", Xz[tr_idx[subm]], target, seed)
            (m1,) = fit_predict(est, "outcome", Xz[tr_idx[subm]], target, [Xz[ev]])
            w = weights(x1[ev], (a_y, a_b, a_r), props["p(x1|Z)"], props["p(x1|R,Z)"],
                        props["p(x1|B,R,Z)"], normalize=normalize)
            phi[ev, j] = influence(y[ev], w, mu3_ev[a_y], mu2_ev[(a_y, a_b)], m1)
            for k, arr, rm in zip(("pi1", "pi2", "pi3"), (w.pi1, w.pi2, w.pi3), w.raw_means):
                raw_means[(name, k)].append(rm)
                all_w[(name, k)][ev] = arr
    prop = pd.DataFrame(prop_stats).T
    prop.index.name = "model"
    prop["clip"] = clip
    rows = []
    for (t, k), rm in raw_means.items():
        w = all_w[(t, k)]
        rows.append({"psi": t, "target": PSI_LABELS[t], "weight": k, "raw_mean": float(np.mean(rm)),
                     "raw_mean_min_fold": float(np.min(rm)), "raw_mean_max_fold": float(np.max(rm)),
                     "ess": effective_sample_size(w), "max_weight": float(w.max()),
                     "max_weight_share": float(w.max() / w.sum()) if w.sum() > 0 else float("nan"),
                     "pareto_k": pareto_k(w)})
    return CrossfitResult(phi=phi, propensity=prop, weights=pd.DataFrame(rows), fold=fold)


# --------------------------------------------------------------------------- the estimator
#: The columns' roles, given as a mapping (``roles``) or as keywords.
ROLES: tuple[str, ...] = ("x", "x0", "x1", "z", "b", "r", "y")


def split_options(roles: Mapping[str, Any] | None, options: Mapping[str, Any],
                  also: tuple[str, ...] = ()) -> tuple[dict, dict]:
    """(roles, spec overrides) from a ``roles`` mapping and keywords that mix roles and options.

    A role given twice, or a keyword that is neither a role, an option of
    :class:`~popresume.causal.spec.EstimatorSpec` nor in ``also``, is a ``TypeError`` naming it.
    """
    unknown_options({k: v for k, v in options.items() if k not in ROLES}, also=(*ROLES, *also))
    given = dict(roles or {})
    for k in given:
        if k not in ROLES:
            raise TypeError(f"unknown role {k!r} in roles; the roles are: {', '.join(ROLES)}")
    for k in ROLES:
        if k in options:
            if k in given:
                raise TypeError(f"role {k!r} is given twice: in roles and as a keyword")
            given[k] = options[k]
    return given, {k: v for k, v in options.items() if k not in ROLES}


class PSEEstimator:
    """DoubleML-style estimator of TE, NDE, NIE, BIE, RIE (PopResume §3, docs/DESIGN.md §3).

    Describe the data once (``data`` is a DataFrame with the roles given here, or a
    ``PSEData`` built beforehand) and the estimation once (an :class:`EstimatorSpec`),
    pass learners (``Learners``, a dict, or None for tuned XGBoost); ``fit()`` cross-fits
    the nuisances and computes the per-unit influence values, ``bootstrap()`` is a
    separate, explicit step, and ``result_`` (a ``PSEResult``) or ``summary`` give the tidy
    effects table, the means, intervals and tests. The spec's options read as attributes
    (``est.folds``, ``est.seed``, ...; ``est.spec.bootstrap``, as ``bootstrap`` is the
    method). ``fit`` warns (``PSEWarning``) at the estimable rule's thresholds
    (:mod:`popresume.causal.identification`), so a warning and a verdict agree.

    Parameters
    ----------
    data : DataFrame or PSEData
        One row per résumé.
    roles : mapping, optional
        The columns' roles: ``x`` (the protected attribute), ``x0`` / ``x1`` (its reference and
        comparison levels), ``z`` / ``b`` / ``r`` (lists of confounders, business-necessity and
        redlining mediators) and ``y`` (the score, default "score"), as
        :func:`popresume.causal.default_roles` returns them. Not needed with a ``PSEData``.
    spec : EstimatorSpec or mapping, optional
        The estimator's options (default: ``EstimatorSpec()``).
    learners : None, "xgboost", dict or Learners
        None/"xgboost": XGBoost tuned on the Appendix C.5 grid; or {"propensity": clf,
        "outcome": reg} with any scikit-learn style estimators.
    grid : dict, optional
        The tuning grid (default: Appendix C.5's).
    population : str, optional
        The estimand's population when the rows were trimmed (set by ``estimate_pse(trim=...)``).
    **options
        The roles as keywords (``x=``, ``x0=``, ...) and, kept for one release, any option of
        :class:`EstimatorSpec` as a keyword that overrides ``spec`` (``folds=3``). Another
        name is a ``TypeError`` that lists the valid ones.

    Examples
    --------
    >>> from popresume.causal import EstimatorSpec, PSEEstimator, make_scm
    >>> from popresume.causal.nuisance import CellMeans
    >>> data = make_scm("proxy_reveals", seed=0).sample(1000, seed=2)  # R nearly reveals X
    >>> roles = dict(x="x", x0="x0", x1="x1", z=["z"], b=["b"], r=["r"], y="y")
    >>> est = PSEEstimator(data, roles, EstimatorSpec(seed=0),
    ...                    learners={"propensity": CellMeans(), "outcome": CellMeans()})
    >>> import warnings
    >>> with warnings.catch_warnings():  # fit() warns: weak overlap
    ...     warnings.simplefilter("ignore")
    ...     table = est.fit().bootstrap(n_boot=200).summary
    >>> table[["estimate", "ci_low", "ci_high", "estimable"]].round(2)
            estimate  ci_low  ci_high  estimable
    effect
    TE         -0.82   -1.04    -0.59       True
    NDE        -0.26     NaN      NaN      False
    NIE        -0.56     NaN      NaN      False
    BIE        -0.13     NaN      NaN      False
    RIE        -0.44     NaN      NaN      False
    >>> print(table.loc["NDE", "reason"])  # doctest: +ELLIPSIS
    the mediators nearly reveal the attribute: 25% of the propensities p(x1|B,R,Z) are clipped (...), so the direct ...
    """

    #: ``fit`` warns when more than this share of some propensity is clipped (the rule's own number).
    clip_warn: float = MAX_CLIPPED_SHARE
    #: ... or a weight's effective sample size under this (the rule's floor) ...
    min_ess: float = MIN_ESS
    #: ... or when the smaller X group has fewer rows than this. A weight is zero outside one group, so
    #: its ESS cannot exceed that group's size, and a group under the ESS floor cannot meet it.
    min_group: int = int(MIN_ESS)

    def __init__(self, data: pd.DataFrame | PSEData, roles: Mapping[str, Any] | None = None,
                 spec: EstimatorSpec | Mapping[str, Any] | None = None, *, learners=None, grid: dict | None = None,
                 population: str | None = None, **options):
        roles, overrides = split_options(roles, options)
        self.spec = make_spec(spec, **overrides)
        self.data, self.learners, self.grid, self.population = data, learners, grid, population
        if isinstance(data, PSEData):
            self.data_ = data
        else:
            if roles.get("x") is None:
                raise ValueError("name the protected attribute column: x=... (or roles={'x': ...})")
            self.data_ = PSEData(data, x=roles["x"], x0=roles.get("x0"), x1=roles.get("x1"), z=roles.get("z"),
                                 b=roles.get("b"), r=roles.get("r"), y=roles.get("y", "score"),
                                 missing=self.spec.missing)
        self.x, self.x0, self.x1, self.y = (self.data_.roles[k] for k in ("x", "x0", "x1", "y"))
        self.z, self.b, self.r = self.data_.z, self.data_.b, self.data_.r
        # the specification only: each fit() works on a fresh copy (no tuned values leak)
        self._spec = Learners.from_arg(learners, tune=self.spec.tune, grid=grid, tune_rows=self.spec.tune_rows,
                                       threads=self.spec.threads)
        self._learners = self._spec.spawn()
        self.df_ = self.data_.df
        self.n_ = self.data_.n
        self.result_ = None

    def __repr__(self) -> str:
        fitted = "fitted" if self.result_ is not None else "not fitted"
        return f"PSEEstimator(x={self.x!r}, x0={self.x0!r}, x1={self.x1!r}, n={self.n_}, {self.spec}, {fitted})"

    # -- fitting
    def _crossfit(self, fold: np.ndarray, idx: np.ndarray | None = None) -> CrossfitResult:
        Xz, Xrz, Xbrz, x1, y = self.data_.arrays(idx)
        return crossfit_phi(Xz, Xrz, Xbrz, x1, y, fold, self._learners, clip=self.clip,
                            normalize=self.normalize, nested_crossfit=self.nested_crossfit, seed=self.seed)

    def fit(self) -> "PSEEstimator":
        """Cross-fit the nuisances (``n_rep`` fold splits) and compute φ (n × 5 per split)."""
        rng = np.random.default_rng(self.seed)
        d = self.data_
        self._learners = self._spec.spawn()
        if np.ptp(d.yv) == 0:
            warnings.warn(f"score column {self.y!r} is constant ({d.yv[0]!r}) on all {d.n} rows: every effect is 0 "
                          f"and its CI degenerate", PSEWarning, stacklevel=2)
        runs = []
        for _ in range(int(self.n_rep)):
            fold = assign_folds(d.x1v, int(self.folds), rng)
            runs.append(self._crossfit(fold))
        self._folds = [r.fold for r in runs]
        first = runs[0]
        phi_reps = np.stack([r.phi for r in runs])
        if not np.isfinite(phi_reps).all():
            raise ValueError("non-finite influence values: check the diagnostics (propensity_, weights_)")
        psi = aggregate_reps(phi_reps.mean(axis=1), self.aggregate)
        raised = self._reliability_warnings(runs)
        self.result_ = PSEResult(psi, phi_reps, aggregate=self.aggregate, level=self.level,
                                 diagnostics=self._diagnostics(runs, raised), fold=first.fold,
                                 identification=self.identification, estimable_rule=self.estimable_rule,
                                 population=self.population,
                                 min_ess_mediated=mediated_ess_floor(self._learners.outcome))
        if self.spec.variance in ("jackknife", "average") and self.spec.bootstrap != "refit":
            self.result_.jack_psi = self.jackknife_draws(int(self.jackknife_groups), seed=self.seed + 2)
            self.result_.jack_average = self.spec.variance == "average"
        return self

    # -- the fitted state, read from ``result_`` (the one place it is kept)
    def _result(self) -> PSEResult:
        if self.result_ is None:
            raise AttributeError("the estimator is not fitted: call fit() first")
        return self.result_

    @property
    def fold_(self) -> np.ndarray:
        """Fold of each row in the first cross-fitting split."""
        return self._result().fold

    @property
    def phi_(self) -> np.ndarray:
        """(n, 5) influence values of the five means, averaged over repetitions (``result_.phi``)."""
        return self._result().phi

    @property
    def propensity_(self) -> pd.DataFrame:
        return self._result().diagnostics["propensity"]

    @property
    def weights_(self) -> pd.DataFrame:
        return self._result().diagnostics["weights"]

    @property
    def n_clipped_(self) -> int:
        return self._result().diagnostics["n_clipped"]

    @property
    def psi_(self) -> pd.Series:
        return pd.Series(self._result().psi_estimate, index=list(PSI_NAMES), name="estimate")

    @property
    def effects_(self) -> pd.Series:
        return self._result().effects

    @property
    def boot_psi_(self) -> np.ndarray | None:
        return None if self.result_ is None else self.result_.boot_psi

    @property
    def boot_(self) -> np.ndarray | None:
        return None if self.result_ is None else self.result_.boot

    @property
    def boot_kind_(self) -> str | None:
        return None if self.result_ is None else self.result_.boot_kind

    def _reliability_warnings(self, runs: list[CrossfitResult]) -> list[str]:
        """Warn (and return the messages) when overlap or group size makes the intervals unreliable."""
        d, res = self.data_, runs[0]
        msgs = []
        frac = res.propensity["n_clipped"] / d.n
        ess = res.weights.loc[res.weights["ess"].idxmin()]
        if (frac > self.clip_warn).any():
            worst = frac.idxmax()
            msgs.append(
                f"weak overlap: {int(res.propensity.loc[worst, 'n_clipped'])} of {d.n} propensities of {worst} "
                f"were clipped to [{self.clip}, {1 - self.clip}] (range before clipping "
                f"{res.propensity.loc[worst, 'min']:.2g}..{res.propensity.loc[worst, 'max']:.2g}); "
                f"min effective sample size {ess['ess']:.0f} (the result's propensity and weights tables show where).")
        small = min(d.n_x0, d.n_x1)
        if small < self.min_group or ess["ess"] < self.min_ess:
            grp = d.x0 if d.n_x0 <= d.n_x1 else d.x1
            msgs.append(
                f"unreliable intervals: the group {d.x}={grp!r} has {small} of {d.n} rows and the smallest effective "
                f"sample size of a weight is {ess['ess']:.0f} ({ess['weight']} of {ess['target']}); the intervals "
                f"rest on a normal or bootstrap approximation that needs more rows (at least {self.min_group} "
                f"per group and an ESS of {self.min_ess:.0f}) and may be too narrow.")
        for m in msgs:
            warnings.warn(m, PSEWarning, stacklevel=3)
        return msgs

    def _diagnostics(self, runs: list[CrossfitResult], raised: list[str]) -> dict:
        first = runs[0]
        return {"propensity": first.propensity, "weights": first.weights, "params": self._learners.params_table(),
                "n": self.n_, "n_clipped": int(first.propensity["n_clipped"].sum()),
                "n_clipped_per_rep": [int(r.propensity["n_clipped"].sum()) for r in runs],
                "n_rep": len(runs), "aggregate": self.aggregate, "warnings": list(raised)}

    # -- uncertainty
    def bootstrap(self, n_boot: int = 500, *, method: str = "influence", seed: int | None = None,
                  progress: bool = False) -> "PSEEstimator":
        """Bootstrap CIs: ``method="influence"`` (rows of φ resampled) or ``"refit"`` (full re-runs).

        With ``n_rep`` > 1 the influence bootstrap resamples the rows once per draw and
        combines the repetitions' resampled means with the same ``aggregate`` as the point
        estimate. The refit bootstrap re-runs one cross-fitting split per draw (the authors'
        estimator), with the hyperparameters chosen on the original sample.

        With ``variance="jackknife"`` (or ``"average"``) the intervals and p-values after an
        influence bootstrap stay the jackknife's (or the averaged SE's; ``PSEResult.jack_psi``):
        the draws are kept and give ``boot_se`` and the joint band's correlation, but their
        percentiles would bring back the influence variance the jackknife replaces. A refit
        bootstrap replaces the jackknife instead: its draws re-run the nuisances too, so its
        percentiles are the intervals (``jack_psi`` is dropped, and ``EstimatorSpec(
        bootstrap="refit")`` does not compute it).
        """
        self._check_fitted()
        seed = self.seed + 1 if seed is None else seed
        if method == "influence":
            draws = influence_bootstrap(self.result_.phi_reps, n_boot, seed=seed)  # (n_boot, n_rep, 5)
            boot_psi = aggregate_reps(draws, self.aggregate, axis=1)
        elif method == "refit":
            boot_psi = self.refit_draws(n_boot, seed=seed, progress=progress)
            self.result_.jack_psi, self.result_.jack_average = None, False
        else:
            raise ValueError(f"bootstrap method must be 'influence' or 'refit', got {method!r}")
        self.result_.boot_psi = boot_psi
        self.result_.boot_kind = method
        return self

    def refit_draws(self, n_boot: int = 50, *, seed: int = 0, progress: bool = False) -> np.ndarray:
        """(n_boot, 5) replicates of ψ, each from a full re-run of the cross-fitting on a resample.

        Folds are assigned to ORIGINAL row ids and every duplicate inherits its original's
        fold, so a row's copies never sit in both a training and an evaluation fold (which
        would make the held-out predictions in-sample and the intervals too narrow).
        Hyperparameters stay those chosen on the original sample. The mean of the draws is
        the authors' bagged point estimate (PopResume Appendix C).
        """
        self._check_fitted()
        if n_boot < 1:
            raise ValueError(f"n_boot must be positive, got {n_boot}")
        d = self.data_
        folds = int(self.folds)
        rng = np.random.default_rng(seed)
        out = np.empty((n_boot, len(PSI_NAMES)))
        redrawn = 0
        for b in progress_bar(range(n_boot), disable=not progress, desc="refit bootstrap"):
            for _ in range(20):
                idx = rng.integers(0, d.n, d.n)
                fold = assign_folds(d.x1v, folds, rng)[idx]  # duplicates share their original's fold
                xb = d.x1v[idx]
                # a resample can leave a fold without one group (rare unless a group is tiny):
                # redraw it rather than fail, and count how often that happened
                if all(xb[fold == f].any() and (~xb[fold == f]).any() for f in range(folds)):
                    break
                redrawn += 1
            else:
                raise ValueError("refit bootstrap: 20 resamples in a row left a fold without one group; "
                                 "the smaller group is too small for the refit bootstrap with these folds")
            out[b] = self._crossfit(fold, idx).phi.mean(axis=0)
        self.result_.diagnostics["refit_redrawn"] = redrawn
        return out

    def jackknife_draws(self, groups: int = DEFAULTS.jackknife_groups, *, seed: int = 0) -> np.ndarray:
        """(groups, 5) leave-one-group-out estimates of ψ, each from a full re-run of the cross-fitting.

        The rows are split into ``groups`` random groups, stratified on X like the folds
        (:func:`assign_folds`); fewer when the smaller group of X has fewer rows than
        ``groups`` (then one group per row of it; ``PSEResult.ci_method`` names the count).
        Draw g re-runs every cross-fitting split of :meth:`fit` on the rows outside group g:
        each remaining row keeps its fold, and the learners keep the hyperparameters tuned
        on the whole sample (no re-tuning), so a draw differs from the fit only by the rows
        it lacks, and no row appears twice (unlike a bootstrap
        resample, whose duplicated rows make each nuisance fit noisier than the original's).
        ``PSEResult`` turns the draws into the delete-a-group jackknife variance
        (G − 1)/G · Σ_g (θ_(g) − θ̄)², which carries the nuisances' finite-sample noise
        that the influence-function variance leaves out (:attr:`PSEResult.se`).

        References
        ----------
        Efron, B. and Stein, C. (1981). The jackknife estimate of variance. *Annals of
        Statistics* 9(3), 586-596 (the jackknife variance is biased upward).
        Shao, J. and Tu, D. (1995). *The Jackknife and Bootstrap*, §2.3 (the delete-d and
        grouped jackknife). Springer.
        """
        self._check_fitted()
        d = self.data_
        folds = getattr(self, "_folds", None) or [self.result_.fold]
        # every group must hold rows of both X groups: a smaller X group than ``groups`` caps G
        groups = min(int(groups), int(np.count_nonzero(d.x1v)), int(np.count_nonzero(~np.asarray(d.x1v, bool))))
        group = assign_folds(d.x1v, groups, np.random.default_rng(seed))

        def draw(g: int) -> np.ndarray:
            keep = np.flatnonzero(group != g)
            reps = np.stack([self._crossfit(f[keep], keep).phi.mean(axis=0) for f in folds])
            return aggregate_reps(reps, self.aggregate)

        if int(self.jackknife_jobs) > 1:
            # threads: every fit clones its learner and the tuning is done, so the draws share nothing
            # mutable; XGBoost releases the GIL, and no process has to start or receive the data
            out = Parallel(n_jobs=int(self.jackknife_jobs), prefer="threads")(
                delayed(draw)(g) for g in range(int(groups)))
        else:
            out = [draw(g) for g in range(int(groups))]
        return np.stack(out)

    def _check_fitted(self):
        if self.result_ is None:
            raise ValueError("call fit() first")

    # -- results
    @property
    def summary(self) -> pd.DataFrame:
        """Tidy table indexed TE, NDE, NIE, BIE, RIE (``result_.summary``).

        Columns: estimate (original sample), se (influence-function SE, the jackknife's with
        ``variance="jackknife"``, the root of the two variances' mean with ``"average"``),
        ci_low/ci_high (bootstrap percentile at ``level``; normal ±z·se when no bootstrap has
        been run or with ``"average"``; ±t·se with the jackknife),
        boot_se, significant (CI excludes 0), ci_method, n.
        """
        self._check_fitted()
        return self.result_.summary

    def psi_table(self) -> pd.DataFrame:
        """The five counterfactual means (target, estimate, se, ci_low, ci_high)."""
        self._check_fitted()
        return self.result_.psi

    @property
    def diagnostics(self) -> dict:
        """Propensity ranges and clipping, weight raw means and ESS, chosen hyperparameters, warnings."""
        self._check_fitted()
        return self.result_.diagnostics


def _spec_attribute(name: str) -> property:
    return property(lambda self: getattr(self.spec, name), doc=f"The spec's ``{name}`` (read-only).")


# the spec's options read as attributes (est.folds, est.seed, ...), one per field, new fields included;
# a name the class already has (the method ``bootstrap``) stays the class's: ``est.spec.bootstrap``
for _name in EstimatorSpec.names():
    if not hasattr(PSEEstimator, _name):
        setattr(PSEEstimator, _name, _spec_attribute(_name))
