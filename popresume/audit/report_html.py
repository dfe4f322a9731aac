"""The audit report as one self-contained HTML file: a template over an :class:`AuditReport`.

:func:`render_html` lays out the :class:`popresume.audit.report_model.AuditReport` that
:func:`popresume.audit.report_run.run_report` returns: one small function per section, each
formatting the section's own table (no statistic is decided here: significance, estimability
and the chance bounds are columns of the sections). Figures are drawn by
:mod:`popresume.plots` and embedded as PNG ``data:`` URIs, the style sheet is inline,
nothing is fetched (no script, no font, no CDN), and a print style sheet keeps tables and
figures whole on paper. Every table has a caption naming its source and the screener that
produced it; a section a report does not have is replaced by the reason it was left out.
The report renders itself through this module, so this module imports no report type
(``AuditReport`` in a signature is a name, not an import).
"""

from __future__ import annotations

import base64
import html
import io
from string import Template
from typing import Any, Mapping, Sequence

import numpy as np

from popresume.ll144 import FOUR_FIFTHS


CSS = """
body { font-family: "DejaVu Sans", Arial, sans-serif; max-width: 60rem; margin: 1.5rem auto; padding: 0 1rem;
       color: #1a1a1a; line-height: 1.45; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; } h2 { font-size: 1.25rem; border-bottom: 1px solid #ccc;
       margin-top: 2rem; } h3 { font-size: 1.05rem; }
table { border-collapse: collapse; margin: .6rem 0 1rem; font-size: .82rem; width: 100%; table-layout: auto; }
th, td { border: 1px solid #d0d0d0; padding: .2rem .4rem; text-align: right; vertical-align: top;
         overflow-wrap: anywhere; }
th { background: #f2f2f2; } td.l, th.l { text-align: left; }
td:not(.l) { white-space: nowrap; overflow-wrap: normal; }
caption { caption-side: top; text-align: left; font-size: .78rem; color: #444; padding-bottom: .2rem; }
figure { margin: .8rem 0; } figure img { max-width: 100%; height: auto; display: block; }
figcaption { font-size: .78rem; color: #444; }
.verdict-pass { color: #1b6e20; font-weight: bold; } .verdict-fail { color: #a31515; font-weight: bold; }
.meta { font-size: .85rem; color: #333; } .summary li { margin-bottom: .3rem; }
@media print { body { max-width: none; margin: 0; font-size: 10pt; } h2 { page-break-after: avoid; }
  table, figure { page-break-inside: avoid; } a { color: inherit; text-decoration: none; } }
"""


def _e(v: Any) -> str:
    return html.escape(str(v))


def cell_text(v: Any, digits: int = 2) -> str:
    """A number for a table cell: fixed digits, "–" for a missing one."""
    if v is None or (isinstance(v, float) and not np.isfinite(v)):
        return "–"
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (int, np.integer)):
        return f"{int(v):,}"
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.{digits}f}"
    return str(v)


def table_html(rows: Sequence[Mapping[str, Any]], columns: Mapping[str, str], caption: str, *,
               digits: Mapping[str, int] | None = None, left: Sequence[str] = ()) -> str:
    """An HTML table of ``rows`` with ``columns`` {key: header}, numbers formatted, text escaped."""
    digits = dict(digits or {})
    head = "".join(f'<th class="{"l" if k in left else ""}">{_e(h)}</th>' for k, h in columns.items())
    body = []
    for r in rows:
        cells = "".join(f'<td class="{"l" if k in left else ""}">{_e(cell_text(r.get(k), digits.get(k, 2)))}</td>'
                        for k in columns)
        body.append(f"<tr>{cells}</tr>")
    return (f"<table><caption>{_e(caption)}</caption><thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>")


def _verdict(rep, rows, columns: Mapping[str, str]) -> tuple[list[dict], dict]:
    """``rows`` and ``columns`` with the report's validity verdict as a column (every table
    of effects or decisions carries it, docs/DESIGN.md §4)."""
    from popresume.schema import VERDICT_COLUMN

    return [{**r, "_verdict": rep.verdict()} for r in rows], {**columns, "_verdict": VERDICT_COLUMN}


def figure_png(fig) -> bytes:
    """A Figure's PNG bytes (the report's resolution)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    return buf.getvalue()


def _png(fig) -> str:
    """A Figure as a ``data:`` URI (PNG), so that the page needs no file beside it."""
    return "data:image/png;base64," + base64.b64encode(figure_png(fig)).decode("ascii")


def figure_html(uri: str, caption: str, alt: str) -> str:
    return f'<figure><img src="{uri}" alt="{_e(alt)}"><figcaption>{_e(caption)}</figcaption></figure>'


def _figure(draw) -> str:
    """A figure drawn by ``draw(Figure)`` (a :mod:`popresume.plots` function) as a data URI."""
    from matplotlib.figure import Figure

    return _png(draw(Figure()))


PAGE = Template("""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>$title</title><style>$css</style></head><body>
$body
</body></html>
""")


# --------------------------------------------------------------------------- sections
def _header(rep: AuditReport) -> str:
    run = rep.run.extra
    if rep.provenance is None:
        meta = f"{_e(rep.run.subject)} · n = {rep.run.n:,} rows"
    else:
        meta = (f"Screener: {_e(rep.label())}<br>Occupation: {_e(run['occupation'])} · format "
                f"{_e(run['format'])} · n = {run['counts']['n']:,} résumés · seed {run['seed']} · population: "
                f"{_e(run['population'])}")
    return f"<h1>{_e(rep.title())}</h1>" + f'<p class="meta">{meta}</p>'


def _summary(rep: AuditReport) -> str:
    return '<h2>Summary</h2><ul class="summary">' + "".join(f"<li>{_e(s)}</li>" for s in rep.summary()) + "</ul>"


def _validity(rep: AuditReport, lab: str) -> str:
    v = rep.validity
    return (f'<p>Verdict: <span class="verdict-{_e(v.verdict)}">{_e(v.verdict.upper())}</span>. '
            f'Rule: {_e(v.rule)}</p>'
            + table_html(v.checks.to_dict("records"),
                         {"check": "check", "estimate": "mean change", "ci_low": "95% CI low",
                          "ci_high": "95% CI high", "mean_abs": "mean |change|", "n_pairs": "pairs"},
                         f"Validity card, {v.n_profiles} résumés over five occupations, parse rate "
                         f"{cell_text(v.parse_rate, 3)}. Source: {rep.provenance.sources['validity']}. {lab}.",
                         left=("check",)))


def _recorded_validity(rep: AuditReport, lab: str) -> str:
    """Recorded decisions: the file's own validity contrasts; an interval the harness does not
    calibrate at this design is shown as "–" with its reason (the section decides nothing)."""
    v = rep.recorded_validity
    css = "pass" if v.verdict.startswith("pass") else "fail" if v.verdict == "fail" else "none"
    rows = [{**r, "contrast": {"job_fit": "job fit: own − mismatched posting",
                               "quality": "quality: stronger − weaker résumé"}.get(r["contrast"], r["contrast"]),
             "note": r["reason"] or r["calibration"]} for r in v.contrasts.to_dict("records")]
    cols = {"contrast": "contrast", "estimate": "estimate", "ci_low": "95% CI low", "ci_high": "95% CI high",
            "n": "n", "n_clusters": "résumés", "calibrated": "CI calibrated here", "note": "interval"}
    columns = ", ".join(f"{k} = {c!r}" for k, c in v.columns.items())
    return (f'<p>Verdict: <span class="verdict-{css}">{_e(v.verdict.upper())}</span> ({_e(v.reason)}). '
            f'Rule: {_e(v.rule)}.</p>'
            + table_html(*_verdict(rep, rows, cols),
                         f"Validity contrasts from the file's own columns ({columns}): OLS with résumé fixed effects "
                         f"(job fit) or posting fixed effects (quality), CIs clustered on résumés; each CI's coverage "
                         f"simulated at this file's design (popresume.coverage.decisions). {lab}.",
                         left=("contrast", "note", "_verdict")))


def _noise_floor(rep: AuditReport, lab: str) -> str:
    nf = rep.noise_floor
    return table_html(*_verdict(rep, nf.to_json()["rows"],
                                {"kind": "kind", "mean_abs_change": "mean |change| between two runs",
                                 "sd": "SD of a change", "run_sd": "one reply's run-to-run SD", "n": "pairs of runs",
                                 "n_cells": "cells", "runs": "runs"}),
                      f"Run-to-run spread within each {' × '.join(nf.cells)} cell, point estimates (the harness "
                      f"calibrates no interval for them): an effect smaller than this is within the noise of "
                      f"asking again. Source: {_source(nf, 'ours')}. {lab}.", left=("kind", "_verdict"))


def _decomposition(rep: AuditReport, lab: str, figures: bool) -> str:
    from popresume.plots.audit import effects_by_attribute

    src = rep.provenance.sources
    parts = []
    if figures:
        effects = {a: d.effects for a, d in rep.decompositions.items()}
        parts.append(figure_html(_figure(lambda f: effects_by_attribute(effects, figure=f)),
                                 f"Path-specific effects (score points; positive favours x1) with 95% CIs; "
                                 f"solid: the CI excludes 0; crosses: true effects where known. Source: "
                                 f"{src['effects']}. {lab}.", "effects with confidence intervals"))
    for attr, d in rep.decompositions.items():
        rows = [{**r, "estimable": "yes" if r["estimable"] else f"no: {d.reason_text(r['effect'])}"}
                for r in d.effect_records()]
        cols = {"effect": "effect", "estimate": "estimate", "ci_low": "CI low", "ci_high": "CI high",
                "p_holm": "p (Holm)", "estimable": "estimable at this overlap"}
        if any(r["truth"] is not None for r in rows):
            cols["truth"] = "true effect"
        parts.append(f"<h3>{_e(attr)}: x0 = {_e(d.x0)}, x1 = {_e(d.x1)}</h3>")
        rows, cols = _verdict(rep, rows, cols)
        parts.append(table_html(rows, cols, f"{attr}: n = {d.n:,}, {d.ci_method}; p: the estimator's normal "
                                f"influence-function test, Holm over the five effects. Source: {src['effects']}"
                                + (f"; true effects: {src['truth']}" if "truth" in cols else "")
                                + f". {lab}.", digits={"p_holm": 4}, left=("effect", "estimable", "_verdict")))
        case = ("none (a label would rest on an effect that is not estimable)" if d.cases is None else d.cases)
        parts.append(f"<p>Cases (paper rule: the 95% CI excludes 0): <b>{_e(case)}</b>. Overlap: smallest "
                     f"effective sample size {cell_text(d.min_ess, 0)}, largest clipped share "
                     f"{cell_text(d.clipped_share, 3)}.</p>")
        if d.overlap_sentence():
            parts.append(f"<p><b>Warning:</b> {_e(d.overlap_sentence())}</p>")
    return "".join(parts)


def _precision(rep: AuditReport, lab: str) -> str:
    rows, cols = _verdict(rep, [r for d in rep.decompositions.values() for r in d.precision_records()],
                          {"attribute": "attribute", "effect": "effect", "half_width": "CI half-width", "se": "SE",
                           "n": "n", "target": "target half-width", "n_needed": "n needed"})
    return table_html(rows, cols,
                      f"n needed = (z·sd(φ)/target)², printed only for an effect that is estimable at this overlap "
                      f"(elsewhere the half-width does not shrink like 1/√n). Source: "
                      f"{rep.provenance.sources['precision']}. {lab}.", left=("attribute", "effect", "_verdict"))


def _source(section, fallback: str) -> str:
    """The source line a section's table carries (its ``source`` column), else ``fallback``."""
    t = section.table
    return str(t["source"].iloc[0]) if "source" in t.columns and len(t) else fallback


def _outcome(rep: AuditReport, lab: str, figures: bool) -> str:
    from popresume.plots.audit import ll144_figure

    parts = []
    if rep.ll144 is not None:
        src = _source(rep.ll144, "NYC LL144 (6 RCNY §5-301(b))")
        if figures:
            parts.append(figure_html(_figure(lambda f: ll144_figure(rep.ll144.table, figure=f)),
                                     f"LL144 impact ratios with simultaneous 95% CIs (grey: category under 2%, "
                                     f"excluded). Source: {src}. {lab}.", "impact ratios"))
        parts.append(table_html(*_verdict(rep, rep.ll144.to_json(),
                                          {"breakdown": "breakdown", "category": "category", "n": "n",
                                           "scoring_rate": "rate", "impact_ratio": "impact ratio", "ci_low": "CI low",
                                           "ci_high": "CI high", "excluded": "under 2%"}),
                                f"{rep.ll144.rate_text().capitalize()}; unknown categories counted, not "
                                f"rated. Source: {src}. {lab}.",
                                digits={"scoring_rate": 3, "impact_ratio": 3, "ci_low": 3, "ci_high": 3},
                                left=("breakdown", "category", "_verdict")))
    if rep.four_fifths is not None:
        parts.append(table_html(*_verdict(rep, rep.four_fifths.to_json(),
                                          {"breakdown": "breakdown", "category": "category", "n": "n",
                                           "selection_rate": "selection rate", "impact_ratio": "impact ratio",
                                           "ci_low": "CI low", "ci_high": "CI high", "four_fifths_ok": f"≥ {FOUR_FIFTHS:g}"}),
                                (f"Selection of the top {rep.four_fifths.select_top:.0%} of scores"
                                 if np.isfinite(rep.four_fifths.select_top) else "Selection as recorded")
                                + f". Source: {_source(rep.four_fifths, 'EEOC four-fifths rule (29 CFR 1607.4(D))')}. "
                                f"{lab}.",
                                digits={"selection_rate": 3, "impact_ratio": 3, "ci_low": 3, "ci_high": 3},
                                left=("breakdown", "category", "_verdict")))
    if rep.chance is not None:
        rows = [{"rule": r["rule"], "breakdown": r["breakdown"], "n": r["n"],
                 "observed_lowest_ratio": r["observed_lowest_ratio"], "flag": rep.chance.flag_text(r),
                 "p": rep.chance.p_text(r), "n_sim": r["n_sim"]} for _, r in rep.chance.table.iterrows()]
        parts.append(table_html(*_verdict(rep, rows, {"rule": "rule", "breakdown": "breakdown", "n": "n",
                                                      "observed_lowest_ratio": "lowest ratio",
                                                      "flag": f"chance of a flag (ratio < {FOUR_FIFTHS:g})",
                                                      "p": "chance of a ratio this low", "n_sim": "draws (0: exact)"}),
                                f"Chance baseline for each rule printed above (median_split: the LL144 table; "
                                f"selection_cut: the four-fifths table); exact for two categories, else from "
                                f"the draws, with the digits they support. "
                                f"Source: {_source(rep.chance, 'ours: the labels permuted')}. {lab}.",
                                digits={"observed_lowest_ratio": 3}, left=("rule", "breakdown", "_verdict")))
    if rep.disagreements is not None and len(rep.disagreements.table):
        rows = [{**r, "disagreement": r["disagreement"] or "none: they agree"} for r in rep.disagreements.to_json()]
        parts.append(table_html(*_verdict(rep, rows, {"attribute": "attribute", "four_fifths_flag": "four-fifths flag",
                                                      "lowest_selection_ratio": "lowest selection ratio",
                                                      "disagreement": "disagreement with the decomposition"}),
                                f"Outcome verdict beside the decomposition (paper rule: the CI excludes 0; an "
                                f"effect that is not estimable counts as not significant). {lab}.",
                                digits={"lowest_selection_ratio": 3}, left=("attribute", "disagreement", "_verdict")))
    return "".join(parts)


def _leakage(rep: AuditReport, lab: str) -> str:
    leak = rep.leakage
    parts = [f"<p>The same screener asked the three tasks of Beyond the Name on {leak['variants']} factorial "
             f"résumés from {leak['bases']} base résumés (judge {_e(leak['judge'])}): Task 1 recovers the "
             f"group a résumé signals, Task 2 judges a marked résumé against its cue-free baseline in both "
             f"orders under three tie regimes, Task 3 scores and shortlists.</p>"]
    parts.append(table_html(leak["headline"], {"quantity": "quantity", "published": "published", "ours": "ours",
                                               "ours_ci_low": "CI low", "ours_ci_high": "CI high", "note": "note"},
                            f"Headline quantities. Published: {leak['published_source']}. Ours: {leak['source']}. "
                            f"{lab}.", digits={"ours": 3, "ours_ci_low": 3, "ours_ci_high": 3},
                            left=("quantity", "published", "note")))
    parts.append(table_html(leak["selection_rate_ratios"], {"regime": "regime", "condition": "condition",
                                                            "ratio": "ratio vs Anglo", "ci_low": "CI low",
                                                            "ci_high": "CI high", "four_fifths_flag": f"< {FOUR_FIFTHS:g}",
                                                            "p_holm": "p (Holm)"},
                            f"Task 2 selection-rate ratios (ties count half). Source: {leak['source']}. "
                            f"{lab}.", digits={"ratio": 3, "ci_low": 3, "ci_high": 3, "p_holm": 4},
                            left=("regime", "condition")))
    parts.append(table_html(leak["score_differences"], {"condition": "condition", "difference": "minus Anglo",
                                                        "ci_low": "CI low", "ci_high": "CI high",
                                                        "p_holm": "p (Holm)"},
                            f"Task 3 mean score minus Anglo's (points of 100). Source: {leak['source']}. "
                            f"{lab}.", digits={"p_holm": 4}, left=("condition",)))
    parts.append(table_html(leak["top_score_rate"], {"condition": "condition", "paper_per_base":
                                                     "Top-Score Rate (paper, per base)", "ours_per_variant":
                                                     "ours, per variant", "variants_per_base": "variants per base"},
                            f"Task 3 Top-Score Rate: the paper's definition (any of the condition's variants on top "
                            f"of its base) beside ours (each variant on its own). Source: {leak['source']}. "
                            f"{lab}.", digits={"paper_per_base": 3, "ours_per_variant": 3,
                                                         "variants_per_base": 1}, left=("condition",)))
    c = leak["counts"]
    parts.append("<p>Replies: " + "; ".join(f"{k.replace('task', 'Task ')} {v['replies']:,} "
                                           f"({v['outside_schema']:,} outside the schema)" for k, v in c.items())
                 + ".</p>")
    return "".join(parts)


def _limitations(rep: AuditReport) -> str:
    return "<ul>" + "".join(f"<li>{_e(s)}</li>" for s in rep.limitations) + "</ul>"


def _run(rep: AuditReport) -> str:
    run = rep.run.extra
    parts = []
    if "timings" in run:
        parts.append(table_html([{"stage": k, "seconds": v} for k, v in run["timings"].items()],
                                {"stage": "stage", "seconds": "seconds"},
                                "Wall-clock seconds per stage of this run.", digits={"seconds": 1}, left=("stage",)))
    c = run.get("counts")
    if c is not None and "scored" in c:
        parts.append(f"<p>{c['n']:,} résumés: {c['scored']:,} with a score ({c['cached']:,} from the cache), "
                     f"{c['failed']:,} failed.</p>")
    if run.get("failures"):
        parts.append(table_html(run["failures"][:50], {"resume_id": "résumé", "raw": "reply or error"},
                                f"Failures (first {min(50, len(run['failures']))} of {len(run['failures'])}; all in "
                                f"report.json); never scored.", left=("resume_id", "raw")))
    if "columns" in run:
        parts.append(table_html([{"role": k, "column": v} for k, v in run["columns"].items()],
                                {"role": "role", "column": "column of the file"},
                                f"Columns read from {run.get('file')}.", left=("role", "column")))
    return "".join(parts)


def _omitted(rep: AuditReport, key: str) -> str:
    return f"<p>Not in this report: {_e(rep.omitted[key])}.</p>" if key in rep.omitted else ""


def render_body(rep: AuditReport, *, figures: bool = True) -> str:
    """The page's body: the header, the summary and every section the report has, numbered."""
    lab = f"Screener: {rep.label()}" if rep.provenance is not None else f"Ours, from {rep.run.subject}"
    parts = [_header(rep), _summary(rep)]
    sections: list[tuple[str, str]] = []
    if rep.validity is not None:
        sections.append(("Validity gate", _validity(rep, lab)))
    elif rep.recorded_validity is not None:
        sections.append(("Validity", _recorded_validity(rep, lab)))
    elif "validity" in rep.omitted:
        sections.append(("Validity", _omitted(rep, "validity")))
    if rep.decompositions:
        sections.append(("Decomposition of the score gap", _decomposition(rep, lab, figures)))
        sections.append(("Precision", _precision(rep, lab)))
    elif "decomposition" in rep.omitted:
        sections.append(("Decomposition of the score gap", _omitted(rep, "decomposition")))
    if rep.noise_floor is not None:
        sections.append(("Noise floor: run to run", _noise_floor(rep, lab)))
    elif "noise_floor" in rep.omitted:
        sections.append(("Noise floor", _omitted(rep, "noise_floor")))
    if rep.ll144 is not None or rep.four_fifths is not None:
        sections.append(("Outcome level: Local Law 144 and the four-fifths rule", _outcome(rep, lab, figures)))
    if rep.leakage:
        sections.append(("Beyond the Name: Tasks 1-3 (leakage)", _leakage(rep, lab)))
    sections.append(("Limitations", _limitations(rep)))
    sections.append(("Run", _run(rep)))
    for i, (title, html_) in enumerate(sections, 1):
        parts.append(f"<h2>{i}. {_e(title)}</h2>{html_}")
    return "\n".join(parts)


def render_html(rep: AuditReport) -> str:
    """The whole self-contained page for one report (see the module docstring)."""
    return PAGE.substitute(title=_e(rep.title()), css=CSS, body=render_body(rep))
