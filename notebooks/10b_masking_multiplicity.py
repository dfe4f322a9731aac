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
# # Beyond the paper: multiplicity, masking, adverse-impact rules and coarsened mediators
#
# **What you will learn**
#
# - how many of the 405 effects PopResume calls significant survive a correction for the
#   600 tests behind Tables 4–5 (Holm, Benjamini–Hochberg), and what that does to the
#   case counts {cite}`yu2026popresume`;
# - what an auditor who looked only at the total effect would have concluded on the same
#   audits (Case 2 masking);
# - how the four-fifths rule {cite}`uniformguidelines1978` and the impact ratios of New
#   York City's Local Law 144 {cite}`nyc2021ll144` read the same scores, and where they
#   disagree with the causal decomposition;
# - that how the mediators are split into business necessity B and redlining R is a choice
#   that moves effect between BIE and RIE but leaves TE, NDE and NIE where they are;
# - why grouping names into a few classes (Appendix C.4) makes part of a name's effect look
#   like a *direct* effect, and how large that artefact is for a screener that never sees
#   the protected attribute.
#
# The parameters cell sets the audit grid of the previous chapter (`config_file`, `sizes`,
# `n_boot_grid`, `occupations`: with the same values its results come from the cache), the
# occupation `occupation`
# and number of applicants `n` of the coarsening experiment (the first `n_embed` of them
# are also scored by the embedding screener), the size `n_ref` of the
# separate reference population that defines a name's typicality, its bootstrap draws
# `n_boot`, the shortlist share `select_top` of the four-fifths rule, and the `seed`.
# `b_columns` and `r_columns` are the business-necessity and redlining mediators of the
# B/R-partition section (defaults: the paper's, Table 2), estimated on the grid's cell
# `occupation` × `partition_format` for the protected attribute `partition_attribute`.

# %% tags=["parameters"]
config_file = "default_audit.yaml"
sizes = 400
n_boot_grid = 500
occupations = "all"
occupation = "software_developer"
n = 2000
n_embed = 1000
n_ref = 10000
n_boot = 200
select_top = 0.25
b_columns = ["edu_group", "exp_year"]
r_columns = ["fn_gender", "fn_age", "surname_group", "region"]
partition_attribute = "race"
partition_format = "text"
seed = 0

# %%
import matplotlib.pyplot as plt
import pandas as pd

from popresume.audit import coarsening as C
from popresume.audit import metrics as M
from popresume.audit.config import load_config
from popresume.audit.grid import audit_data, outcome_table, run_audit
from popresume.causal import compare_partitions, default_roles
from popresume.paths import CACHE_DIR, REPO_ROOT
from popresume.plots import audit as P

pd.set_option("display.width", 140)
pd.set_option("display.max_colwidth", 45)
published = M.published_table()
cfg = load_config(REPO_ROOT / "configs" / config_file)
cfg = cfg.replace(sizes=sizes, n_boot=n_boot_grid, seed=seed,
                  **({} if occupations == "all" else {"occupations": list(occupations)}))
ours = run_audit(cfg, n_jobs=2, progress=False)  # cached after the previous chapter
print(f"published audits: {len(published)}; our audits: {len(ours)} "
      f"({ours.attrs['estimates_from_cache']} from the cache)")

# %% [markdown]
# ## Multiplicity: 600 tests, no correction
#
# The paper calls an effect significant when its own 95% bootstrap CI excludes 0, for
# each of 120 audits × 5 effects, and builds the case counts on those 600 calls. At a 5%
# level, 600 tests of true nulls would produce about 30 "significant" effects by chance
# alone. Two standard corrections: **Holm**'s step-down procedure {cite}`holm1979simple`
# keeps the probability of *any* false call below 5% (family-wise error);
# **Benjamini–Hochberg** (BH) {cite}`benjamini1995controlling` keeps the expected *share*
# of false calls among the significant ones below 5% (false discovery rate).
#
# Both need p-values, and the paper prints CIs. We recover them with a normal
# approximation, **stated here once and used throughout**:
#
# $$\widehat{\mathrm{SE}} \approx \frac{\mathrm{ci\_high} - \mathrm{ci\_low}}{2 \cdot 1.96}, \qquad
#   z = \frac{\mathrm{estimate}}{\widehat{\mathrm{SE}}}, \qquad p = 2\,\Phi(-|z|).$$
#
# A bootstrap percentile interval need not be symmetric, so the recovered $p < 0.05$ can
# disagree with "the CI excludes 0" near the boundary; the table below counts how often.
# The family is all 600 tests (the paper reports them together); `family="attribute"`
# corrects Tables 4 and 5 separately.

# %%
summary = pd.concat([M.multiplicity_summary(published, family="all"),
                     M.multiplicity_summary(published, family="attribute")], axis=1)
summary

# %%
tests = M.adjust(M.long_tests(published))
by_effect = tests.groupby("effect", sort=False).agg(
    significant=("sig_none", "sum"),
    survive_holm=("sig_holm", lambda s: int((s & tests.loc[s.index, "sig_none"]).sum())),
    survive_bh=("sig_bh", lambda s: int((s & tests.loc[s.index, "sig_none"]).sum())))
by_effect

# %%
fig, ax = plt.subplots(figsize=(5, 3.5))
P.plot_adjusted_p(tests, ax=ax)
ax.set_title("published Tables 4-5: recovered p-values", fontsize=9)
plt.show()

# %% [markdown]
# ### Which published cases survive
#
# The cases are functions of the significance pattern, so they can be recounted under
# each correction. We use the rule the authors applied (C3 and C4 also need NIE ≠ 0;
# it reproduces all 120 printed labels, Chapter 8).

# %%
counts = M.recount_cases(published, rule="paper")
counts.insert(0, "printed", M.case_counts(published["paper_cases"]))
no_photo = published[published["format"] != "image+photo"]
c1 = M.recount_cases(no_photo, rule="paper").loc["C1"]
counts.loc["C1 of the 80 without photo"] = [M.case_counts(no_photo["paper_cases"])["C1"], *c1.to_numpy()]
counts

# %%
fig, ax = plt.subplots(figsize=(7, 3.2))
P.plot_case_counts(counts.drop(index=["C1 of the 80 without photo"]).drop(columns=["printed"]), ax=ax,
                   title="published audits per case, by significance rule")
plt.show()

# %% [markdown]
# Note the direction of C2: a correction can *create* a Case 2, because C2 needs TE ≃ 0 and
# a weak TE may lose its significance. The audits whose label changes under Holm:

# %%
rt = M.recount_table(published)
rt_paper = rt.assign(cases_none=M.cases_from_significance(M.significance(published, "none", signed_zero=True),
                                                          published, rule="paper"),
                     cases_holm=M.cases_from_significance(M.significance(published, "holm"), published,
                                                          rule="paper"),
                     cases_bh=M.cases_from_significance(M.significance(published, "bh"), published, rule="paper"))
changed = rt_paper[rt_paper["cases_none"] != rt_paper["cases_holm"]]
print(f"{len(changed)} of {len(published)} published case labels change under Holm, "
      f"{int((rt_paper['cases_none'] != rt_paper['cases_bh']).sum())} under BH")
changed[["attribute", "occupation", "format", "model", "paper_cases", "cases_holm", "cases_bh"]].head(15)

# %% [markdown]
# BH keeps almost every finding: most published effects are far from 0 relative to their
# intervals, because the samples are large. Holm, which guards against even one false
# call among 600, removes a substantial share — mostly C1 (direct) calls with modest
# $z$. A reader who wants "no false discrimination claim in the whole paper" should use the
# Holm column; one who accepts a few percent of false calls, the BH column.
#
# ### Our runs
#
# The same recount on our grid (our CIs are bootstrap percentile intervals too, so the same
# approximation applies; our SEs are also reported directly in the `*_se` columns).

# %%
M.recount_cases(ours)

# %% [markdown]
# ## Case 2 masking: what TE alone would have said
#
# An outcome audit compares groups' average scores: on our data it estimates TE. Case 2 is
# the situation in which TE ≃ 0 although the direct and indirect effects are not 0 and
# point in opposite directions. More generally, every audit whose TE is ≃ 0 while some path
# is significant is one that a TE-only auditor would have passed.

# %%
masked = M.te_alone(published)
tab = pd.Series({
    "audits": len(masked),
    "TE-only verdict: no disparity": int((masked["te_verdict"] == "no disparity").sum()),
    "…of which some path-specific effect ≠ 0 (masked)": int(masked["masked"].sum()),
    "…of which Case 2 (NDE, NIE opposite signs)": int(masked["case2"].sum()),
}, name="published")
tab_ours = pd.Series({
    "audits": len(ours),
    "TE-only verdict: no disparity": int((M.te_alone(ours)["te_verdict"] == "no disparity").sum()),
    "…of which some path-specific effect ≠ 0 (masked)": int(M.te_alone(ours)["masked"].sum()),
    "…of which Case 2 (NDE, NIE opposite signs)": int(M.te_alone(ours)["case2"].sum()),
}, name="ours")
pd.concat([tab, tab_ours], axis=1)

# %%
masked[masked["masked"]][["attribute", "occupation", "format", "model", "TE_estimate", "hidden_effects",
                          "case2"]].round(3).head(12)

# %% [markdown]
# The paper's Case 2 count (6) understates the problem for a TE-only auditor: many more
# audits have TE ≃ 0 with a significant direct or path-specific effect that does not
# cancel exactly against another one but is still invisible in the total.

# %% [markdown]
# ## Four-fifths and Local Law 144 on the same scores
#
# Outcome-level rules need the scores, not just the effects, so they can be computed only
# on our runs. Two rules:
#
# - **four-fifths** (EEOC Uniform Guidelines): a group's selection rate below 4/5 of the
#   highest group's is evidence of adverse impact. We "select" the top `select_top` share
#   of each cell's scores (a shortlist) and compare $x_0$ with $x_1$.
# - **NYC Local Law 144** bias audits of a *scoring* tool report, for each sex,
#   race/ethnicity and intersectional category, the *scoring rate* — the share of the
#   category scoring above the sample's median — and its ratio to the highest category's.
#
# Both read only the score distribution by group, i.e. they are functions of the observed
# disparity. The causal decomposition separates it into paths; where the two disagree,
# the rule either misses discrimination or flags a disparity the law may permit.

# %%
data = audit_data(cfg)  # the grid's profiles and scores (no new work after run_audit)
outcome = outcome_table(data, select_top=select_top)
cmp = M.compare_with_causal(outcome, ours)
cols = ["attribute", "occupation", "format", "model", "four_fifths_ratio", "ll144_impact_ratio",
        "four_fifths_flag", "sig_TE", "sig_NDE", "sig_BIE", "sig_RIE", "disagreement"]
cmp[cols].round(3).head(12)

# %%
kinds = cmp["disagreement"].str.split("; ").explode()
kinds = kinds[kinds != ""]
print(f"{int((cmp['disagreement'] != '').sum())} of {len(cmp)} audits: the four-fifths verdict and the causal "
      f"decomposition disagree")
kinds.value_counts().rename("audits").to_frame()

# %%
cmp2 = cmp.merge(ours[["attribute", "occupation", "format", "model", "NDE_estimate"]],
                 on=["attribute", "occupation", "format", "model"])
fig, ax = plt.subplots(figsize=(5, 3.5))
P.plot_four_fifths(cmp2, effect="NDE", ax=ax)
ax.set_title("four-fifths ratio vs estimated NDE (our grid)", fontsize=9)
plt.show()

# %% [markdown]
# The LL144 table for one cell, with the intersectional categories the law requires
# (categories under 2% of the sample are flagged and left out of the reference rate):

# %%
cell = data[(data["occupation"] == occupation) & (data["format"] == "text")]
ll = M.ll144_impact_ratios(cell)
ll.round(3)

# %%
fig, ax = plt.subplots(figsize=(6, 3.5))
P.plot_ll144(ll, ax=ax)
ax.set_title(f"LL144 impact ratios, {occupation}, text (embedding screener)", fontsize=9)
plt.show()

# %% [markdown]
# Two kinds of disagreement matter. In the "missed" rows the ratio passes but a direct or
# redlining path is significant: the rule misses discrimination the decomposition finds.
# In the "business necessity only" rows the ratio fails only because of a qualification
# path, a disparity Title VII lets an employer defend. The "flagged: no significant
# effect" rows are the ratio's own noise: with a small group (few women among construction
# laborers, for instance) a selection-rate ratio swings far from 1 while every effect's
# interval includes 0. The rule answers "is there a disparity?"; it cannot answer "through
# which path?", and on small samples it cannot even say how sure it is.

# %% [markdown]
# ## Changing the B/R partition
#
# Which mediators are business necessity (B) and which are redlining (R) is not a fact
# about the data but a normative choice; the paper takes one (Table 2) and says other
# partitions are legitimate. A state of residence, for instance, can be read as a proxy
# for race (redlining) or as a job-relevant fact (commuting, licensing). The partition
# enters only through how the indirect effect is split:
#
# - **TE** compares $x_1$ with $x_0$ with everything following, **NDE** changes $X$
#   while all mediators $W = B \cup R$ keep their $x_0$ distribution, and NIE = TE − NDE.
#   None of the three asks which part of $W$ is B: they are the same for every partition
#   of the same $W$.
# - **BIE** and **RIE** move the B part and the R part separately, so a column moved from
#   R to B takes its share of NIE with it (BIE + RIE = NIE either way).
#
# We re-estimate one cell of the grid — `occupation`, `partition_format`, attribute
# `partition_attribute`, on the scores the grid already cached — under the paper's
# partition, under the chosen one (`b_columns`, `r_columns`), and under the extreme in which
# every mediator counts as business necessity (all of $W$ in B, nothing in R). Same rows,
# folds and bootstrap seed for all; only the roles differ.

# %%
paper_roles = default_roles(partition_attribute)
all_w = paper_roles["b"] + paper_roles["r"]
partitions = {"paper": (paper_roles["b"], paper_roles["r"])}
if (list(b_columns), list(r_columns)) != partitions["paper"]:
    partitions["chosen"] = (list(b_columns), list(r_columns))
else:
    print("the chosen partition is the paper's (set b_columns / r_columns to compare another one)")
partitions["all of W in B"] = (all_w, [])
pcell = data[(data["occupation"] == occupation) & (data["format"] == partition_format)]
by_partition = compare_partitions(pcell, partition_attribute, partitions, folds=cfg.folds, n_boot=n_boot,
                                  seed=seed, tune=False)
print(f"{occupation}, {partition_format}, {partition_attribute} ({pcell['model'].iloc[0]}), n = {len(pcell)}; "
      f"same W in every row: {bool(by_partition['same_w'].all())}")
for _, row in by_partition.iterrows():
    print(f"  {row['partition']:>14}:  B = {{{row['b']}}}  R = {{{row['r']}}}")
M.format_effects(by_partition.set_index("partition"), digits=2).T

# %%
fig, ax = plt.subplots(figsize=(6.5, 3.5))
P.plot_effects(by_partition, label="partition", ax=ax,
               title=f"{occupation}, {partition_format}, {partition_attribute}: effects by B/R partition")
plt.show()

# %%
est = by_partition.set_index("partition").filter(like="_estimate").rename(columns=lambda c: c[:-9])
se = by_partition.set_index("partition").filter(like="_se").rename(columns=lambda c: c[:-3])
pd.DataFrame({"max − min across partitions": est.max() - est.min(), "SE, paper's partition": se.loc["paper"]}).round(2)

# %% [markdown]
# TE, NDE and NIE agree across the rows up to the noise of refitting the nuisance models
# with different inputs (a small fraction of their standard errors), as they must. What moves
# is the split of NIE. In the default run (software developers, text, race) the paper's
# partition attributes most of the (negative) indirect effect to redlining, through the
# name and region; when everything on the résumé counts as business necessity, the same
# indirect effect becomes a BIE — and RIE is 0, as nothing is left in R. The audit's *legal* reading
# (Case 3 "redlining" vs a defensible qualification gap) therefore depends on the
# partition, while its "is there a disparity, and is any of it direct?" answer does not.
# The propensity diagnostics (weak overlap: names nearly determine gender and, for a few
# surnames, race) are in `by_partition["warnings"]`.

# %% [markdown]
# ## Coarsened mediators: a direct effect made by grouping
#
# The paper estimates with R grouped (Appendix C.4): a first name becomes one of
# female/male/neutral and one of young/mid/old/neutral, a surname one of four race
# classes, a state its region. But a screener reads the *name*. Inside the class "male",
# some names are more male than others; that residual typicality still tracks $X$, and
# conditioning on the class does not block it. Whatever the screener does with it lands on
# the direct path. We first measure how much $X$ still varies with a name's typicality
# inside each class, on `n` applicants, with typicalities learned from a separate
# reference population of `n_ref`.

# %%
from popresume.grouping import add_groups
from popresume.population import generate_population

ref = generate_population([occupation], {occupation: n_ref}, seed=seed + 7919)
shares = C.name_shares(ref)
prof = C.add_name_shares(add_groups(generate_population([occupation], {occupation: n}, seed=seed)), shares)
pd.concat({"gender": C.within_group_signal(prof, "gender"), "race": C.within_group_signal(prof, "race")})

# %% [markdown]
# ### A screener whose true NDE is 0
#
# `NameLevelScreener` reads only `first_name`, `surname`, `state`, `edu_level` and
# `exp_year`. Its name effects are finer than the groups: it rewards a name's male- and
# White-typicality smoothly and adds a fixed idiosyncratic effect per first name. Since it
# never reads gender or race, its true NDE is exactly 0 for both. We estimate the effects
# twice on the same scores: with the paper's grouped R ("coarse"), and with the name groups
# replaced by the continuous typicalities ("fine"; age-typicality and region unchanged).
# Finer mediators cost overlap — a name's typicality nearly determines gender — so the
# fine estimates clip more propensities (`n_clipped`) and are noisier.

# %%
scr = C.NameLevelScreener(shares, seed=seed)
prof["score"] = scr.score_profiles(prof)
est_opts = {"tune": False}
rows = [C.coarsening_artefact(prof, a, n_boot=n_boot, seed=seed, estimator=est_opts,
                              label="name-level (synthetic)", true_nde=0.0) for a in ("gender", "race")]

# %% [markdown]
# ### Our real screener
#
# The embedding screener reads the résumé text. The text is a function of the profile's
# other fields only — flipping gender and race leaves every résumé unchanged — so its true
# NDE against the ungrouped mediators is 0 as well.

# %%
from popresume.resumes import render_texts
from popresume.screeners import score_resumes

print(f"résumés unchanged when gender and race are flipped: {C.text_invariance(prof.head(300), seed=seed):.0%}")
sub = prof.head(n_embed)
texts = render_texts(sub, seed=seed)
emb = score_resumes("embedding", texts, cache=CACHE_DIR / "audit" / "scores" / "scores.sqlite")
prof_e = sub.drop(columns=["score"]).merge(emb[["resume_id", "score"]], on="resume_id")
rows += [C.coarsening_artefact(prof_e, a, n_boot=n_boot, seed=seed, estimator=est_opts,
                               label="all-MiniLM-L6-v2 (embedding)", true_nde=0.0) for a in ("gender", "race")]
coarse = pd.concat(rows, ignore_index=True)
coarse[["screener", "attribute", "mediators", "TE_estimate", "NDE_estimate", "NDE_ci_low", "NDE_ci_high",
        "RIE_estimate"]].round(3)

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 3.5))
for ax, attr in zip(axes, ("gender", "race")):
    P.plot_coarsening(coarse[coarse["attribute"] == attr], ax=ax)
    ax.set_title(f"{attr}: NDE with grouped vs refined R (true NDE = 0)", fontsize=9)
fig.tight_layout()
plt.show()

# %% [markdown]
# The size of the artefact: `gap` is NDE(coarse) − NDE(fine), and `gap / RIE fine` the
# share of the name (redlining) path that the grouping moves onto the direct path.

# %%
art = C.artefact_summary(coarse)
art.round(3)

# %% [markdown]
# For the synthetic screener, whose true NDE is 0, the refined NDEs sit near 0 while the
# grouped ones are pulled in the direction of the name effect: a sizeable share of the
# name path (`gap / RIE fine`) is reported as a *direct* effect. It is a bias, not noise —
# it does not shrink with $n$ while the intervals do — so at the paper's sizes (5,910–17,632
# per occupation) an artefact of this size would be called "direct discrimination" (C1)
# for a screener that never reads gender or race. Some of the paper's C1 findings may be
# this artefact rather than a model "inferring protected attributes".
#
# For the embedding screener the picture is less clean: at `n_embed` applicants its
# intervals are several points wide, its name effects are idiosyncratic (a token's
# embedding, not a name's gender-typicality), and refining R by typicality captures only
# part of them; where `RIE fine` is near 0 the ratio column is meaningless. What the run
# does show is that its grouped NDE is not reliably 0 although the text carries no gender
# or race at all — so a grouped NDE is not evidence that a text model uses X.

# %% [markdown]
# ## Exercises
#
# :::{exercise}
# :label: ex-10-bigger-n
#
# Re-execute the chapter with a larger coarsening sample:
#
# ```bash
# popresume book run notebooks/10_beyond_the_paper.py -p n 6000
# ```
#
# Does the coarse NDE of the synthetic screener move towards 0, or do only its intervals
# shrink?
# :::
#
# :::{solution} ex-10-bigger-n
# :class: dropdown
#
# The intervals shrink by about $1/\sqrt{3}$ while the coarse point estimates stay near the
# same values: the artefact is a bias of the grouped estimand, not sampling noise. With the
# narrower intervals the coarse NDE tends to exclude 0 — a "Case 1" for a screener that
# never reads gender or race — while the fine NDE stays consistent with 0.
# :::
#
# :::{exercise}
# :label: ex-10-partition
#
# Treat the state of residence as business necessity: move `region` from R to B and
# re-execute the chapter.
#
# ```bash
# popresume book run notebooks/10_beyond_the_paper.py \
#     -p b_columns '["edu_group", "exp_year", "region"]' \
#     -p r_columns '["fn_gender", "fn_age", "surname_group"]'
# ```
#
# Which effects in the section on the B/R partition change, which do not, and why? What
# would an employer gain, in the Case 3 ("redlining") reading, from this partition?
# :::
#
# :::{solution} ex-10-partition
# :class: dropdown
#
# TE, NDE and NIE stay where they were (up to a few hundredths of a point of nuisance-refit
# noise): they compare $x_1$ with $x_0$ with the whole of $W$ either moving or held at its
# $x_0$ distribution, and $W$ is the same set of columns. Only BIE and RIE move, and by
# opposite amounts, since BIE + RIE = NIE in both partitions: the part of the indirect
# effect that runs through region (and through what region changes downstream) is now
# counted as business necessity. For software developers (text, race) BIE moves from about
# −1.2 to −2.4 and RIE from about −4.1 to −2.9 points: RIE shrinks towards 0, though at the
# book's sample size its interval still (just) excludes 0. An employer who argues that
# location is job-relevant turns that share of a redlining finding into a disparity it can
# defend; whether the argument holds is a legal and normative question the estimator
# cannot answer, which is why the partition must be stated with every audit.
# :::
#
# :::{exercise}
# :label: ex-10-family
#
# Recount the published cases with Holm applied separately within each audit
# (`M.recount_cases(published, family="audit", rule="paper")`). Why is the result so
# different from the `family="all"` column, and which family answers the question "can
# I trust the paper's headline counts"?
# :::
#
# :::{solution} ex-10-family
# :class: dropdown
#
# Within one audit the family has only 5 tests, so Holm's threshold for the smallest
# p-value is 0.01 instead of 0.05/600; almost every finding survives. The headline counts
# ("49 of 80 in Case 1", "53 of 120 in Case 5") are statements about all 600 tests at once,
# so only the family of all tests (or at least each table) controls the chance that some
# of those counted findings are false.
# :::
#
# :::{exercise}
# :label: ex-10-shortlist
#
# Re-execute with a tighter shortlist, `-p select_top 0.1`. How do the four-fifths ratios
# and the number of disagreements change?
# :::
#
# :::{solution} ex-10-shortlist
# :class: dropdown
#
# Selection rates in the tail are more sensitive to small shifts of the score
# distribution, so the ratios spread further from 1 and more cells fall below 0.8. The
# causal verdicts do not change (they do not depend on a cut-off), so the disagreements
# move from "missed" rows to "flagged" rows: the four-fifths verdict depends on an
# arbitrary threshold, the decomposition does not.
# :::
