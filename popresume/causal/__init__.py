"""Causal estimation: identification, the cross-fitted doubly robust PSE estimator, CIs, cases.

PopResume §2.2, §3, Appendix C; docs/DESIGN.md §3. One functional ψ(a_y, a_b, a_r) gives the five
counterfactual means, the five effects are linear in them (``functional``); nuisances are
XGBoost tuned on the Appendix C.5 grid (``nuisance``), cross-fitted (``crossfit``), with
influence or refit bootstrap CIs (``bootstrap``); ``plugin`` is the exact discrete plug-in
of Eqs. (6)-(10); ``cases`` the §5.2 cases C1-C5; ``scm`` synthetic ground truths.

Entry points (names fixed by the project contract): ``estimate_pse``, ``plugin_pse``,
``classify_cases``, ``default_roles``, and the DoubleML-shaped trio ``PSEData`` (roles
checked once), ``PSEEstimator`` (``fit``, ``bootstrap``, ``refit_draws``) and ``PSEResult``
(``summary``, ``psi``, ``confint``, ``pvalues``, ``p_adjust``, ``diagnostics``, ``overlap``,
``row``), with the options, their defaults and their allowed values declared once, as the
fields of ``EstimatorSpec`` (``spec``): ``estimate_pse(data, roles, spec)`` and
``PSEEstimator(data, roles, spec)`` take one. ``estimate`` holds ``estimate_pse`` and ``estimate_row`` (one audit as
one table row); ``identification`` which effects the overlap supports (``estimable``,
``reason``) and the trimmed overlap population; ``effects`` is the vocabulary for effects tables (long and wide forms,
significance, warning capture); ``results`` the result object.

``__all__`` lists what a user calls; the helpers of the submodules stay importable from
this package too (``wide_row``, ``capture_pse_warnings``, ``joined``, ...), but their home
is their module.
"""

from __future__ import annotations

from .cases import case_counts, case_label, classify_cases
from .crossfit import PSEEstimator
from .data import PSEData
from .effects import (PSEWarning, capture_pse_warnings, ci_significance, effect_columns, joined, long_form,
                      significant, to_wide, wide_row)
from .estimate import estimate_captured, estimate_pse, estimate_row
from .identification import identification_table, overlap_population
from .functional import EFFECT_WEIGHTS, PSI_LABELS, PSI_NAMES, PSI_TRIPLES, effects_from_psi
from .nuisance import Learners
from .plugin import plugin_pse, plugin_psi
from .results import PSEResult
from .roles import compare_partitions, default_roles, partition_roles, prepare
from .scm import SCM_KINDS, DiscreteSCM, make_scm
from .spec import EstimatorSpec

__all__ = [
    "estimate_pse", "estimate_row", "plugin_pse", "classify_cases", "case_label", "case_counts", "default_roles",
    "identification_table", "overlap_population",
    "partition_roles", "compare_partitions", "prepare", "PSEData", "PSEEstimator", "PSEResult", "EstimatorSpec",
    "Learners", "PSEWarning", "significant", "make_scm", "EFFECT_WEIGHTS", "PSI_TRIPLES", "PSI_LABELS",
]
