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
                 identification: str = DEFAULTS.identification, trim: tuple[float, float] | None = None):
    """TE, NDE, NIE, BIE, RIE of X on Y with cross-fitted DML and bootstrap CIs.

    Parameters
    ----------
    data : one row per résumé with the columns named below.
    x, x0, x1 : protected attribute column and its reference / comparison levels
        (the paper: gender, x0 = "F", x1 = "M"; positive effects favour x1).
    z, b, r : lists of confounder, business-necessity and redlining columns; categorical
        (one-hot encoded) and numeric columns are both allowed.
    y : the score column.
    folds : L of the L-fold cross-fitting (paper: 5; at least 3 with nested cross-fitting).
    n_boot : bootstrap draws (paper: 500); 0 gives normal CIs from the influence function.
    bootstrap : "influence" (resample rows of φ; default) or "refit" (re-run everything).
    learners : None/"xgboost" (XGBoost, Appendix C.5 grid tuned by CV once per nuisance)
        or {"propensity": clf, "outcome": reg} with any scikit-learn style estimators.
    clip : propensities are clipped to [clip, 1 - clip]; the count is reported.
    normalize : self-normalise the weights per fold (default on; raw means reported).
    nested_crossfit : μ2's pseudo-outcomes from μ3 fits that exclude the row's fold too.
    missing : "raise" (default) or "drop" (drops incomplete rows with a warning).
    n_rep, aggregate : repeated cross-fitting on ``n_rep`` fold splits combined by
        "median" or "mean" (DoubleML's ``n_rep``); 1 (default) is the paper's single split.
    threads : XGBoost threads per nuisance fit (a property of this estimation only).

    The allowed values are those of :class:`popresume.causal.spec.EstimatorSpec`; a value
    outside them raises ``ValueError`` naming the option before any work.

    Returns
    -------
    DataFrame indexed TE, NDE, NIE, BIE, RIE with columns estimate, se, ci_low, ci_high,
    boot_se, significant, ci_method, n (``PSEResult.summary``; nothing in ``attrs``).
    With ``return_estimator=True`` returns ``(table, estimator)``: ``estimator.result_``
    holds the counterfactual means (``.psi``), the influence values, ``confint``,
    ``pvalues``, ``p_adjust``, the ``overlap`` and the ``diagnostics`` (propensity ranges,
    clipping, weight raw means and ESS, chosen hyperparameters, reliability warnings).
    """
    check_options(n_boot=n_boot, bootstrap=bootstrap, identification=identification)
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
                       population=population)
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
