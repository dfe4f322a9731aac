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
# # The LL144 audits, re-audited
#
# New York City's Local Law 144 requires a yearly bias audit of an automated employment
# decision tool: for each sex, race/ethnicity and intersectional category, the selection rate
# (or, for a tool that scores, the share scored above the median) and the **impact ratio**,
# the category's rate over the highest category's rate. A ratio below 0.8 (four-fifths) is the
# conventional flag. Chapter {doc}`10c_fourfifths_ll144` computes these numbers for our own
# screeners, with intervals and the chance that a tool with no disparity is flagged. Here
# they are computed for the audits that were actually published.
#
# The ACLU collected every LL144 audit public by November 2024 — 116 audits of tools by 22
# vendors, audited by 11 auditors — and extracted their tables
# ([aclu-national/auditing-the-audits-facct-2025](https://github.com/aclu-national/auditing-the-audits-facct-2025)
# @ `cef7c27`; the paper: *Auditing the Audits*, FAccT 2025,
# [doi:10.1145/3715275.3732004](https://doi.org/10.1145/3715275.3732004)).
#
# **Licence: CC BY-NC 4.0, non-commercial use only.** The table ships in
# `data/decisions/aclu_ll144.parquet` with its notice (`NOTICE-aclu.txt`: attribution and the
# changes made, 19 of 46 columns kept). It is in the repository and the book, for teaching and
# research; it is **not** in the `popresume` wheel or sdist, and the MIT licence of the code
# does not cover it.
#
# **What you will learn**
#
# - how many published impact ratios recompute from the audit's own counts, and how many do
#   not even allowing for the rounding of printed rates;
# - for each published ratio, the chance that a tool with **no** disparity shows a ratio below
#   0.8 at that category's n, and how many published flags a fair tool would produce;
# - how many categories fall under the 2% share the rules let an auditor leave out;
# - the same counts by auditor and by vendor.
#
# Labels: **published (ACLU, Auditing the Audits 2025)** is the audit's number as the ACLU
# extracted it; **ours, from ACLU's recorded audits** is computed here from those numbers.
# These are audits of vendors' tools, not of a screener this book can run: no validity card
# exists, and every table says `not carded (recorded decisions)`.
#
# Parameters: `n_sim` (tools with no disparity simulated per analysis), `seed`. The CLI
# `popresume decisions --source aclu_ll144 --out DIR` writes `ll144_published.csv`.

# %% tags=["parameters"]
n_sim = 2000
seed = 0

# %%
import time

import matplotlib.pyplot as plt
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
import numpy as np
import pandas as pd
from IPython.display import display

from popresume.decisions import analyses, load
from popresume.decisions.schema import NOT_CARDED
from popresume.schema import VERDICT_COLUMN
from popresume.multiplicity import benjamini_hochberg, holm
from popresume.plots.tables import labelled
from popresume.ranking.bloomberg import caption

PUBLISHED = caption("published (ACLU, Auditing the Audits 2025)")
OURS = caption("ours, from ACLU's recorded audits")
pd.set_option("display.max_colwidth", None)
pd.set_option("display.max_rows", 500)
pd.set_option("display.width", 200)
t_start = time.perf_counter()
aclu = load("aclu_ll144")
print(f"{len(aclu):,} published rows, {aclu['audit_id'].nunique()} audits, {aclu['tool_vendor'].nunique()} vendors, "
      f"{aclu['auditor'].nunique()} auditors; non-commercial licence (CC BY-NC 4.0)")
example = aclu[(aclu["audit_id"] == aclu["audit_id"].iloc[0]) & (aclu["protected_char_group"] == "sex")]
display(labelled(example[["audit_id", "selection_or_scoring_rate", "sex", "number_of_applications",
                          "n_selected_or_n_above_median", "result", "impact_ratio"]]
                 .assign(**{VERDICT_COLUMN: NOT_CARDED}).reset_index(drop=True), PUBLISHED))

# %% [markdown]
# ## Do the published ratios recompute?
#
# One analysis is an audit × rate definition × characteristic. From the published counts, a
# category's rate is selected / n and its ratio is its rate over the highest rate among the
# analysis's known categories (`Missing/Unknown` is never rated). The rules let an auditor
# leave categories under 2% of the sample out of the reference, so a published ratio is
# counted as recomputing when it is within 0.01 of either version. Many audits print counts
# that were themselves derived from rates rounded to two decimals; `differs_beyond_rounding`
# asks the stricter question: is the published ratio more than 0.01 outside every ratio the
# printed rates allow?

# %%
table = analyses.ll144_published(aclu, n_sim=n_sim, seed=seed)
table[VERDICT_COLUMN] = NOT_CARDED
overall = analyses.ll144_summary(table)
display(labelled(overall.T, OURS))
o = overall.iloc[0]
print(f"published ratios that recompute from counts: {int(o['recomputable'])}; differ by more than 0.01: "
      f"{int(o['do_not_recompute'])}; of those, beyond the rounding of printed rates: {int(o['beyond_rounding'])}")
worst = table[table["differs_beyond_rounding"]].assign(gap=lambda t: (t["reported_ratio"] - t["recomputed_ratio"]).abs())
display(labelled(worst.sort_values("gap", ascending=False).head(8)[
    ["audit_id", "characteristic", "category", "n", "reported_ratio", "recomputed_ratio", "recomputed_ratio_2pct",
     VERDICT_COLUMN]].reset_index(drop=True), OURS))

# %% mystnb={"figure": {"caption": "Ours, from the ACLU's table of published LL144 audits: each published impact ratio against the ratio recomputed from the audit's own counts (red: more than 0.01 outside what the rounding of printed rates allows; orange: more than 0.01 from the recomputed ratio). Not carded (recorded decisions): vendors' tools, no validity card."}}
fig, ax = plt.subplots(figsize=(5, 5))
both = table.dropna(subset=["reported_ratio", "recomputed_ratio"])
colour = np.where(both["differs_beyond_rounding"], "tab:red", np.where(both["differs"], "tab:orange", "grey"))
ax.scatter(both["recomputed_ratio"], both["reported_ratio"].clip(upper=1.5), s=6, c=colour, alpha=0.6)
ax.plot([0, 1.5], [0, 1.5], color="black", lw=0.8)
ax.axhline(0.8, color="grey", ls=":", lw=0.8)
ax.axvline(0.8, color="grey", ls=":", lw=0.8)
ax.set_xlabel("recomputed from the audit's counts")
ax.set_ylabel("published (clipped at 1.5)")
ax.set_title("Impact ratios: published vs recomputed\n(ours, from ACLU's recorded audits; "
             "red: beyond rounding, orange: > 0.01)", fontsize=9)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## Which published flags would a fair tool produce?
#
# A tool that ignores the attribute still gives some category a low ratio when categories
# are small. For each category, `chance_below_0_8` is the chance that such a tool — the
# same number selected, drawn at random with the published group sizes (the permutation
# null of `popresume.ll144.chance_of_flag`, here per category) — gives it a ratio below 0.8;
# `p_observed` the chance of a ratio at or below the published one. A published flag is
# **within chance** when `p_observed` ≥ 0.05. `analysis_chance_of_flag` is
# `popresume.ll144.chance_of_flag` itself: the chance that such a tool gets *some* ratio of
# the analysis below 0.8. Probabilities of 0 mean fewer than 1 in `n_sim` draws.

# %%
flags = table[table["published_flag"]]
tested = flags.dropna(subset=["p_observed"])
within = tested[tested["within_chance"]]
print(f"published flags (ratio < 0.8): {len(flags)}; with counts to test: {len(tested)}; "
      f"within chance (p_observed >= 0.05): {len(within)}")
fam = tested["p_observed"].to_numpy()
print(f"flags beyond chance after Holm over the {len(fam)} tested flags: {int((holm(fam) < 0.05).sum())}; "
      f"after Benjamini-Hochberg: {int((benjamini_hochberg(fam) < 0.05).sum())}")
display(labelled(within.sort_values("n")[["audit_id", "characteristic", "category", "n", "reported_ratio",
                                          "chance_below_0_8", "p_observed", "analysis_chance_of_flag", VERDICT_COLUMN]]
                 .head(15).reset_index(drop=True), OURS))

# %% mystnb={"figure": {"caption": "Ours, from the ACLU's table of published LL144 audits: for every rated category, the chance that a tool with no disparity gives it a ratio below 0.8, against the category's n; published flags in red. Not carded (recorded decisions)."}}
fig, ax = plt.subplots(figsize=(6, 3.8))
rated = table.dropna(subset=["chance_below_0_8"])
rated = rated[rated["n"] > 0]
ax.scatter(rated["n"], rated["chance_below_0_8"], s=5, color="grey", alpha=0.5, label="every rated category")
ax.scatter(tested["n"], tested["chance_below_0_8"], s=14, color="tab:red", label="published flags")
ax.set_xscale("log")
# one label per decade, written as a plain count (the minor ticks carry none)
ax.xaxis.set_major_locator(LogLocator(base=10, numticks=8))
ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
ax.xaxis.set_minor_formatter(NullFormatter())
ax.tick_params(axis="x", labelsize=8)
ax.set_xlabel("category n (log scale)")
ax.set_ylabel("chance a fair tool gives it a ratio < 0.8")
ax.set_title("Chance of a four-fifths flag with no disparity (ours, from ACLU's recorded audits)", fontsize=9)
ax.legend(fontsize=8)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## Small categories, and who audited whom
#
# The rules allow a category under 2% of the sample to be left out of the reference rate;
# `under_2pct` counts those categories. Many of the within-chance flags above sit in exactly
# such categories, or just above the cut.

# %%
print(f"categories under 2% of their analysis's known rows: {int(table['under_2pct'].sum())} of "
      f"{int(table['recomputed_ratio'].notna().sum())} rated")
display(labelled(analyses.ll144_summary(table, "auditor").assign(**{VERDICT_COLUMN: NOT_CARDED}), OURS))
display(labelled(analyses.ll144_summary(table, "tool_vendor").assign(**{VERDICT_COLUMN: NOT_CARDED}), OURS))

# %%
print(f"chapter ran in {time.perf_counter() - t_start:.0f} s")

# %% [markdown]
# ## Exercises
#
# :::{exercise}
# :label: ex-08d-median
#
# For the scoring-rate analyses (`selection_or_scoring_rate == "Scoring"`), the rate is the
# share above the sample's median, so it is close to 0.5 in every analysis. How does the
# chance of a flag at a given n compare with a selection-rate analysis that selects 10%?
# :::
#
# :::{solution} ex-08d-median
# :class: dropdown
#
# ```python
# for rate in (0.5, 0.1):
#     below, _ = analyses.chance_below(np.array([50, 950]), int(rate * 1000), np.array([True, True]), n_sim=4000)
#     print(rate, below)
# ```
#
# At the same n a rate near 0.5 makes a ratio below 0.8 much rarer than a rate of 0.1: the
# ratio's noise scales with √((1 − p)/(np)). Low selection rates turn small categories into
# flags by chance; median-split scoring rates rarely do.
# :::
#
# :::{exercise}
# :label: ex-08d-auditor
#
# Restrict the recomputation check to one auditor at a time. Is the share of ratios that do
# not recompute (beyond rounding) a property of a few auditors, or spread over all of them?
# :::
#
# :::{solution} ex-08d-auditor
# :class: dropdown
#
# ```python
# s = analyses.ll144_summary(table, "auditor")
# (s["beyond_rounding"] / s["recomputable"]).sort_values()
# ```
#
# The by-auditor table above answers it: read `beyond_rounding` against `recomputable` row
# by row. Where one auditor's share is far above the others', look at a few of its analyses:
# is the published reference (the category printed with ratio 1) the category with the
# highest rate, and does the ratio match rate over that reference? The ACLU's paper
# discusses the same inconsistencies.
# :::
#
# :::{exercise}
# :label: ex-08d-ours
#
# Chapter {doc}`10c_fourfifths_ll144` computes the same table for our screeners, with
# intervals. Take one within-chance flag above and compute the Clopper–Pearson or
# Miettinen–Nurminen interval of its ratio with `popresume.ll144.impact_ratio_table` from
# its analysis's counts. Does the interval include 1?
# :::
#
# :::{solution} ex-08d-ours
# :class: dropdown
#
# ```python
# from popresume import ll144
# row = within.iloc[0]
# a = table[(table["audit_id"] == row["audit_id"]) & (table["characteristic"] == row["characteristic"])
#           & (table["selection_or_scoring_rate"] == row["selection_or_scoring_rate"])]
# sel = aclu.loc[a.index, "n_selected_or_n_above_median"].round()
# counts = pd.DataFrame({"category": a["category"], "n": a["n"], "selected": sel}).dropna()
# ll144.impact_ratio_table(counts.astype({"n": int, "selected": int}))
# ```
#
# Read the interval against 0.8 and 1: a flag the permutation null calls within chance
# should have an interval reaching above 0.8; where it also reaches 1, the audit could not
# tell this category's rate from the best one's.
# :::
