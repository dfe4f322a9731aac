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
* :func:`plan` — expected durations of each part of the run, from counts and times measured
  in the probe (:func:`plan_line` prints them).

Every table names its source (``source`` column) so that the report can label each number.
"""

from __future__ import annotations

import math
import time
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy.stats import norm

from popresume import ll144
from popresume.audit.metrics import name_disagreements
from popresume.audit.report_model import LL144, Chance, Decomposition, FourFifths
from popresume.causal import capture_pse_warnings, case_label, default_roles, effects_from_psi, estimate_pse
from popresume.causal.nuisance import xgb_regressor
from popresume.causal.spec import DEFAULTS
from popresume.errors import require_columns
from popresume.schema import PSE_NAMES

#: Default target half-width (score points) for the precision table.
TARGET_HALF_WIDTH = 0.5
#: Fewest scored résumés per group of the audited attribute for the decomposition.
MIN_PER_GROUP = 20

SOURCES = {
    "effects": ("ours: cross-fitted DML (popresume.causal.estimate_pse), delete-a-group jackknife CI "
                "(10 refits of the nuisances, t on 9 df)"),
    "truth": "known: the synthetic screener's f on this population (SyntheticScreener.true_effects)",
    "precision": "ours: the reported CI's half-width, projected to other n as 1/√n",
    "ll144": ("NYC LL144 (6 RCNY §5-301(b)): scoring rate above the sample median; simultaneous 95% CIs "
              "(popresume.ll144)"),
    "four_fifths": "EEOC four-fifths rule (29 CFR 1607.4(D)) at the selection cut; simultaneous 95% CIs",
    "chance": ("ours: a tool that ignores sex and race at these group sizes (the labels' permutation null, "
               "hypergeometric; popresume.ll144.chance_of_flag)"),
    "validity": "ours: validity gate (popresume.screeners.validity.PASS_RULE)",
}


def sources(ci_method: str | None = None) -> dict[str, str]:
    """:data:`SOURCES`, with the effects' entry naming the interval the run used (``ci_method``
    of its :class:`~popresume.audit.report_model.Decomposition`; None: the default's).

    >>> sources("normal (influence function)")["effects"]
    'ours: cross-fitted DML (popresume.causal.estimate_pse), normal (influence function) CI'
    """
    out = dict(SOURCES)
    if ci_method is not None:
        out["effects"] = f"ours: cross-fitted DML (popresume.causal.estimate_pse), {ci_method} CI"
    return out


# --------------------------------------------------------------------------- planning
#: What the estimation and the report cost, in units of one yardstick fit
#: (:func:`yardstick_seconds`) at the audit's n, per audit size n: ``(n, estimation per
#: attribute with tuning, without tuning, report)``, the report being the outcome-level tables
#: and the page. Measured on the 2-core machine by ``benchmarks/bench_plan.py`` (its latest
#: output is ``benchmarks/results/plan_costs.csv``; a test checks that the two agree), one
#: run per size and setting on a busy machine: a ratio of two times taken in one process, so
#: it travels to a faster or busier machine as long as the load holds still. Between the sizes
#: the plan interpolates linearly; beyond them it keeps the end's ratio.
PLAN_COSTS: tuple[tuple[int, float, float, float], ...] = (
    (500, 775.5, 523.5, 16.0),
    (2000, 497.8, 483.9, 13.4),
)
#: The folds the estimation costs of :data:`PLAN_COSTS` were measured at (the cross-fitting's
#: share grows with the folds; the plan scales by folds / PLAN_FOLDS, an upper bound).
PLAN_FOLDS = 5


def yardstick_seconds(n: int, *, reps: int = 3, seed: int = 0) -> float:
    """Seconds of one fit of the estimator's XGBoost learner (100 trees of depth 3, one
    thread) on ``n`` rows of 16 features, the median of ``reps``: the unit of
    :data:`PLAN_COSTS`, timed in the probe so that the plan's estimation and report times
    carry this machine's speed and load."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(max(int(n), 10), 16))
    y = X[:, 0] + rng.normal(size=len(X))
    times = []
    for _ in range(max(int(reps), 1)):
        est = xgb_regressor(threads=1, n_estimators=100, max_depth=3)
        t = time.perf_counter()
        est.fit(X, y)
        times.append(time.perf_counter() - t)
    return float(np.median(times))


def plan_costs(n: int, *, tune: bool = True) -> tuple[float, float]:
    """(estimation per attribute, report) in yardstick fits at audit size ``n``
    (:data:`PLAN_COSTS`, interpolated in n, the ends kept beyond the measured sizes)."""
    sizes = np.array([row[0] for row in PLAN_COSTS], dtype=float)
    est = np.array([row[1] if tune else row[2] for row in PLAN_COSTS], dtype=float)
    rep = np.array([row[3] for row in PLAN_COSTS], dtype=float)
    return float(np.interp(n, sizes, est)), float(np.interp(n, sizes, rep))


def plan(probe: Mapping[str, Any], *, n: int, to_score: int, card_to_score: int, card_calls: int = 0,
         attributes: int = 2, tune: bool = True, folds: int = PLAN_FOLDS, leakage_items: int = 0,
         done_s: float = 0.0) -> dict[str, float]:
    """Expected seconds of each part of a one-screener audit, and of the whole run.

    Each part is a count times a time measured in this process: the résumés still to score
    (``card_to_score`` of the validity card, ``to_score`` of the audit's ``n``, cached ones
    not counted) times the probe's seconds per résumé, plus the probe's fixed cost of a
    scoring call for each call (the card's ``card_calls`` conditions left to score, the
    audit's one), the time the plan took to look up the cache (the scoring looks up the same
    keys again) and the card's own rendering; the estimation (per attribute) and the report
    (outcome-level tables and page) as :func:`plan_costs` fits of the yardstick
    (:func:`yardstick_seconds`, timed in the probe); ``done_s`` is what the run has spent
    already (start-up, population, résumés, probe).

    Parameters
    ----------
    probe : mapping
        ``seconds_per_resume`` (None when nothing is left to score and no probe ran),
        ``call_s`` (a scoring call's fixed cost), ``card_render_s`` (rendering the card's
        résumés), ``card_read_s`` and ``read_s`` (looking up the card's and the audit's
        résumés in the score cache) and ``yardstick_s``.
    n : int
        Résumés of the audit.
    to_score, card_to_score : int
        Résumés of the audit and of the card not in the score cache (and not scored by the probe).
    card_calls : int
        The card's conditions with résumés left to score (one scoring call each).
    attributes : int
        Attributes decomposed.
    tune, folds : bool, int
        The estimator's settings.
    leakage_items : int
        Leakage prompts to ask (0 without ``--leakage``).
    done_s : float
        Seconds the run has spent before the plan.

    Returns
    -------
    dict
        ``seconds_per_resume``, ``done_s``, ``validity_s``, ``scoring_s``, ``estimation_s``,
        ``report_s``, ``leakage_s``, ``total_s`` (their sum), ``to_score``, ``card_to_score``.

    Examples
    --------
    >>> p = plan({"seconds_per_resume": 0.02, "card_render_s": 0.5, "yardstick_s": 0.1}, n=2000, to_score=1500,
    ...          card_to_score=0, done_s=4.0)
    >>> p["validity_s"], p["scoring_s"]  # the card is cached: its rendering only
    (0.5, 30.0)
    >>> round(p["total_s"] - (4.0 + 0.5 + 30.0 + p["estimation_s"] + p["report_s"]), 9)
    0.0
    """
    spr = probe.get("seconds_per_resume")
    if spr is None:
        spr = 0.0
        if to_score or card_to_score or leakage_items:
            raise ValueError("the plan needs the probe's seconds per résumé: résumés are left to score")
    measured = {k: probe.get(k) or 0.0 for k in ("call_s", "card_render_s", "card_read_s", "read_s", "yardstick_s")}
    for name, v in (("seconds_per_resume", spr), *measured.items(), ("done_s", done_s)):
        if not (isinstance(v, (int, float)) and math.isfinite(v) and v >= 0):
            raise ValueError(f"plan: {name} must be a number >= 0, got {v!r}")
    call = measured["call_s"]
    for name, v in (("n", n), ("to_score", to_score), ("card_to_score", card_to_score), ("card_calls", card_calls),
                    ("attributes", attributes), ("leakage_items", leakage_items)):
        if int(v) != v or v < 0:
            raise ValueError(f"plan: {name} must be a whole number >= 0, got {v!r}")
    est_fits, report_fits = plan_costs(n, tune=tune)
    fit = measured["yardstick_s"]
    parts = {"validity_s": measured["card_render_s"] + measured["card_read_s"] + call * card_calls
             + spr * card_to_score,
             "scoring_s": measured["read_s"] + (call if to_score else 0.0) + spr * to_score,
             "estimation_s": attributes * est_fits * fit * max(folds, 1) / PLAN_FOLDS,
             "report_s": report_fits * fit,
             "leakage_s": spr * leakage_items}
    total = float(done_s) + sum(parts.values())
    return {"seconds_per_resume": float(spr), "done_s": float(done_s), **{k: float(v) for k, v in parts.items()},
            "total_s": total, "to_score": int(to_score), "card_to_score": int(card_to_score)}


def plan_line(p: Mapping[str, Any], *, n: int, card_items: int) -> str:
    """The plan as the audit prints it: each part, what the score cache spares, the whole run
    (``n`` audit résumés, ``card_items`` résumés of the card).

    Examples
    --------
    >>> p = plan({"seconds_per_resume": 0.02, "card_render_s": 0.5, "yardstick_s": 0.1}, n=2000, to_score=0,
    ...          card_to_score=0, done_s=4.0)
    >>> plan_line(p, n=2000, card_items=260)  # doctest: +ELLIPSIS
    'expected: validity card 0 s (260 of 260 résumés cached), scoring 0 s (2,000 of 2,000 résumés cached), ...'
    """
    def cached(left: int, total: int) -> str:
        return "" if left >= total else f" ({total - left:,} of {total:,} résumés cached)"

    parts = [f"validity card {p['validity_s']:.0f} s{cached(p['card_to_score'], card_items)}",
             f"scoring {p['scoring_s']:.0f} s{cached(p['to_score'], n)}",
             f"estimation {p['estimation_s']:.0f} s", f"report {p['report_s']:.0f} s"]
    if p.get("leakage_s"):
        parts.append(f"leakage {p['leakage_s']:.0f} s")
    return (f"expected: {', '.join(parts)}; whole run {p['total_s']:.0f} s "
            f"(of which {p['done_s']:.0f} s already spent)")


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
              tune: bool = True, variance: str = DEFAULTS.variance, truth: pd.DataFrame | None = None,
              target: float = TARGET_HALF_WIDTH) -> Decomposition:
    """The decomposition of one attribute on ``data`` (profiles with groups and ``score``).

    Returns a :class:`popresume.audit.report_model.Decomposition`: the effects indexed
    TE..RIE with estimate, se, ci_low, ci_high, the estimator's own p-values (``p``, normal,
    from the influence function, and ``p_holm`` over the five effects), ``significant`` (the
    paper's rule: the CI excludes 0), ``truth`` (NaN unless ``truth`` — a table indexed by
    effect with column ``true`` — is given), ``estimable`` and ``reason``; the paper-rule
    cases (None where a label would rest on an effect that is not estimable), the overlap,
    the estimator's warnings and the precision table. ``variance`` is the SE of the intervals
    (:class:`popresume.causal.EstimatorSpec`'s).
    """
    roles = default_roles(attribute)
    check_groups(data, attribute, roles)
    with capture_pse_warnings() as caught:
        table, est = estimate_pse(data, **roles, y="score", folds=folds, n_boot=n_boot, seed=seed, tune=tune,
                                  variance=variance, missing="drop", return_estimator=True, threads=1)
    res = est.result_
    holm = res.p_adjust("holm")
    out = table[["estimate", "se", "ci_low", "ci_high", "significant"]].copy()
    out["p"] = holm["p"].to_numpy()
    out["p_holm"] = holm["p_adj"].to_numpy()
    out["truth"] = (truth["true"].reindex(out.index).to_numpy(float) if truth is not None
                    else np.full(len(out), np.nan))
    out["estimable"] = table["estimable"].astype(bool).to_numpy()
    out["reason"] = table["reason"].fillna("").astype(str).to_numpy()
    precision = precision_table(res, target=target)
    # the n-needed projection assumes a half-width that shrinks like 1/√n, which the harness
    # shows holds only where the effect is identified at this overlap (docs/DESIGN.md §3, §7)
    precision.loc[~res.projection_valid().reindex(precision.index).astype(bool), "n_needed"] = np.nan
    return Decomposition(attribute=attribute, x=roles["x"], x0=roles["x0"], x1=roles["x1"], effects=out,
                         cases=case_label(table, "paper"), min_ess=res.overlap["min_ess"],
                         clipped_share=res.overlap["clipped_share"], warnings=sorted(set(caught)), n=int(res.n),
                         ci_method=str(table["ci_method"].iloc[0]), precision=precision, clip=est.clip)


def precision_table(result, *, target: float = TARGET_HALF_WIDTH, level: float = 0.95) -> pd.DataFrame:
    """Per effect: the CI half-width achieved and the n needed for a half-width of ``target``.

    ``result`` is a :class:`popresume.causal.PSEResult` (or anything with ``phi`` (n × 5
    influence values of the counterfactual means), ``n`` and ``confint()``). ``half_width`` is
    the reported CI's (the jackknife's by default), and the n giving ``target`` is
    ⌈n·(half_width/target)²⌉: the same interval at a size where it has shrunk like 1/√n. The
    effect's influence values are the same linear combination of φ as the effect is of the
    means; with their SD s the influence SE is s/√n (``se``) and its normal half-width z·s/√n
    (``half_width_normal``), which the projection equals when the CI is that normal one.
    """
    if not target > 0:
        raise ValueError(f"target half-width must be > 0, got {target!r}")
    phi = effects_from_psi(np.asarray(result.phi, dtype=float))
    n = phi.shape[0]
    sd = phi.std(axis=0, ddof=1)
    z = float(norm.ppf(0.5 + level / 2))
    ci = result.confint(level)
    half = (ci["ci_high"].to_numpy() - ci["ci_low"].to_numpy()) / 2
    out = pd.DataFrame({
        "sd_phi": sd,
        "se": sd / math.sqrt(n),
        "half_width": half,
        "half_width_normal": z * sd / math.sqrt(n),
        "target": float(target),
        "n": n,
        "n_needed": np.ceil(n * (half / target) ** 2 - 1e-9).astype(int),
    }, index=pd.Index(list(PSE_NAMES), name="effect"))
    return out


# --------------------------------------------------------------------------- outcome level
# Every rate, ratio, interval and chance below is popresume.ll144's (the one implementation of
# both rules, docs/DESIGN.md §7); these functions only name its columns as report.json does.
LL144_COLUMNS = {"rate": "scoring_rate", "ratio": "impact_ratio"}


def ll144_table(df: pd.DataFrame, *, score: str = "score", sex: str = "gender", race: str = "race",
                rule: str = "median_split", level: float = 0.95) -> pd.DataFrame:
    """LL144 rates and impact ratios by sex, race and sex × race (:func:`popresume.ll144.breakdown_table`).

    ``rule="median_split"`` (a scoring tool): the scoring rate, the share above the median of
    every scored row; ``"selection_cut"`` with a boolean ``score`` (a selection tool): the
    share selected. Each breakdown is rated on the rows whose categories it needs (a row with
    a known sex and an unknown race counts for sex); rows with an unknown category are one
    ``unknown`` row per breakdown (``n``, ``excluded`` True, no ratio). ``rate_ci_*`` are
    Clopper–Pearson intervals and ``ci_*`` the impact ratio's, simultaneous over the
    categories (they hold near parity, where the reference category is itself uncertain).
    """
    require_columns(df, [score, sex, race], "scores table")
    d = df[df[score].notna()].reset_index(drop=True)
    t = ll144.breakdown_table(d, score=score, sex=sex, race=race, rule=rule, level=level)
    t = t.rename(columns=LL144_COLUMNS)
    t["excluded"] = t["under_2pct"].astype(bool) | ~t["known"].astype(bool)
    out = t[["breakdown", "category", "n", "share", "scoring_rate", "rate_ci_low", "rate_ci_high", "impact_ratio",
             "ci_low", "ci_high", "excluded", "selected", "flag"]].copy()
    out["source"] = SOURCES["ll144"]
    return out


def four_fifths_table(df: pd.DataFrame, *, score: str = "score", sex: str = "gender", race: str = "race",
                      select_top: float = 0.25, level: float = 0.95) -> pd.DataFrame:
    """Selection rates, impact ratios (with simultaneous CIs) and the four-fifths flag per sex
    and race category when the top ``select_top`` of the scores is selected, or, for a
    boolean ``score``, as recorded (:func:`popresume.ll144.breakdown_table`, every known
    category in the reference: the four-fifths rule has no 2% exclusion)."""
    require_columns(df, [score, sex, race], "scores table")
    d = df[df[score].notna()].reset_index(drop=True)
    t = ll144.breakdown_table(d, score=score, sex=sex, race=race, rule="selection_cut", select_top=select_top,
                              level=level, min_share=0.0)
    t = t[t["known"].astype(bool) & t["breakdown"].isin(["sex", "race"])]
    t = t.rename(columns={"rate": "selection_rate", "ratio": "impact_ratio", "cut": "threshold"})
    t["four_fifths_ok"] = ~t["flag"].astype(bool)
    out = t[["breakdown", "category", "n", "selected", "selection_rate", "impact_ratio", "ci_low", "ci_high",
             "four_fifths_ok", "threshold"]].reset_index(drop=True)
    out["select_top"] = float("nan") if pd.api.types.is_bool_dtype(d[score]) else float(select_top)
    out["source"] = SOURCES["four_fifths"]
    return out


def lowest_ratio(ll144: pd.DataFrame, breakdown: str) -> float:
    """The lowest impact ratio among the categories of ``breakdown`` that are not excluded."""
    t = ll144[(ll144["breakdown"] == breakdown) & ~ll144["excluded"].astype(bool)]
    return float(t["impact_ratio"].min()) if len(t) else float("nan")


#: The breakdowns each selection rule is printed for: the LL144 table (median split) rates
#: sex, race and their intersection; the four-fifths table (selection cut) sex and race.
RULE_BREAKDOWNS = {"median_split": ("sex", "race", "sex × race"), "selection_cut": ("sex", "race")}


def chance_baseline(df: pd.DataFrame, *, rule: str = "median_split", score: str = "score", sex: str = "gender",
                    race: str = "race", select_top: float = 0.25, n_sim: int = 1000, seed: int = 0) -> pd.DataFrame:
    """How often a tool that ignores sex and race would be flagged at these group sizes, under ``rule``
    (:func:`popresume.ll144.chance_table`).

    ``rule="median_split"`` is the LL144 table's (categories under 2% out of the reference);
    ``rule="selection_cut"`` the four-fifths table's (every category in it). Per breakdown
    printed under that rule: the observed lowest impact ratio, ``flag_rate`` (the probability
    that the lowest ratio of a tool with no disparity falls under 0.8; exact for two
    categories, else from ``n_sim`` draws), ``p_perm`` (the probability that it is at most
    the observed one), each with its text (``*_text``: a bound such as "< 0.001" and only the
    digits the draws support).
    """
    if rule not in RULE_BREAKDOWNS:
        raise ValueError(f"rule must be one of {sorted(RULE_BREAKDOWNS)}, got {rule!r}")
    require_columns(df, [score, sex, race], "scores table")
    d = df[df[score].notna()].reset_index(drop=True)
    if rule == "median_split" and not (d[score] > d[score].median()).any():
        # every score the same: no category scores above the median, no ratio, no chance to compute
        return pd.DataFrame([{"rule": rule, "breakdown": b, "n": len(d), "observed_lowest_ratio": np.nan,
                              "flag_rate": np.nan, "flag_rate_text": "n/a", "p_perm": np.nan, "p_perm_text": "n/a",
                              "null_median_lowest_ratio": np.nan, "n_sim": 0, "method": "none: no row selected",
                              "source": SOURCES["chance"]} for b in RULE_BREAKDOWNS[rule]])
    t = ll144.chance_table(d, score=score, sex=sex, race=race, rules=(rule,), select_top=select_top,
                           min_share=ll144.SMALL_CATEGORY_SHARE if rule == "median_split" else 0.0,
                           n_sim=n_sim, seed=seed)
    t = t[t["breakdown"].isin(RULE_BREAKDOWNS[rule])]
    out = t[["rule", "breakdown", "n", "observed_lowest_ratio", "flag_rate", "flag_rate_text", "p_perm",
             "p_perm_text", "null_median_lowest_ratio", "n_sim", "method"]].reset_index(drop=True)
    out["source"] = SOURCES["chance"]
    return out


def outcome_level(data: pd.DataFrame, *, selection: bool = False, select_top: float = 0.25, n_sim: int = 1000,
                  seed: int = 0) -> tuple[LL144, FourFifths, Chance]:
    """The report's outcome-level sections: the LL144 table, the four-fifths table and the
    chance of a flag under each rule the report prints.

    A scoring tool (``score``): LL144's scoring rate (median split), the four-fifths table at
    the top ``select_top``, chance under both rules. A selection tool (``selection``: a 0/1
    ``score``): both tables hold the selection rate as recorded, and chance is that rule's.
    """
    if selection:
        d = data.assign(score=data["score"].to_numpy(float) >= 0.5)
        chance = chance_baseline(d, rule="selection_cut", n_sim=n_sim, seed=seed)
        return (LL144(ll144_table(d, rule="selection_cut"), rule="selection_cut"), FourFifths(four_fifths_table(d)),
                Chance(chance))
    chance = pd.concat([chance_baseline(data, rule=r, select_top=select_top, n_sim=n_sim, seed=seed)
                        for r in RULE_BREAKDOWNS], ignore_index=True)
    return LL144(ll144_table(data)), FourFifths(four_fifths_table(data, select_top=select_top)), Chance(chance)


def disagreements(decomps: Mapping[str, Decomposition], ff: pd.DataFrame) -> pd.DataFrame:
    """Per attribute: the four-fifths verdict beside the decomposition, and the disagreement
    named by :func:`popresume.audit.metrics.name_disagreements` ("" when they agree).

    Significance is the decomposition's own (the paper's rule, the CI excludes 0), read from
    the effects table: no p-value is re-derived from a printed CI. An effect that is not
    estimable counts as not significant.
    """
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
