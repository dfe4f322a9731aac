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

from popresume.audit.report_model import LL144, Chance, Decomposition, FourFifths
from popresume.errors import require_columns
from popresume.schema import PSE_NAMES

#: Default target half-width (score points) for the precision table.
TARGET_HALF_WIDTH = 0.5
#: Fewest scored résumés per group of the audited attribute for the decomposition.
MIN_PER_GROUP = 20
#: The four-fifths threshold (29 CFR 1607.4(D)).
FOUR_FIFTHS = 0.8

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
              tune: bool = True, truth: pd.DataFrame | None = None, target: float = TARGET_HALF_WIDTH
              ) -> Decomposition:
    """The decomposition of one attribute on ``data`` (profiles with groups and ``score``).

    Returns a :class:`popresume.audit.report_model.Decomposition`: the effects indexed
    TE..RIE with estimate, se, ci_low, ci_high, the estimator's own p-values (``p``, normal,
    from the influence function, and ``p_holm`` over the five effects), ``significant`` (the
    paper's rule: the CI excludes 0), ``truth`` (NaN unless ``truth`` — a table indexed by
    effect with column ``true`` — is given), ``estimable`` and ``reason``; the paper-rule
    cases (None where a label would rest on an effect that is not estimable), the overlap,
    the estimator's warnings and the precision table.
    """
    from popresume.causal import capture_pse_warnings, default_roles, estimate_pse

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
    out["estimable"], out["reason"] = estimability(table)
    precision = precision_table(res, target=target)
    # the n-needed projection assumes a half-width that shrinks like 1/√n, which holds only
    # where the effect is identified at this overlap (docs/DESIGN.md §7)
    precision.loc[~out["estimable"].reindex(precision.index).astype(bool), "n_needed"] = np.nan
    return Decomposition(attribute=attribute, x=roles["x"], x0=roles["x0"], x1=roles["x1"], effects=out,
                         cases=case_label(table, out["estimable"]), min_ess=res.overlap["min_ess"],
                         clipped_share=res.overlap["clipped_share"], warnings=sorted(set(caught)), n=int(res.n),
                         ci_method=str(table["ci_method"].iloc[0]), precision=precision)


def estimability(table: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Each effect's ``estimable`` verdict and one-line ``reason`` from the estimator's table
    (:attr:`popresume.causal.PSEResult.summary`)."""
    if "estimable" in table.columns:
        return table["estimable"].astype(bool).to_numpy(), table["reason"].fillna("").astype(str).to_numpy()
    return np.ones(len(table), dtype=bool), np.full(len(table), "", dtype=object)


def case_label(table: pd.DataFrame, estimable) -> str | None:
    """The paper-rule case label of one audit, or None when it would rest on an effect that
    is not estimable (every label of §5.2 reads NDE, NIE, BIE and RIE, so any one of them)."""
    from popresume.causal import classify_cases

    if not np.asarray(estimable, dtype=bool).all():
        return None
    return str(classify_cases(table, "paper").iloc[0])


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


def _quantiles(draws: np.ndarray, a: float) -> tuple[float, float]:
    """The (a, 1 − a) percentile interval of the finite draws; NaN when there is none."""
    ok = draws[np.isfinite(draws)]
    return tuple(np.quantile(ok, [a, 1 - a])) if len(ok) else (np.nan, np.nan)


def ll144_table(df: pd.DataFrame, *, score: str = "score", sex: str = "gender", race: str = "race",
                min_share: float = 0.02, n_boot: int = 500, level: float = 0.95, seed: int = 0,
                threshold: float | None = None) -> pd.DataFrame:
    """LL144 rates and impact ratios by sex, race and sex × race, with bootstrap CIs.

    A scoring tool (``threshold`` None): the scoring rate, the share above the median of every
    scored row (one median for the whole sample), as
    :func:`popresume.audit.metrics.ll144_impact_ratios`. A selection tool: the share at or
    above ``threshold`` (0.5 for a 0/1 "selected" outcome). Each breakdown is rated on the
    rows whose categories it needs (a row with a known sex and an unknown race counts for
    sex). ``rate_ci_*`` and ``ci_*`` (the impact ratio's) are percentile intervals over
    ``n_boot`` resamples of the same rows (the median recomputed each time). Rows with an
    unknown category are one ``unknown`` row per breakdown (``n``, ``excluded`` True, no
    ratio), as LL144 audits report them.
    """
    require_columns(df, [score, sex, race], "scores table")
    d = df[df[score].notna()].reset_index(drop=True)
    names = {"gender": sex, "race": race}
    rng = np.random.default_rng(seed)
    y = d[score].to_numpy(float)
    n = len(d)
    idx = rng.integers(0, n, size=(n_boot, n))
    yb = y[idx]
    if threshold is None:
        hit_all = y > np.median(y)
        above = yb > np.median(yb, axis=1, keepdims=True)
    else:
        hit_all, above = y >= threshold, yb >= threshold
    a = (1 - level) / 2
    rows = []
    for name, cols in BREAKDOWNS:
        cols = [names[c] for c in cols]
        codes, cats, known = _codes(d, cols)
        k = len(cats)
        size = np.bincount(codes[known], minlength=k)
        excluded = size / n < min_share
        with np.errstate(invalid="ignore", divide="ignore"):  # no category selected: no ratio
            rate0 = np.bincount(codes[known], weights=hit_all[known], minlength=k) / size
            ratio0 = rate0 / rate0[~excluded].max()
        cb = codes[idx]
        # per draw and category: count and number selected (known rows only)
        cnt = np.stack([(cb == j).sum(axis=1) for j in range(k)], axis=1)
        hit = np.stack([((cb == j) & above).sum(axis=1) for j in range(k)], axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            rate = hit / cnt
            share = cnt / n  # of the whole sample, as in the point estimate
            ref = np.nanmax(np.where(share >= min_share, rate, np.nan), axis=1, keepdims=True)
            ratio = rate / ref
        for j, c in enumerate(cats):
            rl, rh = _quantiles(rate[:, j], a)
            il, ih = _quantiles(ratio[:, j], a)
            rows.append({"breakdown": name, "category": c, "n": int(size[j]), "share": float(size[j] / n),
                         "scoring_rate": float(rate0[j]), "rate_ci_low": float(rl), "rate_ci_high": float(rh),
                         "impact_ratio": float(ratio0[j]), "ci_low": float(il), "ci_high": float(ih),
                         "excluded": bool(excluded[j])})
        n_unknown = int((~known).sum())
        if n_unknown:
            rows.append({"breakdown": name, "category": "unknown", "n": n_unknown, "share": n_unknown / n,
                         "scoring_rate": float(np.mean(hit_all[~known])), "rate_ci_low": np.nan,
                         "rate_ci_high": np.nan, "impact_ratio": np.nan, "ci_low": np.nan, "ci_high": np.nan,
                         "excluded": True})
    out = pd.DataFrame(rows)
    out["source"] = SOURCES["ll144"]
    return out


def four_fifths_table(df: pd.DataFrame, *, score: str = "score", columns: Mapping[str, str] | None = None,
                      select_top: float = 0.25, threshold: float | None = None) -> pd.DataFrame:
    """Selection rates, impact ratios and the four-fifths flag per group when the top
    ``select_top`` share is selected, or every row at or above ``threshold``
    (:func:`popresume.audit.metrics.selection_rates`)."""
    from popresume.audit.metrics import selection_rates

    columns = dict(columns or {"sex": "gender", "race": "race"})
    d = df[df[score].notna()]
    parts = []
    for name, col in columns.items():
        t = selection_rates(d[d[col].notna()], col, score=score, select_top=select_top, threshold=threshold)
        t = t.rename(columns={col: "category"})
        t["category"] = t["category"].astype(str)
        t.insert(0, "breakdown", name)
        parts.append(t)
    out = pd.concat(parts, ignore_index=True)
    out["select_top"] = float(select_top) if threshold is None else float("nan")
    out["source"] = SOURCES["four_fifths"]
    return out


def lowest_ratio(ll144: pd.DataFrame, breakdown: str) -> float:
    """The lowest impact ratio among the categories of ``breakdown`` that are not excluded."""
    t = ll144[(ll144["breakdown"] == breakdown) & ~ll144["excluded"].astype(bool)]
    return float(t["impact_ratio"].min()) if len(t) else float("nan")


#: The breakdowns each selection rule is printed for: the LL144 table (median split) rates
#: sex, race and their intersection; the four-fifths table (selection cut) sex and race.
RULE_BREAKDOWNS = {"median_split": BREAKDOWNS, "selection_cut": BREAKDOWNS[:2]}


def chance_baseline(df: pd.DataFrame, *, rule: str = "median_split", score: str = "score", sex: str = "gender",
                    race: str = "race", min_share: float = 0.02, select_top: float = 0.25,
                    threshold: float | None = None, n_sim: int = 1000, seed: int = 0) -> pd.DataFrame:
    """How often a screener that ignores sex and race would be flagged at this n, under ``rule``.

    ``rule="median_split"`` is the LL144 table's (:func:`ll144_table`: selected = above the
    median of every scored row, categories under ``min_share`` excluded from the reference,
    unknown categories counted apart); ``rule="selection_cut"`` is the four-fifths table's
    (:func:`four_fifths_table`: the top ``select_top`` of the rows whose category is known, or
    every row at or above ``threshold``, 0.5 for a 0/1 "selected" outcome).
    The observed selections are kept and the category labels permuted over the same rows
    ``n_sim`` times, which keeps every group's size and breaks any link between group and
    score. Per breakdown: the observed lowest impact ratio, ``flag_rate`` (the share of
    permutations whose lowest ratio is under 0.8: a screener that ignores the attribute is
    flagged this often) and ``p_perm`` (the share at most the observed one: a permutation
    p-value, with resolution 1/``n_sim``; 0 reads "< 1/n_sim").
    """
    if rule not in RULE_BREAKDOWNS:
        raise ValueError(f"rule must be one of {sorted(RULE_BREAKDOWNS)}, got {rule!r}")
    require_columns(df, [score, sex, race], "scores table")
    d = df[df[score].notna()].reset_index(drop=True)
    y_all = d[score].to_numpy(float)
    rng = np.random.default_rng(seed)
    names = {"gender": sex, "race": race}
    rows, perms = [], None
    for name, cols in RULE_BREAKDOWNS[rule]:
        cols = [names[c] for c in cols]
        if rule == "median_split":
            sub, y = d, y_all
            selected = y > np.median(y)
        else:
            sub = d[d[cols].notna().all(axis=1)].reset_index(drop=True)
            y = sub[score].to_numpy(float)
            selected = y >= (np.quantile(y, 1 - select_top) if threshold is None else threshold)
        codes, cats, _ = _codes(sub, cols)
        k = len(cats)
        size = np.bincount(codes[codes >= 0], minlength=k)
        keep = size / len(sub) >= min_share if rule == "median_split" else size > 0
        with np.errstate(invalid="ignore", divide="ignore"):
            obs_rate = np.bincount(codes[codes >= 0], weights=selected[codes >= 0], minlength=k) / size
            obs = float((obs_rate[keep] / obs_rate[keep].max()).min())
        if rule == "selection_cut" or perms is None:  # the median split permutes the same rows every time
            perms = np.stack([rng.permutation(len(sub)) for _ in range(n_sim)])
        cp = codes[perms]  # (n_sim, n): the permuted labels
        hit = np.stack([(selected & (cp == j)).sum(axis=1) for j in range(k)], axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            rate = hit[:, keep] / size[keep]
            low = (rate / rate.max(axis=1, keepdims=True)).min(axis=1)
        rows.append({"rule": rule, "breakdown": name, "n": len(sub), "observed_lowest_ratio": obs,
                     "flag_rate": float(np.mean(low < FOUR_FIFTHS)), "p_perm": float(np.mean(low <= obs + 1e-12)),
                     "null_median_lowest_ratio": float(np.median(low)), "n_sim": int(n_sim)})
    out = pd.DataFrame(rows)
    out["source"] = SOURCES["chance"]
    return out


def outcome_level(data: pd.DataFrame, *, selection: bool = False, select_top: float = 0.25, n_boot: int = 500,
                  n_sim: int = 1000, seed: int = 0) -> tuple[LL144, FourFifths, Chance]:
    """The report's outcome-level sections: the LL144 table, the four-fifths table and the
    chance of a flag under each rule the report prints.

    A scoring tool (``score``): LL144's scoring rate (median split), the four-fifths table at
    the top ``select_top``, chance under both rules. A selection tool (``selection``: a 0/1
    ``score``): both tables hold the selection rate and chance is computed for that one rule.
    """
    if selection:
        ll = ll144_table(data, n_boot=n_boot, seed=seed, threshold=0.5)
        ff = four_fifths_table(data, threshold=0.5)
        chance = chance_baseline(data, rule="selection_cut", threshold=0.5, n_sim=n_sim, seed=seed)
        return LL144(ll, rule="selection_cut"), FourFifths(ff), Chance(chance)
    ll = ll144_table(data, n_boot=n_boot, seed=seed)
    ff = four_fifths_table(data, select_top=select_top)
    chance = pd.concat([chance_baseline(data, rule=r, select_top=select_top, n_sim=n_sim, seed=seed)
                        for r in RULE_BREAKDOWNS], ignore_index=True)
    return LL144(ll), FourFifths(ff), Chance(chance)


def disagreements(decomps: Mapping[str, Decomposition], ff: pd.DataFrame) -> pd.DataFrame:
    """Per attribute: the four-fifths verdict beside the decomposition, and the disagreement
    named by :func:`popresume.audit.metrics.name_disagreements` ("" when they agree).

    Significance is the decomposition's own (the paper's rule, the CI excludes 0), read from
    the effects table: no p-value is re-derived from a printed CI. An effect that is not
    estimable counts as not significant.
    """
    from popresume.audit.metrics import name_disagreements

    breakdown = {"gender": "sex", "race": "race"}
    rows = []
    for attr, dec in decomps.items():
        t = ff[ff["breakdown"] == breakdown[attr]]
        sig = set(dec.significant())
        rows.append({"attribute": attr, "lowest_selection_ratio": float(t["impact_ratio"].min()),
                     "four_fifths_flag": bool((~t["four_fifths_ok"].astype(bool)).any()),
                     **{f"sig_{e}": e in sig for e in PSE_NAMES}})
    cols = ["attribute", "lowest_selection_ratio", "four_fifths_flag", *[f"sig_{e}" for e in PSE_NAMES],
            "disagreement"]
    if not rows:
        return pd.DataFrame(columns=cols)
    m = name_disagreements(pd.DataFrame(rows))
    return m[cols]


# --------------------------------------------------------------------------- limitations
def limitations(*, verdict: str, reasons: Sequence[str], forced: bool, decompositions: Mapping[str, Decomposition],
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
    for dec in decompositions.values():
        if dec.overlap_sentence():
            out.append(dec.overlap_sentence())
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
