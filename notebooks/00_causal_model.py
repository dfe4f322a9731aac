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
# # The Standard Fairness Model and path-specific effects
#
# **What you will learn**
#
# - the four groups of variables of the Standard Fairness Model (SFM): protected attribute
#   $X$, confounders $Z$, mediators $W$ and outcome $Y$ {cite}`plecko2024causal`;
# - how PopResume splits the mediators into business-necessity variables $B$ and
#   redlining proxies $R$ {cite}`yu2026popresume`, and how to draw that graph in code;
# - how to read nested counterfactuals such as $Y_{x_1, B_{x_0, R_{x_1}}, R_{x_1}}$, step by step;
# - the five effects TE, NDE, NIE, BIE and RIE, why $\mathrm{TE} = \mathrm{NDE} + \mathrm{BIE} + \mathrm{RIE}$,
#   and why the observed outcome gap is none of them;
# - how to check every formula numerically on a small structural causal model (SCM) whose
#   answers are known.
#
# The parameters cell below sets the toy model: the sample size `n` of the simulation,
# the `seed`, the direct effect `beta_x` of $X$ on the score, the effects `beta_b` and
# `beta_r` of the qualification $B$ and of the proxy $R$, and `z_on_x`, how strongly the
# confounder $Z$ is associated with $X$. Re-run the chapter with other values, for example
# `popresume book run notebooks/00_causal_model.py -p beta_x 0.0`.

# %% tags=["parameters"]
n = 200_000
seed = 0
beta_x = 2.0
beta_b = 3.0
beta_r = -3.0
z_on_x = 0.4

# %%
import itertools

import matplotlib.pyplot as plt

import numpy as np
import pandas as pd

from popresume.plots.causal import plot_gap_and_effects
from popresume.plots.correspondence import plot_causal_graphs
from popresume.tables import labelled

rng = np.random.default_rng(seed)

# %% [markdown]
# ## The Standard Fairness Model
#
# A structural causal model (SCM) {cite}`pearl2009causality` writes every variable as a
# function of its causes and of an exogenous noise term; its graph has an arrow
# $A \to B$ whenever $A$ appears in the equation of $B$, and a dashed two-headed arrow when
# two variables share an unobserved cause. Writing the whole graph of a hiring process is
# rarely possible. The Standard Fairness Model {cite}`plecko2024causal` asks only for a
# partition of the variables into four groups:
#
# - $X$, the **protected attribute** (gender, race);
# - $Z$, **confounders**: not caused by $X$, but possibly associated with it (age, the other
#   protected attributes); the dashed edge $X \leftrightarrow Z$ says only that they may share
#   causes;
# - $W$, **mediators**: anything $X$ may change, which may in turn change the outcome
#   (education, experience, name, address);
# - $Y$, the **outcome**: here, the score a screener gives a résumé.
#
# The figure is drawn by the (folded) code below with networkx; positions are fixed by
# hand so that the picture reads left to right like the paper's Figure 2.


# %% tags=["hide-input"] mystnb={"figure": {"caption": "The causal graphs: (a) the Standard Fairness Model; (b) its mediators split into business necessity B (blue paths) and redlining R (red paths). Drawn by popresume.plots.correspondence.plot_causal_graphs."}}
fig = plot_causal_graphs()
plt.show()

# %% [markdown]
# In panel (b) the mediators are split as in PopResume {cite}`yu2026popresume`:
#
# - $B$, **business necessity**: job-relevant qualifications (`edu_level`, `exp_year`);
# - $R$, **redlining**: demographic proxies (first name, surname, state of residence).
#
# Blue edges carry the B-specific indirect effect (BIE), red edges the R-specific indirect
# effect (RIE). $R$ may cause $B$ (where one lives shapes the schools one attends), so the
# path $X \to R \to B \to Y$ exists; PopResume attributes it to $R$, because the
# disparity *enters* through the proxy. Which variables belong to $B$ and which to $R$ is a
# normative choice, discussed in {doc}`../book/legal`; in this package it is a parameter
# (`popresume.causal.default_roles`), not a constant.
#
# ## A toy SCM with known answers
#
# To check the definitions we need a model in which we can *compute* counterfactuals. The
# toy model below has binary $Z$, $X$, $R$, $B$ and a continuous score $Y$ (think of $x_1$
# as "male", $R = 1$ as "a male-typical first name", $B = 1$ as "a degree"):
#
# $$
# \begin{aligned}
# Z &= 1[U_Z < 0.5], \qquad X = 1[U_X < 0.5 + z_{on x}\,(Z - 0.5)],\\
# R &= 1[U_R < 0.2 + 0.6X + 0.1Z],\\
# B &= 1[U_B < 0.3 + 0.2X + 0.1R + 0.2Z],\\
# Y &= 50 + \beta_x X + \beta_b B + \beta_r R + 2Z + U_Y, \qquad U_Y \sim N(0, 1).
# \end{aligned}
# $$
#
# The code mirrors the equations: one function per variable, each taking its parents and
# its own noise. Fixing the noise of a unit and changing the inputs is exactly what a
# counterfactual means.

# %%
def f_r(x, z, u):
    return (u < 0.2 + 0.6 * x + 0.1 * z).astype(int)


def f_b(x, r, z, u):
    return (u < 0.3 + 0.2 * x + 0.1 * r + 0.2 * z).astype(int)


def f_y(x, b, r, z, u):
    return 50 + beta_x * x + beta_b * b + beta_r * r + 2 * z + u


u = {k: rng.random(n) for k in ("Z", "X", "R", "B")}
u["Y"] = rng.normal(0, 1, n)
Z = (u["Z"] < 0.5).astype(int)
X = (u["X"] < 0.5 + z_on_x * (Z - 0.5)).astype(int)
R = f_r(X, Z, u["R"])
B = f_b(X, R, Z, u["B"])
Y = f_y(X, B, R, Z, u["Y"])
observed = pd.DataFrame({"Z": Z, "X": X, "R": R, "B": B, "Y": Y})
labelled(observed.head(), "ours: simulated from the toy SCM")

# %% [markdown]
# ## Reading nested counterfactuals, step by step
#
# Write $x_0$ and $x_1$ for the two values of $X$ being compared (in the paper's gender
# experiments $x_0$ = female, $x_1$ = male).
#
# 1. $Y_x$ is the score the résumé would get had $X$ been set to $x$ by intervention,
#    everything downstream of $X$ responding. $E[Y_{x_1}] - E[Y_{x_0}]$ is the **total
#    effect** (TE).
# 2. $W_{x_0}$ is the value the mediators would take under $X = x_0$, and
#    $Y_{x_1, W_{x_0}}$ is the score when $X$ *enters the score equation* as $x_1$ while the
#    mediators keep their $x_0$ values. Changing only the first subscript isolates the
#    direct edge $X \to Y$: the **natural direct effect** is
#    $\mathrm{NDE} = E[Y_{x_1, W_{x_0}}] - E[Y_{x_0}]$, and the **natural indirect effect** is
#    $\mathrm{NIE} = E[Y_{x_1}] - E[Y_{x_1, W_{x_0}}]$, so $\mathrm{TE} = \mathrm{NDE} + \mathrm{NIE}$.
# 3. With $W = (R, B)$ and $R \to B$, read a nested subscript from the inside out. In
#    $Y_{x_1, B_{x_0, R_{x_1}}, R_{x_1}}$: first $R_{x_1}$, the proxy under $x_1$; then
#    $B_{x_0, R_{x_1}}$, the qualification under $X = x_0$ *but* with the proxy at $R_{x_1}$;
#    finally $Y$ with $X = x_1$ in its own equation and those values of $B$ and $R$.
#
# Every quantity the paper needs is of one form,
# $\psi(a_y, a_b, a_r) = E\big[Y_{a_y,\; B_{a_b, R_{a_r}},\; R_{a_r}}\big]$: the value of $X$
# seen by $Y$'s equation, by $B$'s equation and by $R$'s equation. Subscripts 1 and 0 below
# stand for $x_1$ and $x_0$ in the order $(a_y, a_b, a_r)$:
#
# | counterfactual mean | $(a_y, a_b, a_r)$ |
# |---|---|
# | $E[Y_{x_0}]$ | $\psi_{000}$ |
# | $E[Y_{x_1}]$ | $\psi_{111}$ |
# | $E[Y_{x_1, W_{x_0}}]$ | $\psi_{100}$ |
# | $E[Y_{x_1, B_{x_0, R_{x_1}}, R_{x_1}}]$ | $\psi_{101}$ |
# | $E[Y_{x_1, B_{x_1, R_{x_0}}, R_{x_0}}]$ | $\psi_{110}$ |
#
# and the five effects are differences of them (Eqs. 1–5 of {cite:t}`yu2026popresume`):
#
# $$
# \begin{aligned}
# \mathrm{TE} &= \psi_{111} - \psi_{000}, \qquad
# \mathrm{NDE} = \psi_{100} - \psi_{000}, \qquad
# \mathrm{NIE} = \psi_{111} - \psi_{100},\\
# \mathrm{BIE} &= \tfrac12\big[(\psi_{111} - \psi_{101}) + (\psi_{110} - \psi_{100})\big],\\
# \mathrm{RIE} &= \tfrac12\big[(\psi_{111} - \psi_{110}) + (\psi_{101} - \psi_{100})\big].
# \end{aligned}
# $$
#
# BIE changes $B$'s subscript with $R$ held at $R_{x_1}$ (first bracket) or at $R_{x_0}$
# (second bracket) and averages the two orders of intervention, because $R \to B$ makes the
# order matter. RIE changes $R$ and lets $B$ respond to it. Adding the two brackets,
# $\mathrm{BIE} + \mathrm{RIE} = \tfrac12[2\psi_{111} - 2\psi_{100}] = \mathrm{NIE}$, so
# $\mathrm{TE} = \mathrm{NDE} + \mathrm{BIE} + \mathrm{RIE}$ holds by construction.
#
# ### Counterfactuals by simulation
#
# In the toy model we can evaluate $Y_{a_y, B_{a_b, R_{a_r}}, R_{a_r}}$ for every unit by
# feeding the unit's own noise into the equations, from the inside out.

# %%
def nested_counterfactual(a_y, a_b, a_r):
    """Y_{a_y, B_{a_b, R_{a_r}}, R_{a_r}} for every unit (same noise, new inputs)."""
    r = f_r(a_r, Z, u["R"])  # R_{a_r}
    b = f_b(a_b, r, Z, u["B"])  # B_{a_b, R_{a_r}}
    return f_y(a_y, b, r, Z, u["Y"])  # Y with X = a_y in its own equation


psi_sim = {abc: nested_counterfactual(*abc) for abc in itertools.product((0, 1), repeat=3)}

# %% [markdown]
# ### Counterfactuals by the identification formula
#
# An auditor never sees the noise. Under the SFM's assumptions (no unobserved confounding
# of $X$, $R$, $B$, $Y$ once $Z$ is given) the same means are functions of the observed
# distribution:
#
# $$
# \psi(a_y, a_b, a_r) = \sum_{z, r, b} E[Y \mid a_y, b, r, z]\; P(b \mid a_b, r, z)\; P(r \mid a_r, z)\; P(z).
# $$
#
# Here we plug in the true conditionals of the toy model; the estimation chapters replace
# them by cross-fitted machine-learning estimates and a doubly robust correction
# {cite}`chernozhukov2018double,jung2024unified,zhang2025pathspecific`.

# %%
def p_r(r, x, z):
    p = 0.2 + 0.6 * x + 0.1 * z
    return p if r else 1 - p


def p_b(b, x, r, z):
    p = 0.3 + 0.2 * x + 0.1 * r + 0.2 * z
    return p if b else 1 - p


def psi_exact(a_y, a_b, a_r):
    total = 0.0
    for z, r, b in itertools.product((0, 1), repeat=3):
        mean_y = 50 + beta_x * a_y + beta_b * b + beta_r * r + 2 * z
        total += mean_y * p_b(b, a_b, r, z) * p_r(r, a_r, z) * 0.5
    return total


# %%
def effects(psi):
    return {
        "TE": psi[1, 1, 1] - psi[0, 0, 0],
        "NDE": psi[1, 0, 0] - psi[0, 0, 0],
        "NIE": psi[1, 1, 1] - psi[1, 0, 0],
        "BIE": 0.5 * ((psi[1, 1, 1] - psi[1, 0, 1]) + (psi[1, 1, 0] - psi[1, 0, 0])),
        "RIE": 0.5 * ((psi[1, 1, 1] - psi[1, 1, 0]) + (psi[1, 0, 1] - psi[1, 0, 0])),
    }


exact = effects({abc: psi_exact(*abc) for abc in psi_sim})
sim_units = effects(psi_sim)  # per-unit contrasts: their mean is the effect, their sd gives the MC error
table = pd.DataFrame(
    {
        "exact": exact,
        "simulated": {k: v.mean() for k, v in sim_units.items()},
        "mc_se": {k: v.std(ddof=1) / np.sqrt(n) for k, v in sim_units.items()},
    }
)
table.loc[table["mc_se"] < 1e-9, "mc_se"] = 0.0  # a contrast without noise (rounding aside)
table["z"] = (table["simulated"] - table["exact"]) / table["mc_se"].where(table["mc_se"] > 0)
labelled(table, "ours: toy SCM (exact sums and simulated counterfactuals)", precision=4)

# %% [markdown]
# The two columns agree within Monte-Carlo error (the `z` column is the difference in
# standard errors; a NaN means the contrast has no noise at all, e.g. NDE when the score
# equation is linear). The checks below fail the chapter if they do not.

# %%
tol = 5 * table["mc_se"].max() + 1e-9
assert np.allclose(table["simulated"], table["exact"], atol=tol), table
assert np.isclose(exact["NIE"], exact["BIE"] + exact["RIE"])
assert np.isclose(exact["TE"], exact["NDE"] + exact["BIE"] + exact["RIE"])
assert np.isclose(exact["NDE"], beta_x)  # with a linear score the direct effect is beta_x itself
print(f"all checks passed (tolerance {tol:.4f})")

# %% [markdown]
# ### What an auditor can compute
#
# The auditor has only the table `observed` (no noise, no equations). Because every variable
# here is discrete, the identification formula can be evaluated with empirical frequencies
# in place of the true conditionals: the *plug-in* estimator `popresume.causal.plugin_pse`.
# With real résumés the variables are too many and too fine for cell frequencies, and the
# estimation chapters use cross-fitted regressions instead; the target is the same.

# %%
from popresume.causal import plugin_pse

plugin = plugin_pse(observed, x="X", x0=0, x1=1, z=["Z"], b=["B"], r=["R"], y="Y")
table["plug-in (observed data)"] = plugin["estimate"]
labelled(table, "ours: toy SCM (exact, simulated, and the plug-in estimate)")

# %%
if n >= 100_000:  # sampling error of the plug-in is below 0.05 at this size
    assert np.allclose(table["plug-in (observed data)"], table["exact"], atol=0.1), table

# %% [markdown]
# ## The outcome gap is not an effect
#
# An outcome audit compares mean scores of the two groups, $E[Y \mid x_1] - E[Y \mid x_0]$
# (the "total variation", TV). It mixes the causal effect with the *spurious* association
# that $Z$ creates through $X \leftrightarrow Z$, and even its causal part can hide a direct
# effect that the mediators cancel: this is Figure 1's "85.25 vs 85.25" ({doc}`../book/problem`).

# %% mystnb={"figure": {"caption": "Ours, toy SCM with known truth: the outcome gap and the five path-specific effects, computed exactly."}}
tv = observed.loc[observed.X == 1, "Y"].mean() - observed.loc[observed.X == 0, "Y"].mean()
fig = plot_gap_and_effects(tv, table)
plt.show()

# %% [markdown]
# With the defaults, $Z$ raises both the chance of $X = x_1$ and the score, so TV exceeds TE;
# the proxy effect `beta_r` is negative, so RIE pulls against the qualification path BIE.
# The {doc}`reading guide <../book/reading_guide>` says which chapter estimates each of these
# quantities from data, and the {doc}`glossary <../book/glossary>` collects the terms.
#
# ## Exercises
#
# :::{exercise}
# :label: ex-00-no-direct
#
# Re-execute this chapter without a direct effect:
#
# ```bash
# popresume book run notebooks/00_causal_model.py -p beta_x 0.0
# ```
#
# Which of the five effects change, and which are zero? Is the outcome gap TV zero?
# :::
#
# :::{solution} ex-00-no-direct
# :class: dropdown
#
# NDE becomes exactly 0 (with a linear score equation NDE $= \beta_x$), and TE drops by
# $\beta_x = 2$: TE = BIE + RIE, which with the other defaults is negative (about $-1.0$),
# so the sign of the total effect flips. BIE and RIE do not change, because they keep $X = x_1$ in
# the score equation and only move the mediators. TV is still not zero: besides the
# indirect effects it carries the spurious association through $Z$.
# :::
#
# :::{exercise}
# :label: ex-00-cancel
#
# Find the value of `beta_x` for which the total effect is zero (the "discrimination masked
# by cancellation" case of the paper), re-run the chapter with it and describe what an
# outcome audit would conclude.
# :::
#
# :::{solution} ex-00-cancel
# :class: dropdown
#
# TE is linear in $\beta_x$ with slope 1, so $\beta_x^\star = \beta_x - \mathrm{TE}$:
#
# ```python
# beta_x_star = beta_x - exact["TE"]
# ```
#
# With the other defaults this is about $1.02$ (NIE $\approx -1.02$). Then TE $\approx 0$ while NDE $= \beta_x^\star \ne 0$
# and NIE $= -\beta_x^\star$: a direct penalty and an indirect advantage that cancel. An
# audit of TE alone would call the screener fair; if moreover `z_on_x` is set to 0 the
# outcome gap is zero too (run with `-p beta_x 1.02 -p z_on_x 0.0`).
# :::
#
# :::{exercise}
# :label: ex-00-proxy
#
# Set the proxy's effect on the score to zero (`-p beta_r 0.0`). Is RIE zero? Explain with
# the graph.
# :::
#
# :::{solution} ex-00-proxy
# :class: dropdown
#
# No. RIE collects every path that *starts* with $X \to R$, including
# $X \to R \to B \to Y$: here $R$ raises the chance of $B$ by 0.1, so
# RIE $= \beta_b \times 0.1 \times 0.6 = 0.18$ even though $\beta_r = 0$. Whether a disparity
# that travels through a proxy into a qualification is "redlining" or "business necessity"
# is exactly the kind of normative choice {doc}`../book/legal` discusses.
# :::
#
# :::{exercise}
# :label: ex-00-confounding
#
# Re-run with `-p z_on_x 0.0`. Why does the outcome gap TV now equal TE (up to simulation
# error)?
# :::
#
# :::{solution} ex-00-confounding
# :class: dropdown
#
# With `z_on_x = 0` the protected attribute is independent of the confounder, so the
# observed groups $X = x_1$ and $X = x_0$ have the same distribution of $Z$ and comparing
# them is like comparing a randomised experiment's arms: $E[Y \mid x] = E[Y_x]$ and
# TV = TE. The spurious part of TV is gone; the decomposition of TE into NDE, BIE and RIE
# is unchanged.
# :::
