# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # One screener, one command: the audit report
#
# **What you will learn**
#
# - how `popresume audit --screener SPEC --occupation OCC --n N --report DIR` runs a whole
#   audit of one screener and writes a self-contained `report.html` and a `report.json`;
# - what such a report holds that a Local Law 144 bias audit does not: the validity gate,
#   the causal decomposition with Holm-adjusted tests and the cases C1–C5, the precision of
#   every effect (and the n a narrower interval would need), and a chance baseline for the
#   impact ratios;
# - how to read the outcome-level numbers (scoring rates, impact ratios, the four-fifths
#   comparison) beside the decomposition, and where they disagree.
#
# Chapter 9 ran a grid of audits; an auditor hired for one screener wants one document.
# The command does, in order: a **probe** of a few résumés (seconds per résumé, tokens per
# request, expected durations; `--dry-run` stops there), the **validity gate** (a fail stops
# the audit unless `--force`), the **population, résumés and scores** (through the score
# cache, so an interrupted run resumes), the **decomposition** for each attribute, the
# **outcome level** as LL144 asks for it, and the **report**.
#
# This chapter runs it on the *synthetic* screener, whose scores are a known function of
# the profile, so that the true effects stand beside the estimates. The synthetic screener
# ignores the job posting, so it *fails* the validity gate: the chapter forces the audit,
# and the report says so in its summary and its limitations. With a real model the command
# is the same, e.g. `--screener openai:MODEL@http://127.0.0.1:8080/v1`.
#
# The parameters: the `screener` spec, the `occupation`, the number of résumés `n`, the
# bootstrap draws `n_boot`, the validity card's size `card_n`, whether to tune the nuisance
# models (`tune`) and the `seed`.

# %% tags=["parameters"]
screener = "synthetic"
occupation = "accountant"
n = 800
n_boot = 200
card_n = 10
tune = False
seed = 0

# %%
import tempfile
from pathlib import Path

import pandas as pd
from IPython.display import Image, display

from popresume.audit import report_html as H
from popresume.audit.report_run import run_report, write_report
from popresume.plots.tables import labelled

folder = Path(tempfile.mkdtemp(prefix="audit-report-"))
report = run_report(screener, occupation=occupation, n=n, n_boot=n_boot, card_n=card_n, tune=tune, seed=seed,
                    force=True, progress=False, echo=print)
html_path, json_path = write_report(report, folder / "report")
print(f"wrote {html_path.name} ({html_path.stat().st_size / 1e3:.0f} kB, figures embedded) and {json_path.name}")

# %% [markdown]
# The lines above are what the command prints: the probe's estimate of the time, the
# gate's verdict and the scoring summary. The same run from the command line (with the
# chapter's parameters; the command's defaults are 500 bootstrap draws, a 40-résumé card and
# tuned nuisance models):
#
# ```bash
# popresume audit --screener synthetic --occupation accountant --n 800 --report report/ --force \
#     --n-boot 200 --card-n 10 --no-tune
# ```
#
# `--leakage` adds Beyond the Name's three tasks for the same screener (a screener that can
# answer them: a generative model over an OpenAI-compatible server, or the embedding model);
# the synthetic screener answers none, so the command refuses `--leakage` for it before any
# work.
#
# ## The summary
#
# The report opens with a summary a reader can act on, one sentence per finding, each
# computed from the numbers below it.

# %%
for line in H.summary_items(report):
    print("•", line)

# %% [markdown]
# ## The decomposition, with the truth beside it
#
# For each attribute the five path-specific effects (score points; positive favours the
# comparison level x1: men, White applicants) with their 95% CIs, the Holm-adjusted
# p-values over the five effects, and, because the screener is synthetic, the true effect
# on this population. Crosses are the truth.

# %%
ident = H.screener_label(report["screener"])
display(Image(H.figure_png(H.effects_figure(report["effects"]))))
eff = pd.DataFrame(report["effects"])[["attribute", "effect", "estimate", "ci_low", "ci_high", "p_holm", "truth"]]
eff["covered"] = (eff["ci_low"] <= eff["truth"]) & (eff["truth"] <= eff["ci_high"])
labelled(eff.round(3), f"ours: {ident}. Effects: {report['sources']['effects']}; truth: {report['sources']['truth']}")

# %% [markdown]
# A small synthetic population makes the weak spots visible: the first name nearly
# reveals gender, so the propensity of X given the redlining mediators is often clipped and
# the direct and indirect effects are wide. The report turns those facts into warnings and
# limitations rather than hiding them:

# %%
overlap = pd.DataFrame([{"attribute": a, "cases (paper rule)": d["cases"], "min ESS": d["min_ess"],
                         "clipped share": d["clipped_share"], "warnings": len(d["warnings"])}
                        for a, d in report["decomposition"].items()])
labelled(overlap.round(3), f"ours: {ident}. Cases C1-C5 (paper rule) and overlap diagnostics of the estimator")

# %% [markdown]
# ## Precision: what a larger run would buy
#
# Each effect's influence values φ give its standard error, sd(φ)/√n, so the n at which the
# 95% interval would have a half-width of 0.5 points is (1.96·sd(φ)/0.5)². An auditor reads
# this table *before* paying for a larger run.

# %%
prec = pd.DataFrame(report["precision"])[["attribute", "effect", "half_width", "n", "target", "n_needed"]]
labelled(prec.round(2), f"ours: {ident}. CI half-width achieved and n needed, from the influence-function variance")

# %% [markdown]
# ## The outcome level: what Local Law 144 asks for, and a chance baseline
#
# LL144 audits of a scoring tool publish the *scoring rate* (the share above the sample
# median) and the *impact ratio* (a category's rate over the highest one's) by sex, by
# race/ethnicity and by their intersection. The report adds a bootstrap CI to each ratio and
# flags categories under 2% of the sample.

# %%
display(Image(H.figure_png(H.ll144_figure(report["ll144"]))))
ll = pd.DataFrame(report["ll144"])[["breakdown", "category", "n", "scoring_rate", "impact_ratio", "ci_low",
                                    "ci_high", "excluded"]]
labelled(ll.round(3), f"ours: {ident}. {report['sources']['ll144']}")

# %% [markdown]
# An impact ratio under 0.8 is not evidence by itself: at a few hundred résumés a small
# intersection falls under 0.8 by chance. The chance baseline keeps the observed scores,
# permutes the sex and race labels (a screener that ignores them) and counts how often the
# lowest ratio falls under 0.8 at this n.

# %%
chance = pd.DataFrame(report["chance_baseline"])[["breakdown", "observed_lowest_ratio", "flag_rate", "p_perm"]]
labelled(chance.round(3), f"ours: {ident}. Chance baseline: the observed scores with the sex and race labels permuted")

# %% [markdown]
# Finally the report sets the four-fifths verdict beside the decomposition and names any
# disagreement (a flag with no significant effect, a missed direct or redlining effect):

# %%
dis = pd.DataFrame(report["disagreements"])
labelled(dis.round(3), f"ours: {ident}. Four-fifths verdict (top 25% selected) beside the decomposition "
                       "(CI excludes 0)")

# %% [markdown]
# ## Limitations, written from the run
#
# The last section of the report is generated from the facts of this run: the gate's
# verdict, the overlap warnings, the synthetic population and the independences it
# assumes, and the screener's identity.

# %%
for line in report["limitations"]:
    print("•", line)

# %% [markdown]
# `report.json` holds every number shown here (keys `validity`, `effects`, `ll144`,
# `precision`, `run`, ...); `report.html` opens offline, with its figures embedded, and
# prints to PDF from any browser.
