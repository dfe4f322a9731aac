"""The audit grid (PopResume §5, Tables 4-5, Figures 4-5) and the checks beyond the paper.

* :mod:`~popresume.audit.config` — the grid's YAML config, validated before any work;
* :mod:`~popresume.audit.grid` — :func:`run_audit`: profiles → résumés → scores → effects, cached;
* :mod:`~popresume.audit.metrics` — Holm/BH recounts, Case-2 masking, four-fifths and LL144 ratios;
* :mod:`~popresume.audit.coarsening` — the coarsened-mediator artefact of Appendix C.4 grouping;
* :mod:`~popresume.audit.report_run` — :func:`run_report`: the audit of one screener, as an
  :class:`AuditReport` of typed sections (:mod:`~popresume.audit.report_model`).
"""

from popresume.audit.config import AuditConfig, load_config, validate_config
from popresume.audit.grid import AuditRun, audit_data, outcome_table, read_results, run_audit, write_results
from popresume.audit.metrics import (
    benjamini_hochberg,
    cases_from_significance,
    compare_with_causal,
    holm,
    ll144_impact_ratios,
    p_from_ci,
    recount_cases,
    selection_rates,
    significance,
    surviving_findings,
    te_alone,
)
from popresume.audit.report_model import (
    LL144,
    AuditReport,
    Chance,
    Counts,
    DecisionsRun,
    Decomposition,
    Decompositions,
    Disagreements,
    FourFifths,
    Leakage,
    Limitations,
    NoiseFloor,
    NotAsked,
    Omitted,
    Plan,
    Precision,
    Provenance,
    RecordedValidity,
    RunInfo,
    ScreenerRun,
    Section,
    TableSection,
    TaskCount,
    Validity,
)
from popresume.audit.report_run import ReportRequest, run_report, write_report

__all__ = [
    "AuditConfig", "load_config", "validate_config", "run_audit", "AuditRun", "read_results", "write_results",
    "audit_data", "outcome_table",
    "benjamini_hochberg", "holm", "p_from_ci", "significance", "cases_from_significance", "recount_cases",
    "surviving_findings", "te_alone", "selection_rates", "ll144_impact_ratios", "compare_with_causal",
    # the audit report of one screener, and its typed sections
    "run_report", "ReportRequest", "write_report", "AuditReport", "Section", "RunInfo", "ScreenerRun", "Counts",
    "DecisionsRun", "Provenance", "Plan", "Validity", "Decomposition", "Decompositions", "Precision", "TableSection",
    "LL144", "FourFifths", "Chance", "Disagreements", "RecordedValidity", "NoiseFloor", "Omitted", "NotAsked",
    "Leakage", "TaskCount", "Limitations",
]
