"""popresume: causal fairness audits of résumé screeners.

Pipeline (one subpackage or module per stage, see ``ls popresume``):
sources -> population -> resumes -> screeners -> causal -> plots / book,
and the separate leakage audit of "Beyond the Name" in ``popresume.leakage``.

The calls a user starts from are importable from here (``from popresume import
estimate_pse``); each is loaded from its package on first use, so ``import popresume``
stays cheap (the command line starts without pandas or the learners). The reference of
each package's ``__all__`` is the book's API page (``book/api.md``).

Examples
--------
>>> import popresume
>>> popresume.FOUR_FIFTHS
0.8
>>> popresume.run_report is popresume.audit.run_report
True
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

#: Exported name -> the package that defines it (loaded on first use, PEP 562).
_EXPORTS = {
    "estimate_pse": "popresume.causal", "PSEEstimator": "popresume.causal", "EstimatorSpec": "popresume.causal",
    "make_scm": "popresume.causal",
    "get_screener": "popresume.screeners", "score_resumes": "popresume.screeners",
    "run_audit": "popresume.audit", "run_report": "popresume.audit", "ReportRequest": "popresume.audit",
    "AuditReport": "popresume.audit",
    "breakdown_table": "popresume.ll144", "chance_of_flag": "popresume.ll144", "FOUR_FIFTHS": "popresume.ll144",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value  # later lookups skip this function
        return value
    raise AttributeError(f"module 'popresume' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
