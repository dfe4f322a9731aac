"""The numbers of a one-screener audit report (``popresume audit --screener``).

One screener, one occupation, one population: this module turns its scores into every
number the report prints, as pure functions over tables, so that the HTML
(:mod:`popresume.audit.report_html`) only lays them out:

* :func:`decompose` — TE, NDE, NIE, BIE, RIE of one attribute with CIs, Holm-adjusted
  p-values over the five effects, the cases C1–C5 (paper rule), the overlap numbers and
  warnings, and (synthetic screener) the true effects;
* :func:`precision_table` — the CI half-width achieved by each effect and the n needed for a
  target half-width, from the influence values φ: SE ≈ sd(φ)/√n, so the n giving a
  half-width h is (z·sd(φ)/h)²;
* :func:`ll144_table` — Local Law 144 scoring rates and impact ratios by sex, race and their
  intersection, each with a bootstrap CI, categories under 2% flagged, unknown categories counted;
* :func:`four_fifths_table` — the four-fifths comparison of selection rates at a cut;
* :func:`chance_baseline` — how often a screener that ignores sex and race (the observed
  scores with the attribute labels permuted) would be flagged at this n;
* :func:`disagreements` — where the outcome-level verdict and the decomposition differ;
* :func:`limitations` — the report's limitations, written from the facts of the run;
* :func:`plan` — expected durations from a probe of a few résumés.

Every table names its source (``source`` column) so that the report can label each number.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy.stats import norm

from popresume.errors import require_columns
from popresume.schema import PSE_NAMES

#: Default target half-width (score points) for the precision table.
TARGET_HALF_WIDTH = 0.5
#: Fewest scored résumés per group of the audited attribute for the decomposition.
MIN_PER_GROUP = 20
#: The four-fifths threshold (29 CFR 1607.4(D)).
FOUR_FIFTHS = 0.8
ATTRIBUTE_COLUMNS = {"gender": "gender", "race": "race_binary"}

SOURCES = {
    "effects": "ours: cross-fitted DML (popresume.causal.estimate_pse), influence bootstrap CI",
    "truth": "known: the synthetic screener's f on this population (SyntheticScreener.true_effects)",
    "precision": "ours: influence-function variance of each effect (SE = sd(φ)/√n)",
    "ll144": "NYC LL144 (6 RCNY §5-301(b)): scoring rate above the sample median; bootstrap CI",
    "four_fifths": "EEOC four-fifths rule (29 CFR 1607.4(D)) at the selection cut",
    "chance": "ours: observed scores with the sex and race labels permuted (a screener ignoring them)",
    "validity": "ours: validity gate (popresume.screeners.validity.PASS_RULE)",
}


# --------------------------------------------------------------------------- planning
def plan(seconds_per_resume: float, *, n: int, card_n: int) -> dict[str, float]:
    """Expected seconds of the validity card (the résumés of
    :func:`popresume.screeners.validity.card_resumes`) and of the whole run (the card plus the
    ``n`` audit résumés), from a probe's seconds per résumé."""
    from popresume.screeners.validity import card_resumes

    if not seconds_per_resume >= 0:
        raise ValueError(f"seconds per résumé must be a number >= 0, got {seconds_per_resume!r}")
    card = seconds_per_resume * card_resumes(card_n)
    return {"seconds_per_resume": float(seconds_per_resume), "validity_s": float(card),
            "scoring_s": float(seconds_per_resume * n), "total_s": float(card + seconds_per_resume * n)}


# --------------------------------------------------------------------------- decomposition
def check_groups(data: pd.DataFrame, attribute: str, roles: Mapping, *, minimum: int = MIN_PER_GROUP) -> None:
    """Refuse an attribute whose smaller group has fewer than ``minimum`` scored résumés."""
    x = roles["x"]
    require_columns(data, [x, "score"], "audit data")
    counts = data.loc[data["score"].notna(), x].astype(str).value_counts()
    for level in (roles["x0"], roles["x1"]):
        if counts.get(str(level), 0) < minimum:
            raise ValueError(f"--n too small to estimate {attribute}: {x}={level!r} has {counts.get(str(level), 0)} "
                             f"scored résumés, fewer than {minimum} (groups: {counts.to_dict()}); raise --n")


def decompose(data: pd.DataFrame, attribute: str, *, folds: int = 5, n_boot: int = 500, seed: int = 0,
              tune: bool = True, truth: pd.DataFrame | None = None, target: float = TARGET_HALF_WIDTH) -> dict:
    """The decomposition of one attribute on ``data`` (profiles with groups and ``score``).

    Returns ``{"effects": DataFrame, "cases": str, "min_ess", "clipped_share", "warnings":
    [str], "precision": DataFrame, "n": int, "ci_method": str}``; ``effects`` is indexed
    TE..RIE with estimate, se, ci_low, ci_high, p, p_holm, significant and ``truth`` (NaN
    unless ``truth`` — a table indexed by effect with column ``true`` — is given).
    """
    from popresume.causal import capture_pse_warnings, classify_cases, default_roles, estimate_pse

    roles = default_roles(attribute)
    check_groups(data, attribute, roles)
    with capture_pse_warnings() as caught:
        table, est = estimate_pse(data, **roles, y="score", folds=folds, n_boot=n_boot, seed=seed, tune=tune,
                                  missing="drop", return_estimator=True, threads=1)
    res = est.result_
    holm = res.p_adjust("holm")
    out = table[["estimate", "se", "ci_low", "ci_high", "significant"]].copy()
    out["p"] = holm["p"].to_numpy()
    out["p_holm"] = holm["p_adj"].to_numpy()
    out["truth"] = (truth["true"].reindex(out.index).to_numpy(float) if truth is not None
                    else np.full(len(out), np.nan))
    min_ess, clipped = res.overlap["min_ess"], res.overlap["clipped_share"]
    return {"effects": out, "cases": str(classify_cases(table, "paper").iloc[0]), "min_ess": min_ess,
            "clipped_share": clipped, "warnings": sorted(set(caught)), "n": int(res.n),
            "ci_method": str(table["ci_method"].iloc[0]), "roles": roles,
            "precision": precision_table(res, target=target)}


def precision_table(result, *, target: float = TARGET_HALF_WIDTH, level: float = 0.95) -> pd.DataFrame:
    """Per effect: the CI half-width achieved and the n needed for a half-width of ``target``.

    ``result`` is a :class:`popresume.causal.PSEResult` (or anything with ``phi`` (n × 5
    influence values of the counterfactual means), ``n`` and ``confint()``). The effect's
    influence values are the same linear combination of φ as the effect is of the means;
    with their SD s, SE = s/√n and the normal half-width is z·s/√n, so the n giving ``target``
    is ⌈(z·s/target)²⌉. ``half_width`` is the reported CI's (bootstrap) half-width.
    """
    from popresume.causal import effects_from_psi

    if not target > 0:
        raise ValueError(f"target half-width must be > 0, got {target!r}")
    phi = effects_from_psi(np.asarray(result.phi, dtype=float))
    n = phi.shape[0]
    sd = phi.std(axis=0, ddof=1)
    z = float(norm.ppf(0.5 + level / 2))
    ci = result.confint(level)
    out = pd.DataFrame({
        "sd_phi": sd,
        "se": sd / math.sqrt(n),
        "half_width": (ci["ci_high"].to_numpy() - ci["ci_low"].to_numpy()) / 2,
        "half_width_normal": z * sd / math.sqrt(n),
        "target": float(target),
        "n": n,
        "n_needed": np.ceil((z * sd / target) ** 2).astype(int),
    }, index=pd.Index(list(PSE_NAMES), name="effect"))
    return out


# --------------------------------------------------------------------------- outcome level
def _codes(df: pd.DataFrame, cols: Sequence[str]) -> tuple[np.ndarray, list[str], np.ndarray]:
    """Integer category codes of the rows where every column is known, their labels, the known mask."""
    known = df[list(cols)].notna().all(axis=1).to_numpy()
    lab = df.loc[known, list(cols)].astype(str).agg(" × ".join, axis=1)
    cats = sorted(lab.unique())
    codes = np.full(len(df), -1)
    codes[known] = pd.Categorical(lab, categories=cats).codes
    return codes, cats, known


BREAKDOWNS = (("sex", ("gender",)), ("race", ("race",)), ("sex × race", ("gender", "race")))


def ll144_table(df: pd.DataFrame, *, score: str = "score", sex: str = "gender", race: str = "race",
                min_share: float = 0.02, n_boot: int = 500, level: float = 0.95, seed: int = 0) -> pd.DataFrame:
    """LL144 scoring rates and impact ratios by sex, race and sex × race, with bootstrap CIs.

    The numbers are :func:`popresume.audit.metrics.ll144_impact_ratios` on every scored row:
    one median, that of the whole sample, and each breakdown rated on the rows whose
    categories it needs (a row with a known sex and an unknown race counts for sex).
    ``rate_ci_*`` and ``ci_*`` (the impact ratio's) are percentile intervals over ``n_boot``
    resamples of the same rows (the median recomputed each time). Rows with an unknown
    category are one ``unknown`` row per breakdown (``n``, ``excluded`` True, no ratio), as
    LL144 audits report them.
    """
    from popresume.audit.metrics import ll144_impact_ratios

    require_columns(df, [score, sex, race], "scores table")
    d = df[df[score].notna()].reset_index(drop=True)
    names = {"gender": sex, "race": race}
    point = ll144_impact_ratios(d, score=score, sex=sex, race=race, min_share=min_share)
    rng = np.random.default_rng(seed)
    y = d[score].to_numpy(float)
    n = len(d)
    idx = rng.integers(0, n, size=(n_boot, n))
    yb = y[idx]
    above = yb > np.median(yb, axis=1, keepdims=True)
    a = (1 - level) / 2
    rows = []
    for name, cols in BREAKDOWNS:
        cols = [names[c] for c in cols]
        codes, cats, known = _codes(d, cols)
        p = point[point["breakdown"] == name].set_index("category")
        cb = codes[idx]
        k = len(cats)
        # per draw and category: count and number above the median (known rows only)
        cnt = np.stack([(cb == j).sum(axis=1) for j in range(k)], axis=1)
        hit = np.stack([((cb == j) & above).sum(axis=1) for j in range(k)], axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            rate = hit / cnt
            share = cnt / n  # of the whole sample, as in the point estimate
            ref = np.nanmax(np.where(share >= min_share, rate, np.nan), axis=1, keepdims=True)
            ratio = rate / ref
        for j, c in enumerate(cats):
            r = p.loc[c]
            rl, rh = np.nanquantile(rate[:, j], [a, 1 - a])
            il, ih = np.nanquantile(ratio[:, j], [a, 1 - a])
            rows.append({"breakdown": name, "category": c, "n": int(r["n"]), "share": float(r["share"]),
                         "scoring_rate": float(r["scoring_rate"]), "rate_ci_low": float(rl), "rate_ci_high": float(rh),
                         "impact_ratio": float(r["impact_ratio"]), "ci_low": float(il), "ci_high": float(ih),
                         "excluded": bool(r["excluded"])})
        n_unknown = int((~known).sum())
        if n_unknown:
            rows.append({"breakdown": name, "category": "unknown", "n": n_unknown, "share": n_unknown / n,
                         "scoring_rate": float(np.mean(y[~known] > np.median(y))), "rate_ci_low": np.nan,
                         "rate_ci_high": np.nan, "impact_ratio": np.nan, "ci_low": np.nan, "ci_high": np.nan,
                         "excluded": True})
    out = pd.DataFrame(rows)
    out["source"] = SOURCES["ll144"]
    return out


def four_fifths_table(df: pd.DataFrame, *, score: str = "score", columns: Mapping[str, str] | None = None,
                      select_top: float = 0.25) -> pd.DataFrame:
    """Selection rates, impact ratios and the four-fifths flag per group when the top
    ``select_top`` share is selected (:func:`popresume.audit.metrics.selection_rates`)."""
    from popresume.audit.metrics import selection_rates

    columns = dict(columns or {"sex": "gender", "race": "race"})
    d = df[df[score].notna()]
    parts = []
    for name, col in columns.items():
        t = selection_rates(d[d[col].notna()], col, score=score, select_top=select_top)
        t = t.rename(columns={col: "category"})
        t["category"] = t["category"].astype(str)
        t.insert(0, "breakdown", name)
        parts.append(t)
    out = pd.concat(parts, ignore_index=True)
    out["select_top"] = float(select_top)
    out["source"] = SOURCES["four_fifths"]
    return out


def lowest_ratio(ll144: pd.DataFrame, breakdown: str) -> float:
    """The lowest impact ratio among the categories of ``breakdown`` that are not excluded."""
    t = ll144[(ll144["breakdown"] == breakdown) & ~ll144["excluded"].astype(bool)]
    return float(t["impact_ratio"].min()) if len(t) else float("nan")


def chance_baseline(df: pd.DataFrame, *, score: str = "score", sex: str = "gender", race: str = "race",
                    min_share: float = 0.02, n_sim: int = 1000, seed: int = 0) -> pd.DataFrame:
    """How often a screener that ignores sex and race would be flagged at this n.

    The observed scores are kept and the (sex, race) labels are permuted over the résumés
    ``n_sim`` times, which keeps every group's size and the score distribution and breaks any
    link between them. For each breakdown: the observed lowest LL144 impact ratio, the share
    of permutations whose lowest ratio is under 0.8 (``flag_rate``: a screener that ignores
    the attribute is flagged this often), and the share whose lowest ratio is at most the
    observed one (``p_perm``, a permutation p-value of the lowest ratio).
    """
    require_columns(df, [score, sex, race], "scores table")
    d = df[df[score].notna() & df[sex].notna() & df[race].notna()].reset_index(drop=True)
    y = d[score].to_numpy(float)
    above = y > np.median(y)
    rng = np.random.default_rng(seed)
    perms = np.stack([rng.permutation(len(d)) for _ in range(n_sim)])
    names = {"gender": sex, "race": race}
    rows = []
    for name, cols in BREAKDOWNS:
        codes, cats, _ = _codes(d, [names[c] for c in cols])
        k = len(cats)
        size = np.bincount(codes, minlength=k)
        keep = size / len(d) >= min_share
        obs_rate = np.bincount(codes, weights=above, minlength=k) / size
        obs = float((obs_rate[keep] / obs_rate[keep].max()).min())
        cp = codes[perms]  # (n_sim, n): the permuted labels
        hit = np.stack([(above & (cp == j)).sum(axis=1) for j in range(k)], axis=1)
        rate = hit[:, keep] / size[keep]
        with np.errstate(invalid="ignore", divide="ignore"):
            low = (rate / rate.max(axis=1, keepdims=True)).min(axis=1)
        rows.append({"breakdown": name, "n": len(d), "observed_lowest_ratio": obs,
                     "flag_rate": float(np.mean(low < FOUR_FIFTHS)), "p_perm": float(np.mean(low <= obs + 1e-12)),
                     "null_median_lowest_ratio": float(np.median(low)), "n_sim": int(n_sim)})
    out = pd.DataFrame(rows)
    out["source"] = SOURCES["chance"]
    return out


def disagreements(decomps: Mapping[str, Mapping], ff: pd.DataFrame) -> pd.DataFrame:
    """Per attribute: the four-fifths verdict beside the decomposition, and the disagreement
    named by :func:`popresume.audit.metrics.compare_with_causal` ("" when they agree)."""
    from popresume.audit.metrics import compare_with_causal
    from popresume.causal import wide_row

    breakdown = {"gender": "sex", "race": "race"}
    outcome, results = [], []
    for attr, dec in decomps.items():
        t = ff[ff["breakdown"] == breakdown[attr]]
        outcome.append({"attribute": attr, "lowest_selection_ratio": float(t["impact_ratio"].min()),
                        "four_fifths_flag": bool((~t["four_fifths_ok"].astype(bool)).any())})
        results.append({"attribute": attr, **wide_row(dec["effects"], stats=("estimate", "ci_low", "ci_high"))})
    if not outcome:
        return pd.DataFrame(columns=["attribute", "four_fifths_flag", "disagreement"])
    m = compare_with_causal(pd.DataFrame(outcome), pd.DataFrame(results), method="none")
    return m[["attribute", "lowest_selection_ratio", "four_fifths_flag", *[f"sig_{e}" for e in PSE_NAMES],
              "disagreement"]]


# --------------------------------------------------------------------------- records
def effect_records(decomps: Mapping[str, Mapping]) -> list[dict]:
    """The ``effects`` list of ``report.json``: {attribute, effect, estimate, ci_low, ci_high, p_holm, truth}."""
    out = []
    for attr, dec in decomps.items():
        for e, r in dec["effects"].iterrows():
            out.append({"attribute": attr, "effect": e, "estimate": float(r["estimate"]), "se": float(r["se"]),
                        "ci_low": float(r["ci_low"]), "ci_high": float(r["ci_high"]), "p": float(r["p"]),
                        "p_holm": float(r["p_holm"]),
                        "truth": None if pd.isna(r["truth"]) else float(r["truth"])})
    return out


def precision_records(decomps: Mapping[str, Mapping]) -> list[dict]:
    out = []
    for attr, dec in decomps.items():
        for e, r in dec["precision"].iterrows():
            out.append({"attribute": attr, "effect": e, **{k: (int(v) if k in ("n", "n_needed") else float(v))
                                                           for k, v in r.items()}})
    return out


def finite(obj: Any) -> Any:
    """NaN / inf → None and numpy scalars → Python, recursively, so the JSON is standard."""
    if isinstance(obj, Mapping):
        return {str(k): finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite(v) for v in obj]
    if isinstance(obj, pd.DataFrame):
        return finite(obj.to_dict("records"))
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


# --------------------------------------------------------------------------- limitations
def limitations(*, verdict: str, reasons: Sequence[str], forced: bool, warnings: Mapping[str, Sequence[str]],
                synthetic_population: bool, synthetic_screener: bool, identity: Mapping[str, Any],
                n_failed: int, n: int, occupation: str, fmt: str) -> list[str]:
    """The report's limitations, each a sentence written from a fact of this run."""
    out = []
    who = f"{identity.get('screener_id')} ({identity.get('model')}, prompt {identity.get('prompt_hash')})"
    if verdict != "pass":
        why = "; ".join(reasons) if reasons else "see the card"
        out.append(f"The screener failed the validity gate ({why})"
                   + (" and the audit was forced (--force): " if forced else ": ")
                   + "its scores may not reflect the résumés, so its effects say little about how it reads them.")
    for attr, msgs in warnings.items():
        for m in msgs:
            out.append(f"Overlap warning for {attr}: {m}")
    if synthetic_population:
        out.append("The applicants are a synthetic population (popresume.population, PopResume §4.1 Assumption 1): "
                   "first names depend on gender and age only, surnames on race only, and the embedded P1 assumes "
                   "race independent of (gender, age) given education, and state independent of (gender, age, "
                   "education) given race, within the occupation; effects on a real applicant pool can differ "
                   "where these fail.")
    else:
        out.append("The applicants are the profiles the user supplied (--profiles); their representativeness is "
                   "theirs to establish.")
    if synthetic_screener:
        out.append("The screener is the synthetic one: its scores are a known function of the profile, so the "
                   "truth column is exact and the audit tests the estimator, not a model.")
    out.append(f"Every number holds for {who} only, on {fmt} résumés for the occupation {occupation!r}; a different "
               "model version, prompt, scoring mode or dialect is a different screener.")
    if n_failed:
        out.append(f"{n_failed} of {n} résumés got no score (listed under run.failures) and are left out of every "
                   "number; if failures depend on the résumé, the estimates are for the résumés that were scored.")
    out.append("The decomposition assumes no unmeasured confounding of X, the mediators and the score given Z "
               "(PopResume §3), and the Appendix C.4 grouping of the mediators.")
    return out
