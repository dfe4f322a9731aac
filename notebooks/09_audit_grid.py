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
# # The audit grid: every occupation, format, attribute and screener
#
# **What you will learn**
#
# - how PopResume's results are organised: a grid of occupations × résumé formats ×
#   protected attributes × screeners, each cell one audit with five path-specific effects
#   and a case label {cite}`yu2026popresume`;
# - how to run such a grid from a YAML file with one function (`popresume.audit.run_audit`)
#   or one command (`popresume audit`), resumably and in parallel;
# - why each screener's validity card comes before its effects, and what a failed gate
#   means for the numbers;
# - how our numbers compare with the published Tables 4–5, and which screener produced
#   which of our numbers (a real embedding model for text, a *synthetic* screener with a
#   photo channel for the image formats);
# - how to draw Figures 4 and 5 from the tidy results table, and how to count the cases.
#
# The parameters cell names the grid's config file (`configs/default_audit.yaml`), the
# number of applicants per occupation `sizes`, the bootstrap draws `n_boot`, the joblib
# workers `n_jobs`, the `occupations` to keep (`"all"` or a list of keys) and the number of
# résumés of each screener's validity card, `n_validity`. The book
# runs the default grid: 5 occupations × 3 formats × 2 attributes with 400 applicants per
# occupation — about a thirtieth of the paper's 60,884.

# %% tags=["parameters"]
config_file = "default_audit.yaml"
sizes = 400
n_boot = 500
n_jobs = 2
occupations = "all"
seed = 0
n_validity = 40  # résumés per validity card (the audit reads cards of this size)

# %%
import time

import matplotlib.pyplot as plt
import pandas as pd

from popresume.book import chapter_setup
from popresume.audit import metrics as audit_metrics
from popresume.audit import summaries
from popresume.audit.config import grid_config
from popresume.audit.grid import read_results, run_audit
from popresume.causal import case_counts
from popresume.causal.identification import MAX_CLIPPED_SHARE, MIN_ESS
from popresume.paths import data_path
from popresume.plots import audit as audit_plots
from popresume.tables import labelled
from popresume.schema import VERDICT_COLUMN
from popresume.screeners.validity import attach_validity, card_for, card_summary

chapter_setup()

# %% [markdown]
# ## The grid and its screeners
#
# PopResume audits 5 occupations × 3 formats (text; an image of the résumé; an image with
# a profile photo) × 2 protected attributes (gender with $x_0$ = Female; race as the
# binary contrast $x_0$ = Non-White, $x_1$ = White of Appendix E) × 4 models per format:
# 120 audits. A config file lists the same four axes. It is checked entry by entry before
# anything runs: an unknown occupation, format, attribute or screener, or a text-only
# screener given an image format, stops the run with an error that names the entry.

# %%
cfg = grid_config(config_file, sizes=sizes, n_boot=n_boot, seed=seed, occupations=occupations)
screeners = pd.DataFrame([{"screener": s.name, "model (label in the tables)": s.label, "kind": s.kind,
                           "synthetic": s.synthetic, "formats": ", ".join(s.formats)} for s in cfg.screeners])
labelled(screeners, f"ours: the screeners of this grid's config ({config_file})")

# %% [markdown]
# Which screener produced which numbers:
#
# - **text** résumés are scored by a real model, the sentence-embedding screener
#   (all-MiniLM-L6-v2 {cite}`reimers2019sentence`): the score is the cosine similarity of
#   the résumé and the job description, rescaled to 0–100 — the alternative scoring rule the
#   paper mentions in §5.1. It is not one of the paper's LLMs.
# - **image** and **image + photo** résumés are scored by a **synthetic** screener. No
#   vision-language model runs on two CPU cores within a book build, so a stand-in whose
#   score is a known function of the profile takes its place. It reads no $X$ from a
#   résumé without a photo; its *photo channel* adds 2 points for men and 1.5 for White
#   applicants when a photo is attached. Every row it produces says "(synthetic)" in the
#   `model` column, and its true effects are known, so we can check the estimates.

# %% [markdown]
# ## Does each screener read the résumé? The validity cards
#
# Before its numbers are read as discrimination, a screener must show that it reads the
# résumé at all (Chapter 5's validity gate): it should score a résumé higher against its
# own posting than against another occupation's, rise with qualifications, and not move
# under harmless edits. The cards below are computed for this grid's screeners (and kept
# on disk, so a rebuild reads them); `run_audit` then writes each screener's verdict into
# every row of the results, and every effects table of this chapter shows it in the
# column "validity gate".

# %%
cards = {s.label: card_for(s.spec, n=n_validity, seed=seed) for s in cfg.screeners}
labelled(card_summary(cards), "ours: validity cards of this grid's screeners (paired differences in score points)")

# %%
for label, card in cards.items():
    why = "; ".join(card["reasons"]) or "every check of the rule holds"
    print(f"{label}: {card['verdict']} ({why})")

# %% [markdown]
# Read each verdict with its reasons, printed above; they are computed from the cards, so
# they follow the parameters (a card on more résumés can turn a qualification check that
# could not exclude 0 into one that does). The embedding screener clearly tells its own
# posting from a mismatched one; whether its scores also rise reliably with education or
# experience is what decides its verdict here. The synthetic screener passes by
# construction: its job-fit term takes points off a résumé read against another
# occupation's posting, and its coefficients reward education and experience. That pass is
# a property of the function we wrote, because it is the book's known-truth device (its true
# effects are known, so the estimates can be checked against them), not a screener under
# audit. Their effects below are therefore *about these screeners*, whatever the verdict: the embedding screener's gaps are gaps in text
# similarity, not in judged suitability, and the synthetic screener's are the
# coefficients we gave it. The book uses them to show the method, never as findings about
# a real hiring tool, and no legal category (a case label, "business necessity") read off
# them describes one.

# %% [markdown]
# ## Running the grid
#
# `run_audit` generates the applicants (or reads them from the cache), renders the
# résumés of each format, scores them (every score is cached on disk), and estimates the
# five effects of every cell with the cross-fitted DML estimator of Chapter 7, cells in
# parallel with joblib. A rerun reuses every cached stage, and
# `popresume audit --config configs/default_audit.yaml --out results.csv` does the same
# from the shell (`--scheduler tcp://HOST:8786` sends the cells to a Dask cluster).

# %%
t0 = time.perf_counter()
results = run_audit(cfg, n_jobs=n_jobs, progress=False).table
# every row carries its screener's verdict from the cards above (whatever their size)
results = attach_validity(results.drop(columns="validity_verdict"), {s.name: cards[s.label] for s in cfg.screeners})
print(f"{len(results)} audits in {time.perf_counter() - t0:.0f} s (cached stages are read, not recomputed)")

# %% [markdown]
# The results table has the layout of the published `popresume_published_pse.csv`
# (attribute, occupation, format, model, case labels, and estimate / CI of each effect),
# plus SEs, the synthetic screener's true effects, the screener's metadata and two overlap
# diagnostics. Below, the key columns come first, every effect is printed as
# "estimate [95% CI]" ("*" when the CI excludes 0), and the last two columns are the
# overlap diagnostics: `min ESS`, the smallest effective sample size of any of the
# estimator's weights, and `clipped share`, the largest share of one propensity model's
# values clipped to `[0.01, 0.99]` (the estimator's `clip`). They say how much of each
# estimate rests on the data and how much on the outcome models' extrapolation (Chapter 10a).
#
# This grid reproduces the paper, so it applies the paper's rule: every effect gets its
# interval, whatever the overlap (`identification: paper` in the config). The book's own
# rule (`identification: overlap`, the default of the estimator and of the audit report)
# withholds the interval of an effect whose propensities are clipped too often or whose
# weights have too small an ESS, and says why: Chapter 9a shows it on one audit, and the
# appendix {doc}`12_trust` measures how far the intervals of each kind hold. Read the
# gender rows below with the overlap columns beside them.

# %%
view = summaries.effects_view(results, source="ours", cases="cases")
print(f"{len(view)} audits; the first 12 are shown, in two tables so that every column fits the page")
keys = ["attribute", "occupation", "format", "model"]
VIEW = "ours: this grid's screeners (model column), the first 12 audits"
display(labelled(view[keys + ["validity gate", "cases", "TE", "NDE", "NIE"]].head(12), VIEW))
labelled(view[keys + ["validity gate", "BIE", "RIE", "min ESS", "clipped share"]].head(12), VIEW)

# %% [markdown]
# ## Our run next to the published Tables 4–5
#
# The published table (`data/published/popresume_published_pse.csv`, transcribed from
# Tables 4–5 of {cite}`yu2026popresume`) holds the same 120 configurations. `side_by_side`
# puts our row(s) above the published ones for each configuration, every effect printed as
# the paper prints it, "estimate [95% CI]", with a `*` when the CI excludes 0; the `source`
# column says whose numbers each row holds and `model` which screener produced them. Our
# rows also carry their overlap diagnostics (the paper reports none). Our models are not
# the paper's, so the comparison is of *patterns* (signs, which paths matter, how wide the
# intervals are), not of values.

# %%
published = audit_metrics.published_table()
sbs = summaries.add_overlap(audit_metrics.side_by_side(results, published, digits=2), results)  # overlap: ours only
occ0 = results["occupation"].iloc[0]
SBS = ("ours and published: Tables 4-5 beside our audits; min ESS and clipped share are ours only (– : the paper "
       "reports no overlap)")
labelled(sbs[(sbs["attribute"] == "gender") & (sbs["occupation"] == occ0)].drop(columns=["attribute", "occupation"]),
         f"{SBS}; gender, {occ0}")

# %%
labelled(sbs[(sbs["attribute"] == "race") & (sbs["occupation"] == occ0) & (sbs["format"] == "text")]
         .drop(columns=["attribute", "occupation"]), f"{SBS}; race, {occ0}, text")

# %% [markdown]
# Our intervals are an order of magnitude wider than the paper's, for two reasons. We
# have about a thirtieth of its applicants, and the CI width of a DML estimate shrinks like
# $1/\sqrt{n}$ (a factor $\sqrt{30} \approx 5.5$); the scale of our scores (the
# synthetic screener's noise, the embedding similarity's spread) also differs from the
# LLMs' 0–100 ratings. But sample size is not the whole story: for **gender** the first
# name's gender class nearly determines gender, so the propensities $p(x \mid R, Z)$ sit at
# 0 or 1 for most applicants. Where they are clipped, the NDE and NIE are carried by the
# outcome models' extrapolation, and the ESS column above shows how few applicants
# effectively weigh in. The table below splits the widths by attribute.

# %%
effects = ["TE", "NDE", "NIE", "BIE", "RIE"]
width = pd.DataFrame({
    f"ours, {a} (median CI width)": [(results.loc[results.attribute == a, f"{e}_ci_high"]
                                      - results.loc[results.attribute == a, f"{e}_ci_low"]).median() for e in effects]
    for a in ("gender", "race")} | {
    "published (median CI width)": [(published[f"{e}_ci_high"] - published[f"{e}_ci_low"]).median() for e in effects],
}, index=effects)
labelled(width, "ours and published: this grid's screeners (validity gates in the cards table above) beside PopResume Tables 4-5", precision=3)

# %% [markdown]
# ## Figure 4: effects with confidence intervals across the grid
#
# One panel per occupation and format, one point per screener and effect; a filled point
# means its 95% CI excludes 0 (the paper's "significant"). First our run, by attribute.

# %% mystnb={"figure": {"caption": "Ours, Figure 4's layout for this grid: path-specific effects by occupation and format (text: embedding screener; image formats: synthetic screener; their verdicts are in the cards above). Filled markers: the 95% CI excludes 0."}}
for attribute in ("gender", "race"):
    fig = audit_plots.figure4(results, attribute=attribute)
    fig.suptitle(f"ours: path-specific effects, {attribute} (text: embedding screener; image formats: synthetic "
                 f"screener); filled: 95% CI excludes 0", fontsize=10)
    plt.show()

# %% [markdown]
# The same function draws the published table, where each panel holds the paper's four
# models of that format.

# %% mystnb={"figure": {"caption": "Published (PopResume Table 4): the gender effects of the paper's LLMs and VLMs, drawn by the same function (not carded: the paper runs no validity check)."}}
fig = audit_plots.figure4(published, attribute="gender", occupations=["Registered Nurses", "Software Developers"])
fig.suptitle("published (PopResume Table 4): gender effects of the paper's LLMs and VLMs; filled: CI excludes 0",
             fontsize=10)
plt.show()

# %% [markdown]
# The paper's Figure 4 itself shows one representative audit per case. `figure4_cases`
# picks the first audit labelled with each case alone and draws it the same way. The
# audits are taken from those without a photo: Case 1 is defined for résumés that carry
# no explicit demographic information, and a photo is such information.

# %% mystnb={"figure": {"caption": "Published (PopResume Tables 4-5): the paper's Figure 4, one audit per case among the audits without a photo."}}
no_photo = published[published["format"] != "image+photo"]
fig = audit_plots.figure4_cases(no_photo.rename(columns={"paper_cases": "cases"}))
fig.suptitle("Figure 4 as published: one audit per case, among the audits without a photo "
             "(PopResume Tables 4-5)", fontsize=10)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## Figure 5: with and without a profile photo
#
# §5.3 compares each VLM on image résumés with and without a photo: "the magnitude of NDE
# increases noticeably" in 8 of 20 pairs. `figure5` puts the two runs of the same
# configuration side by side. For our synthetic screener the true NDE is 0 without a photo
# and $+2$ (gender) or $+1.5$ (race) with one; the estimates should follow.

# %% mystnb={"figure": {"caption": "Ours, synthetic screener (a known-truth device; it passes the validity gate by construction): effects with and without a photo."}}
fig = audit_plots.figure5(results, max_panels=6)
fig.suptitle("ours: synthetic screener with and without a photo", fontsize=10)
fig.tight_layout()
plt.show()

# %%
syn = results[results["synthetic"]]
check = syn[["attribute", "occupation", "format", "model", "validity_verdict", "NDE_estimate", "NDE_ci_low",
             "NDE_ci_high", "NDE_true"]].rename(columns={"validity_verdict": VERDICT_COLUMN})
check.insert(0, "source", "ours")
check["covers_truth"] = (check["NDE_ci_low"] <= check["NDE_true"]) & (check["NDE_true"] <= check["NDE_ci_high"])
check = pd.concat([check, summaries.overlap_columns(syn).round(3)], axis=1)
print(f"synthetic cells whose NDE interval covers the true NDE: {check['covers_truth'].sum()} of {len(check)}")
labelled(check.head(10), "ours: synthetic screener, the first 10 audits, with its known true NDE", precision=3)

# %% [markdown]
# The paper's two examples of Figure 5, drawn from the published table:

# %% mystnb={"figure": {"caption": "Published (PopResume Table 4): the paper's Figure 5, two audits with and without a photo."}}
pairs = pd.DataFrame({"attribute": ["gender", "gender"],
                      "occupation": ["Accountants Auditors", "Registered Nurses"],
                      "model": ["Gemini-2.5-Flash-Lite (VLM)", "GPT-4o"]})
fig = audit_plots.figure5(published, pairs)
fig.suptitle("Figure 5 as published (PopResume Table 4)", fontsize=10)
fig.tight_layout()
plt.show()

# %% [markdown]
# How often does the photo raise $|\mathrm{NDE}|$? `photo_shift` counts the pairs in which
# it does, and those in which NDE is significant with the photo but not without it. On
# the published gender pairs the paper's "8 of 20" is the second count; the first is
# larger.

# %%
syn_gate = results.loc[results["synthetic"], "validity_verdict"].iloc[0]
labelled(pd.DataFrame({"published VLMs (gender)": summaries.photo_shift(published[published.attribute == "gender"]),
                       "published VLMs (both)": summaries.photo_shift(published),
                       "ours, synthetic screener (both)": summaries.photo_shift(results)}),
         f"ours and published: PopResume Table 4 beside ours, synthetic screener (validity gate: {syn_gate})")

# %% mystnb={"figure": {"caption": "NDE with and without a photo: the published VLMs (top) and ours, synthetic screener (bottom)."}}
fig = audit_plots.photo_shift_figure(published, results, ours_label="ours (synthetic screener)")
plt.show()

# %% [markdown]
# ## Case counts
#
# The cases of §5.2 (C1 direct discrimination, C2 cancellation, C3 qualifications only,
# C4 proxies only, C5 both mediated paths) are labels on the significance pattern of each
# audit. The column "cases" applies the rules as stated; the paper rule (the column "ours
# (paper rule)" below) also requires NIE ≠ 0 for C3 and C4, which is what reproduces all
# 120 published labels (Chapter 8).
# As the paper does, C1 is counted over the audits without a photo ("49 of 80"), the
# other cases over all.

# %%
labelled(pd.DataFrame({"published (printed labels)": case_counts(published["paper_cases"].fillna("-"), published["format"]),
                       "ours (stated rules)": case_counts(results["cases"], results["format"]),
                       "ours (paper rule)": case_counts(results["cases_paper_rule"], results["format"])}),
         "ours and published: PopResume Tables 4-5 beside this grid's screeners (validity gates in the cards table above)")

# %% [markdown]
# With 400 applicants per occupation most of our effects are not distinguishable from 0,
# so far fewer cases fire than in the paper. Where a C1 (direct effect) does fire among the
# synthetic cells, it should be in the image + photo format, the only one where the
# synthetic screener has a direct effect by construction:

# %%
syn_c1 = syn[syn["cases"].str.contains("C1")]
labelled(summaries.effects_view(syn_c1, source="ours", effects=["NDE"], cases="cases").assign(
    **{"true NDE": syn_c1["NDE_true"].to_numpy()}), "ours: synthetic screener, its audits in C1", precision=2)

# %% [markdown]
# ### A C1 on text would not be a finding
#
# A C1 or C2 on the **text** format would say the embedding screener discriminates
# directly. It cannot: the embedding model reads only the résumé text, and the text differs
# between groups only through the name, the qualifications and the state (it carries no
# gender or race field; Chapter 10a checks that flipping both leaves every résumé
# unchanged). Against the *ungrouped* name its true NDE is 0. The cell below lists every
# text audit of this run in C1 or C2, with its overlap diagnostics.

# %%
emb = results[results["format"] == "text"]
emb_c1 = emb[emb["cases"].str.contains("C1|C2")]
print(f"ours: {len(emb_c1)} of {len(emb)} text audits (embedding screener) in C1 or C2")
(labelled(summaries.effects_view(emb_c1, source="ours", effects=["TE", "NDE", "NIE", "RIE"], cases="cases"),
          "ours: embedding screener, its text audits in C1 or C2") if len(emb_c1) else None)

# %% [markdown]
# Whenever such a row appears (on other seeds or sizes, if not in this run) it is an
# artefact of the estimator's inputs, not evidence of direct discrimination, for two
# reasons:
#
# 1. **Coarsened mediators.** The estimator sees the name only through its class (the
#    surname's race class, the first name's gender and age classes). Whatever the embedding
#    does with a name beyond its class (a token's embedding differs from name to name)
#    tracks race *within* the class and lands on the direct path. Chapter 10a measures
#    this artefact and re-estimates the same cell with refined name variables and at a
#    larger $n$.
# 2. **Weak overlap.** Where many of the propensities are clipped and the ESS is small
#    (the overlap columns of the tables in this chapter: for gender most propensities are
#    clipped, for race few), the NDE is carried by the outcome models' extrapolation and
#    its interval is unreliable.
#
# At the paper's size (next section) the software developers' race NDE covers 0, but the
# artefact shows up in another cell: teachers by gender, a C1 with three quarters of its
# propensities clipped. The next section lists it, and Chapter 10a re-estimates it with
# refined name variables.

# %% [markdown]
# ## At the paper's size: the full text grid from the command line
#
# The book's grid is small so that the book builds in minutes. The same grid at the
# paper's Table 3 sizes (60,884 applicants) was run from the command line with the real
# embedding screener on the text format:
#
# ```bash
# popresume audit --config configs/paper_text.yaml --jobs 2 --out results_text.csv
# ```
#
# Its results table ships with the book as `data/results/audit_paper_text_embedding.csv`
# (`data/README.md` records the run); the cells below read it, they do not recompute it.
# It was made on an earlier population (the seeded P1 of Chapter 1, the earlier PSID-based
# P2, `experience_source="psid"`, of Chapter 2, careers built forward as in Chapter 4). Scoring
# the 60,884 résumés is most of a cold run; the ten tuned estimates with 500-draw intervals
# took 37 s more when it was made. How fast the embedding screener scores on your machine, and how
# that compares with the sentence-transformers library it wraps on the same résumés, is
# printed by `benchmarks/bench_screeners.py` (the README quotes its ratios). The scores are
# cached, so an interrupted run resumes where it stopped. The validity gate
# column carries this chapter's card of the same embedding screener. The run predates the
# estimable rule (docs/DESIGN.md §3, Chapter 12), so its intervals are the paper rule's,
# printed whatever the overlap, as the paper prints its own: read each row with its
# `min ESS` and `clipped share`, which say where an interval rests on extrapolation. The
# tool's default rule today (docs/DESIGN.md §3) withholds a path's interval only where more
# than 1% of the propensities it rests on are clipped or its weights' ESS is under 50. The
# table's two columns are the worst over all of an audit's propensities and weights, so a row
# inside both limits keeps every interval under today's rule; the count below says which rows
# those are, and in the others at least one path would be withheld.

# %%
full = read_results(data_path("results", "audit_paper_text_embedding.csv"))
emb_card = next(cards[s.label] for s in cfg.screeners if s.kind == "embedding")
full = attach_validity(full.drop(columns="validity_verdict"), {name: emb_card for name in full["screener"].unique()})
supported = (full["clipped_share"] <= MAX_CLIPPED_SHARE) & (full["min_ess"] >= MIN_ESS)
for attr, ok in supported.groupby(full["attribute"]):
    print(f"ours, paper-size run, {attr}: {int(ok.sum())} of {len(ok)} audits keep every interval under today's "
          f"rule (clipped share at most {MAX_CLIPPED_SHARE:.0%}, smallest ESS at least {MIN_ESS:.0f})")
labelled(summaries.effects_view(full, source="ours, paper rule", keys=["attribute", "occupation", "n"],
                                effects=["TE", "NDE", "BIE", "RIE"], cases="cases_paper_rule"),
         "ours: embedding screener (all-MiniLM-L6-v2) at the paper's size, the shipped run (paper rule)")

# %% [markdown]
# The text audits of this run that fall in C1 or C2, with their overlap:

# %%
full_c1 = full[full["cases_paper_rule"].fillna("").str.contains("C1|C2")]
print(f"ours: {len(full_c1)} of {len(full)} text audits at paper size (embedding screener) in C1 or C2")
(labelled(summaries.effects_view(full_c1, source="ours, paper rule", keys=["attribute", "occupation", "n"],
                                 effects=["TE", "NDE", "NIE", "RIE"], cases="cases_paper_rule"),
          "ours: embedding screener at the paper's size, its text audits in C1 or C2 (paper rule)")
 if len(full_c1) else None)

# %% [markdown]
# One cell: teachers by gender, NDE 2.17 [0.29, 3.89]. The screener cannot have a direct
# effect of gender on text that carries no gender, so this is the artefact described
# above, at full size: 76% of the $p(x \mid R, Z)$ propensities are clipped and the
# smallest ESS is 37 of 16,188, and the first name's gender class leaves on the direct path
# whatever the embedding does with a name beyond its class. With the classes refined by
# the names' typicalities, the same scores give an NDE of 0.57 [−0.37, 1.48]
# (Chapter 10a). Bigger samples do not cure the artefact: they only narrow the interval
# around the wrong number.
#
# The table above carries two more gender labels than that one C1: accountants by gender
# are a C4 (a redlining effect alone), and the teachers' cell is also a C5 (its BIE and RIE
# both exclude 0). They are gender cells with the same weak overlap, so their NIE, BIE and
# RIE rest on the same extrapolation as the NDE, and the labels are no sturdier than the
# teachers' C1: a label is only as good as the effects it rests on.

# %% mystnb={"figure": {"caption": "Ours, embedding screener (all-MiniLM-L6-v2; its validity verdict is in the cards above) at the paper's size: the effects of the ten text audits."}}
fig = audit_plots.effects_by_occupation(
    full, label="attribute", title="ours: all-MiniLM-L6-v2 (embedding screener) on 60,884 text résumés;\n"
                                   "gender (x0 = F), race (x0 = Non-White)")
plt.show()

# %%
n_sig = {e: int(audit_metrics.significance(full, "none")[e].sum()) for e in effects}
labelled(pd.Series(n_sig, name=f"audits (of {len(full)}) whose CI excludes 0").to_frame(),
         f"ours: embedding screener at the paper's size (validity gate: {full['validity_verdict'].iloc[0]})")

# %% [markdown]
# The embedding screener never reads gender or race, and its résumés carry neither (the
# renderer's no-leak test): at full size its NDE interval covers 0 in nine of the ten
# audits, and the tenth is the teachers' artefact above. Where its total effect is not 0
# the gap runs through the mediators: through qualifications (BIE) for construction
# laborers by gender, and for race among nurses, teachers and software developers, where
# White applicants score slightly lower through B (BIE between −0.10 and −0.24 points,
# intervals excluding 0). That is the seeded population's race × education association
# (Chapter 1) passing through a screener whose similarity rises with qualifications: the
# Non-White group pools Asian and Pacific Islander applicants, who more often hold an
# advanced degree, with Black ones (the population has three race groups: White, Black and
# API; among software developers 40% of Non-White applicants against 27% of White ones are
# in the highest education group). The paper's framework puts such a gap on the
# business-necessity path, which an employer may try to defend; that does not make it
# lawful ({doc}`../book/legal`: business necessity is a defence the employer must
# establish for the job), and for this screener, whatever its verdict, it is a
# property of text similarity, not of judged suitability. Compare the widths with the
# 400-per-occupation grid above: the intervals shrink roughly as $1/\sqrt{n}$ for race. For
# gender they stay wide even at full size: on nurses 85% of the $p(x \mid R, Z)$
# propensities are clipped and the smallest ESS is 35 of 17,632 applicants. The gender NDE
# and NIE therefore rest largely on the outcome models' extrapolation, here and, we infer
# from the same design (the paper groups first names with the same thresholds and reports
# no overlap diagnostics), in the paper's estimates; Chapter 10a shows what that does and
# what restoring overlap costs.

# %% [markdown]
# The next chapters ask what grouping the names does to the direct effect (10a), how many
# of the *published* cases survive a correction for the 600 tests behind them and what TE
# alone would have said (10b), how outcome-level rules (four-fifths, NYC Local Law 144)
# compare (10c), and what moving a mediator between B and R changes (10d).

# %% [markdown]
# ## Exercises
#
# :::{exercise}
# :label: ex-09-size
#
# Re-execute the chapter with twice as many applicants per occupation:
#
# ```bash
# popresume book run notebooks/09_audit_grid.py -p sizes 800
# ```
#
# By how much do the median CI widths shrink? How many more audits fall into a case?
# :::
#
# :::{solution} ex-09-size
# :class: dropdown
#
# The widths shrink by roughly $1/\sqrt{2} \approx 0.71$, as for any root-$n$ estimator;
# effects that were near the edge of significance cross it, so the counts of C1 and C5
# grow. The synthetic cells' intervals keep covering their true NDE (0 without a photo,
# 2 or 1.5 with one) while getting narrower. The run takes about twice as long: scoring
# and estimation are both linear in $n$.
# :::
#
# :::{exercise}
# :label: ex-09-bad-config
#
# Write a config in which the embedding screener is given the `image` format, and run
# `popresume audit --config bad.yaml --out x.csv`. What happens, and when?
# :::
#
# :::{solution} ex-09-bad-config
# :class: dropdown
#
# The command stops before generating a single profile with an error naming the entry,
# e.g. `screener screeners[0] (minilm, spec 'embedding') cannot read images but is given
# image format 'image'; restrict its 'formats' to ['text']`. Validation
# (`popresume.audit.config.validate_config`) runs before any work, so a typo in a long
# grid never costs an hour of scoring.
# :::
#
# :::{exercise}
# :label: ex-09-photo
#
# Change the synthetic screener's photo channel in a copy of `configs/default_audit.yaml`
# to `gender: {M: 0.0}` and rerun the grid. What happens to Figure 5 and to the C1 count
# of the image + photo cells?
# :::
#
# :::{solution} ex-09-photo
# :class: dropdown
#
# With no photo effect for gender, the gender NDE is 0 in both formats; the two series of
# each gender panel of Figure 5 overlap and the gender image + photo cells lose their C1
# label (up to the 5% of intervals that miss 0 by chance). The race panels are unchanged.
# Only the synthetic scores and estimates are recomputed: profiles and text scores come
# from the cache.
# :::
