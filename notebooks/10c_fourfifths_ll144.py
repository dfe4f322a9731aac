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
# # Four-fifths and Local Law 144 against the decomposition
#
# **What you will learn**
#
# - how the four-fifths rule {cite}`uniformguidelines1978` and the impact ratios of New
#   York City's Local Law 144 {cite}`nyc2021ll144` read the same scores as the causal
#   decomposition of {cite}`yu2026popresume`;
# - where the two disagree, classified with one stated significance standard (Holm over
#   all of the grid's tests), with the uncorrected count shown beside it;
# - why a disagreement that rests on an artefact of the estimator is not a missed finding;
# - how sure an impact ratio is when the best group is itself uncertain, and how often a
#   screener that ignores sex and race would be flagged anyway, under each rule.
#
# The parameters cell sets the audit grid of Chapter 9 (`config_file`, `sizes`,
# `n_boot_grid`, `occupations`, `seed`: with the same values its results come from the
# cache), the shortlist share `select_top` of the four-fifths rule and the `occupation`
# whose LL144 table is shown.

# %% tags=["parameters"]
config_file = "default_audit.yaml"
sizes = 400
n_boot_grid = 500
occupations = "all"
occupation = "software_developer"
select_top = 0.25
seed = 0

# %%
import matplotlib.pyplot as plt
import pandas as pd

from popresume import ll144
from popresume.audit import summaries
from popresume.audit.chapters import grid_chapter
from popresume.book import chapter_setup
from popresume.audit.grid import outcome_table
from popresume.plots import audit as audit_plots
from popresume.tables import labelled, labelled_by_column
from popresume.schema import OCCUPATION_LABELS

chapter_setup()
grid = grid_chapter(config_file, sizes=sizes, n_boot=n_boot_grid, seed=seed, occupations=occupations,
                    data=True)  # results cached after Chapter 9; its profiles and scores (no new work)
cfg, ours, data = grid.config, grid.results, grid.data
print(f"our audits (Chapter 9's grid): {len(ours)}; scored résumés: {len(data)} ({sizes} per occupation)")

# %% [markdown]
# ## The screeners behind these numbers
#
# Outcome-level rules need the scores, not just the effects, so they can be computed only
# on our runs (text: the embedding screener; image formats: the synthetic screener). Each
# carries the verdict of its validity card (Chapter 5; the cards Chapter 9 computed):

# %%
from popresume.screeners.validity import card_for

cards = {s.name: card_for(s.spec, n=40, seed=seed) for s in cfg.screeners}  # Chapter 9's cards (n = 40)
print("validity gate of our screeners:", "; ".join(f"{s.label}: {cards[s.name]['verdict']}" for s in cfg.screeners))

# %% [markdown]
# Every table below carries these verdicts in its column "validity verdict". The synthetic
# screener passes by construction (it prefers a résumé's own posting and rises with
# qualifications because we wrote it so), being the book's known-truth device, not a
# screener under audit; Chapter 5 explains where the embedding screener falls short.
# The comparison below is therefore a comparison of two *rules* on the same scores; the
# legal categories it names ("business necessity only", "missed: direct") describe what
# each rule would conclude, not a finding about a hiring tool.
#
# ## Two outcome-level rules
#
#
# - **four-fifths** (EEOC Uniform Guidelines): a group's selection rate below 4/5 of the
#   highest group's is evidence of adverse impact. We "select" the top `select_top` share
#   of each cell's scores (a shortlist) and compare $x_0$ with $x_1$.
# - **NYC Local Law 144** bias audits of a *scoring* tool report, for each sex,
#   race/ethnicity and intersectional category, the *scoring rate* — the share of the
#   category scoring above the sample's median — and its ratio to the highest category's.
#
# Both read only the score distribution by group, i.e. they are functions of the observed
# disparity. The causal decomposition separates it into paths; where the two disagree,
# the rule either misses discrimination or flags a disparity the law may permit.
#
# ## One significance standard per claim
#
# Chapter 10b showed that under Holm (over all of a table's tests) few of our grid's
# effects stay significant. A disagreement "the ratio passes, but NDE ≠ 0" is only as good
# as the "NDE ≠ 0" behind it, so **the disagreements below are classified with Holm over
# all of our grid's tests**; the uncorrected classification (each CI on its own, the
# paper's standard) is shown beside it for comparison, and no claim rests on it.

# %%
outcome = outcome_table(data, select_top=select_top)
cmp = summaries.four_fifths_disagreements(outcome, ours, methods=("holm", "none"))
holm_col, none_col = "disagreement (Holm)", "disagreement (uncorrected (CI excludes 0))"
keys = ["attribute", "occupation", "format", "model"]
view = cmp.merge(ours[keys + ["screener"]], on=keys, how="left")
view["validity_verdict"] = view["screener"].map(lambda name: cards[name]["verdict"])
view.insert(0, "source", "ours, " + view["model"].astype(str))
# the rule compares the lower selection rate with the higher one, whichever group has it
ratio = view["four_fifths_ratio"]
view["four-fifths (lower / higher rate)"] = ratio.where(ratio <= 1, 1 / ratio)
print(f"the first 12 of {len(view)} audits (the counts below use all {len(view)})")
labelled_by_column(view[["source", "validity_verdict", "attribute", "occupation", "format",
                          "four-fifths (lower / higher rate)", "ll144_impact_ratio", "four_fifths_flag", holm_col,
                          none_col]].head(12), note="the first 12 audits")

# %%
counts = summaries.disagreement_counts(cmp)
verdicts = ", ".join(f"{s.label}: {cards[s.name]['verdict']}" for s in cfg.screeners)
labelled(counts, f"ours: Chapter 9's grid, every audit (validity gates: {verdicts})", precision=0)

# %% mystnb={"figure": {"caption": "Ours, Chapter 9's grid (each screener's verdict in the tables above): the four-fifths selection-rate ratio against the estimated NDE; colour marks where the two disagree under Holm."}}
cmp2 = cmp.merge(ours[["attribute", "occupation", "format", "model", "NDE_estimate"]],
                 on=["attribute", "occupation", "format", "model"]).rename(columns={holm_col: "disagreement"})
fig = audit_plots.four_fifths_figure(
    cmp2, effect="NDE", title="ours (Chapter 9's grid): four-fifths ratio vs estimated NDE; disagreement under Holm")
plt.show()

# %% [markdown]
# Two kinds of disagreement matter. In the "missed" rows the ratio passes but a direct or
# proxy (redlining) path is significant: the rule misses discrimination the decomposition
# finds. In the "business necessity only" rows the ratio fails only because of a
# qualification path, a disparity an employer may try to defend as a business necessity
# (a defence the employer must establish, not a disparity that is lawful by default:
# {doc}`../book/legal`). The "flagged: no
# significant effect" rows are the ratio's own noise: with a small group (few women among
# construction laborers, for instance) a selection-rate ratio swings far from 1 while every
# effect's interval includes 0.
#
# Compare the two columns of the counts. The correction removes "missed" rows first: at
# 400 applicants per occupation few of our path-specific effects survive Holm, so the
# disagreements that remain are mostly flags with no significant effect behind them. A
# "missed: direct" row on the text format deserves a second look before it is reported:
# the embedding screener reads no gender or race, so a significant NDE there is the
# coarsened-mediator artefact plus weak overlap of Chapter 10a (it moves towards 0 with
# refined name variables), not a discrimination the four-fifths rule missed. The rule answers "is there a disparity?"; it
# cannot answer "through which path?", and on small samples it cannot even say how sure it
# is.

# %% [markdown]
# ## The LL144 table for one cell, and how sure it is
#
# With the intersectional categories the law requires, computed by `popresume.ll144` (the
# package's one implementation of both rules). The scoring rate is the share of a
# category above the median of *all* the cell's scores; a résumé whose race is unknown still
# counts for sex and appears in an `unknown` row of the other breakdowns; categories under 2%
# of the sample are flagged `under_2pct` and left out of the reference rate.
#
# The reference, the highest rate, is picked from the same data, so the interval of a ratio
# must allow for the best group being uncertain too. `ci_low`–`ci_high` cover every
# category's true ratio of a breakdown at once with probability at least 95% (score
# intervals of the pairwise rate ratios, Bonferroni over the pairs). The coverage harness
# (`popresume.coverage.ll144`, run by `make calibrate`) checks that promise by simulation,
# near parity included, where a percentile bootstrap of each rate over the best rate falls
# short.

# %%
cell = data[(data["occupation"] == occupation) & (data["format"] == "text")]
if cell.empty:  # the grid may not hold the chosen occupation
    cell = data[data["format"] == "text"]
    occupation = str(cell["occupation"].iloc[0])
screener = cell["screener"].iloc[0]
source = f"ours, {cell['model'].iloc[0]}"
ll = ll144.breakdown_table(cell, rule="median_split")
ll.insert(0, "source", source)
ll.insert(1, "validity_verdict", cards[screener]["verdict"])
labelled_by_column(ll[["source", "validity_verdict", "breakdown", "category", "n", "share", "selected", "rate",
                        "ratio", "ci_low", "ci_high", "under_2pct", "flag"]])

# %% mystnb={"figure": {"caption": "Ours, one cell of Chapter 9's grid (the screener's verdict is in the title and the table above): LL144 impact ratios with simultaneous 95% CIs; the dashed line is four-fifths."}}
fig = audit_plots.ll144_titled(ll[ll["known"]].rename(columns={"ratio": "impact_ratio"}),
                               title=f"{source} ({cards[screener]['verdict']} validity): LL144 impact ratios, "
                                     f"{OCCUPATION_LABELS[occupation]}, text")
plt.show()

# %% [markdown]
# A ratio under 0.8 is not by itself evidence against the tool: a screener that ignores sex
# and race also shows low ratios in a small sample, and more often the more categories a
# breakdown has and the tighter the cut. The table below gives, for this cell's group sizes,
# the chance that such a screener is flagged, for each rule: the LL144 median split and the
# four-fifths cut at the top `select_top` share. With two categories it is exact
# (hypergeometric); otherwise it comes from draws and is printed with the digits they
# support (a bound such as "< 0.001" when no draw is flagged). `p_perm` is the chance that
# such a screener's lowest ratio is as low as the one observed; the coverage harness checks
# that both are calibrated.

# %%
chance = ll144.chance_table(cell, select_top=select_top, n_sim=2000, seed=seed)
chance.insert(0, "source", source)
chance.insert(1, "validity_verdict", cards[screener]["verdict"])
labelled_by_column(chance[["source", "validity_verdict", "breakdown", "rule", "n", "observed_lowest_ratio",
                            "flag_rate_text", "p_perm_text", "method"]]
                   .rename(columns={"flag_rate_text": "chance of a flag (no disparity)", "p_perm_text": "p_perm"}))

# %% [markdown]
# Read the LL144 verdict against both columns: a low observed ratio whose `p_perm` is large
# is what chance alone gives at this n, and a rule that flags a screener ignoring the
# attribute most of the time (a chance of a flag near 1, common for the intersectional
# breakdown) cannot discriminate at this sample size whatever the ratio.
#
# The four-fifths rule on real decisions: chapter {doc}`08b_llm_ranking` applies it to
# Bloomberg's recorded GPT rankings and sets each verdict against the spread that chance
# alone makes and against the position in which each résumé was shown, and chapter
# {doc}`08d_ll144_published` reads the 116 published LL144 audits the same way: which of
# their flags a tool with no disparity would raise by chance at their sample sizes.
#
# ## Exercises
#
# :::{exercise}
# :label: ex-10c-shortlist
#
# Re-execute with a tighter shortlist, `-p select_top 0.1`. How do the four-fifths ratios
# and the number of disagreements change?
# :::
#
# :::{solution} ex-10c-shortlist
# :class: dropdown
#
# Selection rates in the tail are more sensitive to small shifts of the score
# distribution, so the ratios spread further from 1 and more cells fall below 0.8. The
# causal verdicts do not change (they do not depend on a cut-off), so the disagreements
# move from "missed" rows to "flagged" rows: the four-fifths verdict depends on an
# arbitrary threshold, the decomposition does not.
# :::
#
# :::{exercise}
# :label: ex-10c-standard
#
# Classify the disagreements with Benjamini–Hochberg instead
# (`summaries.four_fifths_disagreements(outcome, ours, methods=("bh",))`). Which claim would you
# make with it, and how would you word it differently from a Holm-based claim?
# :::
#
# :::{solution} ex-10c-standard
# :class: dropdown
#
# BH keeps more effects significant, so more "missed" rows appear. A BH-based claim
# controls the expected share of false findings among those reported (about 5% of the
# listed disagreements may be false), while a Holm-based claim controls the chance that
# any listed disagreement is false. State which one a report uses, once, next to the count.
# :::
