"""Coverage of the recorded-decisions intervals and tests (:mod:`popresume.decisions.analyses`).

Known truths simulated on the shapes of the real records (docs/DESIGN.md §5), and the same
functions of :mod:`popresume.decisions.analyses` applied to them:

* **Validity contrasts, Derbyshire** (9 résumés, three per industry, × 9 postings × 36
  names): score = résumé effect + posting effect + own-posting effect (job fit, varying by
  résumé) + quality effect (strong résumés) + résumé × posting effect + name effect + reply
  noise, on the 0-100 scale with SDs of the order the record shows (résumé 8, posting 5,
  résumé × posting 3, name 1, reply 7). ``job_fit`` and ``quality`` go through
  ``analyses._contrast`` (clustered on the 9 résumés). Two truths of job fit's heterogeneity:
  résumé by résumé (independent) and industry by industry (shared by an industry's three
  résumés, as the record's per-résumé contrasts suggest: 9 clusters then hold 3
  independent units).
* **Job fit, Webster Experiment 2a** (3 résumés × 3 postings, 6 replies per own cell and 3
  per other cell): ``analyses._contrast``, clustered on the 9 résumé × posting cells.
* **Group and name effects** (``analyses.clustered_effect`` with cells and name clusters as
  in :func:`~popresume.decisions.analyses.group_effects`): Derbyshire 18 + 18 names × 81
  cells, Webster 8 + 8 (race) and 12 + 12 (sex) names × 9 cells; a name's own effect SD 1,
  reply noise SD 3; re-cinq's variant − baseline over 17 postings × 5 runs clustered by
  posting, with a posting-specific effect.
* **Drift** (``analyses._interaction``): GPT-3.5 against GPT-5.1 on the Derbyshire design,
  the difference in job fit (clustered on résumé) and in a race effect (clustered on name).
* **Competence**: Webster's keyword-stuffed − plain, 6 + 6 replies, HC1 t interval, with
  unequal reply SDs (5 and 15).
* **An auditor's own file** (``analyses.own_contrasts``, as ``popresume audit --decisions``
  estimates them): :func:`design_coverage` simulates a known truth on the file's own rows
  (its résumés, postings and 0/1 terms kept; résumé, posting, résumé × posting, job-fit
  heterogeneity by résumé and reply noise drawn with the Derbyshire SDs above) and
  :func:`design_calibration` is the check the audit runs before it prints an interval. The
  harness row runs it on a 12 résumés × 4 postings × 3 replies file.
* **Tests**: the placebo comparison of a re-cinq name (``analyses.name_vs_placebo``: a name
  exchangeable with 7 placebos; its smallest p is 1/8, so its size is checked at 0.25), and
  ``analyses.chance_below``'s p of a published ratio under no disparity (rejecting at p <
  0.05; discrete, so conservative: band 0-0.07).

Each coverage row says whether the interval covers the known effect; type-I rows whether a
test at its level rejects a true null.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from statsmodels.regression.linear_model import OLS

from popresume.coverage import COVERAGE_BAND, summarize, table
from popresume.decisions import analyses

FAMILY = "decisions"
#: (quantity, setting) rows that measure a truth the interval does not claim to cover: job
#: fit varying industry by industry, where Derbyshire's 9 résumé clusters hold 3 independent
#: industries. The résumé-clustered interval covers the effect for résumés of these three
#: industries, not for industries beyond them; the row records how far it falls short.
KNOWN_UNCALIBRATED = {("validity job_fit CI (résumé clusters)",
                       "Derbyshire 9 résumés x 9 postings x 36 names, job-fit heterogeneity by industry")}
LEVEL = analyses.LEVEL
CONSERVATIVE = (0.93, 1.0)
#: Category sizes for the published-ratio p: an LL144 sex × race table at n = 800.
LL144_SIZES = (229, 68, 53, 28, 259, 76, 60, 27)


def _covered(r: dict, truth: float) -> float:
    if not np.isfinite(r["ci_low"]):
        return np.nan
    return float(r["ci_low"] <= truth <= r["ci_high"])


# -- Derbyshire validity -------------------------------------------------------------------
def _derbyshire_frame(rng: np.random.Generator, *, fit: float, quality: float, hetero: str,
                      n_names: int = 36) -> pd.DataFrame:
    """One simulated record on Derbyshire's design (items resume<industry><k>, jobs job<industry><l>)."""
    ind = np.repeat(np.arange(3), 3)
    k = np.tile(np.arange(3), 3)
    items = np.array([f"resume{a + 1}{b + 1}" for a, b in zip(ind, k)])
    jobs = np.array([f"job{a + 1}{b + 1}" for a, b in zip(ind, k)])
    strong = (k != int(analyses.DERBYSHIRE_WEAK) - 1).astype(float)
    h = rng.normal(0, 5, 3)[ind] if hetero == "industry" else rng.normal(0, 5, 9)
    item_eff = rng.normal(0, 8, 9) + quality * strong
    job_eff = rng.normal(0, 5, 9)
    own = (ind[:, None] == ind[None, :]).astype(float)
    cell = item_eff[:, None] + job_eff[None, :] + own * (fit + h[:, None]) + rng.normal(0, 3, (9, 9))
    ii, jj, nn = np.meshgrid(np.arange(9), np.arange(9), np.arange(n_names), indexing="ij")
    ii, jj, nn = ii.ravel(), jj.ravel(), nn.ravel()
    y = 50 + cell[ii, jj] + rng.normal(0, 1, n_names)[nn] + rng.normal(0, 7, ii.size)
    return pd.DataFrame({"item": items[ii], "job": jobs[jj], "name": nn, "outcome": y})


def derbyshire_validity_rows(reps: int, rng: np.random.Generator, heteros=("résumé", "industry")) -> list[dict]:
    rows = []
    fit, quality = 10.0, 10.0
    for hetero in heteros:
        hits = {"job_fit": [], "quality": []}
        for _ in range(reps):
            d = _derbyshire_frame(rng, fit=fit, quality=quality, hetero=hetero)
            for contrast, truth in (("job_fit", fit), ("quality", quality)):
                hits[contrast].append(_covered(analyses._contrast("derbyshire", d, contrast, LEVEL), truth))
        setting = f"Derbyshire 9 résumés x 9 postings x 36 names, job-fit heterogeneity by {hetero}"
        for contrast in ("job_fit", "quality"):
            # quality: t on min(G1, G0) - 1 = 2 df (clustered_effect's arm_df), conservative;
            # job fit: posting effects cancel in the mean over résumés but add to each résumé's
            # contrast, so the résumé-clustered variance is conservative.
            # Job fit varying by industry is the assumption check: 3 independent units in 9
            # clusters, no band (see KNOWN_UNCALIBRATED).
            override = None if (contrast, hetero) == ("job_fit", "industry") else CONSERVATIVE
            rows.append(summarize(hits[contrast], family=FAMILY, quantity=f"validity {contrast} CI (résumé clusters)",
                                  setting=setting, kind="coverage", nominal=LEVEL, band_override=override))
    return rows


# -- an auditor's own file -----------------------------------------------------------------
#: SDs of the simulated truth at an own file's design (the Derbyshire orders of magnitude:
#: résumé 8, posting 5, résumé × posting 3, job fit varying résumé by résumé 5, reply 7).
#: Coverage does not depend on the effect's size (the estimator is linear in the outcome),
#: only on these ratios and on the design.
DESIGN_SDS = {"item": 8.0, "job": 5.0, "cell": 3.0, "hetero": 5.0, "reply": 7.0}
#: Simulations per interval at an own file's design (the rule: :func:`design_calibration`),
#: and the most rows simulated (one regression on 200,000 rows takes about 0.35 s, so the
#: check of two contrasts stays under about four minutes).
DESIGN_REPS = 300
MAX_DESIGN_ROWS = 200_000


def design_coverage(rows: pd.DataFrame, term: str, keywords: dict, *, job: str | None = None,
                    reps: int = DESIGN_REPS, seed: int = 0, sds: dict | None = None, level: float = LEVEL) -> dict:
    """Coverage of ``analyses.clustered_effect(rows, term, **keywords)``'s interval on ``rows``'
    own design (the harness at one file: docs/DESIGN.md §5).

    ``keywords`` name the cells and the cluster (the résumé column) as in
    :func:`popresume.decisions.analyses.own_contrasts`; ``job`` the posting column (None: no
    posting effects). Each replication replaces the outcome with résumé + posting + résumé ×
    posting effects + ``term`` × (effect + a résumé's own deviation) + reply noise (SDs
    :data:`DESIGN_SDS`) and asks whether the interval covers the effect. Returns
    ``coverage``, ``mc_se``, ``reps`` and ``hits`` (one 0/1 per replication)."""
    sds = DESIGN_SDS if sds is None else sds
    rng = np.random.default_rng(seed)
    cluster, cells = keywords["cluster"], keywords["cells"]
    used = list(dict.fromkeys([term, cluster] + [c for c in (cells, job) if c]))
    d = rows[used].dropna().reset_index(drop=True)
    # the design as integer codes: the same groups, without a string per row in every replication
    d = d.assign(**{c: pd.factorize(d[c].astype(str))[0] for c in used if c != term})
    item = d[cluster].to_numpy()
    posting = d[job].to_numpy() if job else np.zeros(len(d), int)
    cell = pd.factorize(item * (posting.max() + 1) + posting)[0]
    t = d[term].to_numpy(float)
    effect = 1.0
    hits = []
    for _ in range(reps):
        y = (rng.normal(0, sds["item"], item.max() + 1)[item] + rng.normal(0, sds["job"], posting.max() + 1)[posting]
             + rng.normal(0, sds["cell"], cell.max() + 1)[cell]
             + t * (effect + rng.normal(0, sds["hetero"], item.max() + 1)[item])
             + rng.normal(0, sds["reply"], len(d)))
        hits.append(_covered(analyses.clustered_effect(d.assign(outcome=y), term, level=level, **keywords), effect))
    h = np.asarray(hits, float)
    h = h[np.isfinite(h)]
    cov = float(h.mean()) if h.size else float("nan")
    return {"coverage": cov, "mc_se": float(np.sqrt(cov * (1 - cov) / h.size)) if h.size else float("nan"),
            "reps": int(h.size), "hits": h}


def design_calibration(rows: pd.DataFrame, term: str, keywords: dict, *, job: str | None = None,
                       reps: int = DESIGN_REPS, seed: int = 0) -> dict:
    """Whether the interval of one own-file contrast is calibrated at the file's design: the
    ``calibrate`` argument of :func:`popresume.decisions.analyses.validity_from_columns`.
    Calibrated when :func:`design_coverage` is at least the band's floor (0.93) less one Monte
    Carlo SE at the floor (0.015 at 300 simulations: a true 0.95 is refused about 0.3% of the
    time, a true 0.90 passes about 2%). Returns ``calibrated``, ``calibration`` (why, with the coverage and the
    assumption it rests on) and ``coverage``."""
    if len(rows) > MAX_DESIGN_ROWS:
        return {"calibrated": False, "coverage": float("nan"),
                "calibration": f"not calibrated: the contrast has {len(rows):,} rows and its interval is checked "
                               f"by simulation at the file's design up to {MAX_DESIGN_ROWS:,} (split the file by "
                               f"job or period)"}
    r = design_coverage(rows, term, keywords, job=job, reps=reps, seed=seed)
    cov, se = r["coverage"], r["mc_se"]
    floor = COVERAGE_BAND[0]
    ok = bool(np.isfinite(cov) and cov >= floor - math.sqrt(floor * (1 - floor) / max(r["reps"], 1)))
    clusters = int(rows[keywords["cluster"]].nunique())
    what = (f"nominal 95% interval covered {cov:.3f} (Monte Carlo SE {se:.3f}) in {r['reps']} simulations at this "
            f"file's design ({clusters} résumé clusters; effects varying résumé by résumé)")
    if ok:
        return {"calibrated": True, "coverage": cov,
                "calibration": f"calibrated: the {what}; if the effect is shared by groups of résumés (e.g. "
                               f"industries), it covers the effect on these résumés only"}
    return {"calibrated": False, "coverage": cov,
            "calibration": f"the {what}, under {COVERAGE_BAND[0]:.2f}: too few résumé clusters or too unbalanced "
                           f"a design for this interval"}


def own_file_rows(reps: int, rng: np.random.Generator) -> list[dict]:
    """The own-file contrasts on a 12 résumés × 4 postings × 3 replies file (half the résumés
    strong, half the postings each résumé's own), through :func:`design_coverage`."""
    item, job, _ = np.meshgrid(np.arange(12), np.arange(4), np.arange(3), indexing="ij")
    d = pd.DataFrame({"item": item.ravel(), "job": job.ravel()})
    d["fit"] = (d["job"] % 2 == d["item"] % 2).astype(float)
    d["quality"] = (d["item"] < 6).astype(float)
    d["outcome"] = 0.0
    setting = "own file: 12 résumés x 4 postings x 3 replies"
    rows = []
    for contrast, (sub, kw) in analyses.own_contrasts(d, fit="fit", quality="quality").items():
        r = design_coverage(sub, "_t", kw, job="job", reps=reps, seed=int(rng.integers(2**31)))
        # quality: t on min(G1, G0) - 1 df, conservative (as Derbyshire's)
        rows.append(summarize(r["hits"], family=FAMILY, quantity=f"own-file validity {contrast} CI (résumé clusters)",
                              setting=setting, kind="coverage", nominal=LEVEL,
                              band_override=CONSERVATIVE if contrast == "quality" else None))
    return rows


# -- Webster job fit ------------------------------------------------------------------------
def webster_fit_rows(reps: int, rng: np.random.Generator) -> list[dict]:
    jobs = np.array(["Finance", "Fraud", "HR"])
    ii, jj = np.meshgrid(np.arange(3), np.arange(3), indexing="ij")
    ii, jj = ii.ravel(), jj.ravel()
    per = np.where(ii == jj, 6, 3)
    ri, rj = np.repeat(ii, per), np.repeat(jj, per)
    fit = 10.0
    hits = []
    for _ in range(reps):
        cell = rng.normal(0, 8, 3)[:, None] + rng.normal(0, 5, 3)[None, :] + rng.normal(0, 3, (3, 3))
        cell += fit * np.eye(3)
        y = 70 + cell[ri, rj] + rng.normal(0, 7, ri.size)
        d = pd.DataFrame({"item": jobs[ri], "job": jobs[rj], "signal": "fit", "variant": "exp2a", "outcome": y})
        hits.append(_covered(analyses._contrast("webster", d, "job_fit", LEVEL), fit))
    # own is constant within a cell: t on min(3, 6) - 1 = 2 df (arm_df), conservative
    return [summarize(hits, family=FAMILY, quantity="validity job_fit CI (résumé x posting clusters)",
                      setting="Webster 2a: 3 résumés x 3 postings, 6/3 replies per cell", kind="coverage",
                      nominal=LEVEL, band_override=CONSERVATIVE)]


# -- group and name effects ------------------------------------------------------------------
def name_rows(n_names: int, n_cells: int, label: str, reps: int, rng: np.random.Generator) -> list[dict]:
    """Group effect with cell fixed effects, clustered by name, as in group_effects."""
    names = np.repeat(np.arange(2 * n_names), n_cells)
    cells = np.tile(np.arange(n_cells), 2 * n_names)
    group = (names >= n_names).astype(float)
    effect = 1.0
    hits, rej = [], []
    for truth in (effect, 0.0):
        for _ in range(reps):
            y = (truth * group + rng.normal(0, 1, 2 * n_names)[names] + rng.normal(0, 5, n_cells)[cells]
                 + rng.normal(0, 3, names.size))
            r = analyses.clustered_effect(pd.DataFrame({"outcome": y, "g": group, "cell": cells, "name": names}), "g",
                                          cells="cell", cluster="name")
            (hits if truth else rej).append(_covered(r, truth) if truth else float(r["p"] < 0.05))
    setting = f"{label}: {n_names} + {n_names} names x {n_cells} cells"
    return [summarize(hits, family=FAMILY, quantity="group effect CI (name clusters)", setting=setting,
                      kind="coverage", nominal=LEVEL),
            summarize(rej, family=FAMILY, quantity="group effect p at 5% (name clusters)", setting=setting,
                      kind="type_I_error", nominal=0.05)]


def recinq_rows(reps: int, rng: np.random.Generator) -> list[dict]:
    """re-cinq: a variant against the baseline, 17 postings × 5 runs, clustered by posting."""
    jobs = np.repeat(np.arange(17), 10)
    g = np.tile(np.repeat([0.0, 1.0], 5), 17)
    effect = 0.5
    hits = []
    for _ in range(reps):
        y = 5 + rng.normal(0, 1.5, 17)[jobs] + g * (effect + rng.normal(0, 0.4, 17)[jobs]) + rng.normal(0, 0.8, jobs.size)
        r = analyses.clustered_effect(pd.DataFrame({"outcome": y, "g": g, "job": jobs}), "g", cells="job",
                                      cluster="job")
        hits.append(_covered(r, effect))
    return [summarize(hits, family=FAMILY, quantity="variant − baseline CI (posting clusters)",
                      setting="re-cinq: 17 postings x 5 runs, effect varying by posting", kind="coverage",
                      nominal=LEVEL)]


# -- drift ----------------------------------------------------------------------------------
def drift_rows(reps: int, rng: np.random.Generator) -> list[dict]:
    """GPT-3.5 against GPT-5.1 on the Derbyshire design: the difference of job fit (résumé
    clusters) and of a race effect (name clusters), both with a known difference."""
    fit_hits, race_hits, quality_hits = [], [], []
    race = None
    for _ in range(reps):
        parts = []
        for later, fit, quality in ((0.0, 10.0, 10.0), (1.0, 15.0, 14.0)):
            d = analyses._derbyshire_design(_derbyshire_frame(rng, fit=fit, quality=quality, hetero="résumé"))
            race = (d["name"] >= 18).to_numpy(float)
            d["outcome"] += race * (later * 1.0) + rng.normal(0, 1, 36)[d["name"]]
            parts.append(d.assign(later=later, model=str(later)))
        d = pd.concat(parts, ignore_index=True)
        dd = d.assign(inter=d["own"] * d["later"], mc=d["item"] + "|" + d["model"])
        fit_hits.append(_covered(analyses._interaction(dd, "own", "inter", "mc", "item", LEVEL), 5.0))
        dq = d[d["own"] == 1]
        dq = dq.assign(inter=dq["strong"] * dq["later"], mc=dq["job"] + "|" + dq["model"])
        quality_hits.append(_covered(analyses._interaction(dq, "strong", "inter", "mc", "item", LEVEL, arm_df=True),
                                     4.0))
        dg = d.assign(g=(d["name"] >= 18).astype(float))
        dg = dg.assign(inter=dg["g"] * dg["later"], mc=dg["cell"] + "|" + dg["model"])
        race_hits.append(_covered(analyses._interaction(dg, "g", "inter", "mc", "name", LEVEL), 1.0))
    setting = "Derbyshire design, two models"
    # job fit: posting effects cancel in the mean over résumés, not in each résumé's contrast
    return [summarize(fit_hits, family=FAMILY, quantity="drift: job_fit difference CI (résumé clusters)",
                      setting=setting, kind="coverage", nominal=LEVEL, band_override=CONSERVATIVE),
            summarize(quality_hits, family=FAMILY, quantity="drift: quality difference CI (résumé clusters)",
                      setting=setting, kind="coverage", nominal=LEVEL, band_override=CONSERVATIVE),
            summarize(race_hits, family=FAMILY, quantity="drift: group difference CI (name clusters)",
                      setting=setting + ", 18 + 18 names", kind="coverage", nominal=LEVEL)]


# -- competence -----------------------------------------------------------------------------
def keyword_rows(reps: int, rng: np.random.Generator) -> list[dict]:
    """Webster 2b: keyword-stuffed − plain, 6 + 6 replies, HC1 t interval as in competence()."""
    x = np.repeat([0.0, 1.0], 6)
    effect = 5.0
    y = 70 + effect * x + rng.normal(0, 1, (reps, 12)) * np.where(x == 1, 15.0, 5.0)
    hits = []
    for i in range(reps):
        res = OLS(y[i], np.column_stack([np.ones_like(x), x])).fit(cov_type="HC1", use_t=True)
        lo, hi = res.conf_int(alpha=1 - LEVEL)[1]
        hits.append(lo <= effect <= hi)
    return [summarize(hits, family=FAMILY, quantity="keyword-stuffed − plain CI (HC1)",
                      setting="Webster 2b: 6 + 6 replies, SDs 15 and 5", kind="coverage", nominal=LEVEL)]


# -- tests ----------------------------------------------------------------------------------
def placebo_rows(reps: int, rng: np.random.Generator) -> list[dict]:
    """A name with no effect, exchangeable with 7 placebo edits: placebo_p <= 0.25 at rate 0.25."""
    variants = ["baseline"] + [f"placebo_{i}" for i in range(7)] + ["firstName_x"]
    signals = ["baseline"] + ["placebo"] * 7 + ["firstName"]
    v = np.repeat(np.arange(9), 17 * 5)
    jobs = np.tile(np.repeat(np.arange(17), 5), 9)
    base = pd.DataFrame({"variant": np.array(variants)[v], "signal": np.array(signals)[v], "job": jobs})
    parts = []
    for i in range(reps):
        y = 5 + rng.normal(0, 1, 17)[jobs] + rng.normal(0, 0.3, 9)[v] + rng.normal(0, 1, v.size)
        parts.append(base.assign(outcome=y, model=f"m{i:04d}"))
    d = pd.concat(parts, ignore_index=True).assign(source="recinq")
    out = analyses.name_vs_placebo(d)
    level = 2 / 8
    half = 3.5 * math.sqrt(level * (1 - level) / reps)
    return [summarize(out["placebo_p"].to_numpy() <= level, family=FAMILY,
                      quantity="name vs 7 placebos: placebo_p <= 0.25", setting="re-cinq: 17 postings x 5 runs",
                      kind="type_I_error", nominal=level, band_override=(level - half, level + half))]


def chance_rows(reps: int, rng: np.random.Generator, *, n_sim: int) -> list[dict]:
    """chance_below's p of the observed ratio under no disparity, for the smallest category."""
    sizes = np.asarray(LL144_SIZES)
    m = int(sizes.sum() // 4)
    obs = rng.multivariate_hypergeometric(sizes, m, size=reps).astype(float)
    rate = obs / sizes
    ratio = rate / rate.max(axis=1, keepdims=True)
    rated = np.ones(len(sizes), bool)
    rej = []
    for i in range(reps):
        _, p = analyses.chance_below(sizes, m, rated, observed=ratio[i], n_sim=n_sim, seed=i)
        rej.append(p[3] < 0.05)
    return [summarize(rej, family=FAMILY, quantity="published ratio: p_observed < 0.05 (smallest category)",
                      setting="LL144 sex x race, n=800, top 25%", kind="type_I_error", nominal=0.05,
                      band_override=(0.0, 0.07))]


def run(fast: bool = False, seed: int = 0) -> pd.DataFrame:
    """The decisions rows of the harness table (:func:`popresume.coverage.table`).

    ``fast=True``: 150 replications of the Derbyshire validity contrasts (job fit varying by
    résumé and by industry) and of the own-file contrasts, 250 of Webster's job fit, its 8 + 8 names, re-cinq, the keyword contrast and the
    two tests; the full run 1,000-2,000 of every row, with the Derbyshire names, Webster's 12 + 12 names and drift."""
    rng = np.random.default_rng(seed)
    big, small = (150, 250) if fast else (1000, 2000)
    rows = derbyshire_validity_rows(big, rng)
    rows += webster_fit_rows(small, rng)
    rows += name_rows(8, 9, "Webster race", small, rng)
    if not fast:
        rows += name_rows(18, 81, "Derbyshire", big, rng)
        rows += name_rows(12, 9, "Webster sex", small, rng)
        rows += drift_rows(big // 2, rng)
    rows += recinq_rows(small, rng)
    rows += keyword_rows(small, rng)
    rows += placebo_rows(small, rng)
    rows += chance_rows(small, rng, n_sim=1000 if fast else 2000)
    # its own stream, so that adding it left the other rows' draws as they were
    rows += own_file_rows(big, np.random.default_rng([seed, 1]))
    return table(rows)
