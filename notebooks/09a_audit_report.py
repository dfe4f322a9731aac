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
#   comparison) beside the decomposition, and where they disagree;
# - why, on this population, the direct effect of gender is not estimable at this overlap: the
#   first name nearly reveals gender, so "gender changed, name kept" has almost no applicants
#   behind it.
#
# Chapter 9 ran a grid of audits; an auditor hired for one screener wants one document.
# The command does, in order: a **probe** of a few résumés (seconds per résumé, tokens per
# request, expected durations; `--dry-run` stops there), the **validity gate** (a fail stops
# the audit unless `--force`), the **population, résumés and scores** (through the score
# cache, so an interrupted run resumes), the **decomposition** for each attribute, the
# **outcome level** as LL144 asks for it, and the **report**.
#
# This chapter runs it on the *synthetic* screener, whose scores are a known function of
# the profile, so that the true effects stand beside the estimates. It reads the job
# posting through a job-fit term (a résumé read against another occupation's posting loses
# points) and rises with education and experience, so it passes the validity gate and the
# audit runs on without `--force`; the report still says, in its limitations, that the
# screener is synthetic. With a real model the command is the same, e.g.
# `--screener openai:MODEL@http://127.0.0.1:8080/v1`.
#
# The parameters: the `screener` spec, the `occupation`, the number of résumés `n`, the
# bootstrap draws `n_boot`, the validity card's size `card_n`, whether to tune the nuisance
# models (`tune`), the SE of the intervals (`variance`: `"jackknife"`, the default, refits the
# estimator ten times; `"influence"` does not) and the `seed`.

# %% tags=["parameters"]
screener = "synthetic"
occupation = "accountant"
n = 800
n_boot = 200
card_n = 10
tune = False
variance = "jackknife"
seed = 0

# %%
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from popresume.audit.report_run import ReportRequest, load_population, run_report, write_report
from popresume.grouping import add_groups
from popresume.plots.audit import effects_by_attribute, ll144_figure
from popresume.tables import labelled
from popresume.schema import VERDICT_COLUMN

folder = Path(tempfile.mkdtemp(prefix="audit-report-"))
request = ReportRequest(screener, occupation=occupation, n=n, n_boot=n_boot, card_n=card_n, tune=tune,
                        variance=variance, seed=seed)
report = run_report(request, progress=False, echo=print)
html_path, json_path = write_report(report, folder / "report")
print(f"wrote {html_path.name} ({html_path.stat().st_size / 1e3:.0f} kB, figures embedded) and {json_path.name}")

# %% [markdown]
# The lines above are what the command prints: the probe's estimate of the time, the
# gate's verdict and the scoring summary. The same run from the command line (with the
# chapter's parameters; the command's defaults are 500 bootstrap draws, a 40-résumé card and
# tuned nuisance models):
#
# ```bash
# popresume audit --screener synthetic --occupation accountant --n 800 --report report/ \
#     --n-boot 200 --card-n 10 --no-tune
# ```
#
# `--leakage` adds Beyond the Name's three tasks for the same screener (a screener that can
# answer them: a generative model over an OpenAI-compatible server, or the embedding model);
# the synthetic screener answers none, so the command refuses `--leakage` for it before any
# work. `popresume audit --decisions FILE --report DIR` writes the same report for a file of
# decisions an auditor recorded (the outcome-level sections only: a file of decisions has no
# population model to decompose).
#
# In Python, `run_report` returns an `AuditReport`: a typed object whose sections (validity,
# one decomposition per attribute, LL144, four-fifths, chance, limitations) each own their
# table. `write_report` writes its page and its JSON; in a notebook the object shows itself
# as a page.
#
# ## The summary
#
# The report opens with a summary a reader can act on, one sentence per finding, each
# computed from the numbers below it. Each claim names the one significance standard it
# rests on.

# %%
for line in report.summary():
    print("•", line)

# %% [markdown]
# ## The decomposition, with the truth beside it
#
# For each attribute the five path-specific effects (score points; positive favours the
# comparison level x1: men, White applicants) with their 95% CIs, the Holm-adjusted
# p-values over the five effects, whether the estimator calls the effect estimable at this
# overlap, and, because the screener is synthetic, the true effect on this population.
# Crosses are the truth.

# %% mystnb={"figure": {"caption": "Ours, the synthetic screener (a known-truth device; its verdict is in the tables): the audit's five effects by attribute, with 95% CIs where an effect is estimable, and the true values as crosses."}}
ident = report.label()
verdict = report.verdict()  # every table of effects or decisions carries the screener's verdict
fig = effects_by_attribute({a: d.effects for a, d in report.decompositions.items()})
plt.show()

# %%
rows = []
for attr, d in report.decompositions.items():
    for effect, r in d.effects.iterrows():
        # ci_low / ci_high: the table helper shows each estimate above its interval, in one cell
        rows.append({"attribute": attr, "effect": effect, "estimate": r["estimate"], "ci_low": r["ci_low"],
                     "ci_high": r["ci_high"], "truth": r["truth"],
                     "truth inside the CI": ("–" if pd.isna(r["ci_low"]) else
                                             "yes" if r["ci_low"] <= r["truth"] <= r["ci_high"] else "no"),
                     "estimable": "yes" if r["estimable"] else "no", VERDICT_COLUMN: verdict})
labelled(pd.DataFrame(rows).round(2), f"ours: {ident}. Estimates: {report.provenance.sources['effects']}; "
                                       f"truth: {report.provenance.sources['truth']}", precision=2)

# %% [markdown]
# ## Why the direct effect of gender is not estimable here
#
# The direct effect compares a man with a woman who keeps the man's mediators: his
# education and experience, and his *first name*. The estimator can only learn that
# comparison from applicants who exist: women with a name most often given to boys, men with
# a name most often given to girls. In this population the first name nearly reveals gender:

# %%
profiles, population = load_population(occupation, n, seed=seed)
profiles = add_groups(profiles)
print(population)
support = pd.crosstab(profiles["gender"].map({"F": "women", "M": "men"}),
                      profiles["fn_gender"].map(lambda g: f"first name typical of: {g}"))
labelled(support, f"ours: the {n:,} synthetic {occupation} applicants of this audit, by gender and the "
                  "gender-typicality of the first name (Appendix C.4 grouping)")

# %% [markdown]
# (The applicants are drawn by `popresume.population`: the print-out above names the source of
# their experience, P2, as the report's run section does.)
#
# Almost every man has a male-typical name and almost every woman a female-typical one, so
# "gender changed, name kept" rests on a handful of applicants. The estimator's weights for
# that comparison divide by the propensity of being a man given the name, which is close to
# 0 or 1; it clips those propensities at 0.01 and 0.99 to keep the variance finite, and the
# clipping adds a bias that the interval does not know about. More data does not help: the
# handful grows in proportion, and the bias stays. This is why the report calls such an
# effect *not estimable* at this overlap (no interval presented as valid, no case label that
# rests on it), and why the overlap numbers stand beside the effects:

# %%
overlap = pd.DataFrame([{"attribute": a, "cases (paper rule)": d.cases if d.cases is not None else "none (rests on "
                         "an effect that is not estimable)", "smallest effective sample size": d.min_ess,
                         "largest clipped share": d.clipped_share,
                         "not estimable": ", ".join(d.not_estimable()) or "none", VERDICT_COLUMN: verdict}
                        for a, d in report.decompositions.items()])
labelled(overlap.round({"smallest effective sample size": 0}).round(3), f"ours: {ident}. Cases C1-C5 (paper rule) and overlap diagnostics of the estimator")

# %% [markdown]
# The table says the same for each attribute in its own numbers. The surname hints at race
# less sharply than the first name at gender, but the estimator's weights for race also
# divide by propensities given the surname, the region and the qualifications, and at a few
# hundred applicants some combinations of them are held by applicants of one race only: a
# few per cent of those propensities reach the clipping bounds, and the rule withholds the
# paths that rest on them, for the same reason of support as gender's, though a milder one
# (the exercise below shows what more applicants do to each). Where an effect is not
# estimable, the report still shows its point estimate beside the truth (the figure above),
# and nothing else: no interval, no p-value, no case label.
# Chapter 10a shows an honest alternative: a coarser name grouping trades the path's
# resolution for support.
#
# ## Precision: what a larger run would buy
#
# A 95% interval of half-width $h$ at $n$ résumés shrinks like $1/\sqrt{n}$, so the n at which
# it would have a half-width of 0.5 points is $n\,(h/0.5)^2$ (the interval is the report's own,
# the jackknife's). This projection holds only where the half-width does shrink like
# 1/√n, i.e. where the effect is estimable; the report leaves it blank elsewhere. An auditor reads this table *before* paying for a larger
# run.

# %%
prec = pd.DataFrame([r for d in report.decompositions.values() for r in d.precision_records()])
prec = prec[["attribute", "effect", "half_width", "n", "target", "n_needed"]].assign(**{VERDICT_COLUMN: verdict})
labelled(prec.round(2), f"ours: {ident}. CI half-width achieved and n needed, projected as 1/√n")

# %% [markdown]
# ## The outcome level: what Local Law 144 asks for, and a chance baseline
#
# LL144 audits of a scoring tool publish the *scoring rate* (the share above the sample
# median) and the *impact ratio* (a category's rate over the highest one's) by sex, by
# race/ethnicity and by their intersection. The report adds a CI to each ratio (they hold for
# every category at once, whichever is truly the most selected: `popresume.ll144`) and flags
# categories under 2% of the sample.

# %% mystnb={"figure": {"caption": "Ours, the synthetic screener: LL144 impact ratios by sex, race and sex × race, with simultaneous 95% CIs; the dashed line is the four-fifths threshold."}}
fig = ll144_figure(report.ll144.table)
plt.show()

# %%
ll = report.ll144.table[["breakdown", "category", "n", "scoring_rate", "impact_ratio", "ci_low", "ci_high",
                         "excluded"]].rename(columns={"excluded": "under 2%"}).assign(**{VERDICT_COLUMN: verdict})
labelled(ll.round(3), f"ours: {ident}. {report.provenance.sources['ll144']}")

# %% [markdown]
# An impact ratio under 0.8 is not evidence by itself: at a few hundred résumés a small
# intersection falls under 0.8 by chance. The chance baseline asks how a screener that
# ignores sex and race would fare at these group sizes (the labels permuted over the
# résumés: a hypergeometric draw of who is selected), for each rule the report prints: the
# LL144 median split and the four-fifths selection cut (the top 25%). It gives the chance
# that such a screener is flagged (lowest ratio under 0.8) and the chance that its lowest
# ratio is as low as the one observed; exact for two categories, from 1,000 draws otherwise,
# with only the digits the draws support (`< 0.001` when no draw reached it).

# %%
rule_words = {"median_split": "LL144: above the median", "selection_cut": "four-fifths: top 25%"}
chance = pd.DataFrame([{"rule": rule_words.get(r["rule"], r["rule"]), "breakdown": r["breakdown"], "lowest ratio": r["observed_lowest_ratio"],
                        "chance of a flag": report.chance.flag_text(r), "chance of a ratio this low":
                        report.chance.p_text(r), VERDICT_COLUMN: verdict}
                       for _, r in report.chance.table.iterrows()])
labelled(chance.round(3), f"ours: {ident}. Chance baseline: the observed scores with the sex and race labels "
                          "permuted")

# %% [markdown]
# Finally the report sets the four-fifths verdict beside the decomposition and names any
# disagreement (a flag with no significant effect, a missed direct or redlining effect):

# %%
dis = report.disagreements.table[["attribute", "four_fifths_flag", "lowest_selection_ratio", "disagreement"]].copy()
dis["disagreement"] = dis["disagreement"].replace("", "none: they agree")
dis["four_fifths_flag"] = dis["four_fifths_flag"].map({True: "yes", False: "no"})
dis[VERDICT_COLUMN] = verdict
labelled(dis.round(3), f"ours: {ident}. Four-fifths verdict (top 25% selected) beside the decomposition "
                       "(paper rule: the CI excludes 0)")

# %% [markdown]
# ## Limitations, written from the run
#
# The last section of the report is generated from the facts of this run: the gate's
# verdict, the overlap, the synthetic population and the independences it assumes, and the
# screener's identity.

# %%
for line in report.limitations:
    print("•", line)

# %% [markdown]
# `report.json` holds every number shown here (keys `validity`, `effects`, `ll144`,
# `chance_baseline`, `precision`, `run`, ...); `report.html` opens offline, with its figures
# embedded, and prints to PDF from any browser.
#
# ## Exercises
#
# :::{exercise}
# :label: ex-09a-gender-nde
#
# Re-execute the chapter with four times the applicants
# (`popresume book run notebooks/09a_audit_report.py -p n 3200`). Does the gender direct
# effect become estimable? And race's? By how much does the total effect's interval shrink?
# :::
#
# :::{solution} ex-09a-gender-nde
# :class: dropdown
#
# The gender direct effect stays not estimable: the share of men with a female-typical
# first name (and of women with a male-typical one) does not grow with n, so the clipped
# share of the propensities stays where it was, and so does the bias that clipping adds.
# Race's paths come back: at 800 applicants a few per cent of its propensities are clipped
# (combinations of surname, region and qualifications held by applicants of one race only);
# at 3,200 those combinations fill in, almost none is clipped, and the weights carry enough
# effective rows, so its five effects get intervals. They are wide: this chapter's nuisance
# models are not tuned (`tune = False`, for speed); with the command's default, tuned models
# the audit of 3,000 accountants (seed 0) reports race's five effects with narrower
# intervals, each covering the synthetic screener's truth. The total effect, which holds no
# mediator fixed, narrows like $1/\sqrt{n}$: by about half at four times the applicants.
# :::
#
# :::{exercise}
# :label: ex-09a-decisions
#
# Write a CSV with columns `sex`, `race` and `score` in which men score 5 points more, and
# audit it with `popresume audit --decisions FILE --report DIR`. Which sections of the
# report are there, which are missing, and why?
# :::
#
# :::{solution} ex-09a-decisions
# :class: dropdown
#
# The LL144 table (with CIs, the under-2% flags and the unknown counts), the four-fifths
# table and the chance baseline at both rules are there; the sex ratio falls under 0.8 with
# a permutation p-value far below the chance of a flag. There is no validity gate (the file
# has no job or fit column) and no decomposition: path-specific effects need the population
# model of how sex reaches the qualifications and the names, which a file of decisions does
# not carry. The report says both in its summary.
# :::
