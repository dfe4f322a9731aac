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
# # From profiles to résumés: text, image and image with photo
#
# **What you will learn**
#
# - how PopResume turns each structured profile $(X, Z, B, R)$ into a résumé with fixed
#   rules, so that a screener's score can only move with the profile {cite}`yu2026popresume`
#   (§4.2, Appendix B.1);
# - the rules themselves: education entries from `edu_level`, work roles from `exp_year`,
#   the header built from the name and state, and where randomness enters (and where it may not);
# - what the three formats look like (the book's version of the paper's Figure 8), and what
#   the photo in the third format is **in this book**: a grey placeholder, not a face;
# - how to check the rendered corpus: length in tokens, roles against `exp_year`, education
#   entries against `edu_level`, and how rarely two résumés share all their bullets.
#
# The parameters cell sets the `seed` of the résumé draws (and of the population), the
# fraction `corpus_fraction` of the paper's 60,884 profiles used for the corpus statistics,
# the image `width` in pixels, the number of parallel image workers `n_jobs`, and `skills`,
# whether the optional SKILLS section is shown (off in the paper's main setup).

# %% tags=["parameters"]
seed = 0
corpus_fraction = 0.25
width = 1024
n_jobs = 2
skills = False

# %%
import matplotlib.pyplot as plt
import pandas as pd

from popresume.jobs import job_description
from popresume.paths import cache_path
from popresume.plots.resumes import (
    plot_education_entries, plot_resume_image, plot_roles_vs_exp, plot_token_lengths,
)
from popresume.population import generate_population
from popresume.resumes import build_resumes, render_images, render_text, render_texts
from popresume.resumes.photo import PlaceholderFaceSource
from popresume.resumes.stats import bullet_variety, resume_stats
from popresume.schema import DEFAULT_SIZES, OCCUPATION_LABELS

# %% [markdown]
# ## A résumé is a function of the profile and a seed
#
# The population chapter produced one row per applicant. We take a small population
# (a `corpus_fraction` of Table 3's sizes per occupation) and render a single row.

# %%
sizes = {k: max(50, round(v * corpus_fraction)) for k, v in DEFAULT_SIZES.items()}
profiles = generate_population(sizes=sizes, seed=seed)
example = profiles[(profiles["occupation"] == "accountant") & profiles["exp_year"].between(4, 8)].iloc[0]
example.to_frame("value")

# %%
print(render_text(example.to_dict(), seed=seed, skills=skills))

# %% [markdown]
# Every choice in that text is drawn from a random generator seeded by the pair
# (`seed`, `resume_id`) and nothing else: the school, major, employers, titles, bullets,
# the role durations and the digits of the phone number. The draws happen in an order
# fixed by `edu_level` and `exp_year`. The name, gender and race never touch the
# generator. So the paper's guarantee, "any differences in model outputs can be attributed
# to $(X, Z, B, R)$", holds by construction, and we can check it: change the gender and the
# first name of the same row and compare line by line.

# %%
twin = example.to_dict() | {"gender": "M" if example["gender"] == "F" else "F", "first_name": "Jordan"}
a = render_text(example.to_dict(), seed=seed).splitlines()
b = render_text(twin, seed=seed).splitlines()
pd.DataFrame([(i, x, y) for i, (x, y) in enumerate(zip(a, b)) if x != y],
             columns=["line", "original", "gender and first name changed"])

# %% [markdown]
# Only the name and the e-mail differ. The content pools (in `data/content/*.yaml`) are
# checked when they load: besides their structure, no string that can reach a résumé may
# contain a pronoun, a gendered noun or a race word; a file that breaks this fails with its
# name and the offending key.
#
# ## The instantiation rules (Appendix B.1)
#
# | part | rule |
# |---|---|
# | education | high school, some college, Associate's, Bachelor's: one entry; Master's, Professional, Doctorate: a Bachelor's entry, then the higher degree |
# | graduation year | typical age for the degree (18 … 27) plus 0–2 years, moved earlier so school ends before the first job, never below a minimum age; a profile too young for its degree is rejected |
# | "Some college (no degree)" | the paper leaves it open; here one entry "College coursework (no degree)" at a community or technical college |
# | roles | 1 below 3 years of experience, 2 for 3–5, 3 for 6–10, 4 past 10 |
# | periods | sequential, ending at the reference date 2023.12 and spanning exactly `exp_year` years (six months when `exp_year` = 0) |
# | seniority | by order: junior, mid, senior, senior |
# | header | name, state as a USPS code, a fictional +1-NXX-555-01XX number, `first.last@example.com` |
# | sections | header, SKILLS (optional), WORK HISTORY, EDUCATION, in the paper's order |
#
# The screener reads the résumé next to a job posting; the posting for each occupation is
# part of the same content files:

# %%
print(job_description("accountant"))

# %% [markdown]
# ## The three formats (Figure 8)
#
# One example per occupation, each in the three formats. The image is a one-page US-letter
# page, `width` pixels wide, drawn with Pillow and the DejaVu fonts that ship with
# matplotlib. With a photo, a portrait sits in the top-right box; everything else on the
# page is pixel-identical to the photo-less image.
#
# ```{important}
# **The photo in this book is not a face.** The paper generated portraits with Face-MoGLE
# (Zou et al., 2025) from the prompt "a professional headshot portrait photo of a *age* year
# old *race* *gender*, white background, formal attire, front-facing". No such generator,
# and no licensed set of faces, can run or be shipped here, so the default face source is
# `PlaceholderFaceSource`: a grey silhouette labelled "PHOTO PLACEHOLDER", identical for
# every applicant. It carries **no demographic signal**, so the image+photo results in this
# book test the layout, not a screener's reaction to faces. To audit with real portraits,
# pass `FolderFaceSource(path)` (your photos, labelled `ROOT/<gender>/<race>/<age band>/`)
# or `CallableFaceSource(generator)` (a generator called with the paper's prompt).
# ```

# %%
print("default face source carries demographics:", PlaceholderFaceSource.carries_demographics)
examples = (profiles[profiles["exp_year"].between(3, 8)]
            .groupby("occupation", sort=False).head(1).set_index("occupation"))
out_dir = cache_path("resumes", "figure8", "x").parent
plain = render_images(examples.reset_index(), out_dir / "image", seed=seed, width=width, n_jobs=1,
                      skills=skills)
photo = render_images(examples.reset_index(), out_dir / "image+photo", seed=seed, width=width,
                      n_jobs=1, photo=True, skills=skills)

# %%
for occ in examples.index:
    print(f"===== {OCCUPATION_LABELS[occ]}: text format =====")
    print(render_text(examples.loc[occ].to_dict() | {"occupation": occ}, seed=seed, skills=skills))
    print()

# %%
for i, occ in enumerate(examples.index):
    fig, axes = plt.subplots(1, 2, figsize=(10, 6.6))
    plot_resume_image(plain["image_path"].iloc[i], ax=axes[0], title=f"{OCCUPATION_LABELS[occ]}: image")
    plot_resume_image(photo["image_path"].iloc[i], ax=axes[1],
                      title=f"{OCCUPATION_LABELS[occ]}: image + photo (placeholder)")
    fig.tight_layout()
    plt.show()

# %% [markdown]
# ## Statistics of the rendered corpus
#
# We render every profile of the population as text and tabulate the structure of each
# résumé. Length is counted in tokens as words and punctuation marks (subword tokenizers of
# LLMs give somewhat more).

# %%
texts = render_texts(profiles, seed=seed, skills=skills)
resumes = build_resumes(profiles, seed=seed)
stats = resume_stats(resumes, profiles, skills=skills)
stats.groupby("occupation", sort=False)["n_tokens"].describe()[["count", "mean", "min", "50%", "max"]].round(1)

# %%
fig, axes = plt.subplots(1, 3, figsize=(16, 4.2))
plot_token_lengths(stats, ax=axes[0])
plot_roles_vs_exp(stats, ax=axes[1])
plot_education_entries(stats, ax=axes[2])
fig.tight_layout()
plt.show()

# %% [markdown]
# The middle panel is the piecewise rule, visible as steps at 3, 6 and 11 years; the right
# panel shows one entry for the four lower levels and two for the advanced degrees. Length
# grows with experience (more roles, three bullets each) and with the advanced degrees, so
# length itself is a function of $B$, as it should be: a screener that rewards longer
# résumés rewards experience and education.
#
# Finally, variety. Two résumés that shared every bullet would make the corpus look
# templated; the table gives, per occupation, the share of résumés whose complete bullet set
# also appears in another résumé, and the probability that two random résumés of the
# occupation share all bullets.

# %%
bullet_variety(resumes)

# %% [markdown]
# ## Exercises
#
# :::{exercise}
# :label: ex-04-skills
#
# The paper's main setup removes the SKILLS section. Re-execute this chapter with it:
#
# ```bash
# popresume book run notebooks/04_resumes.py -p skills True
# ```
#
# Which lines of the example résumés change, and how much longer do résumés get?
# :::
#
# :::{solution} ex-04-skills
# :class: dropdown
#
# A SKILLS section (eight skills of the occupation's pool) appears between the header and
# WORK HISTORY; nothing else changes, because the skills are always drawn last from the
# résumé's generator and only their display is switched. Résumés grow by about 27 tokens on
# average (17 to 39, depending on which skills are drawn); the drawn skills depend on the
# seed and the `resume_id`, not on the applicant's group, so a screener's score may shift,
# but not differently across groups through this section.
# :::
#
# :::{exercise}
# :label: ex-04-seed
#
# Re-run with `-p seed 1`. Which features of a résumé are fixed by the profile and which
# change with the seed? Would an audit's effects change with the seed?
# :::
#
# :::{solution} ex-04-seed
# :class: dropdown
#
# The name, state, e-mail, number of roles, the total span of the work history, the number
# and kind of education entries are fixed by the profile. The school, major, employers,
# titles, bullets, role durations, exact graduation year (within the rule) and phone digits
# change. Because they change independently of $X$, they add noise to the scores but no
# path from $X$ to $Y$: effect estimates should change only within their confidence intervals.
# A systematic change would mean the screener reacts to content that the rules tie to $B$
# (for example the seniority of titles).
# :::
#
# :::{exercise}
# :label: ex-04-photos
#
# Build a small labelled photo folder (for example, solid-colour PNGs standing in for
# portraits) with the layout `ROOT/<gender>/<race>/<age band>/` and render the example
# profiles with `FolderFaceSource(ROOT)`. What happens when one group is missing?
# :::
#
# :::{solution} ex-04-photos
# :class: dropdown
#
# ```python
# from PIL import Image
# from popresume.resumes.photo import FolderFaceSource
# root = cache_path("faces", "x").parent
# for g in ("F", "M"):
#     for r in ("White", "Black", "API"):
#         for band in ("18-24", "25-34", "35-44"):
#             d = root / g / r / band
#             d.mkdir(parents=True, exist_ok=True)
#             Image.new("RGB", (300, 370), (200, 200, 200)).save(d / "0.png")
# render_images(examples.reset_index(), out_dir / "folder", photo=True,
#               face_source=FolderFaceSource(root))
# ```
#
# Deleting one folder makes `render_images` stop before drawing anything, with an error
# naming the missing group, e.g. "lacks the group gender=F, race=API, age band 25-34".
# :::
