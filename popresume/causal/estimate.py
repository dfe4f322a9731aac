"""``estimate_pse``, the one-call estimation, and ``estimate_row``, one audit as one table row.

``estimate_pse`` describes the data, fits the cross-fitted estimator and runs the
bootstrap; every option is checked first (:func:`popresume.causal.spec.check_options`),
so a bad value costs nothing. ``estimate_row`` is what every table of audits (partitions
of the mediators, data variants, coarse and fine mediators, the audit grid) is built
from: the effects in the wide form, the overlap beside them and the estimator's warnings
collected into one cell rather than printed.
"""

from __future__ import annotations

import pandas as pd

from .crossfit import PSEEstimator
from .effects import CI_STATS, capture_pse_warnings, joined
from .results import PSEResult
from .spec import DEFAULTS, check_options


def estimate_pse(data: pd.DataFrame, *, x: str, x0, x1, z, b, r, y: str = "score", folds: int = DEFAULTS.folds,
                 n_boot: int = DEFAULTS.n_boot, seed: int = DEFAULTS.seed, bootstrap: str = DEFAULTS.bootstrap,
                 learners=None, clip: float = DEFAULTS.clip, normalize: bool = DEFAULTS.normalize,
                 nested_crossfit: bool = DEFAULTS.nested_crossfit, tune: bool = DEFAULTS.tune,
                 tune_rows: int = DEFAULTS.tune_rows, grid: dict | None = None, missing: str = DEFAULTS.missing,
                 level: float = DEFAULTS.level, progress: bool = False, return_estimator: bool = False,
                 n_rep: int = DEFAULTS.n_rep, aggregate: str = DEFAULTS.aggregate, threads: int = DEFAULTS.threads,
                 identification: str = DEFAULTS.identification, estimable_rule: str = DEFAULTS.estimable_rule,
                 trim: tuple[float, float] | None = None):
    """TE, NDE, NIE, BIE, RIE of X on Y with cross-fitted DML and bootstrap CIs.

    Parameters
    ----------
    data : DataFrame
        One row per résumé with the columns named below.
    x, x0, x1 : str, object, object
        Protected attribute column and its reference / comparison levels (the paper:
        gender, x0 = "F", x1 = "M"; positive effects favour x1).
    z, b, r : list of str
        Confounder, business-necessity and redlining columns; categorical (one-hot
        encoded) and numeric columns are both allowed.
    y : str
        The score column.
    folds : int
        L of the L-fold cross-fitting (paper: 5; at least 3 with nested cross-fitting).
    n_boot : int
        Bootstrap draws (paper: 500); 0 gives normal CIs from the influence function.
    seed : int
        Seed of the folds, learners and bootstrap.
    bootstrap : {"influence", "refit"}
        Resample rows of φ (default) or re-run everything.
    learners : None, "xgboost", dict or Learners
        None/"xgboost": XGBoost, Appendix C.5 grid tuned by CV once per nuisance; or
        {"propensity": clf, "outcome": reg} with any scikit-learn style estimators.
    clip : float
        Propensities are clipped to [clip, 1 - clip]; the count is reported.
    normalize : bool
        Self-normalise the weights per fold (default on; raw means reported).
    nested_crossfit : bool
        μ2's pseudo-outcomes from μ3 fits that exclude the row's fold too.
    tune, tune_rows, grid : bool, int, dict
        The Appendix C.5 grid search and its subsample.
    missing : {"raise", "drop"}
        Incomplete rows raise (default) or are dropped with a warning.
    level : float
        Interval level.
    progress : bool
        Progress bar of the refit bootstrap.
    return_estimator : bool
        Also return the fitted :class:`PSEEstimator`.
    n_rep, aggregate : int, {"median", "mean"}
        Repeated cross-fitting on ``n_rep`` fold splits (DoubleML's ``n_rep``); 1 (default)
        is the paper's single split.
    threads : int
        XGBoost threads per nuisance fit (a property of this estimation only).
    identification : {"overlap", "paper"}
        "overlap" (default): an effect whose propensities are clipped or whose weights have
        too small an effective sample size or too heavy a tail is reported not estimable,
        with no interval, p-value or significance (:mod:`popresume.causal.identification`);
        "paper": every interval as is (the chapters reproducing the paper).
    estimable_rule : {"support", "ess-floor"}
        The rule of "overlap": "support" (default) or "ess-floor", the ESS floors of the rule
        before issue 37 (:func:`popresume.causal.identification.is_estimable`).
    trim : (float, float), optional
        Estimate on the overlap population instead: the rows whose cross-fitted
        P(X = x1 | B, R, Z) lies in ``trim`` (e.g. (0.05, 0.95)). The estimand changes to
        the effects *of that population*; the table's ``population`` column says which rows.

    The allowed values are those of :class:`popresume.causal.spec.EstimatorSpec`; a value
    outside them raises ``ValueError`` naming the option before any work.

    Returns
    -------
    DataFrame
        Indexed TE, NDE, NIE, BIE, RIE with columns estimate, se, ci_low, ci_high, boot_se,
        significant, ci_method, n, estimable, reason, diag_ci_low, diag_ci_high (and
        population when trimmed): ``PSEResult.summary``, nothing in ``attrs``. With
        ``return_estimator=True``, ``(table, estimator)``: ``estimator.result_`` holds the
        counterfactual means (``.psi``), the influence values, ``confint``, ``pvalues``,
        ``p_adjust``, the ``overlap``, ``identification_table`` and the ``diagnostics``.

    Examples
    --------
    >>> from popresume.causal import estimate_pse, make_scm
    >>> from popresume.causal.nuisance import CellMeans
    >>> scm = make_scm("basic", seed=0)
    >>> data = scm.sample(3000, seed=2)
    >>> table = estimate_pse(data, x="x", x0="x0", x1="x1", z=["z"], b=["b"], r=["r"], y="y",
    ...                      n_boot=200, learners={"propensity": CellMeans(), "outcome": CellMeans()})
    >>> table[["estimate", "ci_low", "ci_high", "estimable"]].round(2)
            estimate  ci_low  ci_high  estimable
    effect
    TE          0.53    0.39     0.65       True
    NDE         0.73    0.61     0.81       True
    NIE        -0.20   -0.31    -0.10       True
    BIE         0.36    0.28     0.41       True
    RIE        -0.56   -0.62    -0.48       True
    >>> scm.true_effects().round(2).to_dict()
    {'TE': 0.52, 'NDE': 0.69, 'NIE': -0.18, 'BIE': 0.37, 'RIE': -0.55}
    """
    check_options(n_boot=n_boot, bootstrap=bootstrap, identification=identification, estimable_rule=estimable_rule)
    population = None
    if trim is not None:
        from .data import validate
        from .identification import overlap_population

        rows = validate(data, x=x, x0=x0, x1=x1, z=z, b=b, r=r, y=y, missing=missing)
        data, population = overlap_population(rows, x=x, x0=x0, x1=x1, z=z, b=b, r=r, bounds=tuple(trim),
                                              folds=folds, seed=seed)
    est = PSEEstimator(data, x=x, x0=x0, x1=x1, z=z, b=b, r=r, y=y, folds=folds, seed=seed, learners=learners,
                       clip=clip, normalize=normalize, nested_crossfit=nested_crossfit, tune=tune,
                       tune_rows=tune_rows, grid=grid, missing=missing, level=level, n_rep=n_rep,
                       aggregate=aggregate, threads=threads, identification=identification,
                       estimable_rule=estimable_rule, population=population)
    est.fit()
    if n_boot:
        est.bootstrap(n_boot, method=bootstrap, progress=progress)
    table = est.summary
    return (table, est) if return_estimator else table


def estimate_captured(data: pd.DataFrame, **options) -> tuple[PSEResult, str]:
    """``estimate_pse(data, **options)`` with its ``PSEWarning``s collected, not printed.

    Returns the fitted result and the distinct warning messages joined into one cell.
    """
    with capture_pse_warnings() as caught:
        _, est = estimate_pse(data, return_estimator=True, **options)
    return est.result_, joined(caught)


def estimate_row(data: pd.DataFrame, *, stats=CI_STATS, **options) -> dict:
    """One audit as one table row: ``{E}_{stat}`` for the five effects, ``min_ess``,
    ``clipped_share`` and ``warnings`` (``options``: the roles and estimator options of
    :func:`estimate_pse`)."""
    result, warned = estimate_captured(data, **options)
    return {**result.row(stats), "warnings": warned}
