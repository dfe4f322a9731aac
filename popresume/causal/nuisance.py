"""Nuisance learners: design matrices, XGBoost defaults, the Appendix C.5 grid chosen by CV.

The estimator needs three propensities P(X = x1 | Z), P(X = x1 | R,Z), P(X = x1 | B,R,Z)
and three nested regressions μ3, μ2, μ1 (docs/DESIGN.md §3). Any scikit-learn style estimator
(``fit``/``predict_proba`` for propensities, ``fit``/``predict`` for regressions) can be
plugged in; the default is XGBoost with the ``hist`` tree method and one thread per fit (``Learners(threads=...)``).

Hyperparameters (Appendix C.5): n_estimators ∈ {5, 10, 20, 50, 100}, max_depth ∈ {1..5},
reg_lambda ∈ {0.5, 1, 2, 5}, selected by the Brier score for propensities and the MSE for
regressions. To keep a full effects table under a minute on two cores we choose them
*once per nuisance kind* by 3-fold CV on a subsample (``tune_rows``, default 2000 rows)
of the first cross-fitting fold's training data and reuse them in every fold and every
refit bootstrap draw. The kinds are: "propensity" (tuned on P(X | B,R,Z), the richest of
the three, and shared by P(X | R,Z) and P(X | Z)), "mu3" (the outcome regression), and
"nested" (tuned on the first μ2 regression, shared by all μ2 and μ1 fits). We score the
whole n_estimators axis from a single 100-tree fit per (max_depth, reg_lambda) through
``iteration_range`` (boosting is sequential, so the first k trees of a 100-tree model *are*
the k-tree model): 20 fits per CV fold instead of 100.
"""

from __future__ import annotations

import itertools
import warnings
from dataclasses import dataclass, field, replace
from types import MappingProxyType

import numpy as np
import pandas as pd
from sklearn.base import clone
from xgboost import XGBClassifier, XGBRegressor

PAPER_GRID: dict[str, list] = {
    "n_estimators": [5, 10, 20, 50, 100],
    "max_depth": [1, 2, 3, 4, 5],
    "reg_lambda": [0.5, 1, 2, 5],
}
# Used when tuning is switched off: a middle point of the grid.
DEFAULT_PARAMS: dict = {"n_estimators": 50, "max_depth": 3, "reg_lambda": 1.0}
# One thread per fit by default: the nuisance fits are small (≤ 15k rows, ≤ 100 shallow
# trees), where OpenMP start-up and, on a shared machine, spin-waiting under load cost more
# than a second thread saves (measured: 2 threads were 3-30× *slower* on the loaded 2-core
# box); and the audit grid parallelises over configurations with joblib (docs/DESIGN.md §6), which a
# nested thread pool would oversubscribe. The thread count is a property of each
# ``Learners`` object (``threads=``), never of this module: ``XGB_FIXED`` is read-only.
# ``max_bin=64`` loses nothing on our one-hot and small-integer columns.
XGB_FIXED = MappingProxyType({"tree_method": "hist", "max_bin": 64, "learning_rate": 0.3, "verbosity": 0})
DEFAULT_THREADS = 1


# --------------------------------------------------------------------------- encoding
def _is_categorical(s: pd.Series) -> bool:
    return not (pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s))


@dataclass
class Encoder:
    """One-hot for categorical columns (levels fixed on the full table), float for numeric.

    Levels come from the covariates only, never from the outcome, so fixing them on the
    whole table leaks nothing between folds and keeps every fold's matrix the same width.
    """

    columns: list[str]
    levels: dict[str, list] = field(default_factory=dict)

    @classmethod
    def fit(cls, df: pd.DataFrame, columns: list[str]) -> "Encoder":
        enc = cls(list(columns))
        for c in enc.columns:
            if _is_categorical(df[c]):
                enc.levels[c] = sorted(pd.unique(df[c].astype(str)))
        return enc

    def transform(self, df: pd.DataFrame) -> np.ndarray:
        blocks = []
        for c in self.columns:
            if c in self.levels:
                vals = df[c].astype(str).to_numpy()
                lv = self.levels[c]
                # drop the first level (it is implied); a single-level column adds nothing
                blocks.append(np.stack([(vals == v) for v in lv[1:]], axis=1).astype(np.float32)
                              if len(lv) > 1 else np.zeros((len(df), 0), np.float32))
            else:
                blocks.append(df[[c]].to_numpy(dtype=np.float32))
        if not blocks:
            return np.zeros((len(df), 0), np.float32)
        return np.concatenate(blocks, axis=1)


# --------------------------------------------------------------------------- learners
def xgb_classifier(*, threads: int = DEFAULT_THREADS, **params):
    return XGBClassifier(**{**XGB_FIXED, "n_jobs": int(threads), **DEFAULT_PARAMS, **params}, eval_metric="logloss")


def xgb_regressor(*, threads: int = DEFAULT_THREADS, **params):
    return XGBRegressor(**{**XGB_FIXED, "n_jobs": int(threads), **DEFAULT_PARAMS, **params})


class _Constant:
    """Stand-in when a design matrix has no columns (e.g. Z = []): the training mean."""

    def __init__(self, kind):
        self.kind = kind

    def fit(self, X, y, sample_weight=None):
        self.m_ = float(np.mean(y))
        return self

    def predict(self, X):
        return np.full(len(X), self.m_)

    def predict_proba(self, X):
        p = np.full(len(X), self.m_)
        return np.stack([1 - p, p], axis=1)


def fit_predict(learner, kind: str, X_train, y_train, X_pred_list):
    """Fit a clone of ``learner`` and predict on each matrix of ``X_pred_list``.

    kind = "propensity" returns P(class 1); kind = "outcome" returns E[y].
    """
    if X_train.shape[1] == 0:
        est = _Constant(kind).fit(X_train, y_train)
    else:
        est = clone(learner)
        if kind == "propensity" and len(np.unique(y_train)) < 2:
            raise ValueError("a propensity model's training rows contain only one level of X "
                             "(a group is absent from a cross-fitting training set)")
        est.fit(X_train, y_train)
    out = []
    for Xp in X_pred_list:
        if kind == "propensity":
            out.append(np.asarray(est.predict_proba(Xp))[:, 1].astype(float))
        else:
            out.append(np.asarray(est.predict(Xp)).astype(float))
    return out


# --------------------------------------------------------------------------- tuning
def tune_xgb(X: np.ndarray, y: np.ndarray, kind: str, *, grid: dict | None = None,
             cv: int = 3, max_rows: int = 2000, seed: int = 0, threads: int = DEFAULT_THREADS) -> dict:
    """Choose (n_estimators, max_depth, reg_lambda) by K-fold CV (Appendix C.5).

    Brier score for ``kind="propensity"``, MSE for ``kind="outcome"``. The data is first
    subsampled to ``max_rows`` rows. Returns the best parameter dict plus ``cv_score``.
    """
    grid = grid or PAPER_GRID
    rng = np.random.default_rng(seed)
    if X.shape[1] == 0:
        return dict(DEFAULT_PARAMS, cv_score=float("nan"))
    if len(y) > max_rows:
        idx = rng.choice(len(y), max_rows, replace=False)
        X, y = X[idx], y[idx]
    fold = rng.permutation(len(y)) % cv
    n_grid = sorted(grid["n_estimators"])
    n_max = max(n_grid)
    scores = {}
    for depth, lam in itertools.product(grid["max_depth"], grid["reg_lambda"]):
        err = np.zeros(len(n_grid))
        for k in range(cv):
            tr, te = fold != k, fold == k
            if kind == "propensity":
                if len(np.unique(y[tr])) < 2:
                    continue
                est = xgb_classifier(threads=threads, n_estimators=n_max, max_depth=depth, reg_lambda=lam)
            else:
                est = xgb_regressor(threads=threads, n_estimators=n_max, max_depth=depth, reg_lambda=lam)
            est.fit(X[tr], y[tr])
            for j, n in enumerate(n_grid):
                if kind == "propensity":
                    p = est.predict_proba(X[te], iteration_range=(0, n))[:, 1]
                else:
                    p = est.predict(X[te], iteration_range=(0, n))
                err[j] += float(((p - y[te]) ** 2).sum())
        for j, n in enumerate(n_grid):
            scores[(n, depth, lam)] = err[j] / len(y)
    (n, depth, lam), best = min(scores.items(), key=lambda kv: kv[1])
    return {"n_estimators": int(n), "max_depth": int(depth), "reg_lambda": float(lam),
            "cv_score": float(best)}


@dataclass
class Learners:
    """The learners of one estimator: what fits each nuisance, and how XGBoost is tuned.

    ``propensity`` / ``outcome``: any scikit-learn style estimator (cloned for each fit), or
    ``None`` for XGBoost tuned on ``grid`` (default: Appendix C.5) by ``tune_cv``-fold CV on
    ``tune_rows`` rows, with ``threads`` threads per fit. ``params``: hyperparameters fixed
    in advance per role ("propensity", "mu3", "nested"); roles not given are tuned on first
    use. A ``Learners`` is a specification and is never changed by fitting: an estimator
    works on its own copy (``spawn``), so tuned values do not leak from one estimator to the
    next. The copy's ``params`` then hold what was chosen (``params_table``).

    Parameters
    ----------
    propensity, outcome : estimator, optional
        Scikit-learn style classifier and regressor; None for tuned XGBoost.
    tune : bool
        Tune XGBoost's hyperparameters by cross-validation (else the grid's middle).
    grid : dict, optional
        The hyperparameter grid (default: Appendix C.5).
    tune_rows, tune_cv : int
        Rows and folds of the tuning.
    threads : int
        XGBoost threads per fit.
    params : dict
        Hyperparameters fixed in advance, per role.

    Examples
    --------
    >>> from sklearn.linear_model import LinearRegression, LogisticRegression
    >>> spec = Learners(propensity=LogisticRegression(), outcome=LinearRegression())
    >>> mine = spec.spawn()
    >>> mine is spec, type(mine.propensity).__name__
    (False, 'LogisticRegression')
    """

    propensity: object | None = None
    outcome: object | None = None
    tune: bool = True
    grid: dict | None = None
    tune_rows: int = 2000
    tune_cv: int = 3
    threads: int = DEFAULT_THREADS
    params: dict = field(default_factory=dict)  # role -> params, fixed in advance or (on a spawn) tuned

    def __post_init__(self):
        if int(self.threads) < 1:
            raise ValueError(f"threads must be at least 1, got {self.threads}")
        if int(self.tune_rows) < 10:
            raise ValueError(f"tune_rows must be at least 10, got {self.tune_rows}")

    @classmethod
    def from_arg(cls, learners, *, tune=True, grid=None, tune_rows=2000, tune_cv=3, threads=DEFAULT_THREADS,
                 params=None) -> "Learners":
        """A fresh ``Learners`` from ``estimate_pse``'s ``learners=`` argument (a given one is copied)."""
        if isinstance(learners, Learners):
            return learners.spawn()
        if learners is None or learners == "xgboost":
            return cls(tune=tune, grid=grid, tune_rows=tune_rows, tune_cv=tune_cv, threads=threads,
                       params=dict(params or {}))
        if isinstance(learners, dict):
            unknown = set(learners) - {"propensity", "outcome"}
            if unknown:
                raise ValueError(f"learners: unknown role(s) {sorted(unknown)}; use 'propensity' and 'outcome'")
            return cls(propensity=learners.get("propensity"), outcome=learners.get("outcome"),
                       tune=tune, grid=grid, tune_rows=tune_rows, tune_cv=tune_cv, threads=threads,
                       params=dict(params or {}))
        raise ValueError("learners must be None, 'xgboost', a Learners, or a dict {'propensity': est, 'outcome': est}")

    def spawn(self) -> "Learners":
        """A copy whose ``params`` start from the ones fixed in advance (tuning fills the copy only)."""
        return replace(self, params={k: dict(v) for k, v in self.params.items()})

    def get(self, role: str, kind: str, X: np.ndarray, y: np.ndarray, seed: int = 0):
        """The (unfitted) learner for ``role``; tunes XGBoost on first use of the role."""
        user = self.propensity if kind == "propensity" else self.outcome
        if user is not None:
            return user
        if role not in self.params:
            if self.tune:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UserWarning)
                    self.params[role] = tune_xgb(X, y, kind, grid=self.grid, cv=self.tune_cv,
                                                 max_rows=self.tune_rows, seed=seed, threads=self.threads)
            else:
                self.params[role] = dict(DEFAULT_PARAMS)
        p = {k: v for k, v in self.params[role].items() if k != "cv_score"}
        return (xgb_classifier if kind == "propensity" else xgb_regressor)(threads=self.threads, **p)

    def params_table(self) -> pd.DataFrame:
        return pd.DataFrame.from_dict(self.params, orient="index")


class CellMeans:
    """Saturated learner for discrete designs: the mean of y in each distinct row of X.

    Unseen or thin cells are shrunk towards the overall mean with ``prior`` pseudo-rows,
    so predictions are always finite. Works as a regressor (``predict``) and as a binary
    classifier (``predict_proba``). Exact for discrete SCMs and very fast: the learner of
    the coverage tests, and the bridge between the plug-in and the DML estimator.
    """

    def __init__(self, prior: float = 1.0):
        self.prior = prior

    def get_params(self, deep=True):
        return {"prior": self.prior}

    def set_params(self, **p):
        for k, v in p.items():
            setattr(self, k, v)
        return self

    @staticmethod
    def _keys(X):
        X = np.ascontiguousarray(np.asarray(X, dtype=np.float32))
        return X.view(np.dtype((np.void, X.dtype.itemsize * X.shape[1]))).ravel() if X.shape[1] else \
            np.zeros(len(X), dtype="V1")

    def fit(self, X, y, sample_weight=None):
        y = np.asarray(y, dtype=float)
        keys = self._keys(X)
        uniq, inv = np.unique(keys, return_inverse=True)
        s = np.bincount(inv, weights=y, minlength=len(uniq))
        c = np.bincount(inv, minlength=len(uniq)).astype(float)
        self.global_ = float(y.mean())
        self.keys_, self.means_ = uniq, (s + self.prior * self.global_) / (c + self.prior)
        return self

    def predict(self, X):
        keys = self._keys(X)
        if len(self.keys_) == 0 or len(keys) == 0:
            return np.full(len(keys), self.global_)
        # the sorted unique keys of fit: a binary search per row; unseen cells get the global mean
        idx = np.minimum(np.searchsorted(self.keys_, keys), len(self.keys_) - 1)
        return np.where(self.keys_[idx] == keys, self.means_[idx], self.global_)

    def predict_proba(self, X):
        p = self.predict(X)
        return np.stack([1 - p, p], axis=1)
