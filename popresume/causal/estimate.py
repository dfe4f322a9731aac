"""``estimate_pse``, the one-call estimation, and ``estimate_row``, one audit as one table row.

``estimate_pse(data, roles, spec)`` describes the data, fits the cross-fitted estimator
and runs the bootstrap; its options are one :class:`popresume.causal.spec.EstimatorSpec`,
checked when it is built, so a bad value costs nothing. ``estimate_row`` is what every table of audits (partitions
of the mediators, data variants, coarse and fine mediators, the audit grid) is built
from: the effects in the wide form, the overlap beside them and the estimator's warnings
collected into one cell rather than printed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from .crossfit import PSEEstimator, split_options
from .data import validate
from .effects import CI_STATS, capture_pse_warnings, joined
from .identification import overlap_population
from .results import PSEResult
from .spec import EstimatorSpec, make_spec

#: Keywords of :func:`estimate_pse` beside the roles and the spec's options.
_OWN = ("learners", "grid", "trim", "progress", "return_estimator")


def estimate_pse(data: pd.DataFrame, roles: Mapping[str, Any] | None = None,
                 spec: EstimatorSpec | Mapping[str, Any] | None = None, *, learners=None, grid: dict | None = None,
                 trim: tuple[float, float] | None = None, progress: bool = False, return_estimator: bool = False,
                 **options):
    """TE, NDE, NIE, BIE, RIE of X on Y with cross-fitted DML and bootstrap CIs.

    Every option is checked before any work (a bad value costs nothing): building the
    :class:`EstimatorSpec` checks its values, and a keyword that is neither a role nor an
    option is a ``TypeError`` that names it and lists the valid ones.

    Parameters
    ----------
    data : DataFrame
        One row per résumé with the columns named by ``roles``.
    roles : mapping, optional
        The columns' roles: ``x`` (the protected attribute), ``x0`` / ``x1`` (its reference and
        comparison levels: the paper's gender, "F" and "M"; positive effects favour x1),
        ``z`` / ``b`` / ``r`` (lists of confounder, business-necessity and redlining columns,
        categorical or numeric) and ``y`` (the score column, default "score"), as
        :func:`popresume.causal.default_roles` returns them. They may be given as keywords instead.
    spec : EstimatorSpec or mapping, optional
        The estimator's options (folds, bootstrap draws, clipping, identification rule, ...;
        default ``EstimatorSpec()``, the paper's settings).
    learners : None, "xgboost", dict or Learners
        None/"xgboost": XGBoost, Appendix C.5 grid tuned by CV once per nuisance; or
        {"propensity": clf, "outcome": reg} with any scikit-learn style estimators.
    grid : dict, optional
        The tuning grid (default: Appendix C.5's).
    trim : (float, float), optional
        Estimate on the overlap population instead: the rows whose cross-fitted
        P(X = x1 | B, R, Z) lies in ``trim`` (e.g. (0.05, 0.95)). The estimand changes to
        the effects *of that population*; the table says which rows in ``population``.
    progress : bool
        Progress bar of the refit bootstrap.
    return_estimator : bool
        Also return the fitted :class:`PSEEstimator`.
    **options
        The roles as keywords (``x=``, ``x0=``, ``x1=``, ``z=``, ``b=``, ``r=``, ``y=``) and,
        kept for one release, any option of :class:`EstimatorSpec` as a keyword that overrides
        ``spec`` (``n_boot=0``); the package's own callers pass a spec.

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
    >>> from popresume.causal import EstimatorSpec, estimate_pse, make_scm
    >>> from popresume.causal.nuisance import CellMeans
    >>> scm = make_scm("basic", seed=0)
    >>> data = scm.sample(3000, seed=2)
    >>> roles = dict(x="x", x0="x0", x1="x1", z=["z"], b=["b"], r=["r"], y="y")
    >>> table = estimate_pse(data, roles, EstimatorSpec(n_boot=200),
    ...                      learners={"propensity": CellMeans(), "outcome": CellMeans()})
    >>> table[["estimate", "ci_low", "ci_high", "estimable"]].round(2)
            estimate  ci_low  ci_high  estimable
    effect
    TE          0.53    0.45     0.60       True
    NDE         0.73    0.64     0.81       True
    NIE        -0.20   -0.30    -0.10       True
    BIE         0.36    0.27     0.45       True
    RIE        -0.56   -0.65    -0.46       True
    >>> scm.true_effects().round(2).to_dict()
    {'TE': 0.52, 'NDE': 0.69, 'NIE': -0.18, 'BIE': 0.37, 'RIE': -0.55}
    """
    roles, overrides = split_options(roles, options, also=_OWN)
    spec = make_spec(spec, **overrides)
    population = None
    if trim is not None:
        rows = validate(data, x=roles["x"], x0=roles.get("x0"), x1=roles.get("x1"), z=roles.get("z"),
                        b=roles.get("b"), r=roles.get("r"), y=roles.get("y", "score"), missing=spec.missing)
        data, population = overlap_population(rows, x=roles["x"], x0=roles.get("x0"), x1=roles.get("x1"),
                                              z=roles.get("z"), b=roles.get("b"), r=roles.get("r"),
                                              bounds=tuple(trim), folds=spec.folds, seed=spec.seed)
    est = PSEEstimator(data, roles, spec, learners=learners, grid=grid, population=population)
    est.fit()
    if spec.n_boot:
        est.bootstrap(spec.n_boot, method=spec.bootstrap, progress=progress)
    table = est.summary
    return (table, est) if return_estimator else table


def estimate_captured(data: pd.DataFrame, roles: Mapping[str, Any] | None = None,
                      spec: EstimatorSpec | Mapping[str, Any] | None = None, **options) -> tuple[PSEResult, str]:
    """``estimate_pse(data, roles, spec, **options)`` with its ``PSEWarning``s collected, not printed.

    Returns the fitted result and the distinct warning messages joined into one cell.
    """
    with capture_pse_warnings() as caught:
        _, est = estimate_pse(data, roles, spec, return_estimator=True, **options)
    return est.result_, joined(caught)


def estimate_row(data: pd.DataFrame, roles: Mapping[str, Any] | None = None,
                 spec: EstimatorSpec | Mapping[str, Any] | None = None, *, stats=CI_STATS, **options) -> dict:
    """One audit as one table row: ``{E}_{stat}`` for the five effects, ``min_ess``,
    ``clipped_share`` and ``warnings`` (``options``: the roles and estimator options of
    :func:`estimate_pse`).

    Parameters
    ----------
    data : pandas.DataFrame
        One row per résumé.
    roles : mapping, optional
        The columns' roles, as :func:`estimate_pse` takes them.
    spec : EstimatorSpec or mapping, optional
        The estimator's options (default ``EstimatorSpec()``).
    stats : sequence of str
        The columns of :func:`estimate_pse`'s table kept per effect (as ``{E}_{stat}``).
    **options
        Further keywords of :func:`estimate_pse` (``learners``, ``trim``, the roles as keywords, ...).

    Returns
    -------
    dict
        The row: ``TE_estimate`` ... ``RIE_ci_high``, ``min_ess``, ``clipped_share``, ``warnings``.

    Examples
    --------
    >>> import warnings
    >>> from popresume.causal import EstimatorSpec, make_scm
    >>> from popresume.causal.nuisance import CellMeans
    >>> data = make_scm("basic", seed=0).sample(1000, seed=1)
    >>> cells = {"propensity": CellMeans(), "outcome": CellMeans()}  # exact cell means: fast
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     row = estimate_row(data, dict(x="x", x0="x0", x1="x1", z=["z"], b=["b"], r=["r"], y="y"),
    ...                        EstimatorSpec(n_boot=0), learners=cells)
    >>> round(row["TE_estimate"], 2), "min_ess" in row
    (0.39, True)
    """
    result, warned = estimate_captured(data, roles, spec, **options)
    return {**result.row(stats), "warnings": warned}
