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
# # Identification: one functional for five counterfactual means
#
# **What you will learn**
#
# - why all five counterfactual means behind TE, NDE, NIE, BIE and RIE are one functional
#   $\psi(a_y, a_b, a_r)$, identified by a single sum over observed distributions
#   (Appendix C.1 of {cite}`yu2026popresume`);
# - how to check that sum against the structural model itself, by simulating the nested
#   counterfactual $Y_{a_y, B_{a_b, R_{a_r}}, R_{a_r}}$;
# - what Lemma 2's parametrisation says, and how to verify each of its identities
#   numerically with the true nuisance functions, including double robustness;
# - why the paper averages two intervention orders with a factor $\tfrac12$, and when the
#   two orders disagree.
#
# The parameters cell sets the synthetic model (`scm_kind`, one of `basic`,
# `high_card_r`, `weak_overlap`, `no_direct`, and its `scm_seed`), the size `n` of the
# simulated samples used for the numerical checks, and the random `seed`.

# %% tags=["parameters"]
scm_kind = "basic"
scm_seed = 0
n = 400_000
seed = 0

# %%
import dataclasses
import numpy as np
import pandas as pd

from popresume.causal import EFFECT_WEIGHTS, PSI_LABELS, PSI_TRIPLES, make_scm
from popresume.causal.functional import influence, weights
from popresume.plots.causal import plot_rows_by_model
from popresume.tables import labelled

scm = make_scm(scm_kind, seed=scm_seed)

# %% [markdown]
# ## One functional
#
# Write $1$ for $x_1$ and $0$ for $x_0$. Every mean the paper needs has the form
#
# $$
# \begin{aligned}
# \psi(a_y, a_b, a_r) &= \mathbb E\big[Y_{a_y,\,B_{a_b, R_{a_r}},\,R_{a_r}}\big] \\
#   &= \sum_{z,r,b} \mathbb E[Y \mid a_y, b, r, z]\, P(b \mid a_b, r, z)\, P(r \mid a_r, z)\, P(z):
# \end{aligned}
# $$
#
# first draw the confounders, then the proxies $R$ as they would be under $X = a_r$, then
# the qualifications $B$ as they would be under $X = a_b$ *given those proxies*, and score
# the résumé as if $X = a_y$. Eqs. (6)-(10) of the paper are the five triples below
# ($E[Y_{x_1, W_{x_0}}]$ is $(1, 0, 0)$ because $W = (B, R)$ both follow $x_0$), and the
# effects are fixed linear combinations of them:

# %%
triples = pd.DataFrame(PSI_TRIPLES, index=["a_y", "a_b", "a_r"]).T
triples["counterfactual"] = pd.Series(PSI_LABELS)
labelled(triples, "ours: the five counterfactual means of Eqs. (6)-(10), as index triples (no data)")

# %%
labelled(EFFECT_WEIGHTS.rename(columns=lambda c: f"ψ({c[4]}, {c[5]}, {c[6]})"), "ours: each effect as a linear combination of the five counterfactual means (no data)")

# %% [markdown]
# The synthetic model is a discrete structural causal model: three confounder levels,
# proxies $R$ that depend on $X$ and $Z$, qualifications $B$ that depend on $X$, $R$ (the
# $R \to B$ edge of Figure 2b) and $Z$, and a score with a direct effect of $X$.
# Because every variable is discrete, $\psi$ is a finite sum and we can compute it exactly.
# We can also compute it a second way that does not use the formula at all: simulate the
# nested intervention in the structural model and average.

# %%
check = pd.DataFrame({
    "sum (Eq. 10 form)": scm.true_psi(),
    "simulated counterfactual": {k: scm.sample_counterfactual(t, n, seed=seed + i).mean()
                                 for i, (k, t) in enumerate(PSI_TRIPLES.items())},
})
check["difference"] = check.iloc[:, 1] - check.iloc[:, 0]
check["MC standard error"] = scm.sigma / np.sqrt(n)  # a lower bound: the mediators add variance
labelled(check, "ours: exact sums on the toy SCMs", precision=4)

# %% [markdown]
# The differences are Monte Carlo noise of a few thousandths: the observational formula
# recovers the interventional quantity. (That is the content of identification: it needs
# the SFM's assumptions, here true by construction; with real screeners it is the
# population construction of Chapter 1 that makes $Z$ the only common cause of $X$ and
# the mediators.)

# %% [markdown]
# ## Lemma 2: the parametrisation
#
# Lemma 2 writes $\psi$ as the mean of an *influence function*. With the nested
# regressions $\mu_3(b,r,x,z) = \mathbb E[Y\mid b,r,x,z]$,
# $\mu_2(r,z) = \mathbb E[\mu_3(B,r,a_y,z)\mid r, X=a_b, z]$,
# $\mu_1(z) = \mathbb E[\mu_2(R,z)\mid X=a_r, z]$ and weights written through
# propensities $p(a\mid\cdot) = P(X=a\mid\cdot)$ only,
#
# $$
# \begin{aligned}
# \pi_1 &= \frac{1[X=a_r]}{p(a_r\mid Z)}, \qquad
# \pi_2 = \frac{1[X=a_b]\, p(a_r\mid R,Z)}{p(a_b\mid R,Z)\, p(a_r\mid Z)},\\[4pt]
# \pi_3 &= \frac{1[X=a_y]}{p(a_y\mid B,R,Z)}
#   \cdot \frac{p(a_b\mid B,R,Z)}{p(a_b\mid R,Z)}
#   \cdot \frac{p(a_r\mid R,Z)}{p(a_r\mid Z)},
# \end{aligned}
# $$
#
# $$
# \varphi = \pi_3 (Y - \mu_3) + \pi_2 (\mu_3(B,R,a_y,Z) - \mu_2) + \pi_1(\mu_2 - \mu_1) + \mu_1 .
# $$
#
# The proof (Eqs. 12-17) rests on four identities: $\mathbb E[\mu_1(Z)] = \psi$ and
# $\mathbb E[\pi_3 Y] = \mathbb E[\pi_2 \mu_3] = \mathbb E[\pi_1 \mu_2] = \psi$. We check
# each one on a large simulated sample with the *true* nuisances, for all five triples.

# %%
data = scm.sample(n, seed=seed)
x1 = (data["x"] == "x1").to_numpy()
y = data["y"].to_numpy()
rows = []
for name, t in PSI_TRIPLES.items():
    nu = scm.true_nuisances(data, t)
    w = weights(x1, t, nu["p_z"], nu["p_rz"], nu["p_brz"], normalize=False)
    phi = influence(y, w, nu["mu3"], nu["mu2"], nu["mu1"])
    # the weighted means in their self-normalised (Hájek) form E[pi v] / E[pi]: with scores
    # near 50, the raw form's noise is ~50 times the noise of the weights' mean
    rows.append({"psi": name, "exact": scm.psi(t), "E[mu1]": nu["mu1"].mean(),
                 "E[pi1 mu2]": (w.pi1 * nu["mu2"]).mean() / w.pi1.mean(),
                 "E[pi2 mu3]": (w.pi2 * nu["mu3"]).mean() / w.pi2.mean(),
                 "E[pi3 Y]": (w.pi3 * y).mean() / w.pi3.mean(), "E[phi]": phi.mean(),
                 "se(phi)": phi.std() / np.sqrt(n), "mean pi1": w.pi1.mean(), "mean pi2": w.pi2.mean(),
                 "mean pi3": w.pi3.mean()})
lemma2 = pd.DataFrame(rows).set_index("psi")
labelled(lemma2, "ours: exact sums on the toy SCMs", precision=4)

# %% [markdown]
# Every column agrees with the exact value up to simulation error (a few hundredths for the
# weighted means, whose weights reach well above 1), and every weight has mean 1. That last fact is why the estimator may *self-normalise* the weights in each
# fold (divide by their sample mean): it changes nothing in the population and removes
# noise in a sample.
#
# The paper's Table 1 writes the weights for the new term $(1, 1, 0)$ as
# $\pi_3 = \pi_2 = \frac{P(X=x_0\mid R,Z)}{P(X\mid R,Z)}\frac{1[X=x_1]}{P(X=x_0\mid Z)}$.
# Our general $\pi_3$ for $(1,1,0)$ has the factor $p(x_1\mid B,R,Z)/p(x_1\mid B,R,Z) = 1$,
# so it reduces to exactly that:

# %%
nu = scm.true_nuisances(data, (1, 1, 0))
w = weights(x1, (1, 1, 0), nu["p_z"], nu["p_rz"], nu["p_brz"], normalize=False)
table1 = (1 - nu["p_rz"]) / np.where(x1, nu["p_rz"], 1 - nu["p_rz"]) * x1 / (1 - nu["p_z"])
d3, d2 = np.abs(w.pi3 - table1).max(), np.abs(w.pi2 - table1).max()
# equal up to floating-point rounding (differences of order 1e-15 are the last bits of a double)
print(f"max |pi3 - Table 1|: {d3:.1e}   max |pi2 - Table 1|: {d2:.1e}   "
      f"(equal to rounding: {bool(max(d3, d2) < 1e-9)})")

# %% [markdown]
# ## Double robustness
#
# Lemma 3 says the bias of $\mathbb E[\varphi]$ is a sum of *products* of nuisance errors.
# So if the regressions are wrong but the weights right, or the weights wrong but the
# regressions right, the mean is still $\psi$. We break one side at a time for the paper's
# new term $(1,1,0)$:

# %%
t = (1, 1, 0)
nu = scm.true_nuisances(data, t)
good_w = weights(x1, t, nu["p_z"], nu["p_rz"], nu["p_brz"], normalize=False)
flat = {k: np.full(n, 0.5) for k in ("p_z", "p_rz", "p_brz")}  # propensities that ignore everything
bad_w = weights(x1, t, flat["p_z"], flat["p_rz"], flat["p_brz"], normalize=False)
# regressions wrong by amounts that depend on what each may depend on:
# mu3 on (B, R, Z), mu2 on (R, Z), mu1 on Z only
r_idx = data["r"].str[1:].astype(int).to_numpy()
z_idx = data["z"].str[1:].astype(int).to_numpy()
b_idx = data["b"].to_numpy()
bad_mu = {"mu3": nu["mu3"] + 0.3 * b_idx + 1.0 * (r_idx == 0) + 0.5 * z_idx,
          "mu2": nu["mu2"] - 1.0 * (r_idx == 0) + 0.5 * z_idx,
          "mu1": nu["mu1"] + 0.5 + 0.5 * z_idx}
dr = pd.Series({
    "exact": scm.psi(t),
    "true mu, true pi": influence(y, good_w, nu["mu3"], nu["mu2"], nu["mu1"]).mean(),
    "wrong mu, true pi": influence(y, good_w, bad_mu["mu3"], bad_mu["mu2"], bad_mu["mu1"]).mean(),
    "true mu, wrong pi": influence(y, bad_w, nu["mu3"], nu["mu2"], nu["mu1"]).mean(),
    "wrong mu, wrong pi": influence(y, bad_w, bad_mu["mu3"], bad_mu["mu2"], bad_mu["mu1"]).mean(),
    "regression only (mu1, wrong)": bad_mu["mu1"].mean(),
}, name="E[phi]")
labelled(dr, "ours: exact sums on the toy SCMs", precision=4)

# %% [markdown]
# ## Two intervention orders and the ½
#
# BIE should measure what changes when $B$ moves from its $x_0$ value to its $x_1$ value
# with everything else held. But $R$ affects $B$, so "$B$'s $x_0$ value" depends on which
# $R$ it responds to. There are two natural orders:
#
# - (i) hold $R$ at $R_{x_0}$, change $B$: $\psi(1,1,0) - \psi(1,0,0)$;
# - (ii) first let $R$ move to $R_{x_1}$, then change $B$: $\psi(1,1,1) - \psi(1,0,1)$.
#
# RIE likewise has two orders, and each BIE order pairs with the RIE order of the same
# number: (i) with (i) and (ii) with (ii) each add up to NIE (check it on the table below). The paper does not choose; it averages the two orders (the ½), the same
# symmetric (Shapley-style) split of an interaction that no single order can attribute.

# %%
def orders(m):
    p = m.true_psi()
    return pd.Series({
        "BIE order (i): R at x0": p["psi_110"] - p["psi_100"],
        "BIE order (ii): R at x1": p["psi_111"] - p["psi_101"],
        "RIE order (i): B at x1": p["psi_111"] - p["psi_110"],
        "RIE order (ii): B at x0": p["psi_101"] - p["psi_100"],
        "BIE (½ average)": m.true_effects()["BIE"],
        "RIE (½ average)": m.true_effects()["RIE"],
        "NIE": m.true_effects()["NIE"],
    })


# %%
# Variants of the same model (the tables are edited, the formula stays the same):
pb = scm.pb_xrz
no_rb = dataclasses.replace(scm, pb_xrz=np.broadcast_to(pb[:, :, :1, :], pb.shape).copy())  # B ignores R
strong = pb.copy()
strong[1] = pb[0]  # X moves B only when R = r0 ...
strong[1, :, 0, :] = np.array([0.05, 0.15, 0.3, 0.5])  # ... and then strongly towards high B
xr_in_b = dataclasses.replace(scm, pb_xrz=strong)
m_br = scm.m.copy()
m_br[:, :, 0, :] += 1.5 * np.arange(m_br.shape[3])  # the score rewards B more when R = r0
br_in_y = dataclasses.replace(no_rb, m=m_br)
order_table = pd.DataFrame({"this chapter's SCM": orders(scm), "X's effect on B depends on R": orders(xr_in_b),
                            "no R -> B, B x R in score": orders(br_in_y), "no R -> B, additive score": orders(no_rb)})
labelled(order_table, "ours: exact sums on the toy SCMs", precision=4)

# %% [markdown]
# The two orders differ by $\psi(1,1,1) - \psi(1,0,1) - \psi(1,1,0) + \psi(1,0,0)$, an
# *interaction* of the $B$ and $R$ interventions. It is small in our model (the effect of
# $X$ on $B$ varies with $R$ only through the softmax), large when $X$ moves $B$ only for
# some proxies, and also present without any $R \to B$ edge when the score itself rewards
# $B$ differently across $R$. With no edge and an additive score both orders coincide and
# the ½ changes nothing. In every column BIE + RIE = NIE exactly, whichever order is used:
# the ½ splits the interaction evenly instead of handing it to whichever path is
# intervened on second.

# %% mystnb={"figure": {"caption": "Ours, toy SCMs with exact values: the BIE under the two orders of intervention and their average."}}
fig = plot_rows_by_model(order_table, ["BIE order (i): R at x0", "BIE order (ii): R at x1", "BIE (½ average)"],
                         ylabel="BIE (exact, toy SCMs)")

# %% [markdown]
# ## Exercises
#
# :::{exercise}
# :label: ex-06-no-direct
#
# Re-execute this chapter on the model without a direct effect:
#
# ```bash
# popresume book run notebooks/06_identification.py -p scm_kind no_direct
# ```
#
# Which effect is now exactly zero? Do the two intervention orders still disagree in the
# first column of the last table?
# :::
#
# :::{solution} ex-06-no-direct
# :class: dropdown
#
# NDE $= \psi(1,0,0) - \psi(0,0,0) = 0$, because the score no longer depends on $X$ once
# $B$ and $R$ are fixed. The orders still disagree: they differ through the $R \to B$ edge
# and the score's $B \times R$ terms, which the direct effect does not touch.
# :::
#
# :::{exercise}
# :label: ex-06-mc
#
# Halve `n` twice (`-p n 100000`). By how much do the "difference" columns of the first
# check grow, and is that what a Monte Carlo error predicts?
# :::
#
# :::{solution} ex-06-mc
# :class: dropdown
#
# The differences are of order $\sigma_Y/\sqrt n$, so dividing $n$ by 4 doubles them on
# average (individual values fluctuate). They remain a few thousandths, far below the
# effects themselves.
# :::
#
# :::{exercise}
# :label: ex-06-dr
#
# In the double-robustness cell, give `bad_mu["mu1"]` an error that depends on the proxy,
# `+ 1.0 * (r_idx == 0)`, and re-run the cell. Is the "wrong mu, true pi" row still right?
# Why not, when Lemma 3 allows *any* wrong regression?
# :::
#
# :::{solution} ex-06-dr
# :class: dropdown
#
# It is now biased. Lemma 3 allows any wrong $\hat\mu_1$ *that is a function of $Z$
# alone*, as $\mu_1$ is: its error $e(Z)$ enters $\varphi$ as $e(Z)(1 - \pi_1)$, whose mean
# is zero because $\mathbb E[\pi_1 \mid Z] = 1$. An error that depends on $R$ is not a
# possible value of a regression on $Z$, and $\mathbb E[\pi_1 \mid R, Z] \neq 1$. The same
# holds one level up: $\hat\mu_2$ may be wrong only as a function of $(R, Z)$. That is why
# each regression is fit on exactly its own covariates.
# :::
