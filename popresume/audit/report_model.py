"""The audit report as a typed result: an :class:`AuditReport` holding an ordered list of sections.

Each section is a typed object that owns its output: :meth:`Section.to_json` gives the keys
it writes into ``report.json``, :meth:`Section.to_html` its part of the page and
:meth:`Section.sentences` its sentences of the summary. :class:`AuditReport` loops over its
sections for all three (as statsmodels' ``Summary`` loops over its tables), so a new section
is one class and one line where the run builds the report (docs/DESIGN.md §7, "Adding a
report section"). A section the run could not fill is an :class:`Omitted` in its place,
with its reason (collected under ``omitted`` in ``report.json``). Every statistic
(significance, estimability, the chance of a flag and its bound) is a column or a field
here, decided where the number is computed (:mod:`popresume.audit.report`); the HTML
primitives (:mod:`popresume.audit.report_html`) only format it.

Example
-------
>>> import pandas as pd
>>> from popresume.audit.report_model import AuditReport, Chance, RunInfo
>>> chance = Chance(pd.DataFrame([{"rule": "median_split", "breakdown": "sex", "n": 400,
...     "observed_lowest_ratio": 0.95, "flag_rate": 0.03, "flag_rate_text": "0.03", "p_perm": 0.0005,
...     "p_perm_text": "< 0.001", "n_sim": 1000}]))
>>> chance.p_text(chance.table.iloc[0])
'< 0.001'
>>> rep = AuditReport(run=RunInfo(subject="recorded decisions (d.csv)", n=400), sections=[chance])
>>> list(rep.to_json())
['report_version', 'chance_baseline', 'limitations', 'run']
"""

from __future__ import annotations

import dataclasses
import html
import math
import re
from dataclasses import dataclass, field
from typing import Any, ClassVar, Mapping

import numpy as np
import pandas as pd

from popresume.audit.report_html import cell_text, figure_html, figure_uri, table_html, with_verdict
from popresume.causal.spec import DEFAULTS
from popresume.ll144 import FOUR_FIFTHS
from popresume.plots.audit import effects_by_attribute, ll144_figure
from popresume.schema import NOT_CARDED_NO_CARD, NOT_CARDED_RECORDED

REPORT_VERSION = 1
#: The significance level of every claim the summary makes.
ALPHA = 0.05
#: The two selection rules the report prints: LL144's scoring rate (above the sample
#: median) and the four-fifths comparison at a selection cut (the top share selected).
RULES = {"median_split": "LL144 scoring rate (above the sample median)",
         "selection_cut": "four-fifths rule at the selection cut"}
#: The heading the outcome-level sections (LL144, four-fifths, chance, disagreements) share.
OUTCOME_TITLE = "Outcome level: Local Law 144 and the four-fifths rule"


def finite(obj: Any) -> Any:
    """NaN / inf → None and numpy scalars → Python, recursively, so the JSON is standard.

    Parameters
    ----------
    obj : Any
        A mapping, sequence, DataFrame or scalar.

    Returns
    -------
    Any
        The same structure, with NaN and infinities as None and numpy scalars as Python's.

    Examples
    --------
    >>> import numpy as np
    >>> finite({"a": np.float64("nan"), "b": [np.int64(3), float("inf")]})
    {'a': None, 'b': [3, None]}
    """
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


def _e(v: Any) -> str:
    return html.escape(str(v))


def _num(v, digits: int = 2) -> str:
    return "–" if v is None or pd.isna(v) else f"{float(v):.{digits}f}"


# --------------------------------------------------------------------------- the section protocol
class Section:
    """A part of the report that renders itself: its keys of ``report.json``, its HTML and
    its sentences of the summary. A subclass sets ``key`` (its key in ``report.json``) and
    ``title`` (its heading on the page; consecutive sections with one title share it) and
    overrides the three methods it has output for.

    Examples
    --------
    >>> class Note(Section):
    ...     key, title = "note", "A note"
    ...     def to_json(self):
    ...         return {self.key: "hello"}
    ...     def sentences(self, report):
    ...         return ["Hello."]
    >>> rep = AuditReport(run=RunInfo("demo", 1), sections=[Note()])
    >>> rep.to_json()["note"], rep.summary()
    ('hello', ['Hello.'])
    """

    key: ClassVar[str] = ""
    title: ClassVar[str] = ""

    def to_json(self) -> dict[str, Any]:
        """The keys this section writes into ``report.json`` ({} for none)."""
        return {}

    def to_html(self, report: AuditReport, *, figures: bool = True) -> str | None:
        """This section's part of the page under its ``title`` (None: no part of the page)."""
        return None

    def sentences(self, report: AuditReport) -> list[str]:
        """This section's sentences of the summary."""
        return []


# --------------------------------------------------------------------------- sections
@dataclass
class Provenance(Section):
    """Who produced the numbers: the spec as given (scrubbed), the screener's identity and
    parameters, and the source line of every table. It writes ``spec``, ``screener``,
    ``screener_params`` and ``sources``; the page shows it in its header.

    Parameters
    ----------
    spec : str
        The screener's spec as given, with secrets removed.
    screener : dict
        The screener's identity (``screener_id``, ``model``, ``prompt_hash``, ``scoring``, ``dialect``).
    screener_params : dict
        Its parameters.
    sources : dict
        Table name -> where its numbers come from.

    Examples
    --------
    >>> p = Provenance(spec="synthetic", screener={"screener_id": "synthetic", "model": "known effects",
    ...                "prompt_hash": "-", "scoring": "score", "dialect": None}, screener_params={}, sources={})
    >>> p.label()
    'synthetic: known effects · prompt - · scoring score · dialect n/a'
    """

    key: ClassVar[str] = "provenance"

    spec: str
    screener: dict
    screener_params: dict
    sources: dict

    def label(self) -> str:
        s = self.screener
        return (f"{s.get('screener_id')}: {s.get('model')} · prompt {s.get('prompt_hash')} · "
                f"scoring {s.get('scoring')} · dialect {s.get('dialect') or 'n/a'}")

    def to_json(self) -> dict[str, Any]:
        return {"spec": self.spec, "screener": self.screener, "screener_params": self.screener_params,
                "sources": self.sources}


@dataclass
class Plan(Section):
    """The probe and the expected durations printed before any work (``report.json`` only):
    :func:`popresume.audit.report.plan`'s parts, what the score cache spares, and the probe.

    Parameters
    ----------
    seconds_per_resume : float
        The probe's seconds per résumé (0 when nothing was left to score).
    done_s : float
        Seconds spent before the plan (start-up, population, résumés, probe).
    validity_s, scoring_s, estimation_s, report_s, leakage_s : float
        Expected seconds of the validity card, the scoring, the estimation, the report
        (outcome-level tables and page) and the leakage tasks.
    total_s : float
        The whole run: ``done_s`` plus the parts.
    to_score, card_to_score : int
        Résumés of the audit and of the card left to score (cached ones and the probe's not counted).
    card_items : int
        Résumés of the card.
    probe : dict
        What the probe measured.

    Examples
    --------
    >>> Plan(0.5, 3.0, 30.0, 200.0, 20.0, 2.0, 0.0, 255.0, 400, 60, 60, probe={"n": 3}).to_json()["plan"]["total_s"]
    255.0
    """

    key: ClassVar[str] = "plan"

    seconds_per_resume: float
    done_s: float
    validity_s: float
    scoring_s: float
    estimation_s: float
    report_s: float
    leakage_s: float
    total_s: float
    to_score: int
    card_to_score: int
    card_items: int
    probe: dict

    def to_json(self) -> dict[str, Any]:
        return {self.key: {k: getattr(self, k) for k in (
            "seconds_per_resume", "done_s", "validity_s", "scoring_s", "estimation_s", "report_s", "leakage_s",
            "total_s", "to_score", "card_to_score", "card_items", "probe")}}


@dataclass
class Validity(Section):
    """The validity gate's verdict and its card (``checks``: one row per check).

    Parameters
    ----------
    verdict : str
        "pass", "fail" or "pass (forced)".
    reasons : list of str
        Why, in words.
    rule : str
        The gate's rule, in words.
    parse_rate : float
        The share of replies that parsed.
    n_profiles : int
        Profiles the card scored.
    checks : pandas.DataFrame
        One row per check.
    card : dict
        The card itself, written whole into ``report.json``.
    forced : bool
        The audit ran on past a failed gate (``--force``).

    Examples
    --------
    >>> import pandas as pd
    >>> v = Validity("pass", [], "every check passes", 1.0, 40, pd.DataFrame({"check": ["parse"]}), {})
    >>> v.to_json()["validity"]["checks"]
    [{'check': 'parse'}]
    """

    key: ClassVar[str] = "validity"
    title: ClassVar[str] = "Validity gate"

    verdict: str
    reasons: list
    rule: str
    parse_rate: float
    n_profiles: int
    checks: pd.DataFrame
    card: dict
    forced: bool = False

    @classmethod
    def from_card(cls, card: Mapping[str, Any], *, rule: str, checks: pd.DataFrame, force: bool) -> Validity:
        """The section of a validity card (:func:`popresume.screeners.validity.validity_card`);
        ``forced`` when ``force`` carried the audit past a verdict other than "pass"."""
        verdict = str(card["verdict"])
        return cls(verdict=verdict, reasons=list(card["reasons"]), rule=rule, parse_rate=card["parse_rate"],
                   n_profiles=card["n_profiles"], checks=checks, card=dict(card),
                   forced=bool(force and verdict != "pass"))

    def to_json(self) -> dict[str, Any]:
        return {self.key: {"verdict": self.verdict, "reasons": list(self.reasons), "rule": self.rule,
                           "parse_rate": self.parse_rate, "n_profiles": self.n_profiles,
                           "checks": self.checks.to_dict("records"), "card": self.card}}

    def to_html(self, report: AuditReport, *, figures: bool = True) -> str:
        source = report.provenance.sources["validity"] if report.provenance is not None else "ours"
        return (f'<p>Verdict: <span class="verdict-{_e(self.verdict)}">{_e(self.verdict.upper())}</span>. '
                f'Rule: {_e(self.rule)}</p>'
                + table_html(self.checks.to_dict("records"),
                             {"check": "check", "estimate": "mean change", "ci_low": "95% CI low",
                              "ci_high": "95% CI high", "mean_abs": "mean |change|", "n_pairs": "pairs"},
                             f"Validity card, {self.n_profiles} résumés over five occupations, parse rate "
                             f"{cell_text(self.parse_rate, 3)}. Source: {source}. {report.caption_label()}.",
                             left=("check",)))

    def sentences(self, report: AuditReport) -> list[str]:
        return [f"Validity gate: {self.verdict.upper()}"
                + (f" ({'; '.join(self.reasons or [])})." if self.verdict != "pass" else
                   ": the scores respond to the posting and the qualifications, and not to harmless edits.")
                + (" The audit was forced past the gate (--force): read the effects as those of a screener "
                   "that may not read résumés." if self.forced else "")]


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

    Parameters
    ----------
    attribute, x, x0, x1 : str
        The attribute, its column and its two levels.
    effects : pandas.DataFrame
        Indexed TE..RIE, with the columns above.
    cases : str or None
        The paper-rule label.
    min_ess, clipped_share : float
        The overlap numbers behind the estimability verdicts.
    warnings : list of str
        The estimator's warnings.
    n : int
        Rows estimated on.
    ci_method : str
        How the intervals were computed.
    precision : pandas.DataFrame
        The precision table.
    clip : float
        The estimator's propensity clip: propensities were clipped to [clip, 1 − clip].

    Examples
    --------
    >>> import pandas as pd
    >>> effects = pd.DataFrame({"significant": [True, False], "estimable": [True, False],
    ...                         "reason": ["", "too few effective rows"]}, index=["TE", "NDE"])
    >>> d = Decomposition("gender", "gender", "F", "M", effects, None, 12.0, 0.2, [], 400, "normal",
    ...                   pd.DataFrame())
    >>> d.significant(), d.not_estimable()
    (['TE'], ['NDE'])
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
    clip: float = DEFAULTS.clip

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
        lo, hi = self.clip, 1 - self.clip  # the bounds the estimator used
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
        return re.sub(r"π\d of E\[.*?\]; ", "", str(self.effects.loc[effect, "reason"]))

    def to_html(self, report: AuditReport) -> str:
        """This attribute's table of effects, its cases and its overlap warning."""
        src = report.provenance.sources if report.provenance is not None else {}
        lab = report.caption_label()
        rows = [{**r, "estimable": "yes" if r["estimable"] else f"no: {self.reason_text(r['effect'])}"}
                for r in self.effect_records()]
        cols = {"effect": "effect", "estimate": "estimate", "ci_low": "CI low", "ci_high": "CI high",
                "p_holm": "p (Holm)", "estimable": "estimable at this overlap"}
        if any(r["truth"] is not None for r in rows):
            cols["truth"] = "true effect"
        parts = [f"<h3>{_e(self.attribute)}: x0 = {_e(self.x0)}, x1 = {_e(self.x1)}</h3>"]
        rows, cols = with_verdict(report.verdict(), rows, cols)
        parts.append(table_html(rows, cols, f"{self.attribute}: n = {self.n:,}, {self.ci_method}; p: the estimator's "
                                f"normal influence-function test, Holm over the five effects. Source: {src.get('effects')}"
                                + (f"; true effects: {src.get('truth')}" if "truth" in cols else "")
                                + f". {lab}.", digits={"p_holm": 4}, left=("effect", "estimable", "_verdict")))
        case = ("none (a label would rest on an effect that is not estimable)" if self.cases is None else self.cases)
        parts.append(f"<p>Cases (paper rule: the 95% CI excludes 0): <b>{_e(case)}</b>. Overlap: smallest "
                     f"effective sample size {cell_text(self.min_ess, 0)}, largest clipped share "
                     f"{cell_text(self.clipped_share, 3)}.</p>")
        if self.overlap_sentence():
            parts.append(f"<p><b>Warning:</b> {_e(self.overlap_sentence())}</p>")
        return "".join(parts)

    def sentences(self) -> list[str]:
        """The total effect, what is significant by the paper's rule, the case label, and
        which effects are not estimable."""
        te = self.effects.loc["TE"]
        total = "–" if pd.isna(te["estimate"]) else format(te["estimate"], "+.2f")
        sig = self.significant()
        case = ("no case label (it would rest on an effect that is not estimable)" if self.cases is None
                else f"cases (paper rule) {self.cases}")
        out = [f"{self.attribute}: total effect {total} points [{_num(te['ci_low'])}, {_num(te['ci_high'])}]; "
               f"by the paper's rule (95% bootstrap CI excludes 0, unadjusted), significant: "
               f"{', '.join(sig) if sig else 'none'}; {case}."]
        ident = self.identification_sentence()
        if ident:
            out.append(ident[0].upper() + ident[1:])
        return out


@dataclass
class Decompositions(Section):
    """The decomposition of the score gap: one :class:`Decomposition` per attribute. It
    writes ``effects`` (one record per attribute × effect) and ``decomposition`` (attribute ->
    its overview); a screener audit whose scores are constant has none, and an
    :class:`Omitted` beside it says why.

    Parameters
    ----------
    by_attribute : dict
        Attribute -> :class:`Decomposition`.

    Examples
    --------
    >>> Decompositions({}).to_json()
    {'effects': [], 'decomposition': {}}
    """

    key: ClassVar[str] = "decomposition"
    title: ClassVar[str] = "Decomposition of the score gap"

    by_attribute: dict = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"effects": [r for d in self.by_attribute.values() for r in d.effect_records()],
                "decomposition": {a: d.overview() for a, d in self.by_attribute.items()}}

    def to_html(self, report: AuditReport, *, figures: bool = True) -> str | None:
        if not self.by_attribute:
            return None
        parts = []
        if figures:
            src = report.provenance.sources.get("effects") if report.provenance is not None else "ours"
            effects = {a: d.effects for a, d in self.by_attribute.items()}
            parts.append(figure_html(figure_uri(lambda f: effects_by_attribute(effects, figure=f)),
                                     f"Path-specific effects (score points; positive favours x1) with 95% CIs; "
                                     f"solid: the CI excludes 0; crosses: true effects where known. Source: "
                                     f"{src}. {report.caption_label()}.", "effects with confidence intervals"))
        parts += [d.to_html(report) for d in self.by_attribute.values()]
        return "".join(parts)

    def sentences(self, report: AuditReport) -> list[str]:
        return [s for d in self.by_attribute.values() for s in d.sentences()]


@dataclass
class Precision(Section):
    """The CI half-width each effect reached and the n a target half-width needs (one record
    per attribute × effect, :meth:`Decomposition.precision_records`).

    Parameters
    ----------
    rows : list of dict
        The records.

    Examples
    --------
    >>> p = Precision([{"attribute": "gender", "effect": "TE", "half_width": 1.5, "se": 0.77, "n": 400,
    ...                 "target": 0.5, "n_needed": 3600}])
    >>> p.sentences(None)[0][:52]
    'Precision: the widest estimable effect (gender TE) h'
    """

    key: ClassVar[str] = "precision"
    title: ClassVar[str] = "Precision"

    rows: list = field(default_factory=list)

    @classmethod
    def of(cls, decompositions: Mapping[str, Decomposition]) -> Precision:
        """The records of every attribute's precision table."""
        return cls([r for d in decompositions.values() for r in d.precision_records()])

    def to_json(self) -> dict[str, Any]:
        return {self.key: list(self.rows)}

    def to_html(self, report: AuditReport, *, figures: bool = True) -> str | None:
        if not self.rows:
            return None
        rows, cols = with_verdict(report.verdict(), self.rows,
                                  {"attribute": "attribute", "effect": "effect", "half_width": "CI half-width",
                                   "se": "SE", "n": "n", "target": "target half-width", "n_needed": "n needed"})
        src = report.provenance.sources.get("precision") if report.provenance is not None else "ours"
        return table_html(rows, cols,
                          f"n needed = (z·sd(φ)/target)², printed only for an effect that is estimable at this "
                          f"overlap (elsewhere the half-width does not shrink like 1/√n). Source: "
                          f"{src}. {report.caption_label()}.", left=("attribute", "effect", "_verdict"))

    def sentences(self, report: AuditReport) -> list[str]:
        prec = [r for r in self.rows if r["n_needed"] is not None]
        if not prec:
            return []
        worst = max(prec, key=lambda r: r["n_needed"])
        return [f"Precision: the widest estimable effect ({worst['attribute']} {worst['effect']}) has "
                f"half-width {worst['half_width']:.2f} points at n = {int(worst['n']):,}; a half-width of "
                f"{worst['target']:g} needs n ≈ {int(worst['n_needed']):,}."]



def _source(section: TableSection, fallback: str) -> str:
    """The source line a section's table carries (its ``source`` column), else ``fallback``."""
    t = section.table
    return str(t["source"].iloc[0]) if "source" in t.columns and len(t) else fallback


@dataclass
class TableSection(Section):
    """A section that is one table (records in ``report.json`` under its ``key``).

    Parameters
    ----------
    table : pandas.DataFrame
        The section's rows.

    Examples
    --------
    >>> import pandas as pd
    >>> TableSection(pd.DataFrame({"n": [3]})).records()
    [{'n': 3}]
    """

    key: ClassVar[str] = "table"

    table: pd.DataFrame

    def records(self) -> list[dict]:
        """The table's rows as records."""
        return self.table.to_dict("records")

    def to_json(self) -> dict[str, Any]:
        return {self.key: self.records()}


@dataclass
class LL144(TableSection):
    """LL144 rates and impact ratios by sex, race and sex × race, with CIs, the under-2% flag
    (``excluded``) and one ``unknown`` row per breakdown. ``rule``: ``median_split`` (a
    scoring tool: the share above the sample median) or ``selection_cut`` (a selection tool:
    the share selected).

    Parameters
    ----------
    table : pandas.DataFrame
        The LL144 table (:func:`popresume.ll144.breakdown_table`'s rows, report columns).
    rule : {"median_split", "selection_cut"}
        The rate the table reports.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"breakdown": ["sex", "sex"], "category": ["F", "M"],
    ...                   "impact_ratio": [0.75, 1.0], "excluded": [False, False]})
    >>> LL144(t).lowest("sex"), LL144(t).rate_text()
    (0.75, 'scoring rate = share above the sample median')
    """

    key: ClassVar[str] = "ll144"
    title: ClassVar[str] = OUTCOME_TITLE

    rule: str = "median_split"

    def rate_text(self) -> str:
        return ("scoring rate = share above the sample median" if self.rule == "median_split"
                else "selection rate = share selected")

    def lowest(self, breakdown: str) -> float:
        t = self.table[(self.table["breakdown"] == breakdown) & ~self.table["excluded"].astype(bool)]
        return float(t["impact_ratio"].min()) if len(t) else float("nan")

    def to_html(self, report: AuditReport, *, figures: bool = True) -> str:
        lab = report.caption_label()
        src = _source(self, "NYC LL144 (6 RCNY §5-301(b))")
        parts = []
        if figures:
            parts.append(figure_html(figure_uri(lambda f: ll144_figure(self.table, figure=f)),
                                     f"LL144 impact ratios with simultaneous 95% CIs (grey: category under 2%, "
                                     f"excluded). Source: {src}. {lab}.", "impact ratios"))
        parts.append(table_html(*with_verdict(report.verdict(), self.records(),
                                              {"breakdown": "breakdown", "category": "category", "n": "n",
                                               "scoring_rate": "rate", "impact_ratio": "impact ratio",
                                               "ci_low": "CI low", "ci_high": "CI high", "excluded": "under 2%"}),
                                f"{self.rate_text().capitalize()}; unknown categories counted, not "
                                f"rated. Source: {src}. {lab}.",
                                digits={"scoring_rate": 3, "impact_ratio": 3, "ci_low": 3, "ci_high": 3},
                                left=("breakdown", "category", "_verdict")))
        return "".join(parts)


class FourFifths(TableSection):
    """The four-fifths comparison of selection rates when the top ``select_top`` is selected.

    Parameters
    ----------
    table : pandas.DataFrame
        Selection rates and impact ratios, with ``select_top`` on every row.

    Examples
    --------
    >>> import pandas as pd
    >>> FourFifths(pd.DataFrame({"select_top": [0.25]})).select_top
    0.25
    """

    key: ClassVar[str] = "four_fifths"
    title: ClassVar[str] = OUTCOME_TITLE

    @property
    def select_top(self) -> float:
        return float(self.table["select_top"].iloc[0]) if len(self.table) else float("nan")

    def to_html(self, report: AuditReport, *, figures: bool = True) -> str:
        return table_html(*with_verdict(report.verdict(), self.records(),
                                        {"breakdown": "breakdown", "category": "category", "n": "n",
                                         "selection_rate": "selection rate", "impact_ratio": "impact ratio",
                                         "ci_low": "CI low", "ci_high": "CI high",
                                         "four_fifths_ok": f"≥ {FOUR_FIFTHS:g}"}),
                          (f"Selection of the top {self.select_top:.0%} of scores"
                           if np.isfinite(self.select_top) else "Selection as recorded")
                          + f". Source: {_source(self, 'EEOC four-fifths rule (29 CFR 1607.4(D))')}. "
                          f"{report.caption_label()}.",
                          digits={"selection_rate": 3, "impact_ratio": 3, "ci_low": 3, "ci_high": 3},
                          left=("breakdown", "category", "_verdict"))


class Chance(TableSection):
    """How often a screener that ignores the attributes is flagged, per ``rule`` and breakdown.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`popresume.ll144.chance_table`'s rows.

    Examples
    --------
    >>> import pandas as pd
    >>> from popresume.ll144 import chance_table
    >>> scores = pd.DataFrame({"gender": ["F", "M"] * 50, "race": ["A"] * 50 + ["B"] * 50,
    ...                        "score": range(100)})
    >>> section = Chance(chance_table(scores, rules=["median_split"], n_sim=200))
    >>> row = section.table.iloc[0]
    >>> row["breakdown"], section.flag_text(row)
    ('sex', '0.317')
    """

    key: ClassVar[str] = "chance_baseline"
    title: ClassVar[str] = OUTCOME_TITLE

    @staticmethod
    def p_text(row) -> str:
        return str(row["p_perm_text"])

    @staticmethod
    def flag_text(row) -> str:
        return str(row["flag_rate_text"])

    def to_html(self, report: AuditReport, *, figures: bool = True) -> str:
        rows = [{"rule": r["rule"], "breakdown": r["breakdown"], "n": r["n"],
                 "observed_lowest_ratio": r["observed_lowest_ratio"], "flag": self.flag_text(r),
                 "p": self.p_text(r), "n_sim": r["n_sim"]} for _, r in self.table.iterrows()]
        return table_html(*with_verdict(report.verdict(), rows,
                                        {"rule": "rule", "breakdown": "breakdown", "n": "n",
                                         "observed_lowest_ratio": "lowest ratio",
                                         "flag": f"chance of a flag (ratio < {FOUR_FIFTHS:g})",
                                         "p": "chance of a ratio this low", "n_sim": "draws (0: exact)"}),
                          f"Chance baseline for each rule printed above (median_split: the LL144 table; "
                          f"selection_cut: the four-fifths table); exact for two categories, else from "
                          f"the draws, with the digits they support. "
                          f"Source: {_source(self, 'ours: the labels permuted')}. {report.caption_label()}.",
                          digits={"observed_lowest_ratio": 3}, left=("rule", "breakdown", "_verdict"))

    def sentences(self, report: AuditReport) -> list[str]:
        out = []
        for _, row in self.table.iterrows():
            rule = RULES[row["rule"]]
            if row["observed_lowest_ratio"] is None or pd.isna(row["observed_lowest_ratio"]):
                out.append(f"{rule}, {row['breakdown']}: no impact ratio (no category is selected).")
                continue
            how = "exact" if int(row["n_sim"]) == 0 else f"{int(row['n_sim']):,} draws"
            out.append(f"{rule}, {row['breakdown']}: lowest impact ratio {row['observed_lowest_ratio']:.3f}; "
                       f"a tool that ignores the attribute falls under {FOUR_FIFTHS:g} with probability "
                       f"{self.flag_text(row)} at these group sizes, and this low with probability "
                       f"{self.p_text(row)} ({how}).")
        return out


class Disagreements(TableSection):
    """Per attribute: the four-fifths verdict beside the decomposition (CI rule), and what differs.

    Parameters
    ----------
    table : pandas.DataFrame
        One row per attribute: ``attribute``, ``four_fifths_flag``, ``lowest_selection_ratio``
        and ``disagreement`` ("" when the two verdicts agree).

    Examples
    --------
    >>> import pandas as pd
    >>> Disagreements(pd.DataFrame({"attribute": ["gender"], "disagreement": [""]})).to_json()
    {'disagreements': [{'attribute': 'gender', 'disagreement': ''}]}
    """

    key: ClassVar[str] = "disagreements"
    title: ClassVar[str] = OUTCOME_TITLE

    def to_html(self, report: AuditReport, *, figures: bool = True) -> str:
        if not len(self.table):
            return ""
        rows = [{**r, "disagreement": r["disagreement"] or "none: they agree"} for r in self.records()]
        return table_html(*with_verdict(report.verdict(), rows,
                                        {"attribute": "attribute", "four_fifths_flag": "four-fifths flag",
                                         "lowest_selection_ratio": "lowest selection ratio",
                                         "disagreement": "disagreement with the decomposition"}),
                          f"Outcome verdict beside the decomposition (paper rule: the CI excludes 0; an "
                          f"effect that is not estimable counts as not significant). {report.caption_label()}.",
                          digits={"lowest_selection_ratio": 3}, left=("attribute", "disagreement", "_verdict"))

    def sentences(self, report: AuditReport) -> list[str]:
        return [f"{d['attribute']}: the four-fifths verdict and the decomposition (CI rule) disagree — "
                f"{d['disagreement']}." for _, d in self.table.iterrows() if d.get("disagreement")]


#: Contrast name -> its label on the page.
CONTRAST_LABELS = {"job_fit": "job fit: own − mismatched posting", "quality": "quality: stronger − weaker résumé"}


@dataclass
class RecordedValidity(Section):
    """The validity of recorded decisions, from the file's own contrasts
    (:func:`popresume.decisions.analyses.validity_from_columns`, the project's gate applied as
    far as the file allows). ``contrasts``: one row per contrast (``job_fit``, ``quality``)
    with estimate, ci_low, ci_high, p, n, n_clusters, reason, calibrated, calibration and
    coverage; an interval the harness does not calibrate at the file's design has NaN bounds
    and its reason. ``verdict`` is the gate's ("pass (stability untested)", "fail" or "not
    estimable"), ``reason`` its reasons, ``shown`` the verdict every table of the report
    carries (docs/DESIGN.md §4's vocabulary), ``columns`` role -> the file's column.

    Parameters
    ----------
    verdict, reason, shown : str
        The gate's verdict, its reason, and the verdict the tables carry.
    contrasts : pandas.DataFrame
        One row per contrast.
    columns : dict
        Role -> the file's column.
    rule : str
        The gate's rule, in words.

    Examples
    --------
    >>> import pandas as pd
    >>> v = RecordedValidity("not estimable", "no quality column", "not carded", pd.DataFrame(),
    ...                      {"score": "callback"}, "the contrasts' CIs exclude 0")
    >>> v.to_json()["validity"]["reasons"]
    ['no quality column']
    """

    key: ClassVar[str] = "validity"
    title: ClassVar[str] = "Validity"

    verdict: str
    reason: str
    shown: str
    contrasts: pd.DataFrame
    columns: dict
    rule: str

    def to_json(self) -> dict[str, Any]:
        return {self.key: {"verdict": self.verdict, "reasons": [self.reason], "shown_as": self.shown,
                           "rule": self.rule, "columns": dict(self.columns),
                           "contrasts": self.contrasts.to_dict("records")}}

    def to_html(self, report: AuditReport, *, figures: bool = True) -> str:
        """The file's own validity contrasts; an interval the harness does not calibrate at this
        design is shown as "–" with its reason (the section decides nothing)."""
        css = "pass" if self.verdict.startswith("pass") else "fail" if self.verdict == "fail" else "none"
        rows = [{**r, "contrast": CONTRAST_LABELS.get(r["contrast"], r["contrast"]),
                 "note": r["reason"] or r["calibration"]} for r in self.contrasts.to_dict("records")]
        cols = {"contrast": "contrast", "estimate": "estimate", "ci_low": "95% CI low", "ci_high": "95% CI high",
                "n": "n", "n_clusters": "résumés", "calibrated": "CI calibrated here", "note": "interval"}
        columns = ", ".join(f"{k} = {c!r}" for k, c in self.columns.items())
        return (f'<p>Verdict: <span class="verdict-{css}">{_e(self.verdict.upper())}</span> ({_e(self.reason)}). '
                f'Rule: {_e(self.rule)}.</p>'
                + table_html(*with_verdict(report.verdict(), rows, cols),
                             f"Validity contrasts from the file's own columns ({columns}): OLS with résumé fixed "
                             f"effects (job fit) or posting fixed effects (quality), CIs clustered on résumés; each "
                             f"CI's coverage simulated at this file's design (popresume.coverage.decisions). "
                             f"{report.caption_label()}.", left=("contrast", "note", "_verdict")))

    def sentences(self, report: AuditReport) -> list[str]:
        shown = [f"{r['contrast'].replace('_', ' ')} {_num(r['estimate'])} "
                 + (f"[{_num(r['ci_low'])}, {_num(r['ci_high'])}]" if pd.notna(r["ci_low"])
                    else "(no calibrated interval)") for _, r in self.contrasts.iterrows() if pd.notna(r["estimate"])]
        return [f"Validity of the recorded decisions (the file's own contrasts, 95% CI lower bound above 0): "
                f"{self.verdict.upper()} ({self.reason})" + (f"; {'; '.join(shown)}" if shown else "") + "."]


@dataclass
class NoiseFloor(TableSection):
    """Run-to-run spread of recorded decisions (:func:`popresume.decisions.analyses.rerun_spread`):
    one row per kind (``rerun``) with mean_abs_change, sd (of a pair's difference), run_sd (one
    reply's SD), n (pairs), n_cells (cells with two or more runs) and runs (distinct runs).
    No interval: the harness calibrates none for it. ``cells``: the columns a cell is.

    Parameters
    ----------
    table : pandas.DataFrame
        One row per kind of rerun.
    cells : tuple of str
        The columns that make a cell.

    Examples
    --------
    >>> import pandas as pd
    >>> NoiseFloor(pd.DataFrame({"rerun": ["same prompt"], "sd": [1.5]}), cells=("job",)).to_json()
    {'noise_floor': {'cells': ['job'], 'rows': [{'rerun': 'same prompt', 'sd': 1.5}]}}
    """

    key: ClassVar[str] = "noise_floor"
    title: ClassVar[str] = "Noise floor: run to run"

    cells: tuple = ()

    def to_json(self) -> dict[str, Any]:
        return {self.key: {"cells": list(self.cells), "rows": self.records()}}

    def to_html(self, report: AuditReport, *, figures: bool = True) -> str:
        return table_html(*with_verdict(report.verdict(), self.records(),
                                        {"kind": "kind", "mean_abs_change": "mean |change| between two runs",
                                         "sd": "SD of a change", "run_sd": "one reply's run-to-run SD",
                                         "n": "pairs of runs", "n_cells": "cells", "runs": "runs"}),
                          f"Run-to-run spread within each {' × '.join(self.cells)} cell, point estimates (the "
                          f"harness calibrates no interval for them): an effect smaller than this is within the "
                          f"noise of asking again. Source: {_source(self, 'ours')}. {report.caption_label()}.",
                          left=("kind", "_verdict"))

    def sentences(self, report: AuditReport) -> list[str]:
        return [f"Noise floor: between two runs of the same {' × '.join(self.cells)}, the outcome changes by "
                f"{_num(r['mean_abs_change'])} on average (one reply's run-to-run SD {_num(r['run_sd'])}; "
                f"{int(r['n']):,} pairs of runs in {int(r['n_cells']):,} cells)." for _, r in self.table.iterrows()]


#: The heading of a section left out, by the name :class:`Omitted` gives it.
OMITTED_TITLES = {"validity": "Validity", "decomposition": "Decomposition of the score gap",
                  "noise_floor": "Noise floor"}


@dataclass
class Omitted(Section):
    """A section the run could not fill, in its place, with why: the page shows the reason
    under the section's heading, the summary says "No <section>: <why>." and ``report.json``
    lists it under ``omitted``.

    Parameters
    ----------
    section : str
        The section left out (``validity``, ``decomposition``, ``noise_floor``, ...).
    why : str
        Why, in words.

    Examples
    --------
    >>> Omitted("noise_floor", "the file has no run column").sentences(None)
    ['No noise floor: the file has no run column.']
    """

    key: ClassVar[str] = "omitted"

    section: str
    why: str

    @property
    def title(self) -> str:  # type: ignore[override]
        return OMITTED_TITLES.get(self.section, self.section.replace("_", " ").capitalize())

    def to_html(self, report: AuditReport, *, figures: bool = True) -> str:
        return f"<p>Not in this report: {_e(self.why)}.</p>"

    def sentences(self, report: AuditReport) -> list[str]:
        return [f"No {self.section.replace('_', ' ')}: {self.why}."]


@dataclass
class NotAsked(Section):
    """A section the run was not asked for: ``report.json`` keeps its key, as null (a screener
    audit writes the same keys whether or not ``--leakage`` was given); no page, no sentence.

    Parameters
    ----------
    section : str
        The key written as null.

    Examples
    --------
    >>> NotAsked("leakage").to_json()
    {'leakage': None}
    """

    key: ClassVar[str] = "not_asked"

    section: str

    def to_json(self) -> dict[str, Any]:
        return {self.section: None}


@dataclass
class TaskCount:
    """The replies of one leakage task and how many fell outside its schema.

    Parameters
    ----------
    replies : int
        Replies received.
    outside_schema : int
        Replies that did not parse.

    Examples
    --------
    >>> TaskCount(62, 1).outside_schema
    1
    """

    replies: int
    outside_schema: int


@dataclass
class Leakage(Section):
    """Beyond the Name's Tasks 1-3 asked of the audited screener
    (:func:`popresume.audit.report_leakage.leakage_section`): the paper's headline quantities
    beside ours, the Task 2 selection-rate ratios, the Task 3 score differences and the
    Top-Score Rate both ways, each a table of records; every CI is a cluster bootstrap over
    base résumés.

    Parameters
    ----------
    judge : str
        The judge's id.
    n_boot : int
        Bootstrap draws.
    bases, variants : int
        Base résumés and factorial variants asked.
    source, published_source : str
        Where our numbers and the published ones come from.
    headline, task1, task2, selection_rate_ratios, score_differences, top_score_rate : list of dict
        The tables, as records.
    counts : dict
        ``task1``.. -> :class:`TaskCount`.
    timings : dict
        Seconds per task and for the metrics.

    Examples
    --------
    >>> leak = Leakage("j", 100, 1, 31, "ours", "published", headline=[
    ...     {"quantity": "overall recovery rate (T1-T3)", "published": "0.5", "ours": 0.75,
    ...      "ours_ci_low": None, "ours_ci_high": None, "note": ""}], task1=[], task2=[],
    ...     selection_rate_ratios=[], score_differences=[], top_score_rate=[],
    ...     counts={"task1": TaskCount(31, 0)}, timings={})
    >>> leak.sentences(None)
    ['Leakage (Beyond the Name, same screener): it recovers the group of 75.0% of marked résumés (published, nine LLMs: 0.5).']
    """

    key: ClassVar[str] = "leakage"
    title: ClassVar[str] = "Beyond the Name: Tasks 1-3 (leakage)"

    judge: str
    n_boot: int
    bases: int
    variants: int
    source: str
    published_source: str
    headline: list
    task1: list
    task2: list
    selection_rate_ratios: list
    score_differences: list
    top_score_rate: list
    counts: dict
    timings: dict

    def to_json(self) -> dict[str, Any]:
        return {self.key: dataclasses.asdict(self)}

    def to_html(self, report: AuditReport, *, figures: bool = True) -> str:
        lab = report.caption_label()
        parts = [f"<p>The same screener asked the three tasks of Beyond the Name on {self.variants} factorial "
                 f"résumés from {self.bases} base résumés (judge {_e(self.judge)}): Task 1 recovers the "
                 f"group a résumé signals, Task 2 judges a marked résumé against its cue-free baseline in both "
                 f"orders under three tie regimes, Task 3 scores and shortlists.</p>"]
        parts.append(table_html(self.headline, {"quantity": "quantity", "published": "published", "ours": "ours",
                                                "ours_ci_low": "CI low", "ours_ci_high": "CI high", "note": "note"},
                                f"Headline quantities. Published: {self.published_source}. Ours: {self.source}. "
                                f"{lab}.", digits={"ours": 3, "ours_ci_low": 3, "ours_ci_high": 3},
                                left=("quantity", "published", "note")))
        parts.append(table_html(self.selection_rate_ratios,
                                {"regime": "regime", "condition": "condition", "ratio": "ratio vs Anglo",
                                 "ci_low": "CI low", "ci_high": "CI high", "four_fifths_flag": f"< {FOUR_FIFTHS:g}",
                                 "p_holm": "p (Holm)"},
                                f"Task 2 selection-rate ratios (ties count half). Source: {self.source}. "
                                f"{lab}.", digits={"ratio": 3, "ci_low": 3, "ci_high": 3, "p_holm": 4},
                                left=("regime", "condition")))
        parts.append(table_html(self.score_differences, {"condition": "condition", "difference": "minus Anglo",
                                                         "ci_low": "CI low", "ci_high": "CI high",
                                                         "p_holm": "p (Holm)"},
                                f"Task 3 mean score minus Anglo's (points of 100). Source: {self.source}. "
                                f"{lab}.", digits={"p_holm": 4}, left=("condition",)))
        parts.append(table_html(self.top_score_rate,
                                {"condition": "condition", "paper_per_base": "Top-Score Rate (paper, per base)",
                                 "ours_per_variant": "ours, per variant", "variants_per_base": "variants per base"},
                                f"Task 3 Top-Score Rate: the paper's definition (any of the condition's variants on "
                                f"top of its base) beside ours (each variant on its own). Source: {self.source}. "
                                f"{lab}.", digits={"paper_per_base": 3, "ours_per_variant": 3, "variants_per_base": 1},
                                left=("condition",)))
        parts.append("<p>Replies: " + "; ".join(f"{k.replace('task', 'Task ')} {c.replies:,} "
                                               f"({c.outside_schema:,} outside the schema)"
                                               for k, c in self.counts.items()) + ".</p>")
        return "".join(parts)

    def sentences(self, report: AuditReport) -> list[str]:
        head = {r["quantity"]: r for r in self.headline}
        rec = head.get("overall recovery rate (T1-T3)")
        worst = next((r for q, r in head.items() if q.startswith("lowest group selection-rate ratio")), None)

        def ci(r, spec):  # a CI is null where every bootstrap draw is the same (one base)
            lo, hi = r["ours_ci_low"], r["ours_ci_high"]
            return "" if lo is None or hi is None else f" [{lo:{spec}}, {hi:{spec}}]"

        return ["Leakage (Beyond the Name, same screener): "
                + (f"it recovers the group of {rec['ours']:.1%} of marked résumés{ci(rec, '.1%')} (published, "
                   f"nine LLMs: {rec['published']})" if rec and rec["ours"] is not None else "no recovery rate")
                + (f"; lowest forced-choice selection-rate ratio vs Anglo {worst['ours']:.2f}{ci(worst, '.2f')} "
                   f"({worst['note']})" if worst and worst["ours"] is not None else "")
                + "."]


@dataclass
class Limitations(Section):
    """What the report cannot say, one sentence each (the report adds it before the run).

    Parameters
    ----------
    items : list of str
        The limitations.

    Examples
    --------
    >>> Limitations(["Every number holds for this file only."]).to_json()
    {'limitations': ['Every number holds for this file only.']}
    """

    key: ClassVar[str] = "limitations"
    title: ClassVar[str] = "Limitations"

    items: list = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {self.key: list(self.items)}

    def to_html(self, report: AuditReport, *, figures: bool = True) -> str:
        return "<ul>" + "".join(f"<li>{_e(s)}</li>" for s in self.items) + "</ul>"


# --------------------------------------------------------------------------- what ran
@dataclass
class RunInfo(Section):
    """What ran: the subject and the rows audited. The report ends with it; a screener audit
    writes a :class:`ScreenerRun` and an audit of recorded decisions a :class:`DecisionsRun`,
    whose fields are ``report.json``'s ``run``.

    Parameters
    ----------
    subject : str
        What was audited.
    n : int
        Rows audited.

    Examples
    --------
    >>> RunInfo("synthetic on accountants", 400).to_json()
    {'run': {'subject': 'synthetic on accountants', 'n': 400}}
    """

    key: ClassVar[str] = "run"
    title: ClassVar[str] = "Run"

    subject: str
    n: int

    def fields(self) -> dict[str, Any]:
        """``report.json``'s ``run``."""
        return {"subject": self.subject, "n": self.n}

    def to_json(self) -> dict[str, Any]:
        return {self.key: self.fields()}

    def meta_html(self, report: AuditReport) -> str:
        """The page header's line under the title."""
        return f"{_e(self.subject)} · n = {self.n:,} rows"

    def to_html(self, report: AuditReport, *, figures: bool = True) -> str:
        return ""


@dataclass
class Counts:
    """The résumés of a screener audit: asked, scored (from the cache, newly), failed.

    Parameters
    ----------
    n, scored, cached, newly_scored, failed : int
        Résumés asked, with a score, served by the score cache, scored in this run, failed.

    Examples
    --------
    >>> Counts(n=100, scored=98, cached=0, newly_scored=100, failed=2).failed
    2
    """

    n: int
    scored: int
    cached: int
    newly_scored: int
    failed: int


@dataclass
class ScreenerRun(RunInfo):
    """What a screener audit ran (``popresume audit --screener``).

    Parameters
    ----------
    subject : str
        The screener on the occupation.
    n : int
        Résumés asked.
    occupation, fmt : str
        The occupation and the résumé format.
    seed : int
        The run's seed.
    attributes : list of str
        The attributes decomposed.
    population : str
        Where the profiles come from.
    forced : bool
        The run went on past a failed validity gate.
    select_top : float
        The share selected for the four-fifths table.
    timings : dict
        Wall-clock seconds per stage.
    counts : Counts
        The résumés scored, cached and failed.
    failures : list of dict
        ``resume_id`` and the raw reply of each résumé without a score.

    Examples
    --------
    >>> run = ScreenerRun("synthetic on accountant", 100, occupation="accountant", fmt="text", seed=0,
    ...                   attributes=["gender"], population="synthetic", forced=False, select_top=0.25,
    ...                   timings={}, counts=Counts(100, 100, 0, 100, 0), failures=[])
    >>> run.to_json()["run"]["counts"]["scored"]
    100
    """

    occupation: str
    fmt: str
    seed: int
    attributes: list
    population: str
    forced: bool
    select_top: float
    timings: dict
    counts: Counts
    failures: list

    def fields(self) -> dict[str, Any]:
        return {"occupation": self.occupation, "format": self.fmt, "seed": self.seed,
                "attributes": list(self.attributes), "population": self.population, "forced": self.forced,
                "select_top": self.select_top, "timings": self.timings,
                "counts": dataclasses.asdict(self.counts), "failures": self.failures}

    def meta_html(self, report: AuditReport) -> str:
        return (f"Screener: {_e(report.label())}<br>Occupation: {_e(self.occupation)} · format "
                f"{_e(self.fmt)} · n = {self.counts.n:,} résumés · seed {self.seed} · population: "
                f"{_e(self.population)}")

    def to_html(self, report: AuditReport, *, figures: bool = True) -> str:
        c = self.counts
        parts = [table_html([{"stage": k, "seconds": v} for k, v in self.timings.items()],
                            {"stage": "stage", "seconds": "seconds"},
                            "Wall-clock seconds per stage of this run.", digits={"seconds": 1}, left=("stage",)),
                 f"<p>{c.n:,} résumés: {c.scored:,} with a score ({c.cached:,} from the cache), "
                 f"{c.failed:,} failed.</p>"]
        if self.failures:
            parts.append(table_html(self.failures[:50], {"resume_id": "résumé", "raw": "reply or error"},
                                    f"Failures (first {min(50, len(self.failures))} of {len(self.failures)}; all in "
                                    f"report.json); never scored.", left=("resume_id", "raw")))
        return "".join(parts)


@dataclass
class DecisionsRun(RunInfo):
    """What an audit of recorded decisions read (``popresume audit --decisions``).

    Parameters
    ----------
    subject : str
        The file, in words.
    n : int
        Rows with an outcome.
    file : str
        The file's path.
    columns : dict
        Role -> the file's column.
    outcome : {"score", "selection"}
        What the outcome column holds.
    missing_outcome : int
        Rows without an outcome, left out.
    unknown : dict
        ``sex`` and ``race`` -> rows with an unknown category.
    seed, n_sim : int
        The seed and the draws of the chance baseline.

    Examples
    --------
    >>> run = DecisionsRun("recorded decisions (d.csv)", 100, file="d.csv", columns={"outcome": "score"},
    ...                    outcome="score", missing_outcome=0, unknown={"sex": 0, "race": 2}, seed=0, n_sim=100)
    >>> list(run.to_json()["run"])[:4]
    ['file', 'columns', 'outcome', 'n']
    """

    file: str
    columns: dict
    outcome: str
    missing_outcome: int
    unknown: dict
    seed: int
    n_sim: int

    def fields(self) -> dict[str, Any]:
        return {"file": self.file, "columns": self.columns, "outcome": self.outcome, "n": self.n,
                "missing_outcome": self.missing_outcome, "unknown": self.unknown, "seed": self.seed,
                "n_sim": self.n_sim}

    def to_html(self, report: AuditReport, *, figures: bool = True) -> str:
        return table_html([{"role": k, "column": v} for k, v in self.columns.items()],
                          {"role": "role", "column": "column of the file"},
                          f"Columns read from {self.file}.", left=("role", "column"))


# --------------------------------------------------------------------------- the report
@dataclass
class AuditReport:
    """An audit report: the run, an ordered list of sections, the limitations and the notes.

    :meth:`to_json`, :meth:`to_html` and :meth:`summary` loop over :meth:`parts` (the
    sections, then :class:`Limitations`, then the run), each section writing its own keys,
    its part of the page and its sentences. A screener audit (``popresume audit
    --screener``) holds its provenance, plan, validity gate, decomposition, precision, the
    outcome-level tables and (with ``--leakage``) the leakage tasks; an audit of recorded
    decisions (``popresume audit --decisions``) holds no provenance, no plan and an
    :class:`Omitted` decomposition (no population model), and says so.

    Parameters
    ----------
    run : RunInfo
        What ran.
    sections : list of Section
        The sections, in the order of the page.
    limitations : list of str
        What the report cannot say.
    notes : list of str
        Sentences the summary opens with.

    Examples
    --------
    >>> rep = AuditReport(run=RunInfo(subject="recorded decisions (d.csv)", n=400),
    ...                   sections=[Omitted("decomposition", "recorded decisions have no population model")])
    >>> rep.to_json()["omitted"]
    {'decomposition': 'recorded decisions have no population model'}
    >>> rep.summary()
    ['No decomposition: recorded decisions have no population model.']
    """

    run: RunInfo
    sections: list = field(default_factory=list)
    limitations: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    def parts(self) -> list[Section]:
        """Every section the report renders, in order: its sections, the limitations, the run."""
        return [*self.sections, Limitations(list(self.limitations)), self.run]

    def get(self, kind: type) -> Any:
        """The first section of type ``kind``, or None."""
        return next((s for s in self.sections if isinstance(s, kind)), None)

    # -- the sections by name, for readers of one section
    provenance = property(lambda self: self.get(Provenance), doc="The :class:`Provenance`, or None.")
    plan = property(lambda self: self.get(Plan), doc="The :class:`Plan`, or None.")
    validity = property(lambda self: self.get(Validity), doc="The :class:`Validity` gate, or None.")
    recorded_validity = property(lambda self: self.get(RecordedValidity), doc="The :class:`RecordedValidity`, or None.")
    noise_floor = property(lambda self: self.get(NoiseFloor), doc="The :class:`NoiseFloor`, or None.")
    ll144 = property(lambda self: self.get(LL144), doc="The :class:`LL144` table, or None.")
    four_fifths = property(lambda self: self.get(FourFifths), doc="The :class:`FourFifths` table, or None.")
    chance = property(lambda self: self.get(Chance), doc="The :class:`Chance` baseline, or None.")
    disagreements = property(lambda self: self.get(Disagreements), doc="The :class:`Disagreements`, or None.")
    leakage = property(lambda self: self.get(Leakage), doc="The :class:`Leakage` tasks, or None.")

    @property
    def decompositions(self) -> dict[str, Decomposition]:
        """Attribute -> :class:`Decomposition` ({} without a decomposition)."""
        d = self.get(Decompositions)
        return dict(d.by_attribute) if d is not None else {}

    @property
    def omitted(self) -> dict[str, str]:
        """Section -> why it is left out."""
        return {s.section: s.why for s in self.sections if isinstance(s, Omitted)}

    # -- the JSON
    def to_json(self) -> dict:
        """``report.json``'s dict (NaN written as null): each section's keys in order, then
        ``omitted`` and ``notes`` when there are any."""
        out: dict[str, Any] = {"report_version": REPORT_VERSION}
        for section in self.parts():
            out.update(section.to_json())
        if self.omitted:
            out["omitted"] = self.omitted
        if self.notes:
            out["notes"] = list(self.notes)
        return finite(out)

    # -- words
    def verdict(self) -> str:
        """The validity verdict every table of this report carries (docs/DESIGN.md §4's one
        vocabulary): the gate's, or "not carded" with the reason. Recorded decisions carry the
        verdict of their own contrasts where the file has them, else "not carded (recorded
        decisions)" with why validity was not measured."""
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

    def caption_label(self) -> str:
        """Who produced the numbers, as every caption ends."""
        return f"Screener: {self.label()}" if self.provenance is not None else f"Ours, from {self.run.subject}"

    def title(self) -> str:
        if self.provenance is None:
            return f"Audit report: {self.run.subject}"
        s = self.provenance.screener
        return f"Audit report: {s.get('screener_id')} ({s.get('model')})"

    def summary(self) -> list[str]:
        """One sentence per finding a reader can act on, section by section after the notes;
        each claim rests on one significance standard, named in the sentence."""
        return list(self.notes) + [s for section in self.parts() for s in section.sentences(self)]

    def to_html(self, *, figures: bool = True) -> str:
        """The page's body: the header, the summary, and every section that has a part of the
        page, numbered (consecutive sections with one title share its heading)."""
        parts = [f"<h1>{_e(self.title())}</h1>" + f'<p class="meta">{self.run.meta_html(self)}</p>',
                 '<h2>Summary</h2><ul class="summary">' + "".join(f"<li>{_e(s)}</li>" for s in self.summary())
                 + "</ul>"]
        shown: list[list[str]] = []
        for section in self.parts():
            body = section.to_html(self, figures=figures)
            if body is None:
                continue
            if shown and shown[-1][0] == section.title:
                shown[-1][1] += body
            else:
                shown.append([section.title, body])
        parts += [f"<h2>{i}. {_e(title)}</h2>{body}" for i, (title, body) in enumerate(shown, 1)]
        return "\n".join(parts)

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
        return self.to_html(figures=False)


__all__ = ["AuditReport", "Section", "Provenance", "Plan", "Validity", "Decomposition", "Decompositions",
           "Precision", "TableSection", "LL144", "FourFifths", "Chance", "Disagreements", "RecordedValidity",
           "NoiseFloor", "Omitted", "NotAsked", "Leakage", "TaskCount", "Limitations", "RunInfo", "ScreenerRun",
           "DecisionsRun", "Counts", "RULES", "finite"]
