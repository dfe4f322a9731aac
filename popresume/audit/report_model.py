"""The audit report as a typed result: an :class:`AuditReport` of optional, typed sections.

Each section owns its table and says what it holds; :meth:`AuditReport.to_json` writes
``report.json`` (the same keys for every screener audit: a section that a run does not have
is left out of a recorded-decisions audit, with its reason under ``omitted``),
:meth:`AuditReport._repr_html_` and :func:`popresume.audit.report_html.render_html` lay it
out, and :meth:`AuditReport.summary` writes the sentences a reader can act on. Every
statistic (significance, estimability, the chance of a flag and its bound) is a column or a
field here, decided where the number is computed (:mod:`popresume.audit.report`); the layout
only formats it (docs/DESIGN.md §7).

Example
-------
>>> import pandas as pd
>>> from popresume.audit.report_model import AuditReport, Chance, RunInfo
>>> chance = Chance(pd.DataFrame([{"rule": "median_split", "breakdown": "sex", "n": 400,
...     "observed_lowest_ratio": 0.95, "flag_rate": 0.03, "flag_rate_text": "0.03", "p_perm": 0.0005,
...     "p_perm_text": "< 0.001", "n_sim": 1000}]))
>>> chance.p_text(chance.table.iloc[0])
'< 0.001'
>>> rep = AuditReport(run=RunInfo(subject="recorded decisions (d.csv)", n=400), chance=chance)
>>> sorted(rep.to_json())
['chance_baseline', 'limitations', 'report_version', 'run']
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np
import pandas as pd

from popresume.causal.spec import DEFAULTS


REPORT_VERSION = 1
#: The significance level of every claim the summary makes.
ALPHA = 0.05
#: The two selection rules the report prints: LL144's scoring rate (above the sample
#: median) and the four-fifths comparison at a selection cut (the top share selected).
RULES = {"median_split": "LL144 scoring rate (above the sample median)",
         "selection_cut": "four-fifths rule at the selection cut"}


def finite(obj: Any) -> Any:
    """NaN / inf → None and numpy scalars → Python, recursively, so the JSON is standard."""
    if isinstance(obj, Mapping):
        return {str(k): finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite(v) for v in obj]
    if isinstance(obj, pd.DataFrame):
        return finite(obj.to_dict("records"))
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


# --------------------------------------------------------------------------- sections
@dataclass
class Provenance:
    """Who produced the numbers: the spec as given (scrubbed), the screener's identity and
    parameters, and the source line of every table."""

    spec: str
    screener: dict
    screener_params: dict
    sources: dict

    def label(self) -> str:
        s = self.screener
        return (f"{s.get('screener_id')}: {s.get('model')} · prompt {s.get('prompt_hash')} · "
                f"scoring {s.get('scoring')} · dialect {s.get('dialect') or 'n/a'}")


@dataclass
class Plan:
    """The probe and the expected durations printed before any work."""

    seconds_per_resume: float
    validity_s: float
    scoring_s: float
    total_s: float
    probe: dict

    def to_json(self) -> dict:
        return {"seconds_per_resume": self.seconds_per_resume, "validity_s": self.validity_s,
                "scoring_s": self.scoring_s, "total_s": self.total_s, "probe": self.probe}


@dataclass
class Validity:
    """The validity gate's verdict and its card (``checks``: one row per check)."""

    verdict: str
    reasons: list
    rule: str
    parse_rate: float
    n_profiles: int
    checks: pd.DataFrame
    card: dict

    def to_json(self) -> dict:
        return {"verdict": self.verdict, "reasons": list(self.reasons), "rule": self.rule,
                "parse_rate": self.parse_rate, "n_profiles": self.n_profiles,
                "checks": self.checks.to_dict("records"), "card": self.card}


EFFECT_KEYS = ("estimate", "se", "ci_low", "ci_high", "p", "p_holm", "truth")


@dataclass
class Decomposition:
    """The five path-specific effects of one attribute.

    ``effects`` is indexed TE..RIE with estimate, se, ci_low, ci_high, p (the estimator's own
    normal influence-function p-value), p_holm (Holm over the five), significant (the paper's
    rule: the 95% CI excludes 0), truth (NaN unless known), estimable and reason (the
    estimator's verdict on identification at this overlap). ``cases`` is the paper-rule label,
    None where a label would rest on an effect that is not estimable. ``precision`` is
    :func:`popresume.audit.report.precision_table`, its ``n_needed`` NaN where the effect is
    not estimable (a projection from a biased, clipped estimate does not shrink like 1/√n).
    """

    attribute: str
    x: str
    x0: str
    x1: str
    effects: pd.DataFrame
    cases: str | None
    min_ess: float
    clipped_share: float
    warnings: list
    n: int
    ci_method: str
    precision: pd.DataFrame

    def significant(self) -> list[str]:
        """Effects whose 95% CI excludes 0 (the paper's rule) among the estimable ones."""
        e = self.effects
        sig = e["significant"].astype("boolean").fillna(False) & e["estimable"].astype(bool)  # NA: no interval
        return [k for k in e.index if bool(sig[k])]

    def not_estimable(self) -> list[str]:
        return [k for k in self.effects.index if not bool(self.effects.loc[k, "estimable"])]

    def effect_records(self) -> list[dict]:
        out = []
        for e, r in self.effects.iterrows():
            rec = {"attribute": self.attribute, "effect": e}
            for k in EFFECT_KEYS:
                v = r[k]
                rec[k] = None if k == "truth" and pd.isna(v) else float(v)
            rec["estimable"] = bool(r["estimable"])
            rec["reason"] = str(r["reason"])
            out.append(rec)
        return out

    def precision_records(self) -> list[dict]:
        out = []
        for e, r in self.precision.iterrows():
            out.append({"attribute": self.attribute, "effect": e,
                        **{k: (float(v) if k not in ("n", "n_needed") else
                               (None if pd.isna(v) else int(v))) for k, v in r.items()}})
        return out

    def overview(self) -> dict:
        return {"x0": self.x0, "x1": self.x1, "x": self.x, "cases": self.cases, "min_ess": self.min_ess,
                "clipped_share": self.clipped_share, "warnings": list(self.warnings), "n": self.n,
                "ci_method": self.ci_method}

    def overlap_sentence(self) -> str:
        """The estimator's overlap warnings in a reader's words, from this audit's numbers
        ("" when it raised none); the raw warnings stay in ``warnings``."""
        if not self.warnings:
            return ""
        lo, hi = DEFAULTS.clip, 1 - DEFAULTS.clip
        return (f"Overlap for {self.attribute}: {self.clipped_share:.0%} of the propensities of some model were "
                f"clipped to [{lo:g}, {hi:g}] and the smallest effective sample size of a weight is {self.min_ess:.0f}; "
                f"where a mediator nearly reveals {self.attribute}, few applicants show the combinations an effect "
                f"compares, and intervals that rest on them can be too narrow.")

    def identification_sentence(self) -> str:
        """Which effects the data identify at this overlap, in words ("" when all are)."""
        bad = self.not_estimable()
        if not bad:
            return ""
        good = [e for e in self.effects.index if e not in bad]
        return (f"{self.attribute}: {', '.join(bad)} not estimable at this overlap "
                f"({self.clipped_share:.0%} of propensities clipped, smallest effective sample size "
                f"{self.min_ess:.0f})" + (f"; {', '.join(good)} {'is' if len(good) == 1 else 'are'}" if good else "")
                + ".")

    def reason_text(self, effect: str) -> str:
        """The estimator's reason an effect is not estimable, without the counterfactual-mean
        notation a reader of the report does not need ("" when it is estimable)."""
        import re

        return re.sub(r"π\d of E\[.*?\]; ", "", str(self.effects.loc[effect, "reason"]))


@dataclass
class TableSection:
    """A section that is one table (records in ``report.json``)."""

    table: pd.DataFrame

    def to_json(self) -> list[dict]:
        return self.table.to_dict("records")


@dataclass
class LL144(TableSection):
    """LL144 rates and impact ratios by sex, race and sex × race, with CIs, the under-2% flag
    (``excluded``) and one ``unknown`` row per breakdown. ``rule``: ``median_split`` (a
    scoring tool: the share above the sample median) or ``selection_cut`` (a selection tool:
    the share selected)."""

    rule: str = "median_split"

    def rate_text(self) -> str:
        return ("scoring rate = share above the sample median" if self.rule == "median_split"
                else "selection rate = share selected")

    def lowest(self, breakdown: str) -> float:
        t = self.table[(self.table["breakdown"] == breakdown) & ~self.table["excluded"].astype(bool)]
        return float(t["impact_ratio"].min()) if len(t) else float("nan")


class FourFifths(TableSection):
    """The four-fifths comparison of selection rates when the top ``select_top`` is selected."""

    @property
    def select_top(self) -> float:
        return float(self.table["select_top"].iloc[0]) if len(self.table) else float("nan")


class Chance(TableSection):
    """How often a screener that ignores the attributes is flagged, per ``rule`` and breakdown."""

    @staticmethod
    def p_text(row) -> str:
        return str(row["p_perm_text"])

    @staticmethod
    def flag_text(row) -> str:
        return str(row["flag_rate_text"])


class Disagreements(TableSection):
    """Per attribute: the four-fifths verdict beside the decomposition (CI rule), and what differs."""


@dataclass
class RecordedValidity:
    """The validity of recorded decisions, from the file's own contrasts
    (:func:`popresume.decisions.analyses.validity_from_columns`, the project's gate applied as
    far as the file allows). ``contrasts``: one row per contrast (``job_fit``, ``quality``)
    with estimate, ci_low, ci_high, p, n, n_clusters, reason, calibrated, calibration and
    coverage; an interval the harness does not calibrate at the file's design has NaN bounds
    and its reason. ``verdict`` is the gate's ("pass (stability untested)", "fail" or "not
    estimable"), ``reason`` its reasons, ``shown`` the verdict every table of the report
    carries (docs/DESIGN.md §4's vocabulary), ``columns`` role -> the file's column."""

    verdict: str
    reason: str
    shown: str
    contrasts: pd.DataFrame
    columns: dict
    rule: str

    def to_json(self) -> dict:
        return {"verdict": self.verdict, "reasons": [self.reason], "shown_as": self.shown, "rule": self.rule,
                "columns": dict(self.columns), "contrasts": self.contrasts.to_dict("records")}


@dataclass
class NoiseFloor(TableSection):
    """Run-to-run spread of recorded decisions (:func:`popresume.decisions.analyses.rerun_spread`):
    one row per kind (``rerun``) with mean_abs_change, sd (of a pair's difference), run_sd (one
    reply's SD), n (pairs), n_cells (cells with two or more runs) and runs (distinct runs).
    No interval: the harness calibrates none for it. ``cells``: the columns a cell is."""

    cells: tuple = ()

    def to_json(self) -> dict:
        return {"cells": list(self.cells), "rows": self.table.to_dict("records")}


@dataclass
class RunInfo:
    """What ran: the subject (a screener on an occupation, or a file of recorded decisions),
    counts, timings and failures. ``extra`` holds the fields of ``report.json``'s ``run``."""

    subject: str
    n: int
    extra: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return dict(self.extra) if self.extra else {"subject": self.subject, "n": self.n}


# --------------------------------------------------------------------------- the report
@dataclass
class AuditReport:
    """An audit report: optional typed sections; ``omitted`` names each section left out and why.

    A screener audit (``popresume audit --screener``) fills every section; an audit of
    recorded decisions (``popresume audit --decisions``) has no plan, no screener and no
    decomposition (no population model), and says so.
    """

    run: RunInfo
    provenance: Provenance | None = None
    plan: Plan | None = None
    validity: Validity | None = None
    decompositions: dict = field(default_factory=dict)
    ll144: LL144 | None = None
    four_fifths: FourFifths | None = None
    chance: Chance | None = None
    disagreements: Disagreements | None = None
    limitations: list = field(default_factory=list)
    leakage: dict | None = None
    recorded_validity: RecordedValidity | None = None
    noise_floor: NoiseFloor | None = None
    omitted: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)

    # -- the JSON
    def to_json(self) -> dict:
        """``report.json``'s dict (NaN written as null)."""
        out: dict[str, Any] = {"report_version": REPORT_VERSION}
        if self.provenance is not None:
            out.update({"spec": self.provenance.spec, "screener": self.provenance.screener,
                        "screener_params": self.provenance.screener_params, "sources": self.provenance.sources})
        if self.plan is not None:
            out["plan"] = self.plan.to_json()
        if self.validity is not None:
            out["validity"] = self.validity.to_json()
        elif self.recorded_validity is not None:
            out["validity"] = self.recorded_validity.to_json()
        if self.noise_floor is not None:
            out["noise_floor"] = self.noise_floor.to_json()
        if self.decompositions or self.provenance is not None:
            out["effects"] = [r for d in self.decompositions.values() for r in d.effect_records()]
            out["decomposition"] = {a: d.overview() for a, d in self.decompositions.items()}
            out["precision"] = [r for d in self.decompositions.values() for r in d.precision_records()]
        for key, sec in (("ll144", self.ll144), ("four_fifths", self.four_fifths),
                         ("chance_baseline", self.chance), ("disagreements", self.disagreements)):
            if sec is not None:
                out[key] = sec.to_json()
        out["limitations"] = list(self.limitations)
        if self.provenance is not None:
            out["leakage"] = self.leakage
        out["run"] = self.run.to_json()
        if self.omitted:
            out["omitted"] = dict(self.omitted)
        if self.notes:
            out["notes"] = list(self.notes)
        return finite(out)

    # -- words
    def verdict(self) -> str:
        """The validity verdict every table of this report carries (docs/DESIGN.md §4's one
        vocabulary): the gate's, or "not carded" with the reason. Recorded decisions carry the
        verdict of their own contrasts where the file has them, else "not carded (recorded
        decisions)" with why validity was not measured."""
        from popresume.schema import NOT_CARDED_NO_CARD, NOT_CARDED_RECORDED

        if self.validity is not None:
            return self.validity.verdict
        if self.recorded_validity is not None:
            return self.recorded_validity.shown
        if self.provenance is None:
            why = self.omitted.get("validity")
            return f"{NOT_CARDED_RECORDED}: validity not measured, {why}" if why else NOT_CARDED_RECORDED
        return NOT_CARDED_NO_CARD

    def label(self) -> str:
        return self.provenance.label() if self.provenance is not None else self.run.subject

    def title(self) -> str:
        if self.provenance is None:
            return f"Audit report: {self.run.subject}"
        s = self.provenance.screener
        return f"Audit report: {s.get('screener_id')} ({s.get('model')})"

    def summary(self) -> list[str]:
        """One sentence per finding a reader can act on; each claim rests on one significance
        standard, named in the sentence."""
        out = list(self.notes)
        v = self.validity
        forced = bool(self.run.extra.get("forced"))
        if v is not None:
            out.append(f"Validity gate: {v.verdict.upper()}"
                       + (f" ({'; '.join(v.reasons or [])})." if v.verdict != "pass" else
                          ": the scores respond to the posting and the qualifications, and not to harmless edits.")
                       + (" The audit was forced past the gate (--force): read the effects as those of a screener "
                          "that may not read résumés." if forced else ""))
        rv = self.recorded_validity
        if rv is not None:
            shown = [f"{r['contrast'].replace('_', ' ')} {_num(r['estimate'])} "
                     + (f"[{_num(r['ci_low'])}, {_num(r['ci_high'])}]" if pd.notna(r["ci_low"])
                        else "(no calibrated interval)") for _, r in rv.contrasts.iterrows() if pd.notna(r["estimate"])]
            out.append(f"Validity of the recorded decisions (the file's own contrasts, 95% CI lower bound above 0): "
                       f"{rv.verdict.upper()} ({rv.reason})" + (f"; {'; '.join(shown)}" if shown else "") + ".")
        if self.noise_floor is not None:
            for _, r in self.noise_floor.table.iterrows():
                out.append(f"Noise floor: between two runs of the same {' × '.join(self.noise_floor.cells)}, the "
                           f"outcome changes by {_num(r['mean_abs_change'])} on average (one reply's run-to-run SD "
                           f"{_num(r['run_sd'])}; {int(r['n']):,} pairs of runs in {int(r['n_cells']):,} cells).")
        for attr, d in self.decompositions.items():
            te = d.effects.loc["TE"]
            total = "–" if pd.isna(te["estimate"]) else format(te["estimate"], "+.2f")
            sig = d.significant()
            case = ("no case label (it would rest on an effect that is not estimable)" if d.cases is None
                    else f"cases (paper rule) {d.cases}")
            out.append(f"{attr}: total effect {total} points [{_num(te['ci_low'])}, {_num(te['ci_high'])}]; "
                       f"by the paper's rule (95% bootstrap CI excludes 0, unadjusted), significant: "
                       f"{', '.join(sig) if sig else 'none'}; {case}.")
            ident = d.identification_sentence()
            if ident:
                out.append(ident[0].upper() + ident[1:])
        if self.chance is not None:
            for _, row in self.chance.table.iterrows():
                rule = RULES[row["rule"]]
                if row["observed_lowest_ratio"] is None or pd.isna(row["observed_lowest_ratio"]):
                    out.append(f"{rule}, {row['breakdown']}: no impact ratio (no category is selected).")
                    continue
                how = "exact" if int(row["n_sim"]) == 0 else f"{int(row['n_sim']):,} draws"
                out.append(f"{rule}, {row['breakdown']}: lowest impact ratio {row['observed_lowest_ratio']:.3f}; "
                           f"a tool that ignores the attribute falls under 0.8 with probability "
                           f"{Chance.flag_text(row)} at these group sizes, and this low with probability "
                           f"{Chance.p_text(row)} ({how}).")
        if self.disagreements is not None:
            for _, d in self.disagreements.table.iterrows():
                if d.get("disagreement"):
                    out.append(f"{d['attribute']}: the four-fifths verdict and the decomposition (CI rule) "
                               f"disagree — {d['disagreement']}.")
        if self.leakage:
            out.append(_leakage_sentence(self.leakage))
        prec = [r for d in self.decompositions.values() for r in d.precision_records()
                if r["n_needed"] is not None]
        if prec:
            worst = max(prec, key=lambda r: r["n_needed"])
            out.append(f"Precision: the widest estimable effect ({worst['attribute']} {worst['effect']}) has "
                       f"half-width {worst['half_width']:.2f} points at n = {int(worst['n']):,}; a half-width of "
                       f"{worst['target']:g} needs n ≈ {int(worst['n_needed']):,}.")
        for key, why in self.omitted.items():
            out.append(f"No {key.replace('_', ' ')}: {why}.")
        return out

    def __str__(self) -> str:
        lines = [self.title(), f"({self.label()})", ""]
        lines += [f"- {s}" for s in self.summary()]
        for attr, d in self.decompositions.items():
            cols = ["estimate", "ci_low", "ci_high", "p_holm", "truth", "estimable"]
            lines += ["", f"{attr} (x0 = {d.x0}, x1 = {d.x1}, n = {d.n:,}):",
                      d.effects[cols].round(3).to_string()]
        if self.ll144 is not None:
            cols = ["breakdown", "category", "n", "scoring_rate", "impact_ratio", "ci_low", "ci_high", "excluded"]
            lines += ["", "LL144:", self.ll144.table[cols].round(3).to_string(index=False)]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        from popresume.audit.report_html import render_body

        return render_body(self, figures=False)


def _num(v, digits: int = 2) -> str:
    return "–" if v is None or pd.isna(v) else f"{float(v):.{digits}f}"


def _leakage_sentence(leak: Mapping[str, Any]) -> str:
    head = {r["quantity"]: r for r in leak["headline"]}
    rec = head.get("overall recovery rate (T1-T3)")
    worst = next((r for q, r in head.items() if q.startswith("lowest group selection-rate ratio")), None)

    def ci(r, spec):  # a CI is null where every bootstrap draw is the same (one base)
        lo, hi = r["ours_ci_low"], r["ours_ci_high"]
        return "" if lo is None or hi is None else f" [{lo:{spec}}, {hi:{spec}}]"

    return ("Leakage (Beyond the Name, same screener): "
            + (f"it recovers the group of {rec['ours']:.1%} of marked résumés{ci(rec, '.1%')} (published, "
               f"nine LLMs: {rec['published']})" if rec and rec["ours"] is not None else "no recovery rate")
            + (f"; lowest forced-choice selection-rate ratio vs Anglo {worst['ours']:.2f}{ci(worst, '.2f')} "
               f"({worst['note']})" if worst and worst["ours"] is not None else "")
            + ".")


__all__ = ["AuditReport", "Provenance", "Plan", "Validity", "Decomposition", "LL144", "FourFifths", "Chance",
           "Disagreements", "RecordedValidity", "NoiseFloor", "RunInfo", "RULES", "finite"]
