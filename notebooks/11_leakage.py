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
# # Beyond the Name: leakage in de-identified résumés and artefacts of LLM judges
#
# **What you will learn**
#
# - how the leakage audit of {cite}`beyondthename` is built: 20 base résumés for four
#   Sydney-based professional occupations, each crossed with 31 Additional Information
#   blocks (a marker-free control and 5 groups × 3 cue tiers × 2 blocks) to give 620
#   variants that differ *only* in that prose, with the declared language held at
#   "English (Professional proficiency)";
# - the three tasks as protocols with JSON schemas: recoverability (Task 1), pairwise
#   preference under three verdict regimes (Task 2) and screening (Task 3);
# - why every rate in this chapter comes with a **cluster**-bootstrap interval (the clusters
#   are the 20 base résumés) and why the many group-vs-Anglo comparisons need Holm or
#   Benjamini–Hochberg corrections;
# - what the whole audit gives on the models that run on this machine (an embedding model
#   and a 135M-parameter generative model), shown next to the paper's published results for
#   nine open-weight LLMs. **Published** and **ours** are always labelled: they are
#   different models and the comparison is about the shape of the findings, not the numbers.
#
# The parameters cell sets the bootstrap draws `n_boot` and `seed`, the embedding judge's
# settings (`false_attribution`, the share of cue-free résumés its Task 1 threshold lets
# through, and `tie_margin`, its Task 2 tie margin in score points), and `smol_pairs`, the
# number of marked variants the small generative model judges against their baselines in
# Task 2 (each in 2 orders × 3 regimes; 0 skips it).

# %% tags=["parameters"]
n_boot = 1000
seed = 0
false_attribution = 0.05
tie_margin = 0.25
smol_pairs = 1

# %%
import time

import pandas as pd

from popresume.book import chapter_setup
from popresume.leakage import PUBLISHED, build_corpus, criteria_coverage, job_description
from popresume.leakage import metrics as leakage_metrics
from popresume.leakage.corpus import split_sections
from popresume.leakage.embedding_backend import EmbeddingJudge
from popresume.leakage.tasks import ReplyCache, get_judge, run_task, task_items
from popresume.paths import cache_path
from popresume.plots import leakage as leakage_plots
from popresume.tables import labelled

chapter_setup(width=120, max_columns=20)
t_start = time.perf_counter()
# every table of this judge's numbers says so, and gives its verdict (it has no card: see below)
JUDGE = "ours: embedding judge; validity gate: not carded (no card run)"

# %% [markdown]
# ## The corpus: 620 variants that differ only in prose
#
# The paper's authors published no corpus, so this book writes its own, following the
# paper's recipe (§3): `data/leakage/occupations.yaml` (four job descriptions with
# mandatory and desirable criteria), `bases.yaml` (five de-identified base résumés per
# occupation, each recording which criteria it meets and the phrase that shows it) and
# `blocks.yaml` (the 31 Additional Information blocks). Building the corpus checks the
# invariants and raises on any variant that breaks one.

# %%
variants, baselines = build_corpus()
coverage = criteria_coverage()
print(f"{len(variants)} variants = {variants['base_id'].nunique()} bases x "
      f"{variants.groupby('base_id').size().iloc[0]} blocks; {len(baselines)} omission baselines")
print(f"bases meeting all mandatory criteria: {(coverage['mandatory_met'] == coverage['mandatory_total']).mean():.0%}; "
      f"desirable criteria met: {coverage['desirable_ratio'].min():.0%}-{coverage['desirable_ratio'].max():.0%}")
labelled(variants.groupby(["condition", "tier"]).size().unstack(fill_value=0).rename_axis(columns=None),
         "ours: the corpus written by popresume.leakage.corpus, variants by condition and cue tier")

# %% [markdown]
# Here is one base résumé's Additional Information under the three tiers of one group and
# the control. Everything above this section is byte-identical across the 31 variants.

# %%
one = variants[(variants["base_id"] == "pol-02") & (variants["block"] <= 1)
               & variants["condition"].isin(["Control", "Vietnamese"])]
for row in one.itertuples():
    print(f"--- {row.condition} {row.tier}\n{split_sections(row.text)[1]}")

# %% [markdown]
# ## The judge that runs here
#
# The paper's judges are 8–36B-parameter LLMs with grammar-constrained JSON decoding. On
# two CPU cores this chapter uses the sentence-embedding model all-MiniLM-L6-v2 as a judge
# that answers the same JSON protocols (see `popresume.leakage.embedding_backend`):
#
# - **Task 1**: a zero-shot classifier that compares each line of the résumé with short
#   written descriptions of the five groups, and abstains ("Cannot determine") unless some
#   group scores above what résumés *without* Additional Information reach. That threshold
#   is calibrated on the 20 omission baselines, with no labels: `false_attribution` of them
#   would be attributed to a group.
# - **Task 3**: a criterion-coverage score, 100 × the mean over the job's criteria of the
#   best match among the résumé's lines; shortlist if the score reaches the baselines' median.
# - **Task 2**: the Task 3 score of both résumés; a Tie when they differ by less than
#   `tie_margin` points (Neutral) or three times that (Encouraged); an exact tie under the
#   Forbidden regime goes to candidate A.
#
# Two choices differ from the paper's protocol: our Task 1 schema requires the evidence
# field, which the paper makes optional, and our Task 3 prompt asks a generative judge for
# an integer score, where the paper gives the score only as $S \in [0, 100]$ (the paper
# makes only Task 1's confidence an integer). The embedding judge is unaffected by the
# second: it returns its continuous coverage score.
#
# **Validity.** This judge has no validity card of its own: Chapter 5's gate is defined
# for screeners of PopResume's résumés, not for these protocols, so its verdict is "not
# carded (no card run)". Its Task 3 score rests on the same embedding model as the book's embedding
# screener, which fails the gate (it reads the text but does not reliably rise with
# qualifications). Its numbers below show how the three tasks measure leakage and its
# effect; they are not findings about the paper's LLM judges.

# %%
t0 = time.perf_counter()
judge = EmbeddingJudge(tie_margin=tie_margin)
judge.calibrate(baselines["text"].tolist(), [job_description(o) for o in baselines["occupation"]],
                false_attribution=false_attribution)
print("Task 1 thresholds (centred cosine):", ", ".join(f"{g} {t:.3f}" for g, t in judge.threshold.items()))
print(f"Task 3 shortlist threshold: {judge.shortlist_threshold:.1f} points")

# %% [markdown]
# ## Task 1: is the background recoverable?
#
# Each variant is shown alone, without a job description, and the judge names a group or
# abstains, with a confidence and up to two evidence phrases.

# %%
r1 = run_task(1, task_items(1, variants), judge)
t1 = leakage_metrics.task1_metrics(r1, n_boot=n_boot, seed=seed)
labelled(t1.pivot_table(index="tier", columns="metric", values="estimate"),
         f"{JUDGE}; Task 1 by tier (– : false attribution is measured on the control, the parse "
         "failure rate over all variants, the other rates on the marked tiers)")

# %% mystnb={"figure": {"caption": "Ours, embedding judge (not carded: Chapter 5's gate is for résumé screeners): Task 1 recovery by cue tier beside the published rates (top), and the confusion of true and perceived group (bottom)."}}
fig = leakage_plots.task1_figure(t1, leakage_metrics.confusion_matrix(r1), published=PUBLISHED,
                                 title="Task 1 confusion (ours, all tiers)")

# %% [markdown]
# The evidence the judge cites shows *where* the leak is: for correct attributions it is
# almost always the one cue line of the Additional Information block, not the résumé body.

# %%
hits = r1[r1["perceived_group"] == r1["condition"]]
print(f"correct attributions whose first evidence phrase comes from the Additional Information: "
      f"{hits['evidence'].str.match(r'^(Background|Community|Interests):').mean():.0%}")
labelled(hits.groupby("tier").head(1)[["variant_id", "perceived_group", "confidence", "evidence"]].reset_index(drop=True),
         f"{JUDGE}; the first correct attribution of each tier")

# %% [markdown]
# ## Task 2: pairwise preference and the verdict space
#
# Every marked variant is compared with its omission baseline in both presentation orders,
# under three regimes: ties Forbidden, Neutral (Tie allowed) and Encouraged. A group's
# *selection rate* is the share of comparisons its variant wins (a tie counts one half);
# the selection-rate ratio divides it by Anglo's, and the four-fifths rule flags ratios
# below 0.8.

# %%
r2 = run_task(2, task_items(2, variants, baselines), judge)
t2 = leakage_metrics.task2_metrics(r2, n_boot=n_boot, seed=seed)
labelled(t2.pivot_table(index="regime", columns="metric", values="estimate"), f"{JUDGE}; Task 2 by regime")

# %%
srr = leakage_metrics.selection_rate_ratios(r2, n_boot=n_boot, seed=seed)
labelled(srr.set_index(["regime", "condition"])[["ratio", "ci_low", "ci_high", "four_fifths_flag", "p_value", "p_holm",
                                                "p_bh", "rate"]],
         f"{JUDGE}; selection-rate ratios against Anglo, 95% cluster-bootstrap CIs")

# %% mystnb={"figure": {"caption": "Ours, embedding judge: Task 2 verdicts under the three regimes (top) and the selection-rate ratios against Anglo with 95% cluster-bootstrap CIs (bottom)."}}
fig = leakage_plots.task2_figure(t2, srr, title="Selection-rate ratio vs Anglo (ours)")

# %% [markdown]
# The pooled first-position rate under forced choice mixes two things: a position bias
# proper, and the rule a judge uses to break a tie it must not declare. The two are told
# apart with the judge's own Neutral verdicts: a pair is *tie-broken* when the judge calls
# it a Tie once a tie is allowed, and *untied* otherwise (`position_bias`). Every pair is
# shown in both orders, so on untied pairs a judge with no position bias picks A exactly
# half of the time.

# %%
pb = leakage_metrics.position_bias(r2, n_boot=n_boot, seed=seed)
labelled(pb.set_index("pairs")[["share", "estimate", "ci_low", "ci_high", "n"]]
         .rename(columns={"share": "share of forced verdicts", "estimate": "first-position rate"}),
         f"{JUDGE}; ties forbidden")

# %% [markdown]
# On the pairs it can tell apart, the embedding judge shows no position bias at all; the
# whole of the pooled rate above 0.5 comes from the exact ties it must break, which this
# judge breaks towards candidate A: adding an Additional Information block rarely changes
# which résumé line best matches a criterion, so many pairs score *exactly* the same.
#
# A generative model can have a position bias of its own. The small model
# (SmolLM2-135M-Instruct, constrained to the schema's verdicts) judges `smol_pairs` variants
# in both orders under all three regimes (several seconds a verdict on two CPU cores: the
# cell prints its time, so the default is one variant: six verdicts). Six verdicts on one pair support no claim about its
# position bias, and this chapter makes none: the cell shows that the path works (a local
# model, the schema, the cache) and what the verdicts were. The exercise runs enough pairs
# to say something. Its replies are cached, so a rebuild does not redo them.

# %%
if smol_pairs > 0:
    t0 = time.perf_counter()
    order = ["Anglo", "Chinese", "Control", "Indian", "First Nations", "Vietnamese"]
    pick = variants[(variants["base_id"] == "swe-01") & variants["tier"].isin(["T1", "none"])
                    & (variants["block"] <= 1)].set_index("condition").loc[order[:smol_pairs]].reset_index()
    smol = get_judge("hf", num_threads=1)  # one thread: faster than two busy-waiting ones on a shared CPU
    r2s = run_task(2, task_items(2, pick, baselines), smol, cache=ReplyCache(cache_path("leakage", "replies.sqlite")))
    print(f"{len(r2s)} verdicts from {smol.judge_id.split('|')[1]} in {time.perf_counter() - t0:.0f} s; "
          f"{(~r2s['parse_ok']).sum()} outside the schema")
    display(labelled(pd.crosstab([r2s["regime"], r2s["order"]], r2s["preferred"]).rename_axis(columns=None),
                     "ours: SmolLM2-135M-Instruct judge, verdicts by regime and order; validity gate: "
                     "not carded (no card run)"))
    if r2s["variant_id"].nunique() >= 5:  # enough pairs to estimate anything
        display(labelled(leakage_metrics.position_bias(r2s, n_boot=n_boot, seed=seed).set_index("pairs")
                         [["share", "estimate", "ci_low", "ci_high", "n"]],
                         "ours: SmolLM2-135M-Instruct judge, ties forbidden; validity gate: not carded (no card run)"))

# %% [markdown]
# ## Task 3: does recoverability change the screening decision?
#
# Each variant is scored against its job description: shortlist 0/1 and a score 0–100.
# Score differences against Anglo are paired within base résumés (the cluster bootstrap
# resamples bases, keeping their variants together). The Top-Score Rate is, as the paper
# defines it, "the proportion of base profiles on which a condition attains the maximum
# score among peer variants" (its 31 variants): our reproduction counts it that way,
# per base (`leakage_metrics.top_score_rate`, `unit="base"`). That count gives each group six chances per
# base (3 tiers × 2 blocks) and the control one, so it favours the groups over the
# control by construction. Beside it we report ours, like with like: the share of a
# condition's *variants* that attain their base's top score (`unit="variant"`), which
# judges every condition one variant at a time. Where the two disagree, the number of
# variants per base (last column) is the reason.

# %%
r3 = run_task(3, task_items(3, variants), judge)
t3 = leakage_metrics.task3_metrics(r3, n_boot=n_boot, seed=seed)
diffs = leakage_metrics.score_differences(r3, n_boot=n_boot, seed=seed)
shortlist = leakage_metrics.shortlist_ratios(r3, n_boot=n_boot, seed=seed)
tsr = leakage_metrics.top_score_rate(r3, n_boot=n_boot, seed=seed)  # the paper's per-base rate, plotted below
tsr_both = leakage_metrics.top_score_rates_both(r3, n_boot=n_boot, seed=seed).set_index("condition")
labelled(t3.pivot_table(index="condition", columns="metric", values="estimate").rename_axis(columns=None)
         .join(tsr_both[["paper_per_base", "ours_per_variant", "variants_per_base"]]
               .rename(columns={"paper_per_base": "top-score rate, per base (paper's definition)",
                                "ours_per_variant": "top-score rate, per variant (ours)",
                                "variants_per_base": "variants per base"})),
         f"{JUDGE}; Task 3 by condition")

# %%
display(labelled(diffs.set_index("condition")[["difference", "ci_low", "ci_high", "p_holm"]]
                 .rename(columns={"difference": "score difference (points)"}),
                 f"{JUDGE}; score difference against Anglo, 95% cluster-bootstrap CI"))
labelled(shortlist.set_index("condition")[["ratio", "ci_low", "ci_high", "four_fifths_flag"]],
         f"{JUDGE}; shortlist ratio against Anglo, 95% cluster-bootstrap CI")

# %% mystnb={"figure": {"caption": "Ours, embedding judge: Task 3 score differences against Anglo (top) and the Top-Score Rate (bottom), with 95% cluster-bootstrap CIs."}}
fig = leakage_plots.task3_figure(diffs, tsr, title="Score difference vs Anglo (ours, points of 100)")

# %% [markdown]
# ## Published results next to ours
#
# The left column is what {cite}`beyondthename` reports for nine open-weight LLMs (8–36B
# parameters, greedy decoding, three repetitions); the column "ours" is this chapter's
# single embedding judge, each estimate with its 95% cluster-bootstrap CI.

# %%
headline = leakage_metrics.headline_table(t1, t2, srr, diffs)
labelled(headline.set_index("quantity"),
         "ours and published: published (Beyond the Name, nine open-weight LLMs) and ours (embedding judge, "
         "95% cluster-bootstrap CI); validity gate: not carded (no card run)")

# %%
print(f"whole chapter: {time.perf_counter() - t_start:.0f} s")

# %% [markdown]
# What carries over, and what does not:
#
# - **Leakage with the language line held fixed.** Even a small embedding model, told
#   nothing but five one-sentence group descriptions, attributes most explicit (T1) and
#   community (T2) blocks to the right group, and falls off at the subtle tier (T3), as in
#   the paper, where T3 is the only tier that separates models. Our overall recovery is
#   below the published 0.757 because our judge *abstains* far more often than the LLMs,
#   which "commit to specific groups rather than abstaining".
# - **The verdict space decides Task 2.** When ties are encouraged our judge returns ties
#   for almost every pair, as most of the paper's models do (≥ 94%); with ties forbidden
#   the same pairs produce a first-position effect that, on the untied pairs, vanishes: it
#   is the judge's tie-breaking rule. Our forced-choice ratios stay near 1, but not because
#   our judge is blind to the blocks: it scores Indian variants a few hundredths of a point
#   higher than Anglo ones (the score difference above, whose interval excludes 0 before
#   correction, not after Holm), because some Indian blocks happen to share words with a
#   criterion. That gap is real for this judge and far too small to move a verdict against
#   a baseline, which is why the ratios barely move. The paper's 0.39 came from its models
#   preferring the group-neutral control. The mechanism is the same: a forced choice between
#   candidates the judge cannot separate turns noise or position into an apparent preference.
# - **Screening compresses everything.** Score differences against Anglo are a small
#   fraction of a point and shortlist ratios sit at 1 (the tables above give the Holm and
#   Benjamini–Hochberg adjusted p-values), as the paper finds for its models: a
#   recoverable signal need not move a screening decision that cannot resolve it.
#
# Position effects are not an artefact of small judges only: in Bloomberg's recorded
# rankings (chapter {doc}`08b_llm_ranking`) GPT-3.5 puts the résumé shown first on top 3 to 7
# times as often as chance, more than any name moves it; in the same recorded rankings GPT-4
# does so on two of its four jobs (about 3 times chance) and stays close to chance (1.1 and
# 1.4 times) on the other two.
# Whether a name moves today's models more than an irrelevant edit does is measured on their
# recorded replies in chapter {doc}`08c_recorded_models`.

# %% [markdown]
# ## Exercises
#
# :::{exercise}
# :label: ex-11-abstain
#
# Our judge abstains more than the paper's models. Re-execute the chapter with a looser
# Task 1 threshold, one that lets a quarter of the cue-free baselines through:
#
# ```bash
# popresume book run notebooks/11_leakage.py -p false_attribution 0.25
# ```
#
# (`false_attribution` is the share of the cue-free baselines that the calibrated threshold
# attributes to *some* group.) How do the recovery rate per tier, the abstention rate and the
# control's false-attribution rate move? Which of them is the price of the higher recovery?
# :::
#
# :::{solution} ex-11-abstain
# :class: dropdown
#
# Recovery rises at every tier, most at T3, and abstention falls; but the control, whose
# block carries no cue at all, is now attributed to some group much more often. A judge
# that "commits" more looks better on recovery while manufacturing attributions from
# nothing, which is why the paper reports abstention and confidence next to recovery,
# and why the control variant matters.
# :::
#
# :::{exercise}
# :label: ex-11-ties
#
# Re-run with `-p tie_margin 0` (ties are then only exact score equalities). What happens
# to the tie rate under the Neutral and Encouraged regimes, and to the selection-rate
# ratios?
# :::
#
# :::{solution} ex-11-ties
# :class: dropdown
#
# Only the exactly equal pairs remain ties, so the tie rate drops to the share of pairs
# whose scores are identical. The ratios change little, because a tie counts one half for
# the marked variant and ties are spread evenly across groups: the four-fifths flags are a
# property of the verdict space, not of the groups.
# :::
#
# :::{exercise}
# :label: ex-11-smol
#
# One pair is thin evidence of a position effect. Re-execute with six marked variants (one
# per condition) judged by the small generative model, 36 verdicts in all:
#
# ```bash
# popresume book run notebooks/11_leakage.py -p smol_pairs 6
# ```
#
# Does its first-position rate stay where it was? Does it ever answer "Tie", even when ties
# are encouraged?
# :::
#
# :::{solution} ex-11-smol
# :class: dropdown
#
# With six pairs the chapter shows `position_bias` for the small model. What to look for:
# a first-position rate on untied pairs far above 0.5 is a position bias (a model that
# cannot weigh two résumés falls back on a prior, and the first candidate is a common one);
# a Tie rate near 0 under the Encouraged regime means the model ignores the option it is
# offered. Its selection rate for the marked variant stays near one half whatever the group
# when each pair is shown in both orders: counterbalancing the order is what keeps a
# position bias out of the selection-rate ratios. Thirty-six verdicts on six pairs are
# still few; report the interval, not just the rate.
# :::
#
# :::{exercise}
# :label: ex-11-holm
#
# In the selection-rate table, count the comparisons with an unadjusted `p_value` below
# 0.05, then those with `p_holm` and `p_bh` below 0.05. Why is the audit obliged to make
# this correction here?
# :::
#
# :::{solution} ex-11-holm
# :class: dropdown
#
# Each regime contributes five comparisons against Anglo (four groups and the control),
# fifteen in all, and the tier-level table (`selection_rate_ratios(r2, by_tier=True)`)
# another forty-five: at the 5% level about one in twenty would be "significant" by
# chance alone. Holm controls the chance of any false flag, Benjamini–Hochberg the
# expected share of false flags among those raised; both remove the handful of nominal
# hits this chapter's judge produces.
# :::
