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
# # Today's models, recorded
#
# No screener this book runs itself is a model that judges résumés (SmolLM2 fails the
# validity gate of chapter {doc}`05_screeners`; the embedding screener measures text
# similarity, and its one verdict, read from the card the book ships, is printed in the
# first cell below: passing the gate says it reads the posting and the qualifications, not
# that it judges like a recruiter),
# and Bloomberg's record (chapter {doc}`08b_llm_ranking`) has two retired models and eight
# equally qualified résumés, so it cannot show whether a model reads qualifications at all.
# Three public records of **today's** models deciding about résumés can. They ship in
# `data/decisions/` (built by `scripts/build_decisions_data.py` from the repositories at the
# commits below; `data/README.md` has what was kept):
#
# | record | repository @ commit | licence | design |
# |---|---|---|---|
# | re-cinq | [re-cinq/hiring-bias](https://github.com/re-cinq/hiring-bias) @ `7559ef3` | data CC BY 4.0 ("Hiring-Bias dataset — Bogdan Szabo (re:cinq), 2026."), code MIT | 11 models of 2025–26 × 37 variants of **one** real CV × 17 job descriptions × 5 runs: score 1–10, interview yes/maybe/no, a justification; 7 of the variants are placebo edits (a car colour, a weekday, the weather, a blank line) |
# | Derbyshire | [jderbysh/AIHiringBias](https://github.com/jderbysh/AIHiringBias) @ `d4c3499` | MIT | GPT-3.5-turbo-0125 and GPT-5.1-2025-11-13 × 36 Bertrand–Mullainathan names × 9 résumés (3 industries × 3 versions) × 9 job ads: four subscores 0–25, summed here to 0–100 |
# | Webster | [kevinwebster/Illusion_of_Neutrality](https://github.com/kevinwebster/Illusion_of_Neutrality) @ `68514f6` | MIT | 13 consumer chat-app settings × 24 names (and a redacted copy) × 3 jobs; matched vs mismatched résumé and posting; a waiter's résumé, plain or keyword-stuffed |
#
# **What you will learn**
#
# - which of these designs can run the validity gate, and which real models pass it;
# - group and name effects within résumé × job cells, with intervals clustered by name, and
#   what an effect carried by one name means;
# - the noise floor: how much a rerun, or an edit that cannot matter, moves a score;
# - drift between two generations of one vendor's model on the same crossed design;
# - competence: does a model tell a matched résumé from a mismatched one, and does keyword
#   stuffing fool it.
#
# Labels: every table here is **ours, from <record>'s recorded replies** (the analyses of
# `popresume.decisions.analyses` over the shipped replies) and carries the model's validity
# verdict in its "validity gate" column (or, where it is the same on every row, in a note under
# the table, as is any column that holds one value); `not carded (recorded decisions)` where
# the design cannot run the gate. The CLI
# `popresume decisions --out DIR` writes the same tables as CSV.
#
# Parameters: `recinq_models` (which re-cinq models to analyse; `None` for all eleven),
# `jackknife` (the leave-one-name-out check of every group effect whose interval excludes 0).

# %% tags=["parameters"]
recinq_models = None
jackknife = True

# %%
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from IPython.display import display

from popresume.book import chapter_setup
from popresume.decisions import analyses, load
from popresume.decisions.schema import NOT_CARDED, OURS
from popresume.decisions.sources import record
from popresume.schema import VERDICT_COLUMN
from popresume.plots import decisions as decisions_plots
from popresume.tables import labelled
from popresume.ranking.bloomberg import caption
from popresume.screeners.validity import shipped_card, verdict_sentence

chapter_setup(max_rows=500)

# %%
t_start = time.perf_counter()
recinq = load("recinq")
if recinq_models is not None:
    recinq = recinq[recinq["model"].isin(recinq_models)]
derbyshire = load("derbyshire")
webster = load("webster")
decisions = pd.concat([recinq, derbyshire, webster], ignore_index=True)
display(labelled(decisions.groupby(["source", "model"]).size().rename("replies").to_frame(),
                 "published: replies per source and model, as each source recorded them"))
print(verdict_sentence(shipped_card("embedding")))


NAMES = {"recinq": "re-cinq", "derbyshire": "Derbyshire", "webster": "Webster"}


def ours(source: str) -> str:
    """The caption form of "ours, from <record>'s recorded replies"."""
    return caption(OURS.format(source=NAMES.get(source, source)))


# %% [markdown]
# ## Validity: does a real model read the résumé?
#
# The gate of chapter {doc}`05_screeners` asks four things; a recorded design can answer
# only those it varied:
#
# - **job fit** (own minus mismatched posting): Derbyshire scores each résumé against its own
#   industry's three ads and the other six; Webster's Experiment 2a scores three résumés
#   against their own and the two other jobs. re-cinq has one CV and 17 postings, none of them
#   marked as its own: no job-fit contrast.
# - **qualifications**: only Derbyshire varies a résumé's quality within an industry. The
#   source does not label the three versions; we read version 2 of each industry as the weak
#   one (spelling errors, the shortest, an "objective" instead of a profile, under two years
#   of work) and compare the other two with it against their own ads. That reading is ours.
# - **stability** under a harmless edit: no design here has one for Derbyshire (re-cinq's
#   placebos are harmless edits, but re-cinq has no job-fit contrast to compare them with), so
#   the verdict says "stability untested".
# - **parse rate** and spread: Derbyshire's script drops a reply it cannot parse, so the rows
#   it wrote over the rows it asked for is the parse rate.
#
# Intervals are clustered on résumés (Derbyshire, 9) or résumé × posting cells (Webster, 9),
# with t quantiles on G − 1 degrees of freedom. The quality contrast compares whole résumés
# (strong ones against the weak one of each industry: 6 clusters against 3), and Webster's
# job fit whole cells (3 own against 6 mismatched), so their t quantiles have
# min(G1, G0) − 1 degrees of freedom: on G − 1 the quality interval covered well under 95%
# in the coverage harness (`popresume.coverage.decisions`, simulated on these designs), and
# Webster's was at the edge; on min(G1, G0) − 1 both cover at least 95%. Derbyshire's
# job-fit interval is about résumés of these three industries: where job fit differs
# industry by industry, the 9 résumés hold 3 independent units, and for industries at large
# the harness finds it covers well under 95%. The `calibrated` column says, row by row,
# whether the harness backs the interval as an interval for the model at large.

# %%
valid = analyses.validity(decisions)


def in_vocabulary(v: str) -> str:
    """The gate's verdict in the book's one vocabulary: "pass (stability untested)" is a pass on
    every rule the design can test (the untested rule is named in the captions), "not
    estimable" is a record the gate cannot be run on."""
    return "pass" if v.startswith("pass") else v


# %%
verdict = {k: in_vocabulary(v) for k, v in analyses.verdicts(valid).items()}
UNTESTED = "; 'pass' means the rules the design can test (job fit, quality, parse rate, spread): no design here has a harmless edit, so stability is untested"
show = valid[valid["source"] != "recinq"].copy()
show[VERDICT_COLUMN] = [verdict[(s, m)] for s, m in zip(show["source"], show["model"])]
for source in ("derbyshire", "webster"):
    display(labelled(show[show["source"] == source][["model", "contrast", "estimate", "ci_low", "ci_high", "n",
                                                      "n_clusters", "calibrated", VERDICT_COLUMN]].reset_index(drop=True),
                     ours(source) + UNTESTED, precision=2))
gate = valid.drop_duplicates(["source", "model"])[["source", "model", "verdict_reason"]].copy()
gate.insert(2, VERDICT_COLUMN, [verdict[(s, m)] for s, m in zip(gate["source"], gate["model"])])
gate = gate.rename(columns={"verdict_reason": "why"})
display(labelled(gate.reset_index(drop=True), caption("ours, from each record's recorded replies") + UNTESTED))
passing = gate.loc[gate[VERDICT_COLUMN] == "pass", "model"].tolist()
print(f"models that pass the gate as far as their design allows: {passing}")
print(f"re-cinq's {recinq['model'].nunique()} models and Webster's {webster['model'].nunique()} settings: "
      f"{NOT_CARDED} (no quality contrast in the design, so the gate cannot be run)")

# %% mystnb={"figure": {"caption": "Ours, from Derbyshire's and Webster's recorded replies: each model's job-fit contrast (own minus mismatched posting) with its 95% CI clustered on résumés or résumé × posting cells. Verdicts: GPT-5.1 passes as far as the design allows, GPT-3.5 fails (parse rate); Webster's settings are not carded (no quality contrast)."}}
fig = decisions_plots.contrast_forest(valid[(valid["contrast"] == "job_fit") & valid["estimate"].notna()],
                                      xlabel="own − mismatched posting (points on 0–100), 95% CI",
                                      title="Job fit of real models (ours, from Derbyshire's and Webster's recorded replies)")
plt.show()

# %% [markdown]
# The figure above shows every job-fit interval the records allow. Read a wide interval as
# what it is: Webster's contrast rests on nine résumé × posting cells, so a setting that
# reads the posting well still gets an interval tens of points wide. How many replies each
# cell holds:

# %%
exp2a = record("webster").validity["job_fit"].rows(webster)  # the rows its job-fit contrast fits
exp2a = exp2a[exp2a["variant"].eq("exp2a")]
per_cell = exp2a.groupby(["model", "own", "item", "job"]).size().groupby(["model", "own"]).agg(["size", "min", "max", "sum"])
one = per_cell.loc[exp2a["model"].iloc[0]]
print(f"Webster, {exp2a['model'].iloc[0]}: {int(one.loc[1, 'size'])} own cells with {int(one.loc[1, 'min'])} "
      f"replies each and {int(one.loc[0, 'size'])} mismatched cells with {int(one.loc[0, 'min'])} each: "
      f"n = {int(one['sum'].sum())} replies in {int(one['size'].sum())} clusters; every setting has this design: "
      f"{bool((per_cell.groupby('own')['sum'].nunique() == 1).all())}")

# %% [markdown]
# ## Group and name effects, within résumé × job cells
#
# Each effect compares a group's names with the reference group's on the same résumé, job
# and run (cell fixed effects), with the interval clustered by **name**: the names are the
# units the groups are made of, so a group effect is only as general as its set of names
# (Derbyshire: 18 per race and per sex; Webster: 8 per race, 12 per sex). Where the interval
# excludes 0, dropping one name at a time asks whether one name carries it
# (`carried_by_one_name`). Holm's adjustment runs over each record's whole family. With as
# few as 16 name clusters, a clustered interval can under-cover; the simulated designs after
# the effects tables give the coverage at each record's own numbers of names and cells.
#
# re-cinq has **one name per group** (six first names on one CV): its effects are name
# effects, each one name's, with the interval over postings and reruns, not over names. No
# group claim can rest on them.

# %%
groups = analyses.group_effects(decisions, jackknife=jackknife)
groups[VERDICT_COLUMN] = [verdict[(s, m)] for s, m in zip(groups["source"], groups["model"])]
cols = ["model", "attribute", "group", "reference", "estimate", "ci_low", "ci_high", "p", "p_holm", "n_names",
        "carried_by_one_name", "note", VERDICT_COLUMN]
for source in ("derbyshire", "webster"):
    display(labelled(groups[groups["source"] == source][cols].reset_index(drop=True), ours(source), precision=3))
names = groups[(groups["source"] == "recinq") & (groups["attribute"] == "name")]
display(labelled(names[["model", "group", "estimate", "ci_low", "ci_high", "p", "p_holm", "n_names", VERDICT_COLUMN]]
                 .reset_index(drop=True), ours("re-cinq"), precision=3))
# the intervals' coverage at each record's numbers of names and cells, by simulation with a known effect
cover = pd.DataFrame([{"design": label, "names per group": k, "cells": c, **analyses.cluster_coverage(k, c, seed=i)}
                      for i, (label, k, c) in enumerate([("Derbyshire race or sex", 18, 81),
                                                          ("Webster sex", 12, 9), ("Webster race", 8, 9)])])
display(labelled(cover, "ours: simulated designs with a known group effect, no model (coverage of the "
                        "name-clustered 95% CI; a simulation has no validity gate)"))
low = cover.loc[cover["coverage"].idxmin()]
print(f"coverage = the share of {int(low['n_sim'])} simulated 95% intervals, clustered by name at the record's own "
      f"numbers of names and cells, that contain the true group effect (± its Monte Carlo SE); lowest: "
      f"{low['design']}, {low['coverage']:.3f} ± {low['mc_se']:.3f}, "
      + ("within two Monte Carlo SEs of 0.95" if low["coverage"] + 2 * low["mc_se"] >= 0.95
         else "more than two Monte Carlo SEs under 0.95: these intervals are too narrow"))

# %%
sig = groups[groups["p_holm"] < 0.05]
print(f"group or variant effects with Holm-adjusted p < 0.05: {len(sig)} of {groups['p'].notna().sum()}; "
      f"of them on race or sex: {sig['attribute'].isin(['race', 'sex']).sum()}")
print(f"race/sex effects whose interval excludes 0 only because of one name: "
      f"{int(groups['carried_by_one_name'][groups['attribute'].isin(['race', 'sex'])].sum())}")

# %% [markdown]
# ## The noise floor: reruns and placebo edits
#
# A rerun asks the same model the same question again; a placebo edit changes something that
# cannot matter (re-cinq: a car colour, a weekday, the weather, a blank line). Both say how
# much a score moves for no reason. `rerun`: mean |difference| over every pair of runs of the
# same cell; `placebo`: mean |change| of a placebo variant's mean score from the baseline's,
# per posting.
#
# The two rows of the first table are **not on one scale**: a rerun compares two single
# replies, a placebo effect two means of five runs. Under pure noise a mean of five has
# 1/√5 of one reply's SD, so a placebo row about 0.45 times its model's rerun row is what
# noise alone gives, not a sign that placebo edits are steadier than reruns. The second
# table puts both on each scale in turn. On single replies both are observed (every pair of
# runs of one cell; every pair of a placebo reply and a baseline reply on the same posting).
# On five-run means the placebo is observed, but the rerun is not: two independent five-run
# means of one prompt need ten runs of it, and re-cinq recorded five. Its five-run floor is
# therefore computed from the pooled run-to-run SD (`rerun_means_how`). A ratio near 1 says
# the placebo edits move scores about as much as rerunning does.

# %%
noise = analyses.noise_floor(decisions)
noise[VERDICT_COLUMN] = [verdict.get((s, m), NOT_CARDED) for s, m in zip(noise["source"], noise["model"])]
display(labelled(noise.reset_index(drop=True), caption("ours, from each record's recorded replies"), precision=3))
scale = analyses.noise_floor_one_scale(decisions)
if len(scale):
    how = scale["rerun_means_how"].iloc[0]
    display(labelled(scale.drop(columns=["source", "rerun_means_how"]).assign(**{VERDICT_COLUMN: NOT_CARDED}),
                     ours("re-cinq") + f"; rerun_means: {how}", precision=3))
    print(f"placebo / rerun, median over {len(scale)} models: {scale['ratio_single'].median():.2f} on single "
          f"replies, {scale['ratio_means'].median():.2f} on {int(scale['runs_per_cell'].iloc[0])}-run means; "
          f"the unmatched ratio of the first table (placebo row / rerun row): "
          f"{(scale['placebo_means'] / scale['rerun_single']).median():.2f}, where pure noise gives "
          f"1/√{int(scale['runs_per_cell'].iloc[0])} = {1 / np.sqrt(scale['runs_per_cell'].iloc[0]):.2f}")

# %% [markdown]
# **Each name against the placebos.** For every re-cinq model with placebo edits, a name's
# effect (its mean change from the baseline over the 17 postings) is set against the seven
# placebo effects of the same model. Its *placebo p* = (1 + placebos at least as large) / 8 can
# never fall below 1/8: seven placebos cannot single out one name at 5%. The *pooled share* sets
# the name against the placebo effects of every model with placebos, each in its own
# model's placebo-SD units.

# %%
placebo = analyses.name_vs_placebo(decisions)
if len(placebo):
    placebo[VERDICT_COLUMN] = NOT_CARDED
    display(labelled(placebo.reset_index(drop=True), ours("re-cinq"), precision=3))
    print(f"name effects larger than every placebo of their model: {int(placebo['exceeds_all_placebos'].sum())} "
          f"of {len(placebo)}; smallest possible placebo p: {1 / 8:.3f}")
else:
    print("no re-cinq model with placebo edits among recinq_models")

# %% mystnb={"figure": {"caption": "Ours, from re-cinq's recorded replies: each first name's mean change from the baseline CV (dots) against the seven placebo edits' (ticks), per model with placebo edits. Not carded (recorded decisions): the design has no job-fit or quality contrast."}}
if len(placebo):
    edits = {mdl: analyses.placebo_effects(recinq[recinq["model"] == mdl]).groupby("variant")["change"].mean()
             for mdl in sorted(placebo["model"].unique())}
    fig = decisions_plots.names_vs_placebos(
        placebo, edits, title="Name effects against placebo edits (ours, from re-cinq's recorded replies)")
    plt.show()

# %% [markdown]
# ## Drift: GPT-3.5 against GPT-5.1 on the same crossed design
#
# Derbyshire ran the same 36 names × 9 résumés × 9 ads through two generations of OpenAI's
# model. `difference` is GPT-5.1 minus GPT-3.5, from one regression with the interaction and
# cell × model fixed effects, clustered as in the sections above.

# %%
dr = analyses.drift(decisions)
dr[VERDICT_COLUMN + ", GPT-3.5"] = verdict[("derbyshire", "gpt-3.5-turbo-0125")]
dr[VERDICT_COLUMN + ", GPT-5.1"] = verdict[("derbyshire", "gpt-5.1-2025-11-13")]
display(labelled(dr.drop(columns=[c for c in dr.columns if c.endswith("_ci")]), ours("Derbyshire") + UNTESTED,
                 precision=3))
display(labelled(dr.attrs["levels"], ours("Derbyshire"), precision=2))

# %% [markdown]
# ## Competence: matched résumés and keyword stuffing
#
# Webster asked each chat-app setting to score a résumé for its own job and for two others
# (matched − mismatched), and a waiter's résumé for the finance job, plain and stuffed with
# the posting's keywords (keyword-stuffed − plain; independent replies to one résumé pair,
# so the interval is HC1). A screener that reads the résumé rewards the first and ignores the
# second. The validity card of chapter {doc}`05_screeners` plants an applicant's instruction
# in the résumé (`injection_top` / `injection_end`): keyword stuffing is the quieter form of
# the same attack.

# %%
comp = analyses.competence(decisions)
comp[VERDICT_COLUMN] = [verdict.get(("webster", m), NOT_CARDED) for m in comp["model"]]
wide = comp.pivot(index="model", columns="contrast", values="estimate")
display(labelled(comp.reset_index(drop=True), ours("Webster"), precision=2))
stuffed = comp[(comp["contrast"] == "keyword-stuffed − plain") & (comp["p_holm"] < 0.05)]
print(f"settings that a keyword-stuffed waiter's résumé moves (Holm p < 0.05): {len(stuffed)} of "
      f"{comp['model'].nunique()}: {', '.join(stuffed['model'])}")

# %% mystnb={"figure": {"caption": "Ours, from Webster's recorded replies: each chat-app setting's matched − mismatched contrast against its keyword-stuffed − plain contrast (points on 0–100). Not carded (recorded decisions): no quality contrast in the design."}}
fig = decisions_plots.labelled_scatter(wide, "matched − mismatched", "keyword-stuffed − plain",
                                       xlabel="matched − mismatched (points on 0–100)",
                                       title="Competence (ours, from Webster's recorded replies)")
plt.show()

# %%
print(f"chapter ran in {time.perf_counter() - t_start:.0f} s")

# %% [markdown]
# ## Exercises
#
# :::{exercise}
# :label: ex-08c-weak
#
# The quality contrast rests on our reading that version 2 of each Derbyshire résumé is the
# weak one. Rerun it with every version against every other (three contrasts per industry).
# Does GPT-5.1's verdict depend on the reading?
# :::
#
# :::{solution} ex-08c-weak
# :class: dropdown
#
# ```python
# d = analyses._derbyshire_design(derbyshire[derbyshire["model"] == "gpt-5.1-2025-11-13"])
# own = d[d["own"] == 1]
# for a, b in [("1", "2"), ("3", "2"), ("1", "3")]:
#     sub = own[own["item"].str[7].isin([a, b])].assign(hi=lambda x: (x["item"].str[7] == a).astype(float))
#     print(a, "vs", b, analyses.clustered_effect(sub, "hi", cells="job", cluster="item", arm_df=True))
# ```
#
# For GPT-5.1, version 1 scores about 24 points above version 2 and version 3 about 21 above
# it, both with intervals well above 0; 1 against 3 is a few points with an interval that
# includes 0. The verdict does not hang on which of 1 and 3 is the strong one, only on 2
# being the weak one, which the résumés' text makes plain. With 3 résumés in each arm of a
# pairwise contrast (2 degrees of freedom) the intervals are wider than the pooled one.
# :::
#
# :::{exercise}
# :label: ex-08c-floor
#
# For each re-cinq model with placebo edits, compare its `rerun` mean |change| with its
# `placebo` one. Which is larger, and what does that say about reading a placebo effect as
# the noise floor of a single rerun?
# :::
#
# :::{solution} ex-08c-floor
# :class: dropdown
#
# ```python
# noise[noise["source"] == "recinq"].pivot(index="model", columns="kind", values="mean_abs_change")
# ```
#
# A rerun compares two single replies; a placebo effect compares two means of five replies
# each, so its noise is smaller by about √5 before any real effect of the edit. A name
# effect (also a mean of five per posting) is to be read against the placebo row, or the
# rerun floor on five-run means (`noise_floor_one_scale`), never against the single-reply
# rerun row.
# :::
#
# :::{exercise}
# :label: ex-08c-bm
#
# Bertrand and Mullainathan's employers and Bloomberg's GPT rankings enter the same
# vocabulary (`load("bertrand_mullainathan")`, `load("bloomberg")`). Run
# `analyses.group_effects` on each. Which of the three designs (employers, GPT-3.5 ranking
# eight names, GPT-5.1 scoring one) gives the tightest race interval per decision, and why?
# :::
#
# :::{solution} ex-08c-bm
# :class: dropdown
#
# ```python
# bm = analyses.group_effects(load("bertrand_mullainathan"), jackknife=False)
# bb = analyses.group_effects(load("bloomberg"), jackknife=False)
# ```
#
# B&M's Black − White callback gap is about −3 points of a 0/1 outcome, with 36 name
# clusters; Bloomberg's GPT-3.5 rank differences are fractions of a rank, with 200 names per
# race group. Derbyshire has many replies but only 36 names, and the interval is clustered on
# names: more replies per name narrow it only until the name-to-name spread dominates. The
# number of names, not of replies, limits every one of these designs.
# :::
