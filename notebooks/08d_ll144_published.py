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
# the category's rate over the highest category's rate. A ratio below four-fifths is the
# conventional flag. Chapter {doc}`10c_fourfifths_ll144` computes these numbers for our own
# screeners, with intervals and the chance that a tool with no disparity is flagged. Here
# they are computed again for the audits that were actually published.
#
# The ACLU collected the LL144 audits public by November 2024 and extracted their tables
# ([aclu-national/auditing-the-audits-facct-2025](https://github.com/aclu-national/auditing-the-audits-facct-2025)
# @ `cef7c27`; the paper: *Auditing the Audits*, FAccT 2025,
# [doi:10.1145/3715275.3732004](https://doi.org/10.1145/3715275.3732004)).
#
# **Licence: CC BY-NC 4.0, non-commercial use only.** The table ships in
# `data/decisions/aclu_ll144.parquet` with its notice (`NOTICE-aclu.txt`: attribution and the
# changes made, 19 of 46 columns kept), and our recomputation of it in
# `data/decisions/ll144_published.csv`, under the same terms. Both are in the repository and
# the book, for teaching and research; neither is in the `popresume` wheel or sdist, and the
# MIT licence of the code does not cover them.
#
# **What you will learn**
#
# - why a published impact ratio can differ from rate ÷ highest rate, and how often each
#   reason applies: the under-2% rule, the rounding of printed rates, an audit's own
#   comparator, or none of these;
# - which published flags the audit's own counts can tell from chance, and why the others
#   are not evidence that a tool is fair;
# - the same breakdown by auditor and by vendor.
#
# Labels: **published (ACLU, Auditing the Audits 2025)** is the audit's number as the ACLU
# extracted it; **ours, from ACLU's recorded audits** is computed from those numbers. These
# are audits of vendors' tools, not of a screener this book can run: no validity card exists,
# and every table says `not carded (recorded decisions)`.
#
# The numbers below come from `data/decisions/ll144_published.csv`, one row per audit × rate
# definition × characteristic × category, which `scripts/build_decisions_data.py` builds from
# the ACLU's file (exact for a table of two categories, else 20,000 draws, ten times more near
# p = 0.05) and
# `popresume decisions --source aclu_ll144 --out DIR` writes again. Parameters: `n_sim` and
# `seed`, the draws with which one audit is recomputed on this page and checked against it.

# %% tags=["parameters"]
n_sim = 2000
seed = 0

# %%
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from IPython.display import display

from popresume.book import chapter_setup
from popresume.decisions import analyses, load
from popresume.decisions.schema import NOT_CARDED
from popresume.ll144 import PUBLISHED_STATUSES, STATUS_MEANING
from popresume.multiplicity import benjamini_hochberg, holm
from popresume.plots import decisions as decisions_plots
from popresume.tables import labelled
from popresume.ranking.bloomberg import caption
from popresume.schema import VERDICT_COLUMN

PUBLISHED = caption("published (ACLU, Auditing the Audits 2025)")
OURS = caption("ours, from ACLU's recorded audits")
chapter_setup()
t_start = time.perf_counter()

# %%
aclu = load("aclu_ll144")
table = analyses.load_ll144_published()
named = lambda col: sorted(set(aclu[col]) - {"Unknown"})  # noqa: E731
print(f"{len(aclu):,} published rows, {aclu['audit_id'].nunique()} audits; {len(named('tool_vendor'))} named "
      f"vendors and {len(named('auditor'))} named auditors (some audits name neither); "
      f"non-commercial licence (CC BY-NC 4.0)")
example = aclu[(aclu["audit_id"] == aclu["audit_id"].iloc[0]) & (aclu["protected_char_group"] == "sex")]
display(labelled(example[["audit_id", "selection_or_scoring_rate", "sex", "number_of_applications",
                          "n_selected_or_n_above_median", "result", "impact_ratio"]]
                 .assign(**{VERDICT_COLUMN: NOT_CARDED}).reset_index(drop=True), PUBLISHED))

# %% [markdown]
# The first audit prints its "selected" counts with three decimals: n × the printed rate, not
# a count. `counts_reconstructed` marks such rows; the rates recomputed from them are the
# printed ones.
#
# ## Why a published ratio differs from rate ÷ highest rate
#
# One analysis is an audit × rate definition (`Selection`, `Selection, top`, `Selection, top
# and middle`, `Scoring`) × characteristic. From its printed counts, a category's rate is
# selected / n and its ratio by the **maximum rule** is its rate over the highest rate of
# the analysis's known categories (`Missing/Unknown` is never rated). The engine is
# `popresume.ll144.published_ratios`, the same rules as for our own screeners; each
# published ratio gets the first status that explains it:

# %%
display(labelled(pd.Series(STATUS_MEANING, name="meaning").to_frame(), OURS))
overall = analyses.ll144_summary(table)
display(labelled(overall.assign(**{VERDICT_COLUMN: NOT_CARDED}), OURS))
o = overall.iloc[0]
differ = int(o["published ratios"] - o["matches"] - o["no counts"])
print(f"{int(o['published ratios']):,} published ratios; {int(o['no counts'])} without counts; of the rest, "
      f"{differ:,} differ from rate / highest rate by more than 0.01: {int(o['under-2% rule'])} are the "
      f"under-2% rule, {int(o['rounding'])} the rounding of printed rates, {int(o['own comparator'])} the "
      f"audit's own comparator; {int(o['not reproducible from the printed rates'])} are reproduced by none")
print(f"counts that are n × rate (not whole numbers): {int(table['counts_reconstructed'].sum()):,} rows")

# %% [markdown]
# **The audit's own comparator.** A ratio above 1 cannot come from rate ÷ highest rate: the
# comparator is not the table's top category. DCI Consulting Group, the auditor of most of
# these audits, says in its reports that it picks the comparison group from data pooled over
# several deployments of the tool, so its printed ratios are taken against a rate that is
# not in the table. That is a disclosed convention, not an error, and such rows are counted
# as `own comparator`, as are the rows that recompute against the category the audit printed
# as 1.00.
#
# **Tables that contradict themselves.** If every ratio of a table were its rate over one
# reference rate, inside the table or outside it, a single rate would fit all of them
# within rounding (`popresume.ll144.single_reference`). The share of tables that admit one:

# %%
fits = analyses.ll144_single_reference(table[table["status"].notna()])
fits["auditor"] = fits["auditor"].replace({"Unknown": "not named"})
fits["group"] = np.where(fits["auditor"].eq("DCI Consulting Group"), "DCI Consulting Group", "other auditors")
share = fits.groupby(["group", "characteristic"]).agg(tables=("single_reference", "size"),
                                                      admit_one_reference=("single_reference", "mean"),
                                                      rows_not_reproducible=("not_reproducible", "sum"))
display(labelled(share.assign(**{VERDICT_COLUMN: NOT_CARDED}), OURS))
nr = table[table["status"].eq("not reproducible from the printed rates")]
dci = nr["auditor"].eq("DCI Consulting Group")
print(f"rows reproduced by no reading: {len(nr)}, of which {int(dci.sum())} in DCI's tables and "
      f"{int((~dci).sum())} elsewhere; with a printed ratio above 1: {int((nr['published_ratio'] > 1).sum())}")

# %% [markdown]
# Where no single reference rate fits a table, its printed rates and ratios cannot both be
# right for any comparator. This is a property of the reports as published (the ACLU
# extracted what was printed): it does not show an arithmetic error by the auditor, whose
# unpublished computation may use numbers the report does not print, and it says nothing
# about whether the tool discriminates. What it does say is that a reader cannot check these
# ratios from the report.

# %% mystnb={"figure": {"caption": "Ours, from the ACLU's table of published LL144 audits: each published impact ratio against the ratio recomputed from the audit's own counts by the maximum rule, coloured by status; dotted lines at four-fifths. Not carded (recorded decisions): vendors' tools, no validity card."}}
fig = decisions_plots.published_vs_recomputed(
    table, PUBLISHED_STATUSES, title="Impact ratios: published vs recomputed (ours, from ACLU's recorded audits)")
plt.show()

# %% [markdown]
# ## What the chance test can say about a published flag
#
# A tool that ignores the attribute still gives some category a low ratio when categories
# are small. For each rated category the file holds the chance that such a tool (the same
# number selected, drawn at random with the printed group sizes: the permutation null of
# `popresume.ll144.chance_below`, whose type-I error the coverage harness measures) gives it a
# ratio below four-fifths, and two p-values: `p_recomputed`, the chance of a ratio at or below
# the one **recomputed from the counts**, and `p_published`, the same for the printed ratio.
# Only `p_recomputed` compares like with like: the null is built from the counts, so it is
# the counts' ratio that must be set against it. Categories under 2% are out of the
# reference and get no p; rows with no applicants have nothing to test.

# %%
f = analyses.ll144_flags(table)
print(f"printed ratios under four-fifths: {f['published']}; {f['zero_applicants']} of them are rows with no "
      f"applicants printed as 0, which leaves {f['real']} flags; with counts to test: {f['tested']} "
      f"(not tested: {f['untested_under_2pct']} under 2%, {f['untested_other']} without a selected count or in a table "
      f"with fewer than two rated categories)")
print(f"recomputed ratio lower than such a tool gives with probability 0.05 (p_recomputed < 0.05): "
      f"{f['beyond_chance']}; not distinguishable from chance: {f['not_beyond_chance']}")
print(f"with the printed ratio against the same null (p_published), {f['not_beyond_chance_published']} of "
      f"{f['tested_published']} would read as within chance")
tested = table[table["published_flag"] & ~table["zero_applicants"] & table["p_recomputed"].notna()]
fam = tested["p_recomputed"].to_numpy()
print(f"beyond chance after Holm over the {len(fam)} tested flags: {int((holm(fam) < 0.05).sum())}; "
      f"after Benjamini-Hochberg: {int((benjamini_hochberg(fam) < 0.05).sum())}")
apart = tested[(tested["p_published"] >= 0.05) != (tested["p_recomputed"] >= 0.05)]
display(labelled(apart.sort_values("n")[["audit_id", "category", "n", "published_ratio", "ratio_2pct", "status",
                                         "p_published_text", "p_recomputed_text"]]
                 .rename(columns={"published_ratio": "printed ratio", "ratio_2pct": "recomputed ratio",
                                  "p_published_text": "p (printed ratio)", "p_recomputed_text": "p (recomputed ratio)"})
                 .assign(**{VERDICT_COLUMN: NOT_CARDED}).reset_index(drop=True), OURS))

# %% [markdown]
# The table lists the flags whose verdict turns on which ratio is tested: where the printed
# ratio is not the counts' ratio (status `not reproducible` or `own comparator`), the two
# p-values can sit on opposite sides of 0.05.
#
# What a p-value of 0.05 or more says is narrow: at these counts, a tool that ignores the
# attribute would give a ratio this low often enough that the audit cannot tell the two
# apart. It is **not** evidence that the tool is fair: the same counts are as compatible with
# a real disparity of that size, and a small category has little power to show one. A p below
# 0.05 says the recomputed ratio is unlikely under no disparity, at this n; it says nothing of
# why. Each p is printed with the digits its draws support (`p_draws`).

# %% mystnb={"figure": {"caption": "Ours, from the ACLU's table of published LL144 audits: for every rated category, the chance that a tool with no disparity gives it a ratio below four-fifths, against the category's n; the tested published flags in red. Not carded (recorded decisions)."}}
fig = decisions_plots.chance_by_n(
    table[table["n"].gt(0)].dropna(subset=[analyses.CHANCE_COLUMN]), tested, analyses.CHANCE_COLUMN,
    title="Chance of a four-fifths flag with no disparity (ours, from ACLU's recorded audits)")
plt.show()

# %% [markdown]
# ## By auditor and by vendor
#
# Counts by firm mean something only beside the reasons: a disclosed convention (own
# comparator), a rule the law allows (under 2%) and rounding are not failures to reproduce.
# Audits that name no auditor or vendor are shown as "not named", not counted as one firm.

# %%
for by in ("auditor", "tool_vendor"):
    display(labelled(analyses.ll144_summary(table, by).assign(**{VERDICT_COLUMN: NOT_CARDED}), OURS))

# %% [markdown]
# ## The file, recomputed on this page
#
# One analysis with a tested flag, recomputed from the ACLU's rows with `n_sim` draws: the
# ratios and statuses are those of the file; the p-values agree to the digits the draws
# support.

# %%
key = tested.iloc[0][["audit_id", "rate_definition", "characteristic"]]
rows = aclu[(aclu["audit_id"] == key["audit_id"]) & (aclu["selection_or_scoring_rate"] == key["rate_definition"])
            & (aclu["protected_char_group"] == key["characteristic"])]
again = analyses.ll144_file(analyses.ll144_published(rows, n_sim=n_sim, seed=seed))
shipped = again[analyses.LL144_KEY].merge(table, on=analyses.LL144_KEY, how="left")
assert again["status"].fillna("").tolist() == shipped["status"].fillna("").tolist()
assert np.allclose(again["ratio"], shipped["ratio"], equal_nan=True)
display(labelled(again[["category", "n", "published_ratio", "ratio", "status", "p_recomputed"]]
                 .assign(file_p_recomputed=shipped["p_recomputed_text"].to_numpy()), OURS))
print(f"chapter ran in {time.perf_counter() - t_start:.0f} s")

# %% [markdown]
# ## Exercises
#
# :::{exercise}
# :label: ex-08d-median
#
# For the scoring-rate analyses (`rate_definition == "Scoring"`), the rate is the share above
# the sample's median, so it is close to 0.5 in every analysis. How does the chance of a flag
# at a given n compare with a selection-rate analysis that selects 10%?
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
# At the same n a rate near 0.5 makes a ratio below four-fifths much rarer than a rate of
# 0.1: the ratio's noise scales with √((1 − p)/(np)). Low selection rates turn small
# categories into flags by chance; median-split scoring rates rarely do.
# :::
#
# :::{exercise}
# :label: ex-08d-auditor
#
# Take one DCI table that admits no single reference rate (`fits` above) and print its rows.
# Which printed numbers would have to change for one reference rate to fit?
# :::
#
# :::{solution} ex-08d-auditor
# :class: dropdown
#
# ```python
# bad = fits[fits["group"].eq("DCI Consulting Group") & ~fits["single_reference"]].iloc[0]
# t = table[(table["audit_id"] == bad["audit_id"]) & (table["rate_definition"] == bad["rate_definition"])
#           & (table["characteristic"] == bad["characteristic"])]
# t.assign(implied_reference=t["printed_rate"] / t["published_ratio"])[
#     ["category", "n", "printed_rate", "published_ratio", "implied_reference", "status"]]
# ```
#
# Each row's printed rate ÷ printed ratio is the reference rate that row implies. In a table
# that admits one reference these agree within rounding; here they do not, so at least one
# printed rate or ratio is not what the others imply. The report does not say which.
# :::
#
# :::{exercise}
# :label: ex-08d-ours
#
# Chapter {doc}`10c_fourfifths_ll144` computes the same table for our screeners, with
# intervals. Take one flag above that the counts cannot tell from chance and compute the
# Miettinen–Nurminen interval of its ratio with `popresume.ll144.impact_ratio_table` from its
# analysis's counts. Does the interval include 1? Does it also include ratios well below
# four-fifths?
# :::
#
# :::{solution} ex-08d-ours
# :class: dropdown
#
# ```python
# from popresume import ll144
# row = tested[tested["p_recomputed"] >= 0.05].iloc[0]
# a = table[(table["audit_id"] == row["audit_id"]) & (table["characteristic"] == row["characteristic"])
#           & (table["rate_definition"] == row["rate_definition"]) & table["n"].gt(0)].dropna(subset=["selected"])
# ll144.impact_ratio_table(a.assign(n=a["n"].astype(int), selected=a["selected"].round().astype(int)))
# ```
#
# The interval is wide at small n: it reaches up towards 1 (no disparity) and down well
# below four-fifths (a large one). That is the quantitative form of "not distinguishable from
# chance": the audit cannot tell a fair tool from a clearly unfair one at these counts.
# :::
