"""The validity gate's error rates, by simulation with a known truth.

The gate (:func:`popresume.screeners.validity.judge`, :data:`~popresume.screeners.validity.PASS_RULE`)
is a test: it passes a screener or it does not. This family measures how often it is wrong.

**Simulated screeners.** A card scores the résumés of :func:`~popresume.screeners.validity.default_profiles`
``(n, seed)`` under six conditions. The simulated screener gives each paired contrast of that
card a known mean plus noise, on the card's own résumés: the education and experience
contrasts exist only for the rows :func:`~popresume.screeners.validity.more_education` and
:func:`~popresume.screeners.validity.more_experience` keep, and their true shift is
proportional to the step each row really gets (levels raised / ``EDU_STEP``, years added /
``EXP_STEP``), so a capped row moves less. Per replication and résumé:

* own − mismatched posting: ``J + sd_fit · e``;
* education up: ``Q · levels / EDU_STEP + sd_qual · e``; experience up: ``Q · years / EXP_STEP + sd_qual · e``;
* whitespace and section order: ``sd_edit · e`` (a harmless edit has no true effect);
* own-posting scores ``50 + 10 · e`` (the spread rule holds), every reply parsed.

``e`` is standard normal, or (the ``noise`` setting) a Student t with 3 df, or a centred
log-normal with its long tail to the left (skewness −1.75, a robustness row: the t intervals
assume differences that are not strongly skewed), each scaled to SD 1. ``J / sd_fit`` and
``Q / sd_qual`` are the true standardised effects ``d_z`` a card estimates. The card's
numbers are :func:`~popresume.screeners.validity.paired_contrast`'s (vectorised here:
:func:`contrasts`, which a test checks against it), and the verdict is ``judge`` itself.

**Rows.** ``kind="false_pass"``: the share of screeners that **ignore** the posting
(``J = 0``, qualifications read at ``d_z`` 0.8, harmless edits exact) or the
**qualifications** (``Q = 0``, posting read at ``d_z`` 3.5, like the embedding screener's
card, harmless edits exact) that the gate passes. Exact harmless edits are the worst case:
the stability rule never rescues the gate. The promise is at most 5% (band 0–0.05): the
posting rule is a one-sided 2.5% test, and the qualification rule passes on either of two
one-sided 1.25% tests (:data:`~popresume.screeners.validity.QUAL_LEVEL`), at most 2.5% by the
union bound. (With 95% intervals there, the previous rule, the bound is 2 × 2.5% = 5% and the
measured rate sat on it, 0.049 at n = 40.) ``kind="power"``: the share of
screeners that read both (posting at ``d_z`` 1, qualifications at ``d_z`` 0.3, 0.5 or 0.8,
harmless edits of SD 2 points against a job-fit effect of 15) that pass, against the card's
``n`` (band 0.8–1: the row says whether the gate finds such a screener four times in five).

``benchmarks/bench_validity.py`` runs the full grid and writes
``benchmarks/results/coverage_validity.csv``; the default card size
(:data:`~popresume.screeners.validity.CARD_N`) is the smallest ``n`` of the grid at which the
gate's false-pass rates under normal and t noise are at most 5% and its power at a
qualification effect of ``d_z`` 0.5 is at least 0.8 (:func:`chosen_card_n`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats

from popresume.coverage import summarize, table
from popresume.paths import REPO_ROOT
from popresume.schema import EDU_LEVELS
from popresume.screeners.validity import (
    CARD_N,
    EDU_STEP,
    EXP_STEP,
    default_profiles,
    judge,
    more_education,
    more_experience,
)

FAMILY = "validity"
LEVEL = 0.95
#: card sizes of the full grid (fast: the default only)
CARD_SIZES = (10, 20, 40, 80, 160)
#: the qualification effect (d_z) the default card size must find four times in five
REFERENCE_DZ = 0.5
NOISES = ("normal", "t3", "left-skewed")
FALSE_PASS_BAND = (0.0, 0.05)
POWER_BAND = (0.8, 1.0)
SCREENERS = {
    # name: (J, sd_fit, Q, sd_qual, sd_edit)
    "ignores the posting": (0.0, 14.0, 0.8 * 5.5, 5.5, 0.0),
    "ignores the qualifications": (3.5 * 14.0, 14.0, 0.0, 5.5, 0.0),
}


def _noise(rng: np.random.Generator, shape, kind: str) -> np.ndarray:
    """Draws with mean 0 and SD 1 of the named shape."""
    if kind == "normal":
        return rng.standard_normal(shape)
    if kind == "t3":
        return rng.standard_t(3, shape) / math.sqrt(3.0)
    if kind == "left-skewed":  # minus a centred log-normal(0, 0.5): a long tail to the left
        s = 0.5
        x = rng.lognormal(0.0, s, shape)
        mean, sd = math.exp(s * s / 2), math.sqrt((math.exp(s * s) - 1) * math.exp(s * s))
        return -(x - mean) / sd
    raise ValueError(f"noise must be one of {NOISES}, got {kind!r}")


def contrasts(d: np.ndarray, level: float = 0.95) -> dict[str, np.ndarray]:
    """:func:`~popresume.screeners.validity.paired_contrast` of each row of ``d`` (replications
    × pairs), vectorised: ``estimate, ci_low, ci_high, sd, mean_abs, n`` arrays."""
    n = d.shape[1]
    m = d.mean(axis=1)
    sd = d.std(axis=1, ddof=1)
    half = stats.t.ppf(0.5 + level / 2, n - 1) * sd / math.sqrt(n)
    return {"estimate": m, "ci_low": m - half, "ci_high": m + half, "sd": sd,
            "mean_abs": np.abs(d).mean(axis=1), "n": np.full(d.shape[0], n)}


def card_design(n: int, seed: int = 0) -> dict[str, np.ndarray]:
    """The paired rows of a card of ``n`` résumés (profiles of ``seed``): the education step
    each kept row gets (in units of ``EDU_STEP``) and the experience step (in ``EXP_STEP``)."""
    p = default_profiles(n, seed=seed)
    rank = {v: i for i, v in enumerate(EDU_LEVELS)}
    e = more_education(p)
    old = p.loc[e.index, "edu_level"].map(rank).to_numpy(float)
    edu = (e["edu_level"].map(rank).to_numpy(float) - old) / EDU_STEP
    x = more_experience(p)
    exp = (x["exp_year"].to_numpy(float) - p.loc[x.index, "exp_year"].to_numpy(float)) / EXP_STEP
    return {"n": int(len(p)), "edu": edu, "exp": exp}


def simulate_cards(design: dict, *, J: float, sd_fit: float, Q: float, sd_qual: float, sd_edit: float,
                   reps: int, rng: np.random.Generator, noise: str = "normal", level: float | None = None) -> list[dict]:
    """``reps`` cards of a simulated screener (the module docstring) on ``design``: dicts with
    the fields :func:`~popresume.screeners.validity.judge` reads; their intervals are at
    ``level`` (default :data:`LEVEL`, the cards')."""
    level = LEVEL if level is None else level
    n = design["n"]
    fit = contrasts(J + sd_fit * _noise(rng, (reps, n), noise), level)
    edu = contrasts(Q * design["edu"] + sd_qual * _noise(rng, (reps, design["edu"].size), noise), level)
    exp = contrasts(Q * design["exp"] + sd_qual * _noise(rng, (reps, design["exp"].size), noise), level)
    ws = contrasts(sd_edit * _noise(rng, (reps, n), noise), level)
    so = contrasts(sd_edit * _noise(rng, (reps, n), noise), level)
    own = 50 + 10 * rng.standard_normal((reps, n))
    own_sd = own.std(axis=1, ddof=1)
    out = []
    for r in range(reps):
        def at(c):
            return {k: float(v[r]) for k, v in c.items()}
        out.append({"matched_minus_mismatched": at(fit), "education_up": at(edu), "experience_up": at(exp),
                    "whitespace": at(ws), "section_order": at(so), "parse_rate": 1.0,
                    "spread": {"sd": float(own_sd[r]), "n_distinct": n}})
    return out


def pass_rate(design: dict, reps: int, rng: np.random.Generator, *, noise: str = "normal", **screener) -> np.ndarray:
    """Per replication, whether :func:`~popresume.screeners.validity.judge` passes the card."""
    return np.array([judge(c)[0] == "pass" for c in simulate_cards(design, reps=reps, rng=rng, noise=noise,
                                                                   **screener)])


def run(fast: bool = False, seed: int = 0, reps: int | None = None) -> pd.DataFrame:
    """The validity rows of the harness table (:func:`popresume.coverage.table`).

    ``fast=True``: the default card size (:data:`~popresume.screeners.validity.CARD_N`),
    normal noise, 2,000 replications per false-pass row and 500 per power row. The full run:
    every size of :data:`CARD_SIZES`, every noise shape for the false-pass rows (20,000
    replications at the default size, 4,000 elsewhere) and 2,000 per power row."""
    rng = np.random.default_rng(seed)
    sizes = (CARD_N,) if fast else tuple(sorted(set(CARD_SIZES) | {CARD_N}))
    rows = []
    for n in sizes:
        design = card_design(n)
        setting = f"card of n={n} résumés (seed 0 profiles: {design['edu'].size} education and " \
                  f"{design['exp'].size} experience pairs)"
        for noise in (("normal",) if fast else NOISES):
            r_null = reps or (2000 if fast else (20_000 if n == CARD_N else 4000))
            for name, (J, sd_fit, Q, sd_qual, sd_edit) in SCREENERS.items():
                hits = pass_rate(design, r_null, rng, noise=noise, J=J, sd_fit=sd_fit, Q=Q, sd_qual=sd_qual,
                                 sd_edit=sd_edit)
                rows.append(summarize(hits, family=FAMILY, quantity=f"gate passes a screener that {name}",
                                      setting=f"{setting}, {noise} noise", kind="false_pass", nominal=0.05,
                                      band_override=FALSE_PASS_BAND))
        for dz in ((REFERENCE_DZ,) if fast else (0.3, 0.5, 0.8)):
            hits = pass_rate(design, reps or (500 if fast else 2000), rng, J=15.0, sd_fit=15.0, Q=dz * 5.5,
                             sd_qual=5.5, sd_edit=2.0)
            rows.append(summarize(hits, family=FAMILY,
                                  quantity=f"gate passes a screener that reads both (qualifications d_z {dz:g})",
                                  setting=f"{setting}, normal noise", kind="power", nominal=0.8,
                                  band_override=POWER_BAND))
    return table(rows)


def card_n(setting: str) -> int:
    """The card size a row's ``setting`` names."""
    return int(setting.split("n=")[1].split(" ")[0])


def chosen_card_n(tab: pd.DataFrame, dz: float = REFERENCE_DZ) -> int | None:
    """The smallest card size of ``tab`` at which every false-pass row under normal or t noise
    is at most 5% and the power at a qualification effect of ``dz`` is at least 0.8; ``None``
    when no size qualifies. (The skewed-noise rows say how far the promise bends; they do not
    choose.)"""
    t = tab[(tab["family"] == FAMILY) & ~tab["setting"].str.endswith("left-skewed noise")]
    t = t.assign(card_n=t["setting"].map(card_n))
    ok = []
    for n, g in t.groupby("card_n"):
        fp = g[g["kind"] == "false_pass"]
        pw = g[(g["kind"] == "power") & g["quantity"].str.endswith(f"d_z {dz:g})")]
        if len(fp) and len(pw) and (fp["rate"] <= FALSE_PASS_BAND[1]).all() and (pw["rate"] >= POWER_BAND[0]).all():
            ok.append(int(n))
    return min(ok) if ok else None


def results_csv():
    """Where ``benchmarks/bench_validity.py`` writes the full run."""
    return REPO_ROOT / "benchmarks" / "results" / "coverage_validity.csv"
