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
# # A real LLM's decisions: Bloomberg's 8,000 recorded GPT rankings, re-audited
#
# No screener this book runs is a model that judges résumés: SmolLM2 fails the validity gate
# (chapter {doc}`05_screeners`), and the embedding screener is a measure of text similarity
# whose one verdict, read from the card the book ships, is printed with its runs in section 3.
# No model with real signal runs on the machines that build the book. Real decisions of real
# LLMs that read résumés do exist, though, recorded and public. In 2024 Bloomberg published
# an experiment in which OpenAI's GPT-3.5-turbo and GPT-4 ranked eight equally qualified
# résumés that differed only in the candidate's name
# ([repository](https://github.com/BloombergGraphics/2024-openai-gpt-hiring-racial-discrimination),
# commit `65ae911`, Apache-2.0). Bloomberg published every reply.
#
# **What the data is.** The API calls were made in late 2023 (the runs sit in folders named
# `1121`, and the replies' timestamps are from November 2023), at temperature 1. There are
# four jobs (HR specialist, software engineer, retail, financial analyst) and **eight fixed
# résumés per job**, written with GPT-4 and edited by Bloomberg. In each run the eight résumés
# are shuffled, and each gets one name from one of eight race × gender groups (Asian, Black,
# Hispanic, White; men and women). The names are the most demographically distinct ones,
# derived from **North Carolina voter records and the Census** (the 2010 surname file). There
# are 1,000 runs per model × job: 8,000 replies. Bloomberg topped up the runs so that each group was
# shown first equally often (125 times per model × job). The files ship in `data/ranking/`
# (built by `scripts/build_ranking_data.py`; see `data/README.md` and the folder's `NOTICE`).
#
# **What you will learn**
#
# - how to reproduce a published audit table exactly from raw replies, and what its parse
#   rule does with replies that leave names out;
# - what the table does not show: intervals, the spread that chance alone makes, and how
#   strongly the models favour the résumé shown first;
# - why chance must be simulated within the experiment's design, not as a uniform draw;
# - how a conditional logit over the eight alternatives of a run separates group effects from
#   position effects, with standard errors clustered two ways, by run and by name;
# - how our own screeners (each with its validity verdict beside it) behave on the same 8-résumé sets.
#
# Labels: a table or figure marked **published (Bloomberg 2024)** is their number; **ours,
# from Bloomberg's recorded replies** is computed here from their raw replies; **ours,
# screener X** comes from our screener X ranking the same sets. Every table of a model's rows
# has a "validity gate" column: our screeners' validity verdict (chapter {doc}`05_screeners`), or
# "not carded (recorded decisions)" for GPT-3.5 and GPT-4, whose decisions were recorded by
# Bloomberg and never went through the validity gate.
#
# Parameters: `n_sim` (simulated fair rankers), `seed`. The CLI `popresume ranking --out DIR` writes the same tables and figures.

# %% tags=["parameters"]
n_sim = 10000
seed = 0

# %%
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from IPython.display import display

from popresume.book import chapter_setup
from popresume.ll144 import FOUR_FIFTHS
from popresume.tables import labelled
from popresume.ranking import bloomberg as bb
from popresume.plots import ranking as plots
from popresume.ranking import chance, parse, rates, report, screening
from popresume.schema import NOT_CARDED_RECORDED, VERDICT_COLUMN
from popresume.screeners.validity import shipped_card, verdict_sentence

VERDICT = NOT_CARDED_RECORDED  # GPT-3.5 and GPT-4: recorded decisions, no validity card

chapter_setup()

# %%
t_start = time.perf_counter()
runs = bb.load_bloomberg_runs()
long = bb.load_bloomberg_ranks()  # the shipped long table, with the résumé text shown at each position
reparsed = parse.rank_runs(runs)  # the published parse rule, applied here to every reply
assert (reparsed["rank"].to_numpy() == long["rank"].to_numpy()).all()
print(f"{len(runs):,} runs, {len(long):,} shown résumés, {long['name'].nunique()} distinct names; "
      f"{int((~long['found']).sum())} names left out of their reply")
print(runs.groupby(["model", "job"]).size().rename("runs").to_string())

# %% [markdown]
# One recorded run: the eight names in the order shown, and GPT's reply.

# %%
ex = runs.iloc[0]
print("shown:", ", ".join(f"{n} ({d})" for n, d in zip(ex["names"], ex["demos"])))
print("reply:", ex["reply"][:300])

# %% [markdown]
# ## 1. Their table, reproduced
#
# The parse rule in Bloomberg's analysis notebook: lower-case the reply, rank each name by
# the position of its first occurrence, and rank a name that does not occur **last**.
# The group of the name ranked first gets the run's "selection"; a group's selection rate is
# its share of the 1,000 runs, and its impact ratio is that rate over the highest group's.

# %%
sources = {}
screener_runs = screening.load_screener_runs()
# the embedding runs carry the verdict of the card the book ships today (one verdict per screener)
embedding_card = shipped_card("embedding")
is_embedding = screener_runs["screener_spec"].eq("embedding")
screener_runs.loc[is_embedding, "validity"] = embedding_card["verdict"]
screener_runs.loc[is_embedding, "validity_card"] = "data/ranking/validity_embedding.json (n=40, seed 0)"
for m in screener_runs["model"].unique():
    sources[m] = f"ours, screener {m}"
combined = pd.concat([long, screener_runs], ignore_index=True)
T = report.ranking_tables(combined, published=bb.load_published(), sources=sources, n_sim=n_sim,
                          seed=seed)
check = T["published_check"]
print(f"{int(check['match'].sum())} of {len(check)} published cells (top count, selection rate, impact ratio) "
      "reproduced exactly from the replies")
pub = bb.load_published()
pub_wide = pub.pivot_table(index="demo", columns=["model", "job"], values="top")
pub_wide.insert(0, (VERDICT_COLUMN, ""), VERDICT)
labelled(pub_wide, bb.caption(bb.PUBLISHED) + "; top picks of 1,000 runs per model × job", precision=0)

# %% [markdown]
# ## 2. What the published table does not show
#
# ### Uncertainty
#
# Each rate is a share of 1,000 runs. Its 95% interval (Wilson) is about ±2 points around
# 12.5%. The impact ratio divides by the highest rate, and which group is highest is itself
# uncertain: a resampling interval that takes each resample's best group covered the true
# ratio only about two times in three when all groups were equal. The interval here uses that a
# group's ratio is the smallest of its ratios to every other group. Each pairwise ratio of two
# top counts gets a Wald interval on the log scale. The upper bound must hold against all seven
# other groups at once (Bonferroni), so the interval covers at least 95% of the time wherever
# the groups are; the coverage harness (`popresume.coverage.ranking`) measures 0.97–0.99. It
# treats runs as independent draws, which ignores that each group was shown first exactly 125
# times, so for a model that mostly takes the first résumé it is wider than it need be (the
# design-based chance null below is sharper there). `p_chance` tests a rate against 1/8; its
# Holm and BH adjustments run over each model's 32 cells (4 jobs × 8 groups).

# %%
sel = T["selection_rates"]
gpt_sel = sel[sel["model"].isin(bb.MODELS)]
ratio_text = gpt_sel.assign(ratio=[f"{r:.2f} [{lo:.2f}, {hi:.2f}]" for r, lo, hi in
                                   gpt_sel[["disparate_impact_ratio", "ratio_ci_low", "ratio_ci_high"]].to_numpy()])
for m in bb.MODELS:
    wide = ratio_text[ratio_text["model"] == m].pivot(index="demo", columns="job", values="ratio")
    wide.insert(0, VERDICT_COLUMN, VERDICT)
    display(labelled(wide, f"{bb.caption(bb.OURS)}; {m}: impact ratio [95% CI]"))

# %% mystnb={"figure": {"caption": "Ours, from Bloomberg's recorded GPT-3.5 and GPT-4 replies (not carded: recorded decisions): each group's impact ratio with its 95% interval, per model and job; the dashed line is four-fifths."}}
fig = plots.plot_impact_ratios(gpt_sel, title=f"{bb.OURS}: impact ratios with 95% intervals")
plt.show()

# %%
near = gpt_sel[gpt_sel["disparate_impact_ratio"].between(0.7, FOUR_FIFTHS, inclusive="left")]
print(f"{len(near)} cells with a ratio in [0.70, {FOUR_FIFTHS:.2f}): {int((near['ratio_ci_high'] >= 1).sum())} have an "
      f"interval that reaches 1; {int((gpt_sel['ratio_ci_low'] < FOUR_FIFTHS).sum())} of {len(gpt_sel)} intervals "
      f"reach below {FOUR_FIFTHS:g}")

# %% [markdown]
# Most intervals cross the four-fifths line. Of the cells with a ratio between 0.70 and 0.80,
# most have an interval that reaches 1 (the count is printed above): on this interval alone, a
# ratio of 0.75 from 1,000 runs is compatible with no disparity. The leader's own interval reaches
# well below 1, because another group may be the best.
#
# ### Chance
#
# Take a ranker that picks its top résumé uniformly at random among the eight, for the same
# 1,000 runs. Its lowest group's rate over its highest is rarely near 1: eight shares of
# 1,000 draws spread by a few points, and the ratio of the extremes amplifies that.

# %%
labelled(T["chance_by_runs"].set_index("n_runs"), "ours: simulated fair rankers (uniform top pick among "
         f"eight): quantiles of the min/max ratio and the share under {FOUR_FIFTHS:g}, by number of runs")

# %% [markdown]
# That uniform ranker is not the right yardstick for these runs, though. The models favour
# positions and résumé texts (next section), and Bloomberg's design fixed how often each group
# was shown first (125 times per model × job). A fair ranker *of this experiment* is one whose
# choices do not depend on the groups: each run's top pick stays at the position it was, and
# only the randomisation that put the groups at those positions is drawn again. The
# design-based null does exactly that: it permutes the runs' shown group orders across the
# runs (which keeps the 125-per-group balance) and counts the groups at the winning positions.
# `null_p` is the share of those draws with a min/max ratio as low as observed or lower, written
# with the digits the draws support (`< 0.0001` when none reaches it); `flag_rate_under_null`
# is the share the four-fifths rule would flag. The uniform ranker's values sit beside them for
# comparison.

# %%
ch = T["chance"]
gpt_ch = ch[ch["model"].isin(bb.MODELS)]
labelled(gpt_ch.set_index(["model", "job"])[[VERDICT_COLUMN, "n_runs", "min_max_ratio", "null_p_text",
                                             "flag_rate_under_null", "null_p_uniform", "flag_rate_uniform"]],
         bb.caption(bb.OURS) + " (observed) vs simulated fair rankers of the same design")

# %% mystnb={"figure": {"caption": "Ours, from Bloomberg's recorded replies (not carded: recorded decisions): observed min/max ratios (markers) against simulated fair rankers, the uniform one and the design-based one of the model and job with the narrowest null."}}
fig = plots.plot_chance(chance.null_draws(long, gpt_ch, n_sim=n_sim, seed=seed), gpt_ch,
                        title=f"{bb.OURS} vs simulated fair rankers")
plt.show()

# %% [markdown]
# Under the uniform null the four-fifths rule flags a fair ranker in about two experiments (of
# 1,000 runs each) out of three. Under the design-based null the flag rate is still about one
# in two or more for GPT-4 and for GPT-3.5's retail, HR and financial-analyst runs, but not for
# GPT-3.5's software-engineer runs:
# there it took the résumé shown first in 83% of runs, and each group was shown first equally
# often, so a fair ranker of that design gives nearly equal top counts and is flagged only about
# one time in twenty. Its observed ratio of 0.76 is then beyond chance (p about 0.008), where
# the uniform null put it at 0.40. The clear exceptions are GPT-3.5 for HR specialists and for
# financial analysts (no draw reaches their ratios) and GPT-3.5 for software engineers. The
# harness checks that the design-based p-value rejects at most 5% of fair rankers of this
# design and that its flag rate matches how often such fair rankers are flagged.
#
# ### Position
#
# The order shown was randomised, so a ranker that ignores order puts each position first in
# 1/8 = 12.5% of runs.

# %%
first = T["first_position"]
labelled(first[first["model"].isin(bb.MODELS)].set_index(["model", "job"])[
    [VERDICT_COLUMN, "n_runs", "top_rate", "ci_low", "ci_high", "ratio_to_chance", "p_chance"]], bb.caption(bb.OURS))

# %% mystnb={"figure": {"caption": "Ours, from Bloomberg's recorded replies (not carded: recorded decisions): share of runs whose top pick was shown at each position, per job; the dotted line is chance (1/8)."}}
pos = T["position"]
fig = plots.plot_position(pos[pos["model"].isin(bb.MODELS)], title=f"{bb.OURS}: top pick by position shown")
plt.show()

# %%
fp = first[first["model"].isin(bb.MODELS)]
for model, g in fp.groupby("model"):
    above = g[g["ci_low"] > 1 / 8]
    print(f"{model}: the résumé shown first is ranked first in {g['top_rate'].min():.0%}–{g['top_rate'].max():.0%} "
          f"of runs ({g['ratio_to_chance'].min():.1f}–{g['ratio_to_chance'].max():.1f} times chance); its 95% CI "
          f"lies above chance in {len(above)} of {len(g)} jobs")

# %% [markdown]
# GPT-3.5 ranks the first-shown résumé first several times more often than chance in every
# job. This is the claim of "Beyond the Name" {cite}`beyondthename` (Task 2), that forced
# choice manufactures positional dominance; it was made for pairwise judgements, and here it
# holds for GPT-3.5 on real recorded decisions over eight alternatives. GPT-4 also favours
# the first position more than chance in some jobs, but less, and in three jobs the résumé
# text matters more than the position (next table): for GPT-4 position is one influence among
# others, not the dominant one, and these records do not support calling it positional
# dominance.
#
# The position is not the only thing that decides. Each run shows the job's eight résumé texts
# once each, so a text that does not matter is ranked first in 1/8 of runs. The table below
# sets the most-picked text's share of top picks beside the shown-first share.

# %%
tr = T["top_resume"]
labelled(tr[tr["model"].isin(bb.MODELS)].set_index(["model", "job"])[
    [VERDICT_COLUMN, "n_runs", "top_resume", "top_resume_share", "shown_first_share"]],
         bb.caption(bb.OURS) + "; top picks by résumé text and by position (chance 0.125 each)")

# %% [markdown]
# For GPT-3.5 the position decides more than any text in three jobs (in financial analysis the
# two are close). For GPT-4 it is the other way round in three jobs: one résumé text takes 57–70%
# of the top picks for HR specialists, retail and software engineers, while the résumé shown
# first takes 14–40%. Neither is the name. The design saves the group comparison only because
# both position and text were randomised independently of the groups.
#
# ### Group effects given position: a conditional logit
#
# Each run is one choice among eight alternatives. The conditional logit has dummies for the
# position shown, for the résumé text (the eight texts of a job differ a little), and for the
# group (reference: White men, `W_M`). A résumé text that is never ranked first (three GPT-4
# jobs have one) has a coefficient of minus infinity; its alternatives are left out of their
# runs, which is the likelihood's limit, and the term is reported as not estimable.
#
# Standard errors are clustered two ways, by run and by name. A run's eight alternatives share
# one choice, so their scores are correlated; a name appears in about ten runs per job.
# Clustering by name alone drops the first correlation: on Bloomberg's design, with choices
# simulated without any group effect, its nominal 5% tests rejected about 10% of the time,
# against about 5% for the two-way SEs (the coverage harness, `popresume.coverage.ranking`).
# Holm and BH adjust over the 28 group terms of each model and specification (4 jobs × 7 terms).

# %% mystnb={"figure": {"caption": "Ours, from Bloomberg's recorded replies (not carded: recorded decisions): conditional-logit group terms against White men, with and without position terms, 95% intervals clustered by run and by name."}}
cl = T["clogit"]
gcl = cl[cl["model"].isin(bb.MODELS)]
fig = plots.plot_clogit(gcl, title=f"{bb.OURS}: conditional logit, group terms")
plt.show()
surv = gcl[gcl["p_group_holm"] < 0.05]
labelled(surv.set_index(["model", "job", "spec", "term"])[[VERDICT_COLUMN, "coef", "se", "odds_ratio", "p_group",
                                                         "p_group_holm", "p_group_bh"]],
         bb.caption(bb.OURS) + " (Holm-adjusted p < 0.05, SEs clustered by run and name)")

# %% [markdown]
# Few of the 28 group gaps of each model and specification survive Holm's correction; the
# table lists them by model, job and specification (with position and résumé text held fixed,
# or not). All are GPT-3.5's, most of them with position in the model; no GPT-4 gap survives.
# Positions were balanced across groups by design, so position
# does not confound the groups. Still, the group coefficients grow once it is in the model: an
# odds ratio is not collapsible, and taking out a strong predictor of the choice sharpens the
# others. Without the correction many more gaps look "significant" (compare `p_group` with
# `p_group_holm`; the CLI writes all of them to `clogit.csv`).
#
# ### The parse rule
#
# Some replies leave names out. GPT-3.5 does so in about one run in nine, GPT-4 in one in
# fifty. The published rule ranks a left-out name last. No reply leaves out all eight, so
# the top pick never changes. The project's policy is that a parse failure is never silently
# a rank. So here are the two alternatives: left-out names unranked, and those runs dropped.

# %%
labelled(T["parse_missing"].assign(**{VERDICT_COLUMN: VERDICT}).set_index(["model", "job"]), bb.caption(bb.OURS))

# %%
mm = T["min_max_by_rule"].pivot_table(index=["model", "job"], columns="rule", values="min_max_ratio")
mm = mm[["last", "unranked", "drop"]]
mm.insert(0, VERDICT_COLUMN, VERDICT)
labelled(mm, bb.caption(bb.OURS) + "; min/max ratio under each parse rule")

# %%
rr = T["ranks_by_rule"].pivot_table(index=["model", "demo"], columns="rule", values="mean_rank")
shift = (rr["unranked"] - rr["last"]).groupby(level="model").agg(lambda s: s.abs().max())
labelled(shift.rename("largest change in a group's mean rank, unranked vs last").to_frame()
         .assign(**{VERDICT_COLUMN: VERDICT}), bb.caption(bb.OURS))

# %% [markdown]
# Dropping the runs with a left-out name moves the min/max ratio by up to 0.05 (the
# four-fifths verdict flips for GPT-3.5 software engineers). Ranking them unranked changes
# nothing at rank 1, but it changes the groups' mean ranks (the last table: a left-out name no
# longer counts as ranked last).
#
# ### Names
#
# A group's rate averages over its names. Do a few names carry a group's gap? And does the
# project's Appendix C.4 grouping (first-name gender from SSA counts, surname group from the
# Census file) agree with Bloomberg's labels, as chapter {doc}`08a_correspondence` asked
# for Bertrand and Mullainathan's names?

# %%
conc = T["name_concentration"]
labelled(conc[conc["model"].isin(bb.MODELS)].set_index(["model", "demo"])[
    [VERDICT_COLUMN, "names", "top", "rate", "share_top_names", "rate_without_top_names", "p_names_differ"]],
         bb.caption(bb.OURS))

# %%
labelled(T["c4_summary"].set_index("demo"), "ours: Appendix C.4 grouping of Bloomberg's names vs their labels")

# %% [markdown]
# For GPT-3.5 the names within a group differ more than chance allows (`p_names_differ`).
# No group's rate rests on its five most-picked names, though: without them each rate drops by
# about a point, the same for every group. For GPT-4 the names are compatible with one rate
# per group. C.4 agrees with Bloomberg's gender labels for 93–100 names of each 100. It puts
# every Asian and White surname in the labelled group and about half the Black surnames
# (most of the rest are "neutral", with Census shares below 0.5; 15 are "White"). It has no Hispanic surname group, so
# the Hispanic names are all "neutral". A C.4-based audit would not see a Hispanic group at all.
#
# ### Beyond top-1
#
# Mean ranks (1 = top) and the top-3 rates use the whole ranking, not only its first line.

# %%
rk = T["ranks"]
mean_ranks = rk[rk["model"].isin(bb.MODELS)].pivot_table(index=["model", "demo"], columns="job", values="mean_rank")
mean_ranks.insert(0, VERDICT_COLUMN, VERDICT)
labelled(mean_ranks, bb.caption(bb.OURS) + "; mean rank")

# %% [markdown]
# ## 3. Our screeners on the same task
#
# Our screeners follow the project's protocol: they score one (job description, résumé)
# pair at a time. They rank a run's eight résumés (same texts, same names, same order shown)
# by their scores. A screener that never sees the other résumés or the order cannot favour a
# position; ties are broken at random. The runs were recorded once (see `data/README.md`) on
# GPT-3.5's run sets (50 per job for the embedding screener, 5 for SmolLM2). Each screener's validity verdict (chapter {doc}`05_screeners`)
# sits beside it.

# %%
labelled(screening.screener_summary(screener_runs).set_index("screener"),
         "ours: screener runs and their validity verdicts")

# %%
ours_ch = ch[~ch["model"].isin(bb.MODELS)]
labelled(ours_ch.set_index(["model", "job"])[[VERDICT_COLUMN, "n_runs", "min_max_ratio", "null_p_text",
                                              "flag_rate_under_null"]],
         "ours: our screeners on Bloomberg's run sets (observed) vs simulated fair rankers of the same design")

# %%
fp = T["first_position"].set_index(["job", "model"]).sort_index()
display(labelled(fp[["source", VERDICT_COLUMN, "n_runs", "top_rate", "ci_low", "ci_high"]],
                 "ours: share of runs whose top pick was shown first (chance 0.125), GPT from Bloomberg's recorded "
                 "replies and our screeners on the same sets (column source)"))
print(verdict_sentence(embedding_card))

# %% [markdown]
# The embedding screener's verdict is the line above, from its shipped card. Whatever it is,
# a text-similarity score is not a hiring model, so its gaps are not evidence about one.
# What it shows is how a scorer that sees one résumé at a time behaves on this task. It has no position effect: its top pick was shown first in 8–20% of runs, around
# chance. Its min/max ratios, 0.30–0.40 on 50 runs per job, would be "severe adverse impact"
# under the four-fifths rule. Yet they are what a fair ranker gives at that size (`null_p_text`
# above), and the rule flags a fair ranker at 50 runs almost every time.
#
# SmolLM2-135M through `popresume serve` (llama.cpp's `llama-server`, greedy) ranked 5 run
# sets per job, 20 runs in all, far too few to say anything about groups (a fair ranker at 5
# runs is flagged every time). It shows the other artefact of this task: a
# third of its replies carried no parseable score (`failed` above), and the project ranks those
# résumés as unranked, never as a score of 0. Its verdict is the card of the same GGUF weights
# through the local HF backend (chapter {doc}`05_screeners`): fail. No model that runs on these
# 2-core machines reads résumés; only GPT-3.5 and GPT-4 above are real decisions.
# `popresume ranking --screener openai:smollm2@http://127.0.0.1:8080/v1 --n-runs 10 --out DIR`
# ranks more sets and writes its runs in the shipped format.
#
# Today's models, recorded on their own designs, follow in chapter {doc}`08c_recorded_models`
# (does a current model read qualifications, and are its name effects above the noise of
# irrelevant edits?), and the published LL144 audits, read against the same chance baseline,
# in chapter {doc}`08d_ll144_published`.

# %%
print(f"chapter ran in {time.perf_counter() - t_start:.0f} s")

# %% [markdown]
# ## Exercises
#
# :::{exercise}
# :label: ex-08b-runs
#
# How many runs would make a ratio of 0.8 mean something? Using
# `chance.null_quantiles`, find the number of runs at which a uniform fair ranker's min/max
# ratio falls below 0.8 in fewer than 5% of experiments.
# :::
#
# :::{solution} ex-08b-runs
# :class: dropdown
#
# ```python
# chance.null_quantiles([1000, 2000, 3000, 4000, 5000], n_sim=4000)
# ```
#
# With eight groups the flag rate falls from about 0.63 at 1,000 runs to about 0.2 at 2,000,
# 0.1 at 2,500 and under 0.05 at about 3,000 runs per model × job: three times Bloomberg's
# sample. Below that, "below four-fifths" mostly measures the sample size. With 50 or 5
# runs per job, as for our screeners above, a fair ranker is flagged almost every time.
# :::
#
# :::{exercise}
# :label: ex-08b-firstonly
#
# Restrict the GPT-3.5 software-engineer runs to those where the top pick was *not* shown
# first, and recompute the selection rates. Does the group ordering change?
# :::
#
# :::{solution} ex-08b-firstonly
# :class: dropdown
#
# ```python
# tops = parse.top_picks(long)
# keep = tops.loc[tops["position"] != 1, ["model", "job", "run"]]
# sub = long.merge(keep, on=["model", "job", "run"])
# rates.selection_rates(sub[(sub.model == "gpt-3.5-turbo") & (sub.job == "software engineer")])
# ```
#
# Only 166 runs remain, so the rates move by several points and the intervals are wide. The
# position effect does not bias the groups' rates (each group was shown first equally often),
# but it wastes most of the sample: 83% of the runs tell us only that the model took the first
# résumé.
# :::
#
# :::{exercise}
# :label: ex-08b-rule
#
# Write a stricter parse rule: a reply counts only if it names all eight candidates
# exactly once. How many runs per model × job pass, and does the min/max ratio move?
# :::
#
# :::{solution} ex-08b-rule
# :class: dropdown
#
# Count each name's occurrences in the lower-cased reply (`str.count`) and keep the runs where
# every count is 1. The share that passes is close to the `drop` rule's above (a repeated
# name is rare), and the ratios move as much as under `drop`: by a few hundredths, which is
# within their intervals.
# :::
