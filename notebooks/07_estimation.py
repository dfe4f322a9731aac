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
# # Estimation: cross-fitted doubly robust effects and honest intervals
#
# **What you will learn**
#
# - how `popresume.causal.estimate_pse` turns one sample into TE, NDE, NIE, BIE and RIE
#   with 95% confidence intervals: XGBoost nuisances, $L$-fold cross-fitting, clipped
#   propensities and self-normalised weights {cite}`chernozhukov2018double,jung2024unified`;
# - how to read its diagnostics (chosen hyperparameters, propensity ranges, clipping,
#   effective sample sizes);
# - how to check an estimator honestly: a coverage study over repeated samples from a model
#   whose effects are known exactly;
# - how the doubly robust estimator compares with the exact plug-in of Eqs. (6)-(10) and
#   with the naive group difference an outcome audit would report;
# - why the influence-function bootstrap is a cheap stand-in for re-running everything;
# - how repeated cross-fitting (DoubleML's `n_rep`) removes the dependence on one random
#   split of the data into folds.
#
# The parameters cell sets the synthetic model (`scm_kind`), the sample size `n` and the
# number of repeated samples `reps` of the coverage study, the bootstrap draws `n_boot`,
# whether weights are self-normalised (`normalize`), the propensity clipping level `clip`,
# the size `n_demo` of the single-sample XGBoost demonstration and its interval `variance`
# (the default "jackknife", or the paper's "influence", ten times cheaper), the refit bootstrap draws
# `refit_draws`, the number of cross-fitting splits `n_rep` of the repeated estimator, the
# refit draws `bagged` averaged by the authors' bagged estimator in the study (0: left
# out, to keep the chapter fast), and the `seed`. All numbers in this chapter are ours,
# computed on synthetic models with known effects; no screener is involved.

# %% tags=["parameters"]
scm_kind = "basic"
n = 2000
reps = 100
n_boot = 200
normalize = True
clip = 0.01
n_demo = 2000
variance = "jackknife"
refit_draws = 40
n_rep = 5
bagged = 0
seed = 0

# %%
import pandas as pd

from popresume.causal import PSEEstimator, estimate_pse, make_scm, plugin_pse
from popresume.causal.nuisance import CellMeans
from popresume.causal.scm import coverage_study
from popresume.plots.causal import coverage_figure, plot_effects_with_truth
from popresume.tables import labelled

scm = make_scm(scm_kind)
roles = dict(x="x", x0="x0", x1="x1", z=["z"], b=["b"], r=["r"], y="y")
truth = scm.true_effects()

# %% [markdown]
# ## One sample, the paper's estimator
#
# A sample from the synthetic model looks like a tiny audit table: the protected
# attribute `x`, a confounder `z`, a redlining proxy `r` and a qualification `b` (numeric),
# and a score `y`.

# %%
demo = scm.sample(n_demo, seed=seed)
labelled(demo.head(), f"ours: the first rows of a sample from the '{scm_kind}' model")

# %% [markdown]
# `estimate_pse` takes the column roles, fits every nuisance with XGBoost on the other
# folds, computes the per-unit influence values $\varphi$ of the five counterfactual means,
# and refits itself without each of ten groups of rows for the intervals (below).
# Positive effects favour $x_1$.

# %%
table, est = estimate_pse(demo, **roles, n_boot=500, seed=seed, clip=clip, normalize=normalize,
                          variance=variance, return_estimator=True)
compare = table[["estimate", "se", "ci_low", "ci_high", "significant", "estimable"]].assign(truth=truth)
labelled(compare, f"ours: one sample of n = {n_demo} from the '{scm_kind}' model, XGBoost; a simulation has no validity gate", precision=3)

# %% [markdown]
# The `estimable` column is the overlap rule's verdict (`popresume.causal.identification`;
# Chapter 12 measures it). An interval is withheld only where the data lack support: more
# than 1% of the propensities an effect uses clipped, or fewer than 50 effective rows behind
# one of its weights; NDE, NIE, BIE and RIE, which all rest on $p(x \mid B, R, Z)$, are read
# together, since a model with more mediators never has more overlap than one with fewer.
# Neither depends on the sample size as such, so the demonstration runs
# at 2,000 rows, the size of the README's audit. The numbers the verdict reads, per effect,
# with the shape of the heaviest weight tail (its Pareto $\hat k$; above 0.7 a few rows carry
# the mean), which is reported and, with `max_pareto_k=0.7`, can be added to the rule:

# %%
labelled(est.result_.identification_table()[["estimable", "clipped_share", "min_ess", "pareto_k"]].rename(
    columns={"clipped_share": "clipped share", "min_ess": "smallest ESS", "pareto_k": "tail k̂"}),
    "ours: the overlap rule on this sample (k̂: Pareto shape of the heaviest weight tail; – where the "
    "largest weights are tied values and no tail can be fitted)", precision=3)

# %% [markdown]
# The intervals in the table are the default's: a delete-a-group jackknife. The rows are
# split into ten groups, the whole cross-fitted estimator is run again without each, and the
# spread of those ten estimates gives the SE, with a $t$ quantile on nine degrees of freedom
# (`PSEEstimator.jackknife_draws`). The paper's interval, the influence-function SE with its
# bootstrap percentiles (`variance="influence"`), is somewhat too narrow for the mediated
# effects at the sizes audits use, RIE's most, because it leaves out the finite-sample noise
# of the nested regressions; repeated cross-fitting (below) does not recover it, since that
# noise comes from the sample, not from the split. The refits carry it. Chapter 12 measures
# both variances with the tool's own defaults at 1,000 to 8,000 rows.
#
# TE = NDE + NIE and NIE = BIE + RIE hold *exactly* in the table, not approximately: the
# effects are linear combinations of the same five estimated means. Everything else the
# fit produced lives on the result object `est.result_` (a `PSEResult`): the five means,
# the per-unit influence values `phi`, intervals, tests and diagnostics. The table above
# is its `summary`. The five counterfactual means:

# %%
res = est.result_
labelled(res.psi, f"ours: one sample of n = {n_demo} from the '{scm_kind}' model, XGBoost; a simulation has no validity gate", precision=3)

# %% [markdown]
# Five effects tested at once invite the multiplicity question of Chapter 10. The result
# answers it in two ways: a *joint* 95% band, wide enough that all five intervals cover
# their truths together 95% of the time (the sup-t band: the influence bootstrap's draws give
# the five effects' correlation, the jackknife their SEs), and
# p-values adjusted over the five effects.

# %%
labelled(pd.concat({"pointwise": res.confint(), "joint": res.confint(joint=True)}, axis=1),
         f"ours: one sample of n = {n_demo} from the '{scm_kind}' model, XGBoost; a simulation has no validity gate", precision=3)

# %%
labelled(res.p_adjust("holm"), f"ours: one sample of n = {n_demo} from the '{scm_kind}' model, XGBoost; a simulation has no validity gate", precision=4)

# %% [markdown]
# The diagnostics say which hyperparameters cross-validation chose from the Appendix C.5
# grid (Brier score for the propensities, MSE for the regressions), how extreme the
# propensities were and how many were clipped, and how far the weights are from the ideal
# (raw means near 1, effective sample sizes near $n$).

# %%
diag = est.diagnostics
labelled(diag["params"], f"ours: hyperparameters chosen by cross-validation on the sample of n = {n_demo}")

# %%
labelled(diag["propensity"], f"ours: the estimator's propensities on the sample of n = {n_demo}")

# %%
weights = diag["weights"].set_index(["psi", "target", "weight"]).rename(columns={
    "raw_mean": "raw mean", "raw_mean_min_fold": "lowest fold", "raw_mean_max_fold": "highest fold",
    "ess": "ESS", "max_weight": "largest", "max_weight_share": "largest / sum", "pareto_k": "tail k̂"})
labelled(weights, "ours: the estimator's weights on this sample (raw means overall and in the lowest and "
         "highest fold, ESS, largest weight, its share of the sum, Pareto k̂ of the upper tail)", precision=3)

# %% mystnb={"figure": {"caption": "Ours, synthetic SCM with known truth: one sample's five estimated effects with 95% CIs against the true values."}}
fig = plot_effects_with_truth(table, truth, title=f"synthetic model '{scm_kind}', n = {n_demo}")

# %% [markdown]
# ## Three estimators of the same thing
#
# The exact plug-in evaluates the sum of Eqs. (6)-(10) with empirical frequencies: no
# learner and no folds, but it needs every cell $(x, z, r, b)$ to be observed. The naive
# group difference $\bar Y_{x_1} - \bar Y_{x_0}$ is what an outcome-level audit measures;
# it is not a causal effect at all when $Z$ confounds $X$.

# %%
pl = plugin_pse(demo, **roles)
naive = demo.loc[demo.x == "x1", "y"].mean() - demo.loc[demo.x == "x0", "y"].mean()
labelled(pd.DataFrame({"truth": truth, "DML (XGBoost)": table["estimate"], "plug-in": pl["estimate"],
                       "naive difference": pd.Series({"TE": naive})}).reindex(truth.index),
         "ours: the three estimators on this sample (the naive difference estimates no path, hence only TE)")

# %% [markdown]
# ## Coverage over repeated samples
#
# One sample proves little. We draw `reps` independent samples of size `n`, estimate the
# five effects on each, and count how often the 95% interval contains the truth. To keep
# the chapter fast, the study uses a saturated learner (`CellMeans`: the mean in each
# observed cell, exactly the nonparametric regression for discrete data) instead of
# XGBoost; the estimator, folds, weights and bootstrap are the same code.
#
# Two versions of the estimator run on every sample. "DML" is the paper's: one random
# split into five folds. "DML, n_rep=…" repeats the cross-fitting on `n_rep` independent
# splits and takes the median of the split-wise estimates (DoubleML's `n_rep`); its first
# split is the single-split fit, so one fit per sample serves both rows.

# %%
cell = {"propensity": CellMeans(), "outcome": CellMeans()}
estimates, coverage = coverage_study(scm_kind, n=n, reps=reps, n_boot=n_boot, learners=cell,
                                     normalize=normalize, clip=clip, seed=seed, n_rep=(1, n_rep), bagged=bagged)
labelled(coverage, f"ours: {reps} samples of n = {n} from the '{scm_kind}' model (– where a row has no such "
         "number: the plug-in and the naive difference have no bootstrap interval)")

# %% mystnb={"figure": {"caption": "Ours, synthetic SCM with known truth: coverage of the 95% CIs over repeated samples (top) and the estimates across samples (bottom)."}}
fig = coverage_figure(coverage[coverage["method"].str.startswith(("DML", "refit"))],
                      estimates.dropna(subset=["estimate"]), truth,
                      title=f"95% CI coverage (ours, synthetic '{scm_kind}'), {reps} samples of n = {n}")

# %% [markdown]
# Read the coverage against the grey band: with `reps` samples, a true 95% coverage lands
# inside it 95% of the time. The bias column is small relative to the standard deviation,
# which is what makes the intervals honest. The naive difference is off by the confounding
# of $X$ and $Z$, no matter how large the sample: its error does not shrink with $n$.
# The plug-in is as good as DML here because every cell is populated; try the
# `high_card_r` model in the exercises to see where it breaks down.

# %% [markdown]
# ## One split or many
#
# A cross-fitted estimate depends on which rows landed in which fold: rerun it with
# another seed and it moves a little, though the data did not change. That *split noise*
# sits on top of the sampling noise. The authors average it away by bagging. The paper
# says only that its 95% intervals come from 500 bootstrap samples (§5.1); the authors'
# estimation script
# ([`3_causal_estimation/causal_effect.py`](https://github.com/sumin-yu/PopResume/blob/ca7a66eeeca4282d80963e96dc541fce6c64ac95/3_causal_estimation/causal_effect.py),
# commit `ca7a66e`) shows the rest: each bootstrap draw resamples the rows and re-runs the
# whole cross-fit with a new split, and the estimate it reports is the mean over the
# draws. Repeated cross-fitting gets the same benefit at the cost of `n_rep` fits
# instead of 500: the median over splits keeps the estimate, its intervals stay honest
# (the SE adds the spread between splits, DoubleML's rule), and the RMSE can only shrink
# by what the split noise contributed.

# %%
rmse = coverage.pivot(index="effect", columns="method", values="rmse").reindex(truth.index)
labelled(rmse[[c for c in rmse.columns if c.startswith(("DML", "refit"))]],
         f"ours: RMSE over {reps} samples of n = {n} from the '{scm_kind}' model; a simulation has no validity gate",
         precision=4)

# %% [markdown]
# With cell means the split noise is small (a cell's mean barely depends on which fifth of
# the rows was held out), so the gain here is a few per cent; flexible learners such as
# XGBoost, whose fits change with the training rows, carry more of it.
# `benchmarks/bench_causal.py coverage` runs the bigger study on three synthetic models
# against the authors' bagged refits. Its lesson in one line: with good overlap a handful
# of splits matches or beats bagging at a few per cent of its cost, but under weak overlap
# bagging still wins on the indirect effects, because averaging over resamples also
# smooths the clipped, self-normalised weights, which averaging over splits does not. Set
# `bagged` above to add the authors' estimator to this chapter's table and see it here.

# %% [markdown]
# ## Two bootstraps
#
# Every effect is a difference of means of the per-unit $\varphi$'s, so resampling the rows
# of the $n \times 5$ matrix of $\varphi$ and re-averaging gives all five intervals jointly
# for the cost of a matrix product. The slow reference resamples the data and re-runs the
# whole cross-fitted estimator, assigning folds by original row so that a row's duplicates
# never sit in both a training and an evaluation fold. On one sample:

# %%
one = PSEEstimator(scm.sample(n, seed=seed + 1), **roles, learners=cell, normalize=normalize, clip=clip)
one.fit()
inf = one.bootstrap(n_boot).summary
ref = one.bootstrap(refit_draws, method="refit").summary
labelled(pd.DataFrame({"estimate": inf["estimate"], "influence-bootstrap SE": inf["boot_se"],
              f"refit-bootstrap SE ({refit_draws} draws)": ref["boot_se"],
              "influence-function SE": one.result_.influence_se}),
         f"ours: one sample of n = {n} from the '{scm_kind}' model, cell means; a simulation has no validity gate",
         precision=4)

# %% [markdown]
# The two spreads are of the same size but not equal. Part of the gap is the noise of a few
# dozen refit draws (a standard deviation from $B$ draws is itself uncertain by about
# $1/\sqrt{2(B-1)}$ of its size);
# part is real: the refit bootstrap also sees the second-order noise of re-estimating the
# nuisances, which the influence bootstrap (the first-order expansion) ignores, and with
# cell means on a few thousand rows, where a bootstrap sample's duplicates make small cells
# noisier still, that part is not negligible. It fades as cells fill up (in our runs, at
# n = 8000 the two agreed within about 15%), and the coverage study above is the real
# test of the cheap intervals. `benchmarks/bench_causal.py`
# measures the cost on the paper's largest occupation (17,632 rows): as measured on an idle
# 2-core machine (the benchmark prints its figures), the 500 influence draws take a small
# fraction of one tuned fit, while each refit draw costs a full cross-fit, so the authors'
# 500 refits would take hundreds of times as long as the fit itself.

# %% [markdown]
# ## Exercises
#
# :::{exercise}
# :label: ex-07-small-n
#
# Shrink the samples and watch the coverage:
#
# ```bash
# popresume book run notebooks/07_estimation.py -p n 400
# ```
#
# Which effects lose coverage first, and is it bias or a too-narrow interval?
# :::
#
# :::{solution} ex-07-small-n
# :class: dropdown
#
# With 400 rows spread over 72 cells $(x, z, r, b)$ many cells hold one or two rows: the
# cell means are noisy, the propensities of rare cells are clipped, and a small bias
# appears that the bootstrap does not see. Compare the `bias` column with `sd`: once the
# bias is a sizeable fraction of the standard deviation, coverage drops below 95% even
# though the intervals are wider.
# :::
#
# :::{exercise}
# :label: ex-07-normalize
#
# Turn off self-normalisation and re-run on the weak-overlap model:
#
# ```bash
# popresume book run notebooks/07_estimation.py -p normalize False -p scm_kind weak_overlap
# ```
#
# How do the standard deviations of the estimates and the raw weight means in the
# diagnostics change?
# :::
#
# :::{solution} ex-07-normalize
# :class: dropdown
#
# Without normalisation each fold's weights keep whatever mean the estimated propensities
# give them (the "raw mean" column, which is the same with or without normalisation);
# under weak overlap these means wander away from 1 and the estimates get noisier (larger
# `sd`, wider intervals). Self-normalisation divides the weights by their fold mean, their
# population value being exactly 1, and removes that noise.
# :::
#
# :::{exercise}
# :label: ex-07-highcard
#
# Re-run with `-p scm_kind high_card_r` (20 proxy levels). Why does the plug-in column of
# the coverage table become empty (NaN) for most samples while DML still returns numbers?
# :::
#
# :::{solution} ex-07-highcard
# :class: dropdown
#
# The plug-in needs $\mathbb E[Y \mid a_y, b, r, z]$ for every cell reached by
# $P(b \mid a_b, r, z) P(r \mid a_r, z)$; with 480 cells some are empty in one group and the
# plug-in raises a positivity error (caught and recorded as missing by the study). DML
# never needs a cell mean for an unobserved cell: the learners extrapolate (here: shrink to
# the overall mean) and the weights correct the first-order error. This is why the paper
# groups high-cardinality variables (Appendix C.4) before estimation.
# :::
