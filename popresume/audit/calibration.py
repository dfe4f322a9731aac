"""The audit pipeline as a design of the coverage harness (docs/DESIGN.md, the harness).

``popresume audit --screener synthetic`` itself, replicated over seeds: the synthetic
screener's truth is exact, so each replication says whether the interval the tool prints
covers it, and whether the tool would print one. It lives in the audit layer because it runs
the audit's own population and request; :mod:`popresume.coverage.causal` turns its records
into the harness's rows (the coverage layer does not import the audit).
"""

from __future__ import annotations

import math

import pandas as pd
from joblib import delayed

from popresume.audit.report import check_groups
from popresume.audit.report_run import ReportRequest, load_population
from popresume.causal import capture_pse_warnings, default_roles, estimate_pse, prepare
from popresume.coverage.causal import AUDIT, _overlap_numbers, rule_label, run_appending, tool_learner
from popresume.schema import PSE_NAMES
from popresume.screeners.synthetic import SyntheticScreener


def audit_replicate(occupation: str, attribute: str, n: int, seed: int, **options) -> list[dict]:
    """One ``popresume audit --screener synthetic --occupation O --n N --seed S`` decomposition.

    The population (``report_run.load_population``), the truth (``SyntheticScreener.true_effects``
    on that population, as the audit's ``truth`` column) and the estimator's settings
    (``ReportRequest``'s defaults: folds, draws, tuning on every fit) are the audit's own.
    Two departures, both for the simulation: the scores come from ``score_frame`` (the same
    numbers as the screener's protocol, without the score cache and the validity card), and
    the screener's noise seed is the replication's seed (the audit keeps the spec's seed 0;
    its noise is keyed by résumé id, which repeats across populations, so a fixed seed would
    give every replication the same noise vector). Per effect: the interval the tool prints
    (``ci_low``/``ci_high``: the raw interval where it withholds one, so that coverage among
    all replications can be counted), the tool's own ``estimable`` verdict and the numbers of
    its identification table. ``options`` replace the request's settings (``tune=False``,
    ``n_boot=0``: the tests' cheap run); the harness passes none.
    """
    req = ReportRequest("synthetic", occupation=occupation, n=n, seed=seed, attributes=(attribute,), **options)
    req.check()
    prof, _ = load_population(occupation, n, seed=seed)
    scr = SyntheticScreener(seed=seed)
    scores = pd.DataFrame({"resume_id": prof["resume_id"],
                           "score": scr.score_frame(scr.prepare_profiles(prof), format=req.fmt)})
    data = prepare(prof, scores)
    roles = default_roles(attribute)
    check_groups(data, attribute, roles)
    truth = scr.true_effects(prof, attribute, format=req.fmt)["true"]
    with capture_pse_warnings():
        tab, est = estimate_pse(data, **roles, y="score", folds=req.folds, n_boot=req.n_boot, seed=seed,
                                tune=req.tune, missing="drop", return_estimator=True, threads=1)
    ident = est.result_.identification_table()
    out = []
    for e in PSE_NAMES:
        lo, hi = float(tab.loc[e, "ci_low"]), float(tab.loc[e, "ci_high"])
        if not (math.isfinite(lo) and math.isfinite(hi)):  # withheld: count the raw interval for "all"
            lo, hi = float(tab.loc[e, "diag_ci_low"]), float(tab.loc[e, "diag_ci_high"])
        t = float(truth[e])
        out.append({"learner": tool_learner(), "kind": f"audit:{occupation}:{attribute}", "n": n, "rep": seed,
                    "effect": e, "truth": t, "estimate": float(tab.loc[e, "estimate"]), "ci_low": lo, "ci_high": hi,
                    "covered": bool(lo <= t <= hi), "half_width": (hi - lo) / 2,
                    "estimable": bool(tab.loc[e, "estimable"]), "rule": rule_label(),
                    **_overlap_numbers(ident, e)})
    return out


def simulate_audit(*, seeds: range, ns=AUDIT["n"], occupations=AUDIT["occupations"],
                   attributes=AUDIT["attributes"], n_jobs: int = 1, records_path=None) -> pd.DataFrame:
    """:func:`audit_replicate` over seeds (outer), sizes, occupations and attributes.

    With ``records_path`` each finished replication is appended to that CSV as it arrives,
    so a run stopped early keeps what it measured (the seeds come round-robin over the
    cells, so every cell has about the same count)."""
    return run_appending([delayed(audit_replicate)(occ, attr, n, s) for s in seeds for n in ns
                          for occ in occupations for attr in attributes], n_jobs=n_jobs, records_path=records_path)
