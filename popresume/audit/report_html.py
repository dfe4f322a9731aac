"""The audit report as one self-contained HTML file, laid out from ``report.json``'s dict.

:func:`render_html` takes the dict that :func:`popresume.audit.report_run.run_report` writes
as ``report.json`` and returns the page: figures are PNGs embedded as ``data:`` URIs, the
style sheet is inline, nothing is fetched (no script, no font, no CDN), and a print style
sheet keeps tables and figures whole on paper. Every table has a caption naming its source
and the screener that produced it.
"""

from __future__ import annotations

import base64
import html
import io
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from popresume.schema import PSE_NAMES

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


def fmt(v: Any, digits: int = 2) -> str:
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
        cells = "".join(f'<td class="{"l" if k in left else ""}">{_e(fmt(r.get(k), digits.get(k, 2)))}</td>'
                        for k in columns)
        body.append(f"<tr>{cells}</tr>")
    return (f"<table><caption>{_e(caption)}</caption><thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>")


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


def effects_figure(effects: Sequence[Mapping[str, Any]]):
    """Estimates with CIs per attribute and effect (true effects as crosses when known); a Figure."""
    from matplotlib.figure import Figure

    d = pd.DataFrame(list(effects))
    attrs = list(dict.fromkeys(d["attribute"]))
    fig = Figure(figsize=(4.2 * len(attrs), 2.9))
    axes = fig.subplots(1, len(attrs), squeeze=False)
    for ax, a in zip(axes[0], attrs):
        t = d[d["attribute"] == a].set_index("effect").reindex(list(PSE_NAMES))
        ypos = np.arange(len(t))[::-1]
        est = t["estimate"].to_numpy(float)
        err = np.vstack([est - t["ci_low"].to_numpy(float), t["ci_high"].to_numpy(float) - est])
        ax.errorbar(est, ypos, xerr=err, fmt="o", color="#1f5a94", capsize=3, label="estimate, 95% CI")
        truth = pd.to_numeric(t["truth"], errors="coerce").to_numpy(float)
        if np.isfinite(truth).any():
            ax.plot(truth, ypos, "x", color="#c0392b", ms=8, mew=2, label="true effect")
        ax.axvline(0, color="#888", lw=0.8)
        ax.set_yticks(ypos, list(t.index))
        ax.set_title(a)
        ax.set_xlabel("score points")
        ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    return fig


def ll144_figure(ll144: Sequence[Mapping[str, Any]]):
    """Impact ratios with CIs per category, the four-fifths line at 0.8; a Figure."""
    from matplotlib.figure import Figure

    d = pd.DataFrame(list(ll144))
    d = d[d["category"] != "unknown"].reset_index(drop=True)
    fig = Figure(figsize=(7.5, 0.32 * len(d) + 1.2))
    ax = fig.subplots()
    y = np.arange(len(d))[::-1]
    ir = d["impact_ratio"].to_numpy(float)
    lo, hi = d["ci_low"].to_numpy(float), d["ci_high"].to_numpy(float)
    colours = np.where(d["excluded"].astype(bool), "#aaaaaa", "#1f5a94")
    ax.hlines(y, lo, hi, color=colours)
    ax.scatter(ir, y, color=colours, zorder=3)
    ax.axvline(0.8, color="#c0392b", ls="--", lw=1, label="four-fifths (0.8)")
    ax.set_yticks(y, [f"{b}: {c}" for b, c in zip(d["breakdown"], d["category"])], fontsize=7)
    ax.set_xlabel("impact ratio (scoring rate / highest category's)")
    ax.legend(fontsize=7, loc="lower left")
    fig.tight_layout()
    return fig


def screener_label(identity: Mapping[str, Any]) -> str:
    return (f"{identity.get('screener_id')}: {identity.get('model')} · prompt {identity.get('prompt_hash')} · "
            f"scoring {identity.get('scoring')} · dialect {identity.get('dialect') or 'n/a'}")


def summary_items(report: Mapping[str, Any]) -> list[str]:
    """The report's summary: one sentence per finding a reader can act on."""
    out = []
    v = report["validity"]
    out.append(f"Validity gate: {v['verdict'].upper()}"
               + (f" ({'; '.join(v.get('reasons') or [])})." if v["verdict"] != "pass" else
                  ": the scores respond to the posting and the qualifications, and not to harmless edits.")
               + (" The audit was forced past the gate (--force): read the effects as those of a screener "
                  "that may not read résumés." if report["run"].get("forced") else ""))
    eff = pd.DataFrame(report["effects"])
    for attr, t in eff.groupby("attribute", sort=False):
        te = t[t["effect"] == "TE"].iloc[0]
        sig = [r["effect"] for _, r in t.iterrows() if pd.notna(r["p_holm"]) and r["p_holm"] < 0.05]
        case = report["decomposition"][attr]["cases"]
        total = "–" if pd.isna(te["estimate"]) else format(te["estimate"], "+.2f")
        out.append(f"{attr}: total effect {total} points [{fmt(te['ci_low'])}, {fmt(te['ci_high'])}]; "
                   f"Holm-adjusted p < 0.05 (normal influence-function test, five effects): "
                   f"{', '.join(sig) if sig else 'none'}; cases (paper rule: bootstrap CI excludes 0, unadjusted): "
                   f"{case}.")
    for row in report["chance_baseline"]:
        if row["observed_lowest_ratio"] is None:  # e.g. every score the same: no category scores above the median
            out.append(f"LL144 {row['breakdown']}: no impact ratio (no category scores above the sample median).")
            continue
        flags = fmt(None if row["flag_rate"] is None else 100 * row["flag_rate"], 1)
        out.append(f"LL144 {row['breakdown']}: lowest impact ratio {row['observed_lowest_ratio']:.3f}; a screener "
                   f"that ignores the attribute falls under 0.8 in {flags}% of permutations at this n "
                   f"(permutation p = {fmt(row['p_perm'], 3)}).")
    for d in report["disagreements"]:
        if d.get("disagreement"):
            out.append(f"{d['attribute']}: the outcome-level verdict and the decomposition disagree — "
                       f"{d['disagreement']}.")
    leak = report.get("leakage")
    if leak:
        head = {r["quantity"]: r for r in leak["headline"]}
        rec = head.get("overall recovery rate (T1-T3)")
        worst = next((r for q, r in head.items() if q.startswith("lowest group selection-rate ratio")), None)

        def ci(r, spec):  # a CI is null where every bootstrap draw is the same (one base)
            lo, hi = r["ours_ci_low"], r["ours_ci_high"]
            return "" if lo is None or hi is None else f" [{lo:{spec}}, {hi:{spec}}]"

        out.append("Leakage (Beyond the Name, same screener): "
                   + (f"it recovers the group of {rec['ours']:.1%} of marked résumés{ci(rec, '.1%')} (published, "
                      f"nine LLMs: {rec['published']})" if rec and rec["ours"] is not None else "no recovery rate")
                   + (f"; lowest forced-choice selection-rate ratio vs Anglo {worst['ours']:.2f}{ci(worst, '.2f')} "
                      f"({worst['note']})" if worst and worst["ours"] is not None else "")
                   + ".")
    prec = pd.DataFrame(report["precision"])
    if len(prec):
        worst = prec.loc[prec["n_needed"].idxmax()]
        out.append(f"Precision: the widest effect ({worst['attribute']} {worst['effect']}) has half-width "
                   f"{worst['half_width']:.2f} points at n = {int(worst['n']):,}; a half-width of "
                   f"{worst['target']:g} needs n ≈ {int(worst['n_needed']):,}.")
    return out


def render_html(report: Mapping[str, Any]) -> str:
    """The whole page for one report dict (see the module docstring)."""
    ident = report["screener"]
    lab = screener_label(ident)
    run = report["run"]
    parts = [f"<h1>Audit report: {_e(ident.get('screener_id'))} ({_e(ident.get('model'))})</h1>",
             f'<p class="meta">Screener: {_e(lab)}<br>Occupation: {_e(run["occupation"])} · format '
             f'{_e(run["format"])} · n = {run["counts"]["n"]:,} résumés · seed {run["seed"]} · population: '
             f'{_e(run["population"])}</p>']
    parts.append("<h2>Summary</h2><ul class=\"summary\">"
                 + "".join(f"<li>{_e(s)}</li>" for s in summary_items(report)) + "</ul>")

    v = report["validity"]
    parts.append("<h2>1. Validity gate</h2>")
    parts.append(f'<p>Verdict: <span class="verdict-{_e(v["verdict"])}">{_e(v["verdict"].upper())}</span>. '
                 f'Rule: {_e(v.get("rule", ""))}</p>')
    parts.append(table_html(v["checks"], {"check": "check", "estimate": "mean change", "ci_low": "95% CI low",
                                          "ci_high": "95% CI high", "mean_abs": "mean |change|", "n_pairs": "pairs"},
                            f"Validity card, {v.get('n_profiles')} résumés over five occupations, parse rate "
                            f"{fmt(v.get('parse_rate'), 3)}. Source: {report['sources']['validity']}. Screener: {lab}.",
                            left=("check",)))

    parts.append("<h2>2. Decomposition of the score gap</h2>")
    parts.append(figure_html(_png(effects_figure(report["effects"])),
                             f"Path-specific effects (score points; positive favours x1) with 95% CIs. Source: "
                             f"{report['sources']['effects']}. Screener: {lab}.", "effects with confidence intervals"))
    for attr, dec in report["decomposition"].items():
        rows = [r for r in report["effects"] if r["attribute"] == attr]
        cols = {"effect": "effect", "estimate": "estimate", "ci_low": "CI low", "ci_high": "CI high",
                "p_holm": "p (Holm)"}
        if any(r["truth"] is not None for r in rows):
            cols["truth"] = "true effect"
        parts.append(f"<h3>{_e(attr)}: x0 = {_e(dec['x0'])}, x1 = {_e(dec['x1'])}</h3>")
        parts.append(table_html(rows, cols, f"{attr}: n = {dec['n']:,}, {dec['ci_method']}; Holm over the five "
                                f"effects. Source: {report['sources']['effects']}"
                                + (f"; true effects: {report['sources']['truth']}" if "truth" in cols else "")
                                + f". Screener: {lab}.", digits={"p_holm": 4}, left=("effect",)))
        parts.append(f"<p>Cases (paper rule): <b>{_e(dec['cases'])}</b>. Overlap: smallest effective sample size "
                     f"{fmt(dec['min_ess'], 0)}, largest clipped share {fmt(dec['clipped_share'], 3)}.</p>")
        for w in dec["warnings"]:
            parts.append(f"<p><b>Warning:</b> {_e(w)}</p>")

    parts.append("<h2>3. Precision</h2>")
    parts.append(table_html(report["precision"], {"attribute": "attribute", "effect": "effect",
                                                  "half_width": "CI half-width", "se": "SE", "n": "n",
                                                  "target": "target half-width", "n_needed": "n needed"},
                            f"n needed = (z·sd(φ)/target)². Source: {report['sources']['precision']}. Screener: {lab}.",
                            left=("attribute", "effect")))

    parts.append("<h2>4. Outcome level: Local Law 144 and the four-fifths rule</h2>")
    parts.append(figure_html(_png(ll144_figure(report["ll144"])),
                             f"LL144 impact ratios with 95% bootstrap CIs (grey: category under 2%, excluded). "
                             f"Source: {report['sources']['ll144']}. Screener: {lab}.", "impact ratios"))
    parts.append(table_html(report["ll144"], {"breakdown": "breakdown", "category": "category", "n": "n",
                                              "scoring_rate": "scoring rate", "impact_ratio": "impact ratio",
                                              "ci_low": "CI low", "ci_high": "CI high", "excluded": "under 2%"},
                            f"Scoring rate = share above the sample median; unknown categories counted, not rated. "
                            f"Source: {report['sources']['ll144']}. Screener: {lab}.",
                            digits={"scoring_rate": 3, "impact_ratio": 3, "ci_low": 3, "ci_high": 3},
                            left=("breakdown", "category")))
    parts.append(table_html(report["four_fifths"], {"breakdown": "breakdown", "category": "category", "n": "n",
                                                    "selection_rate": "selection rate", "impact_ratio": "impact ratio",
                                                    "four_fifths_ok": "≥ 0.8"},
                            f"Selection of the top {report['run']['select_top']:.0%} of scores. Source: "
                            f"{report['sources']['four_fifths']}. Screener: {lab}.",
                            digits={"selection_rate": 3, "impact_ratio": 3}, left=("breakdown", "category")))
    parts.append(table_html(report["chance_baseline"], {"breakdown": "breakdown", "observed_lowest_ratio":
                                                        "lowest ratio", "flag_rate": "chance of a flag",
                                                        "p_perm": "permutation p", "n_sim": "permutations"},
                            f"Chance baseline at n = {report['run']['counts']['scored']:,}. Source: "
                            f"{report['sources']['chance']}. Screener: {lab}.",
                            digits={"observed_lowest_ratio": 3, "flag_rate": 3, "p_perm": 3}, left=("breakdown",)))
    parts.append(table_html(report["disagreements"], {"attribute": "attribute", "four_fifths_flag": "four-fifths flag",
                                                      "lowest_selection_ratio": "lowest selection ratio",
                                                      "disagreement": "disagreement with the decomposition"},
                            f"Outcome verdict beside the decomposition (CI excludes 0). Screener: {lab}.",
                            digits={"lowest_selection_ratio": 3}, left=("attribute", "disagreement")))

    leak = report.get("leakage")
    if leak:
        parts.append("<h2>Beyond the Name: Tasks 1-3 (leakage)</h2>")
        parts.append(f"<p>The same screener asked the three tasks of Beyond the Name on {leak['variants']} factorial "
                     f"résumés from {leak['bases']} base résumés (judge {_e(leak['judge'])}): Task 1 recovers the "
                     f"group a résumé signals, Task 2 judges a marked résumé against its cue-free baseline in both "
                     f"orders under three tie regimes, Task 3 scores and shortlists.</p>")
        parts.append(table_html(leak["headline"], {"quantity": "quantity", "published": "published", "ours": "ours",
                                                   "ours_ci_low": "CI low", "ours_ci_high": "CI high", "note": "note"},
                                f"Headline quantities. Published: {leak['published_source']}. Ours: {leak['source']}. "
                                f"Screener: {lab}.", digits={"ours": 3, "ours_ci_low": 3, "ours_ci_high": 3},
                                left=("quantity", "published", "note")))
        parts.append(table_html(leak["selection_rate_ratios"], {"regime": "regime", "condition": "condition",
                                                                "ratio": "ratio vs Anglo", "ci_low": "CI low",
                                                                "ci_high": "CI high", "four_fifths_flag": "< 0.8",
                                                                "p_holm": "p (Holm)"},
                                f"Task 2 selection-rate ratios (ties count half). Source: {leak['source']}. "
                                f"Screener: {lab}.", digits={"ratio": 3, "ci_low": 3, "ci_high": 3, "p_holm": 4},
                                left=("regime", "condition")))
        parts.append(table_html(leak["score_differences"], {"condition": "condition", "difference": "minus Anglo",
                                                            "ci_low": "CI low", "ci_high": "CI high",
                                                            "p_holm": "p (Holm)"},
                                f"Task 3 mean score minus Anglo's (points of 100). Source: {leak['source']}. "
                                f"Screener: {lab}.", digits={"p_holm": 4}, left=("condition",)))
        parts.append(table_html(leak["top_score_rate"], {"condition": "condition", "paper_per_base":
                                                         "Top-Score Rate (paper, per base)", "ours_per_variant":
                                                         "ours, per variant", "variants_per_base": "variants per base"},
                                f"Task 3 Top-Score Rate: the paper's definition (any of the condition's variants on top "
                                f"of its base) beside ours (each variant on its own). Source: {leak['source']}. "
                                f"Screener: {lab}.", digits={"paper_per_base": 3, "ours_per_variant": 3,
                                                             "variants_per_base": 1}, left=("condition",)))
        c = leak["counts"]
        parts.append("<p>Replies: " + "; ".join(f"{k.replace('task', 'Task ')} {v['replies']:,} "
                                               f"({v['outside_schema']:,} outside the schema)" for k, v in c.items())
                     + ".</p>")

    parts.append("<h2>5. Limitations</h2><ul>" + "".join(f"<li>{_e(s)}</li>" for s in report["limitations"]) + "</ul>")

    parts.append("<h2>6. Run</h2>")
    t = run["timings"]
    parts.append(table_html([{"stage": k, "seconds": v} for k, v in t.items()],
                            {"stage": "stage", "seconds": "seconds"},
                            "Wall-clock seconds per stage of this run.", digits={"seconds": 1}, left=("stage",)))
    c = run["counts"]
    parts.append(f"<p>{c['n']:,} résumés: {c['scored']:,} with a score ({c['cached']:,} from the cache), "
                 f"{c['failed']:,} failed.</p>")
    if run["failures"]:
        parts.append(table_html(run["failures"][:50], {"resume_id": "résumé", "raw": "reply or error"},
                                f"Failures (first {min(50, len(run['failures']))} of {len(run['failures'])}; all in "
                                f"report.json); never scored.", left=("resume_id", "raw")))
    body = "\n".join(parts)
    title = _e(f"Audit report: {ident.get('screener_id')} ({ident.get('model')})")
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
            f"<style>{CSS}</style></head><body>\n{body}\n</body></html>\n")
