"""L-fold cross-fitting of ψ(a_y, a_b, a_r) for the five triples at once, and the estimator class.

Lemma 1 (DML-UCA, Jung et al. 2024) with DESIGN §3's general weights: for each fold ℓ
every nuisance is fit on the other folds only and φ is evaluated on fold ℓ. The nested
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
μ1(z) = E[μ2(R,z) | X=a_r, z] of DESIGN §3.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from popresume.schema import PSE_NAMES

from .functional import (PSI_LABELS, PSI_NAMES, PSI_TRIPLES, effective_sample_size,
                         effects_from_psi, influence, weights)
from .nuisance import Encoder, Learners, fit_predict


class PSEWarning(UserWarning):
    """Estimation went through but a diagnostic (clipping, overlap, constant score) is poor."""


# --------------------------------------------------------------------------- validation
def _as_list(v) -> list[str]:
    if v is None:
        return []
    if isinstance(v, str):
        return [v]
    return list(v)


def validate(data: pd.DataFrame, *, x: str, x0, x1, z, b, r, y: str,
             missing: str = "raise") -> pd.DataFrame:
    """Check roles and values; return the rows to use (a copy with a fresh RangeIndex).

    Raises ``ValueError`` naming the column, value and row for: unknown columns, a column
    in two roles, X levels other than x0/x1, missing values (unless ``missing="drop"``,
    which warns with the count), a non-numeric score, a single column that perfectly
    separates X (positivity fails: no weighting can recover the other group).
    """
    if not isinstance(data, pd.DataFrame):
        raise ValueError(f"data must be a pandas DataFrame, got {type(data).__name__}")
    z, b, r = _as_list(z), _as_list(b), _as_list(r)
    roles = {"x": [x], "y": [y], "z": z, "b": b, "r": r}
    seen: dict[str, str] = {}
    for role, cols in roles.items():
        for c in cols:
            if c not in data.columns:
                raise ValueError(f"column {c!r} (role {role}) is not in the data; columns: {list(data.columns)}")
            if c in seen:
                raise ValueError(f"column {c!r} is given two roles ({seen[c]} and {role})")
            seen[c] = role
    if x0 == x1:
        raise ValueError(f"x0 and x1 are the same level {x0!r}")
    cols = [x, y, *z, *b, *r]
    df = data[cols]
    na = df.isna()
    if na.to_numpy().any():
        counts = na.sum()
        counts = counts[counts > 0]
        first_col = counts.index[0]
        first_row = data.index[na[first_col].to_numpy().argmax()]
        msg = (f"missing values in { {k: int(v) for k, v in counts.items()} } "
               f"(first: column {first_col!r}, row {first_row!r})")
        if missing == "drop":
            keep = ~na.any(axis=1)
            warnings.warn(f"dropping {int((~keep).sum())} of {len(df)} rows with {msg}", PSEWarning, stacklevel=3)
            df = df[keep]
        else:
            raise ValueError(msg + "; pass missing='drop' to drop those rows")
    levels = pd.unique(df[x])
    other = [v for v in levels if v not in (x0, x1)]
    if other:
        i = int(np.flatnonzero(~df[x].isin([x0, x1]).to_numpy())[0])
        raise ValueError(
            f"protected attribute {x!r} has level(s) {other} besides x0={x0!r} and x1={x1!r} "
            f"(first at row {df.index[i]!r}); filter the rows or recode to a binary contrast")
    for lv in (x0, x1):
        if not (df[x] == lv).any():
            raise ValueError(f"protected attribute {x!r} has no row with level {lv!r}")
    if not pd.api.types.is_numeric_dtype(df[y]) or pd.api.types.is_bool_dtype(df[y]):
        raise ValueError(f"score column {y!r} must be numeric, got dtype {df[y].dtype}")
    if not np.isfinite(df[y].to_numpy(dtype=float)).all():
        raise ValueError(f"score column {y!r} has infinite values")
    xi = (df[x] == x1).to_numpy()
    for c in [*z, *b, *r]:
        # one column whose every level contains a single X group: P(X | that column) ∈ {0, 1}.
        # Only checked on discrete columns (few levels); joint separation by several columns
        # shows up as clipped propensities instead (a PSEWarning from fit()).
        if df[c].nunique() > min(50, max(2, len(df) // 5)):
            continue
        g = pd.crosstab(df[c], xi)
        if g.shape[1] == 2 and ((g > 0).sum(axis=1) == 1).all() and len(g) > 1:
            raise ValueError(
                f"column {c!r} perfectly separates {x!r}: each of its levels holds only {x0!r} or only {x1!r} rows, "
                f"so P(X | {c}) is 0 or 1 and the path-specific effects are not identified (positivity fails). "
                f"Drop or coarsen {c!r}.")
    return df.reset_index(drop=True)


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
                 fold: np.ndarray, learners: Learners, *, clip: float = 0.01, normalize: bool = True,
                 nested_crossfit: bool = True, seed: int = 0) -> CrossfitResult:
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
                     "ess": effective_sample_size(w), "max_weight": float(w.max())})
    return CrossfitResult(phi=phi, propensity=prop, weights=pd.DataFrame(rows), fold=fold)


# --------------------------------------------------------------------------- the estimator
@dataclass(eq=False)
class PSEEstimator:
    """DoubleML-style estimator of TE, NDE, NIE, BIE, RIE (PopResume §3, DESIGN §3).

    Describe the data once (which columns are X, Z, B, R, Y), ``fit()`` cross-fits the
    nuisances and computes the per-unit influence values, ``bootstrap()`` is a separate,
    explicit step, and ``summary()`` returns the tidy effects table.

    >>> est = PSEEstimator(data, x="gender", x0="F", x1="M", z=["race", "age"],
    ...                    b=["edu_group", "exp_year"], r=["fn_gender", "region"], y="score")
    >>> est.fit().bootstrap(n_boot=500).summary()   # doctest: +SKIP
    """

    data: pd.DataFrame = field(repr=False)
    x: str
    x0: object
    x1: object
    z: list = field(default_factory=list)
    b: list = field(default_factory=list)
    r: list = field(default_factory=list)
    y: str = "score"
    folds: int = 5
    seed: int = 0
    learners: object = None
    clip: float = 0.01
    normalize: bool = True
    nested_crossfit: bool = True
    tune: bool = True
    tune_rows: int = 2000
    grid: dict | None = None
    missing: str = "raise"
    level: float = 0.95
    clip_warn: float = 0.05

    def __post_init__(self):
        self.z, self.b, self.r = _as_list(self.z), _as_list(self.b), _as_list(self.r)
        if not 0 < self.clip < 0.5:
            raise ValueError(f"clip must be in (0, 0.5), got {self.clip}")
        if int(self.folds) < 2:
            raise ValueError(f"folds must be at least 2, got {self.folds}")
        self.df_ = validate(self.data, x=self.x, x0=self.x0, x1=self.x1, z=self.z, b=self.b, r=self.r,
                            y=self.y, missing=self.missing)
        cols = [*self.z, *self.b, *self.r]
        self._enc = {"z": Encoder.fit(self.df_, self.z), "rz": Encoder.fit(self.df_, [*self.r, *self.z]),
                     "brz": Encoder.fit(self.df_, [*self.b, *self.r, *self.z])}
        self._learners = Learners.from_arg(self.learners, tune=self.tune, grid=self.grid,
                                           tune_rows=self.tune_rows)
        self.n_ = len(self.df_)
        self._cols = cols
        self.boot_ = None
        self.boot_kind_ = None

    # -- matrices
    def _matrices(self, df: pd.DataFrame):
        return (self._enc["z"].transform(df), self._enc["rz"].transform(df), self._enc["brz"].transform(df),
                (df[self.x] == self.x1).to_numpy(), df[self.y].to_numpy(dtype=float))

    def _run(self, df: pd.DataFrame, fold: np.ndarray) -> CrossfitResult:
        Xz, Xrz, Xbrz, x1, y = self._matrices(df)
        return crossfit_phi(Xz, Xrz, Xbrz, x1, y, fold, self._learners, clip=self.clip,
                            normalize=self.normalize, nested_crossfit=self.nested_crossfit, seed=self.seed)

    def fit(self) -> "PSEEstimator":
        """Cross-fit the nuisances on the original sample and compute φ (n × 5)."""
        rng = np.random.default_rng(self.seed)
        x1 = (self.df_[self.x] == self.x1).to_numpy()
        yv = self.df_[self.y].to_numpy(dtype=float)
        if np.ptp(yv) == 0:
            warnings.warn(f"score column {self.y!r} is constant ({yv[0]!r}) on all {len(yv)} rows: every effect is 0 "
                          f"and its CI degenerate", PSEWarning, stacklevel=2)
        self.fold_ = assign_folds(x1, int(self.folds), rng)
        res = self._run(self.df_, self.fold_)
        self.phi_ = res.phi
        self.propensity_ = res.propensity
        self.weights_ = res.weights
        self.psi_ = pd.Series(self.phi_.mean(axis=0), index=list(PSI_NAMES), name="estimate")
        self.effects_ = pd.Series(effects_from_psi(self.psi_.to_numpy()), index=list(PSE_NAMES), name="estimate")
        if not np.isfinite(self.phi_).all():
            raise ValueError("non-finite influence values: check the diagnostics (propensity_, weights_)")
        n_clip = int(res.propensity["n_clipped"].sum())
        frac = res.propensity["n_clipped"] / self.n_
        if (frac > self.clip_warn).any():
            worst = frac.idxmax()
            warnings.warn(
                f"weak overlap: {int(res.propensity.loc[worst, 'n_clipped'])} of {self.n_} propensities of {worst} "
                f"were clipped to [{self.clip}, {1 - self.clip}] (range before clipping "
                f"{res.propensity.loc[worst, 'min']:.2g}..{res.propensity.loc[worst, 'max']:.2g}); "
                f"min effective sample size {self.weights_['ess'].min():.0f}. See .propensity_ and .weights_.",
                PSEWarning, stacklevel=2)
        self.n_clipped_ = n_clip
        self.boot_ = None
        return self

    # -- uncertainty
    def bootstrap(self, n_boot: int = 500, *, method: str = "influence", seed: int | None = None,
                  progress: bool = False) -> "PSEEstimator":
        """Bootstrap CIs: ``method="influence"`` (rows of φ resampled) or ``"refit"`` (full re-run)."""
        from .bootstrap import influence_bootstrap, refit_bootstrap
        self._check_fitted()
        seed = self.seed + 1 if seed is None else seed
        if method == "influence":
            self.boot_psi_ = influence_bootstrap(self.phi_, n_boot, seed=seed)
        elif method == "refit":
            self.boot_psi_ = refit_bootstrap(self, n_boot, seed=seed, progress=progress)
        else:
            raise ValueError(f"bootstrap method must be 'influence' or 'refit', got {method!r}")
        self.boot_ = effects_from_psi(self.boot_psi_)
        self.boot_kind_ = method
        return self

    def _check_fitted(self):
        if not hasattr(self, "phi_"):
            raise ValueError("call fit() first")

    def summary(self) -> pd.DataFrame:
        """Tidy table indexed TE, NDE, NIE, BIE, RIE.

        Columns: estimate (original sample), se (influence-function SE, sd(φ_effect)/√n),
        ci_low/ci_high (bootstrap percentile at ``level``; normal ±z·se when no bootstrap
        has been run), boot_se, significant (CI excludes 0), ci_method, n.
        ``attrs['psi']`` holds the five counterfactual means with their SEs and CIs.
        """
        self._check_fitted()
        from scipy.stats import norm
        eff_phi = effects_from_psi(self.phi_)
        se = eff_phi.std(axis=0, ddof=1) / np.sqrt(self.n_)
        psi_se = self.phi_.std(axis=0, ddof=1) / np.sqrt(self.n_)
        alpha = 1 - self.level
        est = self.effects_.to_numpy()
        if self.boot_ is not None:
            lo, hi = np.quantile(self.boot_, [alpha / 2, 1 - alpha / 2], axis=0)
            plo, phi_ = np.quantile(self.boot_psi_, [alpha / 2, 1 - alpha / 2], axis=0)
            bse, method = self.boot_.std(axis=0, ddof=1), f"{self.boot_kind_} bootstrap ({len(self.boot_)} draws)"
        else:
            q = norm.ppf(1 - alpha / 2)
            lo, hi = est - q * se, est + q * se
            psi = self.psi_.to_numpy()
            plo, phi_ = psi - q * psi_se, psi + q * psi_se
            bse, method = np.full(5, np.nan), "normal (influence function)"
        out = pd.DataFrame({"estimate": est, "se": se, "ci_low": lo, "ci_high": hi, "boot_se": bse},
                           index=pd.Index(list(PSE_NAMES), name="effect"))
        out["significant"] = (out["ci_low"] > 0) | (out["ci_high"] < 0)
        out["ci_method"] = method
        out["n"] = self.n_
        psi_tab = pd.DataFrame({"target": [PSI_LABELS[t] for t in PSI_NAMES], "estimate": self.psi_.to_numpy(),
                                "se": psi_se, "ci_low": plo, "ci_high": phi_}, index=list(PSI_NAMES))
        # attrs hold plain JSON-able values only (pandas compares attrs in concat and
        # writes them into Parquet metadata; a DataFrame there would break both)
        out.attrs["psi"] = _plain(psi_tab.to_dict(orient="index"))
        out.attrs["n_clipped"] = int(self.n_clipped_)
        return out

    def psi_table(self) -> pd.DataFrame:
        """The five counterfactual means (estimate, se, ci_low, ci_high) as a DataFrame."""
        return psi_frame(self.summary())

    def diagnostics(self) -> dict:
        """Propensity ranges and clipping, weight raw means and ESS, chosen hyperparameters."""
        self._check_fitted()
        return {"propensity": self.propensity_, "weights": self.weights_,
                "params": self._learners.params_table(), "n": self.n_, "n_clipped": self.n_clipped_}


def _plain(obj):
    """Nested dicts/lists of Python floats/ints/str (numpy scalars converted)."""
    import json
    return json.loads(json.dumps(obj, default=lambda v: v.item() if hasattr(v, "item") else str(v)))


def psi_frame(table: pd.DataFrame) -> pd.DataFrame:
    """The counterfactual means stored in an effects table's ``attrs["psi"]``, as a DataFrame."""
    if "psi" not in table.attrs:
        raise ValueError("this table carries no counterfactual means (attrs['psi']); was it made by estimate_pse?")
    return pd.DataFrame.from_dict(table.attrs["psi"], orient="index")


def diagnostics_plain(d: dict) -> dict:
    """``PSEEstimator.diagnostics()`` with every table as a list of records (JSON-able)."""
    out = {}
    for k, v in d.items():
        out[k] = _plain(v.reset_index().to_dict(orient="records")) if isinstance(v, pd.DataFrame) else _plain(v)
    return out
