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
# # How far each number can be trusted
#
# **What you will learn**
#
# - what "a 95% confidence interval" promises, and how the project checks the promise: by
#   simulating data whose true effects are known exactly and counting how often the
#   intervals cover them (the *coverage harness*, `popresume.coverage`);
# - where the path-specific effects are **estimable** and where they are not, and why an
#   interval printed where a mediator reveals the protected attribute is worthless;
# - how to read the Wilson interval beside each measured rate, and why a rule that withholds
#   an interval must also show how often it withholds (its *power*).
#
# The table below is read from `benchmarks/results/coverage.csv`, written by the latest
# full run of the harness (`make calibrate`, i.e. `benchmarks/bench_coverage.py`). Nothing
# in it is typed by hand; re-running the harness changes this page.
#
# **The bands.** A nominal 95% interval must cover the truth in 93-97% of replications; a
# nominal 5% test must reject a true null in 3-7%. Each rate is a count of hits over `reps`
# replications, so it carries sampling error of its own: the page prints its 95% **Wilson
# interval** (Wilson 1927; statsmodels' `proportion_confint(method="wilson")`) in brackets.
# 95 covered of 100 gives a Wilson interval of 0.89-0.98; 1,900 of 2,000 one of 0.94-0.96.
#
# **The verdicts.** For the path-specific effects a row is *in band* only when three things
# hold: the coverage among the replications the tool calls estimable lies in 0.93-0.97; its
# Wilson interval does not reach below 0.90 (at 300 replications a true 0.92 still lands
# inside the band about a quarter of the time, and its interval then reaches below 0.90);
# and, on the good-overlap design at $n \ge 1{,}000$, the tool calls the effect estimable in
# at least 90% of the replications (a rule that withholds everything would be trivially
# "calibrated"). "OUTSIDE" means the whole Wilson interval lies outside 0.93-0.97: a
# miscalibration the replications show. "too few replications" means the rate is in the band
# but its interval reaches below 0.90, or misses the band by less than its interval.
# For the other families the verdict is "OUTSIDE" when the Wilson interval (for a ratio:
# the rate ± two Monte Carlo errors) lies clear of the band, and "outside, within MC error"
# when the rate misses the band by less.
#
# The parameters cell has one parameter, `csv`: the harness table to show (empty: the
# repository's `benchmarks/results/coverage.csv`; a path: your own run of `make calibrate`).

# %% tags=["parameters"]
csv = ""  # empty: the repository's benchmarks/results/coverage.csv

# %%
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from popresume.book import chapter_setup
from popresume.causal.identification import MIN_ESS_SHARE
from popresume.coverage import read_results, shown
from popresume.coverage.causal import (records_csv, replication_checks, shown_causal, spread_table, unique_replications,
                                       withholding_summary)
from popresume.coverage.intervals import wilson_column
from popresume.plots.causal import plot_coverage_by_n
from popresume.tables import labelled

results = read_results(csv or None)
table = shown(results[results["family"] != "causal"])  # the causal rows have their own display below
chapter_setup(max_rows=1000)
print(f"{len(results)} rows; families: {', '.join(sorted(results['family'].unique()))}")

# %% [markdown]
# ## The path-specific effects
#
# One row per design (good overlap; weak overlap; a mediator that reveals the attribute, as
# a first name reveals gender; the audit pipeline itself), sample size and effect, with three
# measured rates side by side:
#
# - *coverage, estimable*: among the replications the tool calls estimable, how often the
#   interval it prints covers the truth. This is the promise the tool makes.
# - *coverage, all*: every replication's interval, the withheld ones included (as the paper
#   reports them). Where it is far below 95% the rule is right to withhold; where it is in the
#   band the rule withholds a good interval.
# - *share estimable*: how often the tool calls the effect estimable, its power.
#
# The *oracle nuisances* rows build the intervals from the true propensities and regressions:
# they check the interval machinery alone (influence-function SE, bootstrap, the effects'
# algebra). The *audit pipeline* rows are `popresume audit --screener synthetic` itself: a
# population from the generator, the synthetic screener's scores, the estimator at every
# default (XGBoost tuned on every fit, 5 folds, 500 draws) and the screener's exact truth on
# that population, over seeds, for race and gender and two occupations. The `rule` column
# names the estimable rule that called the replications; `held out` says whether the design
# and size took no part in choosing that rule's thresholds.

# %%
causal = results[results["family"] == "causal"]
side = shown_causal(causal)
side["group"] = [s.split(", n=")[0] if ":" in s else "oracle nuisances" for s in side["setting"]]  # learner: design
for group, part in side.groupby("group", sort=False):
    display(labelled(part.drop(columns="group").reset_index(drop=True),
                     f"ours: the coverage harness (popresume.coverage.causal), {group}"))
counts = side["verdict"].value_counts()
print("verdicts over the causal rows:", ", ".join(f"{v} {k}" for k, v in counts.items()))
# power: where the rule withholds on the good design although the intervals it withholds cover
cost = withholding_summary(causal, called=0.9, covering=(0.93, 0.97))
print(f"good overlap: {cost['lost']} of {cost['good']} rows called estimable in under 90% of the replications "
      f"although the intervals it withholds cover 0.93-0.97 ({', '.join(cost['lost_effects'])})" if cost["lost"] else
      f"good overlap: no row withholds intervals that cover 0.93-0.97 ({cost['good']} rows)")
print(f"rows held out from the choice of their rule's thresholds: {cost['held_out']} of {cost['fitted']}")
for rule, designs in cost["held_out_designs"].items():
    print(f"  {rule}: " + "; ".join(designs))

# %%
audit = causal[causal["setting"].str.contains("audit pipeline") & (causal["kind"] == "coverage")]
if audit.empty:
    print("no audit-pipeline rows in this run")
else:
    for (rule, attr, n), g in audit.groupby(["rule", audit["setting"].str.extract(r", (race|gender), n=")[0],
                                             audit["setting"].str.extract(r"n=(\d+)")[0].astype(int)], sort=True):
        med = g[g["quantity"].isin(["NIE", "BIE", "RIE"])]
        print(f"audit pipeline, {rule}, {attr}, n = {n}: {int(g['reps_all'].min())}-{int(g['reps_all'].max())} "
              f"replications per occupation; the mediated effects called estimable in "
              f"{med['estimable_share'].min():.0%}-{med['estimable_share'].max():.0%} of them, their intervals "
              f"(withheld or not) covering {med['coverage_all'].min():.3f}-{med['coverage_all'].max():.3f}")

# %% [markdown]
# ### The tool's own defaults, size by size
#
# The rows that matter most to a user are the ones fitted exactly as `popresume audit` and
# `estimate_pse` fit by default: XGBoost tuned on every fit (the Appendix C.5 grid), 5 folds,
# the support rule and the default variance, "jackknife" (the SE from ten refits, each
# without one tenth of the rows, with a t quantile on 9 degrees of freedom; "XGBoost, tool
# defaults, jackknife variance"). Beside them, on the same samples and the same fits, are
# the two other variances the estimator offers (`EstimatorSpec(variance=...)`): "influence"
# (the paper's: the influence-function SE, 500 influence-bootstrap draws for the
# percentiles) and "average" (the root of the mean of the influence and jackknife
# variances, normal quantile). Each figure shows one
# design and variance: coverage among the estimable replications against $n$ with its Wilson
# interval (the band shaded, the 0.90 floor dashed), and beside it the rule's power. The
# printout under it counts the rows in band and names the others.

# %% mystnb={"figure": {"caption": "Ours, the coverage harness (benchmarks/results/coverage.csv): XGBoost with the tool's defaults, coverage among estimable replications and the share estimable, by design and n."}}
tool = causal["setting"].str.match(r"XGBoost, tool defaults[^:]*: [a-z X]+, n=\d+$")
tool_rows = causal[(causal["kind"] == "coverage") & tool]
tool_rows = tool_rows.assign(design=tool_rows["setting"].str.extract(r"^(.+), n=\d+$")[0])
for design, part in tool_rows.groupby("design", sort=False):
    low, high = int(part["reps_all"].min()), int(part["reps_all"].max())
    reps = f"{low} replications a row" if low == high else f"{low}-{high} replications a row"
    fig = plot_coverage_by_n(part, title=f"ours: the coverage harness, {design} ({reps})")
    plt.show()
    short = part[part["verdict"] != "in band"]
    print(f"{design}: {len(part) - len(short)} of {len(part)} rows in band")
    for r in short.itertuples():
        where = f"{design}, n = {int(r.setting.rsplit('n=', 1)[1]):,}: {r.quantity} {r.verdict}"
        print(f"{where}, coverage among estimable {r.rate:.3f} [{r.coverage_low:.3f}, {r.coverage_high:.3f}] over "
              f"{int(r.reps)}, share estimable {r.estimable_share:.2f}" if r.reps else
              f"{where} in {int(r.reps_all)} replications")

# %%
proj = causal[causal["kind"] == "projection_ratio"]
labelled(pd.DataFrame({"setting": proj["setting"], "effect": proj["quantity"],
                       "ratio [± 2 MC errors]": wilson_column(proj), "replications": proj["reps"].astype(int),
                       "band": [f"{a:.2f}-{b:.2f}" for a, b in zip(proj["band_low"], proj["band_high"])]}
                      ).reset_index(drop=True),
         "ours: the coverage harness (popresume.coverage.causal), half-width × √n, largest n over smallest")

# %% [markdown]
# The projection rows compare the CI half-width × √n at the two sample sizes: 1 when the
# half-width shrinks like $1/\sqrt{n}$, which is when "the n needed for a half-width of 0.5
# points" may be printed.

# %% [markdown]
# **Why a row is low.** A coverage short of 95% has two possible causes: the interval is too
# narrow (its SE is smaller than the real spread of the estimates over replications) or the
# estimate is biased. The full run keeps every replication
# (`benchmarks/results/coverage_causal_records.csv.gz`), so both can be read off: the SE the
# interval implies (half-width / $z_{0.975}$) over the standard deviation of the estimates, and the
# mean error over that standard deviation. Where the first is near 1 and the second near 0 the
# interval is right; an SE/SD of 0.85 costs about five points of coverage.

# %%
records_path = Path(csv).with_name(records_csv().name) if csv else records_csv()
if records_path.exists():
    records = unique_replications(pd.read_csv(records_path))  # each replication once, whatever its rules
    spread = spread_table(records)
    spread = spread[spread["design"] != "proxy reveals X"]  # its paths are not estimable; the bias shows why
    wide = spread.pivot_table(index=["learner", "design", "n"], columns="effect", values="se_over_sd", sort=False)
    wide = wide[["TE", "NDE", "NIE", "BIE", "RIE"]].rename_axis(columns=None)
    display(labelled(wide.round(2).reset_index(),
                     "ours: the coverage harness's replications (popresume.coverage.causal.spread_table); "
                     "SE the interval implies over the SD of the estimates"))
else:
    print(f"no per-replication records beside this table ({records_path.name})")

# %%
if records_path.exists():
    checks = replication_checks(records, max_pareto_k=0.7, max_clipped=0.01)
    print("largest |bias| / SD on the good and weak designs:", f"{checks['max_abs_bias_over_sd']:.2f}")
    # the smallest ESS as a share of the rows, for NDE (the share floor of the estimable rule)
    if (weak := checks["weak"]) is not None:
        print(f"XGBoost, weak overlap, n = {weak['n']}: {weak['passing']} samples pass the clipping and ESS checks "
              f"for NDE, {weak['covered']} cover the truth; smallest ESS {weak['share_low']:.0%}-"
              f"{weak['share_high']:.0%} of the rows")
    low, high = checks["good_p5"]
    print(f"good overlap: 5th percentile of that share {low:.0%}-{high:.0%} over learners and n; "
          f"the ESS-floor rule asks at least {MIN_ESS_SHARE:.0%}")
    # the support rule's tail check on the audit pipeline: how often k̂ withholds each attribute's paths
    for t in checks["tail"].itertuples():
        print(f"{t.design}, n = {t.n}: RIE's Pareto k̂ median {t.median_k:.2f}, above 0.7 in {t.above_k} of "
              f"{t.reps} replications; clipped share above 1% in {t.clipped_above}")

# %% [markdown]
# **How to read it.** Where a mediator reveals the attribute the intervals for the direct and
# mediated paths cover the truth far less than 95% of the time (*coverage, all*, proxy
# rows): clipping the propensities buys a finite variance with a bias the interval ignores,
# and more data does not remove it. Both rules call those effects not estimable, and the tool
# prints no interval, no p-value and no case label that rests on them (TE stays estimable: it
# needs only $p(x \mid Z)$). Where the tool does print an interval, compare its coverage with
# the oracle rows: a shortfall there is the price of estimating the nuisances.
#
# Each row names its estimable rule (the `rule` column): every fitted row is read under the
# estimator's default, the **support rule** (since issue 37), which withholds only for
# support: more than 1% of the propensities clipped, or an ESS under 50; the Pareto $\hat k$
# of the weights' upper tail is reported, and checked (above 0.7) only when asked. Support is
# nested (a propensity model with more mediators never has more overlap), so NDE, NIE, BIE and
# RIE, which all rest on $p(x \mid B, R, Z)$, are withheld together when any of them lacks it. The rule
# changes which intervals are printed, not the intervals, so the replications of 2026-12-03
# (cell means, and XGBoost tuned once per design) are read under it from their recorded
# clipped share and ESS; the rule before issue 37 (`estimable_rule="ess-floor"`: an ESS of
# 750 or 2,000 for NIE, BIE and RIE and 10% of the rows) and the opt-in tail check can be read
# again from the same records. On the good design the support rule calls every effect
# estimable in nearly every replication, so the share columns show its power, and the
# coverage columns the shortfall the ESS floors used to hide: the mediated effects at
# $n = 1{,}000$ (cell means: NIE, BIE and RIE about 0.90-0.91 over 1,000 replications) and
# XGBoost's RIE below $n = 8{,}000$ (about 0.89, SE/SD 0.84 in the spread table below), all
# OUTSIDE. That is an SE that leaves out the nested regressions'
# finite-sample noise, not a lack of support. The paper's influence variance with the tool's
# own tuning shows the same thing at 300 replications a size (the figures above and the rows
# printed under them: RIE short at every $n$ below 8,000, NIE and BIE at some sizes, with every
# effect called estimable in every replication). The jackknife mends it: its ten refits each
# leave out a tenth of the rows and refit every nuisance, so its SE carries the nuisance
# fits' noise that the influence SE leaves out. That is why it is the default. On the same
# samples, with a t quantile on 9 degrees of freedom, its intervals cover the truth in band
# for all five effects at every size (the figure's print-out counts the rows), at the price of
# ten refits and intervals 1.13-1.32 times as wide as the influence variance's. The "average"
# variance stays short where the influence SE is shortest (RIE at $n = 1{,}000$): the
# jackknife counts the missing noise about once with XGBoost tuned on every fit, not twice as
# it did with the cell-means learner (docs/DESIGN.md, the estimator's variance). The good
# design has 1000 and 1000 replications at $n = 1{,}000$ and $2{,}000$ and 300 at the
# larger sizes; the weak design has 300 at both of its sizes,
# whose few estimable samples leave its rows "too few replications". On the proxy
# design, where the mediators reveal X, XGBoost's regularised propensities stay inside the
# clipping bounds, so only the weights' ESS can show the missing support. In 3 samples of 300
# at $n = 1{,}000$ NDE's and NIE's own weights cleared the floor of 50 (an ESS of 52 to 82)
# while BIE's and RIE's, which also use $p(x \mid R, Z)$, did not (18 to 26), and the NDE and
# NIE intervals of those samples all missed. Read one effect at a time, the rule printed them;
# read as nested, it withholds all four mediated effects of the proxy design in every sample
# (the print-out under the figure), and TE, which needs only $p(x \mid Z)$, stays estimable.
#
# Which rows were held out: the support rule's 1% cap was chosen on the weak design at
# $n = 1{,}000$ and $4{,}000$, its ESS of 50 on the three designs at $n = 1{,}000$, and its
# tail check was tried on the audits of accountants at $n = 3{,}000$ and of both occupations
# at $n = 2{,}000$ (where it was made opt-in); every other row says "yes" in `held out` (the print-out under the first
# table lists them). The held-out rows are where the rule is tested: on the weak design at
# $n = 8{,}000$ XGBoost's propensities stay inside the clipping bounds, so the support rule
# calls NDE estimable in the samples the 10% floor used to catch, and those cover less (the
# XGBoost table). The tool-tuned rows of the good design have 300 to 1000 replications a size; those
# of the audit pipeline have tens, so their `verdict` says "too few replications" wherever
# the Wilson interval reaches below 0.90, and none of them is called in band. With this many rows, each verdict a
# 95% statement, a few "OUTSIDE" verdicts on a handful of replications are expected by
# chance; an OUTSIDE that persists over several sizes or occupations is not.

# %% [markdown]
# ## Other families
#
# Impact ratios and the chance of a flag (LL144, `popresume.coverage.ll144`), ranking rates,
# the conditional logit and the chance nulls (`.ranking`), and the recorded-decisions
# analyses (`.decisions`). Rows whose quantity names an older method ("comparison") are
# there to show what the new method fixed; they are expected outside their band. One
# OUTSIDE row of the decisions table is a check of an assumption, not of a method: Derbyshire's
# job-fit interval clusters by résumé, and where job fit differs industry by industry ("job-fit
# heterogeneity by industry") the 9 résumés hold only 3 independent units, so the interval
# covers the effect for the résumés of those three industries, not for industries at large.
# Chapter 08c's tables say so row by row.

# %%
others = results[results["family"] != "causal"].reset_index(drop=True)
if others.empty:
    print("no other family in this run")
else:
    shown_others = table.copy()
    shown_others["measured [Wilson 95%]"] = wilson_column(others)
    shown_others = shown_others.drop(columns=["measured"])
    for family, part in shown_others.groupby("family", sort=False):
        display(labelled(part.drop(columns="family").reset_index(drop=True),
                         f"ours: the coverage harness (popresume.coverage.{family})"))

# %% [markdown]
# ## The validity gate's error rates
#
# The validity gate of chapter 5 is a test as well, so it gets the same treatment: the
# harness's `validity` family (`popresume.coverage.validity`, written to
# `benchmarks/results/coverage_validity.csv`) scores the card's own résumés with simulated
# screeners of known behaviour and counts how often the gate passes them. A screener that
# ignores the posting or the qualifications should pass at most 5% of the time (the
# false-pass rate); one that reads both should pass often (the power). The book's card
# size is the smallest at which every false-pass rate is within 5% and the power at the
# reference effect reaches 0.8.

# %%
from popresume.coverage import validity as gate_harness
from popresume.screeners.validity import CARD_N

gate = pd.read_csv(gate_harness.results_csv())
gate["card size (résumés)"] = gate["setting"].map(gate_harness.card_n)
gate["noise"] = gate["setting"].str.rsplit(", ", n=1).str[1]
wide = gate.pivot_table(index=["kind", "quantity", "noise"], columns="card size (résumés)", values="rate",
                        sort=False)
wide.columns = [f"n = {c}" for c in wide.columns]
print(f"card size chosen by the table: {gate_harness.chosen_card_n(gate)}; the package's default: {CARD_N}")
labelled(wide.round(3).reset_index(), "ours: the coverage harness (popresume.coverage.validity), "
         f"share of {int(gate['reps'].min()):,}+ simulated cards that pass", precision=3)

# %% [markdown]
# ## Exercises
#
# :::{exercise}
# :label: ex-12-own-run
#
# Run the fast subset of the harness yourself and show it on this page:
#
# ```bash
# .venv/bin/python benchmarks/bench_coverage.py --fast --out /tmp/coverage.csv
# popresume book run notebooks/12_trust.py -p csv /tmp/coverage.csv
# ```
#
# Which rows move, and by how much compared with their Wilson intervals?
# :::
#
# :::{solution} ex-12-own-run
# :class: dropdown
#
# The fast subset uses fewer replications for the costly estimator rows and as many or more
# for the cheap ones, so its rates differ from the full run's by about the width of their
# Wilson intervals (printed in brackets): a difference inside both intervals is noise, not a
# change in calibration. A row whose interval lies clear of its band would be a real
# change, and the test that runs the same subset would fail.
# :::
