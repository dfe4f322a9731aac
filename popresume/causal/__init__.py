"""Causal estimation: identification, the cross-fitted doubly robust PSE estimator, CIs, cases.

PopResume §2.2, §3, Appendix C; DESIGN §3. One functional ψ(a_y, a_b, a_r) gives the five
counterfactual means, the five effects are linear in them (``functional``); nuisances are
XGBoost tuned on the Appendix C.5 grid (``nuisance``), cross-fitted (``crossfit``), with
influence or refit bootstrap CIs (``bootstrap``); ``plugin`` is the exact discrete plug-in
of Eqs. (6)-(10); ``cases`` the §5.2 cases C1-C5; ``scm`` synthetic ground truths.

Entry points (names fixed by the project contract): ``estimate_pse``, ``plugin_pse``,
``classify_cases``, ``default_roles``, and the DoubleML-shaped trio ``PSEData`` (roles
checked once), ``PSEEstimator`` (``fit``, ``bootstrap``, ``refit_draws``) and ``PSEResult``
(``summary``, ``psi``, ``confint``, ``pvalues``, ``p_adjust``, ``diagnostics``). ``effects``
is the vocabulary for effects tables (long and wide forms, significance, warning capture).
"""

from __future__ import annotations

import pandas as pd

from .cases import case_counts, classify_cases
from .crossfit import PSEEstimator
from .data import PSEData
from .effects import (PSEWarning, capture_pse_warnings, effect_columns, joined, long_form, significance, significant,
                      to_wide, wide_row)
from .functional import EFFECT_WEIGHTS, PSI_LABELS, PSI_NAMES, PSI_TRIPLES, effects_from_psi
from .nuisance import Learners
from .plugin import plugin_pse, plugin_psi
from .results import PSEResult
from .roles import compare_partitions, default_roles, partition_roles, prepare
from .scm import SCM_KINDS, DiscreteSCM, make_scm

__all__ = [
    "estimate_pse", "plugin_pse", "plugin_psi", "classify_cases", "case_counts", "significant", "significance",
    "default_roles", "partition_roles", "compare_partitions", "prepare", "PSEData", "PSEEstimator", "PSEResult",
    "Learners", "PSEWarning", "capture_pse_warnings", "joined", "effect_columns", "wide_row", "to_wide", "long_form",
    "make_scm", "DiscreteSCM", "SCM_KINDS", "effects_from_psi", "EFFECT_WEIGHTS", "PSI_NAMES", "PSI_TRIPLES",
    "PSI_LABELS",
]


def estimate_pse(data: pd.DataFrame, *, x: str, x0, x1, z, b, r, y: str = "score", folds: int = 5,
                 n_boot: int = 500, seed: int = 0, bootstrap: str = "influence", learners=None,
                 clip: float = 0.01, normalize: bool = True, nested_crossfit: bool = True, tune: bool = True,
                 tune_rows: int = 2000, grid: dict | None = None, missing: str = "raise", level: float = 0.95,
                 progress: bool = False, return_estimator: bool = False, n_rep: int = 1, aggregate: str = "median",
                 threads: int = 1):
    """TE, NDE, NIE, BIE, RIE of X on Y with cross-fitted DML and bootstrap CIs.

    Parameters
    ----------
    data : one row per résumé with the columns named below.
    x, x0, x1 : protected attribute column and its reference / comparison levels
        (the paper: gender, x0 = "F", x1 = "M"; positive effects favour x1).
    z, b, r : lists of confounder, business-necessity and redlining columns; categorical
        (one-hot encoded) and numeric columns are both allowed.
    y : the score column.
    folds : L of the L-fold cross-fitting (paper: 5).
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

    Returns
    -------
    DataFrame indexed TE, NDE, NIE, BIE, RIE with columns estimate, se, ci_low, ci_high,
    boot_se, significant, ci_method, n (``PSEResult.summary``; nothing in ``attrs``).
    With ``return_estimator=True`` returns ``(table, estimator)``: ``estimator.result_``
    holds the counterfactual means (``.psi``), the influence values, ``confint``,
    ``pvalues``, ``p_adjust`` and the ``diagnostics`` (propensity ranges, clipping, weight
    raw means and ESS, chosen hyperparameters, reliability warnings).
    """
    est = PSEEstimator(data, x=x, x0=x0, x1=x1, z=z, b=b, r=r, y=y, folds=folds, seed=seed, learners=learners,
                       clip=clip, normalize=normalize, nested_crossfit=nested_crossfit, tune=tune,
                       tune_rows=tune_rows, grid=grid, missing=missing, level=level, n_rep=n_rep,
                       aggregate=aggregate, threads=threads)
    est.fit()
    if n_boot:
        est.bootstrap(n_boot, method=bootstrap, progress=progress)
    table = est.summary()
    return (table, est) if return_estimator else table
