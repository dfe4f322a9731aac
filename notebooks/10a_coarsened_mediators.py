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
# # Coarsened mediators and weak overlap: a direct effect made by the estimator's inputs
#
# **What you will learn**
#
# - why grouping names into a few classes (Appendix C.4 of {cite}`yu2026popresume`) makes
#   part of a name's effect look like a *direct* effect, and how large that artefact is for
#   a screener that never sees the protected attribute;
# - that a "direct discrimination" (Case 1) label on a text audit of our embedding
#   screener, such as the paper-size run's teachers by gender in Chapter 9, is this
#   artefact plus weak overlap, shown with refined name variables and at a larger $n$;
# - what weak overlap is (the first name nearly determines gender), what it does to NDE and
#   NIE, and what a variant that restores overlap costs.
#
# The parameters cell sets the audit grid of Chapter 9 (`config_file`, `sizes`,
# `n_boot_grid`, `occupations`: with the same values its results come from the cache), the
# occupation `occupation` and number of applicants `n` of the coarsening experiment (the
# first `n_embed` of them are also scored by the embedding screener), the size `n_ref` of
# the separate reference population that defines a name's typicality, the bootstrap draws
# `n_boot` of this chapter's estimates, `variance`, the estimator's interval (the default "jackknife", or the paper's "influence", ten times cheaper),
# and the `seed`.

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
variance = "jackknife"
seed = 0

# %%
import matplotlib.pyplot as plt
import pandas as pd

from popresume.audit import coarsening
from popresume.audit import summaries
from popresume.audit import variants as audit_variants
from popresume.audit.chapters import grid_chapter
from popresume.book import chapter_setup
from popresume.audit.grid import read_results
from popresume.audit.scoring import score_texts
from popresume.causal import default_roles
from popresume.grouping import add_groups
from popresume.paths import data_path
from popresume.plots import audit as audit_plots
from popresume.tables import labelled
from popresume.population import generate_population
from popresume.schema import NOT_CARDED_NO_CARD, OCCUPATION_LABELS, VERDICT_COLUMN
from popresume.screeners.validity import attach_validity, card_for

chapter_setup()
est_opts = {"tune": False, "variance": variance}

# %% [markdown]
# ## Why grouping leaves information on the direct path
#
# The paper estimates with R grouped (Appendix C.4): a first name becomes one of
# female/male/neutral and one of young/mid/old/neutral, a surname one of four race
# classes, a state its region. But a screener reads the *name*. Inside the class "male",
# some names are more male than others; inside the surname class "White", some surnames are
# more often borne by White applicants than others. That residual typicality still tracks
# $X$, and conditioning on the class does not block it: whatever the screener does with it
# lands on the direct path. We first measure how much $X$ still varies with a name's
# typicality inside each class, on `n` applicants, with typicalities learned from a
# separate reference population of `n_ref`: gender within the first-name gender classes,
# race within the surname classes (the grouping that carries race).

# %%
ref = generate_population([occupation], {occupation: n_ref}, seed=seed + 7919)
shares = coarsening.name_shares(ref)
prof = coarsening.add_name_shares(add_groups(generate_population([occupation], {occupation: n}, seed=seed)), shares)
signal = pd.concat({"gender": coarsening.within_group_signal(prof, "gender"), "race": coarsening.within_group_signal(prof, "race")},
                   names=["attribute", "row"])
labelled(signal, f"ours: {n} simulated {OCCUPATION_LABELS[occupation]}, typicalities from {n_ref} others")

# %% [markdown]
# ### A screener whose true NDE is 0
#
# `NameLevelScreener` (synthetic) reads only `first_name`, `surname`, `state`, `edu_level`
# and `exp_year`. Its name effects are finer than the groups: it rewards a name's male-
# and White-typicality smoothly and adds a fixed idiosyncratic effect per first name.
# Since it never reads gender or race, its true NDE is exactly 0 for both. We estimate the
# effects twice on the same scores: with the paper's grouped R ("coarse"), and with the
# name groups replaced by the continuous typicalities ("fine"; age-typicality and region
# unchanged). Finer mediators cost overlap — a name's typicality nearly determines gender
# — so the table below counts, in "clipped (n)", the propensities clipped over the three
# propensity models for each variant, and the line under it says whether the refined
# variables clip more or fewer of them than the grouped ones.

# %%
scr = coarsening.NameLevelScreener(shares, seed=seed)
prof["score"] = scr.score_profiles(prof)
rows = [coarsening.coarsening_artefact(prof, a, n_boot=n_boot, seed=seed, estimator=est_opts,
                              label="name-level (synthetic)", true_nde=0.0) for a in ("gender", "race")]

# %% [markdown]
# ### Our real screener
#
# The embedding screener reads the résumé text. The text is a function of the profile's
# other fields only — flipping gender and race leaves every résumé unchanged — so its true
# NDE against the ungrouped mediators is 0 as well. It fails the validity gate on
# Chapter 5's card (it does not reliably rise with qualifications there) and passes it on
# Chapter 9's larger card, printed with the grid below; neither matters for this chapter's question: what the
# estimator makes of a screener whose true NDE is 0, not whether the screener judges
# résumés well. The name-level screener above is synthetic: a known-truth device, not a
# screener under audit.

# %%
print(f"résumés unchanged when gender and race are flipped: {coarsening.text_invariance(prof.head(300), seed=seed):.0%}")
prof_e = score_texts(prof.head(n_embed), "embedding", seed=seed)
rows += [coarsening.coarsening_artefact(prof_e, a, n_boot=n_boot, seed=seed, estimator=est_opts,
                               label="all-MiniLM-L6-v2 (embedding)", true_nde=0.0) for a in ("gender", "race")]
coarse = pd.concat(rows, ignore_index=True)
# each row carries its screener's verdict: the embedding screener's card (Chapter 9's, n = 40);
# the name-level screener is a known-truth device that no card was run for
embedding_verdict = card_for("embedding", n=40, seed=seed)["verdict"]
coarse["validity_verdict"] = coarse["screener"].map({"all-MiniLM-L6-v2 (embedding)": embedding_verdict}
                                                    ).fillna(NOT_CARDED_NO_CARD)
view = coarse[["screener", "attribute", "mediators", "n", "n_clipped"]].copy()
labelled(pd.concat([view, summaries.effects_view(coarse, keys=[], effects=["TE", "NDE", "RIE"])], axis=1),
         f"ours: {n} simulated {OCCUPATION_LABELS[occupation]} (embedding screener: the first {n_embed}), each "
         "screener's verdict in its row")

# %%
clipped = coarse.pivot_table(index=["screener", "attribute"], columns="mediators", values="n_clipped")
print("propensities clipped, grouped → refined R: " + "; ".join(
    f"{s}, {a}: {r['coarse']:,.0f} → {r['fine']:,.0f} ({'more' if r['fine'] > r['coarse'] else 'fewer'})"
    for (s, a), r in clipped.iterrows()))

# %% mystnb={"figure": {"caption": "Ours: NDE with the grouped and the refined name variables, for the name-level synthetic screener and the embedding screener (verdicts in the table above); the true NDE is 0 for both."}}
fig = audit_plots.coarsening_figure(coarse, effect="NDE", source="ours", attributes=("gender", "race"))
plt.show()

# %% [markdown]
# The size of the artefact: `gap` is NDE(coarse) − NDE(fine), and `gap / RIE fine` the
# share of the name (redlining) path that the grouping moves onto the direct path.

# %%
art = coarsening.artefact_summary(coarse)
art.insert(1, VERDICT_COLUMN, art["screener"].map({"all-MiniLM-L6-v2 (embedding)": embedding_verdict}
                                                  ).fillna(NOT_CARDED_NO_CARD))
labelled(art, "ours: from the estimates of the table above", precision=3)

# %% [markdown]
# For the synthetic screener, whose true NDE is 0, the grouped gender NDE is pulled in
# the direction of the name effect, and refining the name variables removes part of it
# (`gap / RIE fine`). What is left comes from the screener's idiosyncratic per-name
# effect, which no typicality captures: only the name itself would. For race, the
# surname classes of this population lose little and the gap is small. The artefact is a
# bias, not noise — it does not shrink with $n$ while the intervals do — so at the paper's
# sizes (5,910–17,632 per occupation) an artefact of this size would be called "direct
# discrimination" (C1) for a screener that never reads gender or race. Some of the paper's
# C1 findings may be this artefact rather than a model "inferring protected attributes".
#
# For the embedding screener the picture is less clean: at `n_embed` applicants its
# intervals are several points wide, its name effects are idiosyncratic (a token's
# embedding, not a name's gender-typicality), and refining R by typicality captures only
# part of them; where `RIE fine` is near 0 the ratio column is meaningless. At this size
# its NDE intervals, grouped or refined, are wide enough to cover 0, so this sample cannot
# say whether its grouped NDE departs from 0; the table shows which way refining moved each
# NDE, and the section below estimates the same screener on Chapter 9's grid and at the
# paper's size, where the grouped NDE does depart from 0 in one cell although the text
# carries no gender or race at all: a grouped NDE is not evidence that a text model uses X.

# %% [markdown]
# ## Chapter 9's software developers / text / race audit
#
# Chapter 9's grid holds a text audit of the embedding screener for software developers by
# race, a cell whose grouped NDE is several points wide. Below, that audit cell (the grid's
# own applicants and cached scores) is estimated with the grouped and with the refined name
# variables, next to the coarsening sample's `n_embed` applicants and the paper-size run of
# Chapter 9 (13,370 software developers, grouped R). Every row is ours and produced by the
# embedding screener.

# %%
chapter9 = grid_chapter(config_file, sizes=sizes, n_boot=n_boot_grid, seed=seed, occupations=occupations,
                        data=True)  # results cached after Chapter 9; its profiles and scores (no new work)
cfg, grid, data = chapter9.config, chapter9.results, chapter9.data
emb_label = next(s.label for s in cfg.screeners if not s.synthetic)
variants = (coarsening.grid_cell_variants(data, shares, occupation=occupation, model=emb_label, attribute="race",
                                 prefix="Chapter 9 grid cell") if occupation in cfg.occupations else {})
sw = audit_variants.estimate_variants(variants, folds=cfg.folds, n_boot=n_boot, seed=seed, **est_opts) if variants else None
# the coarsening sample's two estimates were made above (same scores, roles and seed)
sample = coarsening.label_mediators(coarse[(coarse["screener"] == "all-MiniLM-L6-v2 (embedding)")
                                  & (coarse["attribute"] == "race")], "coarsening sample", n=len(prof_e))
full = read_results(data_path("results", "audit_paper_text_embedding.csv"))
# the paper-size run's cells re-estimated with grouped and refined R (data/README.md says how)
refined = pd.read_csv(data_path("results", "audit_paper_text_refined_names.csv"))
paper = coarsening.refined_rows(refined, occupation, "race", required=False)
if paper.empty:  # the paper-size run was made for software developers only
    print(f"the paper-size run has no {occupation} / race cell; its rows are left out")
both = pd.concat([sw, sample, paper], ignore_index=True)
labelled(summaries.effects_view(both.assign(validity_verdict=embedding_verdict), keys=["variant"],
                                source="ours (paper-size rows: paper rule)", effects=["NDE", "RIE", "TE"]),
         "ours: embedding screener (all-MiniLM-L6-v2); paper-size rows from Chapter 9's stored run")

# %% [markdown]
# The paper-size rows come from the stored run of Chapter 9, which predates the estimable
# rule: their intervals are the paper rule's, printed whatever the overlap, and the last two
# columns say how far each rests on extrapolation. The small samples' rows are estimated
# here, under the rule.
#
# Read the rows in pairs. In the two small samples, refining the name variables moves the
# NDE towards 0 (what the grouping had put on the direct path returns to the name path).
# The grouped NDE of the small samples is several points wide, changes sign from one
# sample of the same population to the next, and rests on weak overlap (`min ESS`,
# `clipped share`); at the paper's size (13,370 software developers) both intervals are
# about 1.5 points wide and cover 0, and the move from grouped to refined is within that
# noise. A "significant" NDE of this screener on a few hundred applicants is
# therefore the coarsened-mediator artefact plus weak overlap and noise, **not** evidence
# that the embedding screener discriminates directly; it cannot, since it reads no gender
# or race.
#
# Every row of Chapter 9's grid and of its paper-size run carries its screener's validity
# verdict (the cards Chapter 9 computed):

# %%
cards = {s.name: card_for(s.spec, n=40, seed=seed) for s in cfg.screeners}  # Chapter 9's cards (n = 40)
grid = attach_validity(grid.drop(columns="validity_verdict", errors="ignore"), cards)
emb_name = next(s.name for s in cfg.screeners if not s.synthetic)
full = attach_validity(full.drop(columns="validity_verdict", errors="ignore"),
                      {m: cards[emb_name] for m in full["screener"].unique()})
print("validity gate of our screeners:", "; ".join(f"{s.label}: {cards[s.name]['verdict']}" for s in cfg.screeners))

# %% [markdown]
# ## Chapter 9's paper-size C1: teachers by gender
#
# On the current population, the paper-size run of Chapter 9 has one C1 of its own:
# teachers by gender. A larger sample does not remove the artefact, it only narrows the
# interval around it. The same 16,188 scores, estimated with the grouped and with the
# refined name variables (the first name's gender class replaced by how male the name is,
# learned from 20,000 other simulated teachers):

# %%
labelled(summaries.effects_view(coarsening.refined_rows(refined, "teacher", "gender").assign(
    validity_verdict=embedding_verdict), keys=["variant"], source="ours, paper rule", effects=["NDE", "RIE", "TE"]),
    "ours: embedding screener (all-MiniLM-L6-v2), Chapter 9's 16,188 teachers' scores, stored run")

# %% [markdown]
# With the grouped classes the embedding screener seems to favour men directly, by about
# two points; with the refined ones the NDE falls to about a quarter of that and its
# interval covers 0, while the RIE (the path through the name) absorbs what moved and the
# TE is the same number, as it must be, since it does not depend on R. Refining also
# restores some overlap: the smallest ESS triples and the clipped share falls from about
# three quarters to half. The grouped C1 was the name's gender typicality within its
# class, put on the direct path.

# %% [markdown]
# ## Weak overlap: what it does to NDE and NIE
#
# The estimator weighs each applicant by ratios of propensities such as $p(x \mid R, Z)$,
# the probability of being a man given the mediators R and the confounders Z. A first
# name's gender class nearly determines gender: among the coarsening sample's applicants,

# %%
labelled(pd.crosstab(prof["fn_gender"], prof["gender"], margins=True, margins_name="all")
         .rename_axis(index="first-name class", columns="gender"),
         f"ours: the coarsening sample ({n} simulated {OCCUPATION_LABELS[occupation]})")

# %% [markdown]
# so $p(\text{male} \mid R, Z)$ is near 0 for almost every woman and near 1 for almost
# every man. The estimator clips propensities to `[0.01, 0.99]` (its `clip` option), and the weights of the
# crossed counterfactuals ("a woman's mediators with a man's direct path") rest on the few
# applicants whose name class does not match their gender. Three consequences:
#
# - the **effective sample size** (ESS, Kish's $(\sum w)^2 / \sum w^2$) of those weights is
#   tiny, so the intervals are wide and the bootstrap approximation behind them fragile;
# - the **NDE and NIE** compare groups whose mediators barely overlap, so they are
#   carried by the outcome models' extrapolation from one group to the other (the doubly
#   robust correction has almost nobody to correct with);
# - the **TE** needs only $p(x \mid Z)$, which overlaps well, and stays reliable.
#
# We infer that the same holds for the paper's gender estimates, because the paper groups
# first names with the same thresholds; the paper reports no overlap diagnostics, so this
# is an inference from its design, not a number it printed. Our audits' overlap, by
# attribute and occupation:

# %%
ov = pd.concat([grid[["attribute", "occupation"]], summaries.overlap_columns(grid)], axis=1)
ov = ov.drop_duplicates(["attribute", "occupation"]).sort_values(["attribute", "occupation"])
labelled(ov.set_index(["attribute", "occupation"]).rename(columns={"min_ess": "min ESS",
                                                                   "clipped_share": "clipped share"}),
         f"ours: Chapter 9's grid, {sizes} applicants per occupation (propensities, hence overlap, are the "
         f"same for every screener and format)")

# %% [markdown]
# and at the paper's sizes, the shipped text run of Chapter 9 (embedding screener):

# %%
labelled(summaries.effects_view(full, source="ours", keys=["attribute", "occupation", "n"], effects=["NDE", "NIE"]),
         "ours: embedding screener (all-MiniLM-L6-v2), Chapter 9's paper-size text run")

# %% [markdown]
# On nurses about 85% of the $p(x \mid R, Z)$ propensities are clipped and the smallest ESS
# is about 35 of 17,632 applicants: the gender NDE and NIE there lean almost entirely on
# extrapolation, whatever the sample size. Race overlaps far better (a surname class does
# not determine race the way a first-name class determines gender).
#
# ### Restoring overlap, and what it costs
#
# Two standard remedies:
#
# 1. **A coarser R.** Leave the first name's gender class out of R. Then $p(x \mid R, Z)$
#    no longer sees the name's gender, and overlap returns. The cost is the estimand: the
#    name's gender signal is no longer a mediator, so whatever a screener does with it is
#    counted in the NDE, which now means "the effect of gender, including through the first
#    name's gender signal, not through the other mediators".
# 2. **Trimming.** Keep only applicants in the region of overlap — here, those with a
#    gender-neutral first name — and state the new estimand: the effects *among applicants
#    with gender-neutral first names*. The cost is the rows: the table above shows how few
#    such applicants there are (and how few women among them), too few to estimate five
#    effects in this sample; trimming trades an extrapolated answer for all applicants for
#    an honest answer about a small, unrepresentative group.
#
# We estimate the first remedy on the name-level synthetic screener, whose truth is known
# (NDE = 0 against the ungrouped names; its name effect is all "name path").

# %%
paper_roles = default_roles("gender")
coarser = {**paper_roles, "r": [c for c in paper_roles["r"] if c != "fn_gender"]}
coarser_fit = audit_variants.estimate_variants({
    "coarser R (first-name gender class left out)": (prof, coarser,
                                                     "all applicants; the name's gender signal counts as direct"),
}, folds=5, n_boot=n_boot, seed=seed, **est_opts)
# the paper's R on the same scores was estimated in the first section (same roles and seed)
paper_fit = coarse[(coarse["screener"] == "name-level (synthetic)") & (coarse["attribute"] == "gender")
                   & (coarse["mediators"] == "coarse")]
paper_fit = paper_fit.assign(variant="paper's R (first-name gender class in R)", estimand="all applicants")
restore = pd.concat([paper_fit, coarser_fit], ignore_index=True)
view = summaries.effects_view(restore, keys=["variant", "estimand"], source="ours", effects=["TE", "NDE", "NIE", "RIE"])
view.insert(2, "screener", "name-level (synthetic, true NDE = 0)")
labelled(view, f"ours: name-level synthetic screener, {n} simulated {OCCUPATION_LABELS[occupation]}")

# %% [markdown]
# With the coarser R the clipped share falls and the ESS rises: the intervals are now
# backed by data rather than extrapolation. But the NDE absorbs the name's gender path: for
# a screener that never reads gender, the coarser-R NDE reports the name effect as a
# "direct" effect. Overlap was bought with the decomposition the audit was for. Neither
# variant is free, which is why every audit table of this book carries `min ESS` and
# `clipped share` next to its effects: a reader can then tell an effect estimated from the
# data from one extrapolated by the outcome models.

# %% [markdown]
# ## Exercises
#
# :::{exercise}
# :label: ex-10a-bigger-n
#
# Re-execute the chapter with a larger coarsening sample:
#
# ```bash
# popresume book run notebooks/10a_coarsened_mediators.py -p n 6000
# ```
#
# Does the coarse NDE of the synthetic screener move towards 0, or do only its intervals
# shrink?
# :::
#
# :::{solution} ex-10a-bigger-n
# :class: dropdown
#
# The intervals shrink by about $1/\sqrt{3}$ while the coarse point estimates stay near the
# same values: the artefact is a bias of the grouped estimand, not sampling noise. With the
# narrower intervals the coarse NDE tends to exclude 0 — a "Case 1" for a screener that
# never reads gender or race. The fine NDE is smaller but not 0 either: it keeps the
# screener's idiosyncratic per-name effect, which no typicality captures, so its interval
# can exclude 0 too (for gender it may already do so at the default `n`); only the gap
# between the two is what refining removes. The overlap of
# the gender estimates does not improve with $n$: the share of clipped propensities is a
# property of the names, not of the sample size.
# :::
#
# :::{exercise}
# :label: ex-10a-trim
#
# Estimate the trimmed variant on a larger sample: generate 20,000 nurses, keep those with
# `fn_gender == "neutral"` (`popresume.audit.variants.neutral_name_subset`), score them
# with the name-level screener and run `estimate_pse` with the paper's gender roles. How
# many applicants and how many men are left, and what does the ESS say?
# :::
#
# :::{solution} ex-10a-trim
# :class: dropdown
#
# About 2–3% of nurses have a gender-neutral first name and about one in ten of those is a
# man, so some fifty men remain: the estimator warns about the small group, the ESS of the
# weights is in the tens, and the intervals are several points wide. Overlap inside the
# trimmed group is good (the clipped share is near 0), but the estimand — the effects among
# nurses with gender-neutral first names — describes a small and unusual group, not the
# applicant pool.
# :::
