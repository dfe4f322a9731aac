"""The same analyses on every record of real decisions (docs/DESIGN.md §5).

Every function takes the tidy table of :mod:`popresume.decisions.schema` (one or more
sources) and returns a DataFrame; one implementation each:

* :func:`validity` – the job-fit contrast (own minus mismatched posting) and the
  qualification contrast (résumé quality levels) per model, with CIs clustered on the
  design's résumés, and the project's validity gate (:mod:`popresume.screeners.validity`)
  applied as far as the design allows (:func:`gate`); :func:`validity_from_columns` runs the
  same two contrasts on any file with a fit and a quality column (an auditor's own);
* :func:`group_effects` – group and name effects within résumé × job cells, CIs clustered by
  name, with Holm and Benjamini–Hochberg over each source's family;
* :func:`noise_floor` – run-to-run spread per model (:func:`rerun_spread`, also for an
  auditor's own file) and the placebo edits' effects;
  :func:`name_vs_placebo` places each name effect against the placebo distribution;
* :func:`drift` – two models on the same crossed design (GPT-3.5 against GPT-5.1);
* :func:`competence` – matched vs mismatched résumé and keyword stuffing (Webster);
* :func:`ll144_published` / :func:`ll144_summary` – the published LL144 audits recomputed
  from their own counts, with the chance that a tool with no disparity is flagged.

Regressions are :mod:`statsmodels` OLS on the outcome and the contrast's indicator demeaned
within cells (the cell fixed effects absorbed: the same slope as with cell dummies, by
Frisch–Waugh–Lovell) with ``cov_type="cluster"`` and t intervals on G − 1 degrees of freedom
(statsmodels' cluster-robust inference with ``use_t=True``); a contrast constant within
clusters (Derbyshire's strong − weak résumés, Webster's own − mismatched cells) on
min(G1, G0) − 1 (``arm_df``). Their
coverage is measured in :mod:`popresume.coverage.decisions`. The small-sample factor
(N − 1)/(N − K) counts the slope only, not the absorbed cells; with N in the hundreds or
thousands and G clusters, G/(G − 1) dominates it.
"""

from __future__ import annotations

import zlib

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.regression.linear_model import OLS

from popresume.decisions.schema import COLUMNS, LL144_COLUMNS, NOT_CARDED
from popresume.decisions.sources import (  # noqa: F401 (re-exported: the harness and its tests read them here)
    CALIBRATION,
    DERBYSHIRE_SETTING,
    DERBYSHIRE_WEAK,
    WEBSTER_SETTING,
    derbyshire_design,
    record,
)
from popresume.errors import require_columns
from popresume.ll144 import (
    CHANCE_COLUMN,
    FOUR_FIFTHS,
    PUBLISHED_STATUSES,
    PUBLISHED_TOLERANCE,
    chance_below,
    chance_below_exact,
    format_probability,
    published_ratios,
    single_reference,
)
from popresume.multiplicity import benjamini_hochberg, holm
from popresume.paths import data_path
from popresume.screeners.validity import MIN_DISTINCT, MIN_PARSE_RATE, MIN_SD

LEVEL = 0.95
#: Groups of at most this many names get the leave-one-name-out check (with more, one name
#: is a small share of the group; Bloomberg has 100 per group).
JACKKNIFE_MAX_NAMES = 40
VALIDITY_COLUMNS = ["source", "model", "contrast", "estimate", "ci_low", "ci_high", "n", "verdict", "calibrated",
                    "calibration"]
GROUP_COLUMNS = ["source", "model", "attribute", "group", "reference", "estimate", "ci_low", "ci_high", "p", "p_holm"]
NOISE_COLUMNS = ["source", "model", "kind", "mean_abs_change", "sd", "n"]
#: The columns of ll144_published.csv: the key, the printed numbers, the engine's ratios
#: (popresume.ll144.published_ratios) and the chance test.
LL144_OUT_COLUMNS = ["audit_id", "rate_definition", "characteristic", "category", "n", "selected", "printed_rate",
                     "published_ratio", "ratio", "ratio_2pct", "own_comparator", "ratio_own", "under_2pct", "status",
                     "counts_reconstructed", CHANCE_COLUMN, "p_published", "p_recomputed", "p_draws", "auditor",
                     "tool_vendor"]


# -- the one regression ----------------------------------------------------------------------
def clustered_effect(df: pd.DataFrame, term: str, *, cells: str | None, cluster: str,
                     level: float = LEVEL, arm_df: bool = False) -> dict:
    """OLS of ``outcome`` on the 0/1 column ``term`` with fixed effects of ``cells`` (None:
    an intercept only), CI clustered on ``cluster``. Returns estimate, ci_low, ci_high, p, se,
    n, n_clusters; NaN interval and p (with ``reason``) when fewer than two clusters or no
    variation in ``term`` within cells.

    ``arm_df``: for a ``term`` constant within each cluster (a cluster-level contrast such as
    Derbyshire's strong − weak résumés: 6 clusters against 3), the t interval and p use
    min(G1, G0) − 1 degrees of freedom instead of G − 1 (the clusters of the smaller arm
    carry the variance; Cameron & Miller 2015, §VI.D). Measured in
    :mod:`popresume.coverage.decisions`: with G − 1 = 8 the quality interval covered 0.87."""
    d = df[list(dict.fromkeys(["outcome", term, cluster] + ([cells] if cells else [])))].dropna()
    out = {"estimate": np.nan, "ci_low": np.nan, "ci_high": np.nan, "p": np.nan, "se": np.nan,
           "n": int(len(d)), "n_clusters": int(d[cluster].nunique()), "reason": ""}
    if len(d) == 0 or d[term].nunique() < 2:
        out["reason"] = f"no variation in {term}"
        return out
    y = d["outcome"].to_numpy(float)
    x = d[term].to_numpy(float)
    if cells is None:
        y, x = y - y.mean(), x - x.mean()
    else:
        g = d[cells].astype(str).to_numpy()
        y = y - pd.Series(y).groupby(g).transform("mean").to_numpy()
        x = x - pd.Series(x).groupby(g).transform("mean").to_numpy()
    if np.ptp(x) < 1e-12:
        out["reason"] = f"no variation in {term} within cells"
        return out
    exog, col = x[:, None], 0
    groups = pd.factorize(d[cluster].astype(str))[0]
    fit = OLS(y, exog).fit()
    out["estimate"] = float(fit.params[col])
    if out["n_clusters"] < 2:
        out["reason"] = f"one {cluster}: no clustered interval"
        return out
    fit = OLS(y, exog).fit(cov_type="cluster", cov_kwds={"groups": groups}, use_t=True)
    if not float(fit.bse[col]) > 0:
        out["reason"] = "no residual variation: no interval"
        return out
    lo, hi = fit.conf_int(alpha=1 - level)[col]
    out.update(ci_low=float(lo), ci_high=float(hi), p=float(fit.pvalues[col]), se=float(fit.bse[col]))
    if arm_df:
        arm = pd.Series(d[term].to_numpy(float)).groupby(groups).agg(["min", "max"])
        if (arm["min"] == arm["max"]).all():
            dof = int(min((arm["max"] == 1).sum(), (arm["max"] == 0).sum())) - 1
            if dof < 1:
                out.update(ci_low=np.nan, ci_high=np.nan, p=np.nan,
                           reason=f"one {cluster} in an arm of {term}: no clustered interval")
                return out
            half = float(stats.t.ppf(0.5 + level / 2, dof)) * out["se"]
            out.update(ci_low=out["estimate"] - half, ci_high=out["estimate"] + half,
                       p=float(2 * stats.t.sf(abs(out["estimate"]) / out["se"], dof)))
    return out


def cluster_coverage(n_names: int, n_cells: int, *, effect: float = 1.0, name_sd: float = 1.0,
                     noise_sd: float = 3.0, n_sim: int = 200, seed: int = 0, level: float = LEVEL) -> dict:
    """Coverage of :func:`clustered_effect`'s interval at a design with a known truth.

    ``n_names`` names in each of two groups, every name scored in every one of ``n_cells``
    cells; a name's own effect is normal with SD ``name_sd``, each reply's noise normal with
    SD ``noise_sd``, and the group difference is ``effect``. Returns the share of ``n_sim``
    intervals that cover ``effect``, its Monte Carlo SE, and ``n_sim``: the check the
    project asks of every interval it prints, here at the record's own numbers of names and
    cells (docs/DESIGN.md §5)."""
    rng = np.random.default_rng(seed)
    names = np.repeat(np.arange(2 * n_names), n_cells)
    cells = np.tile(np.arange(n_cells), 2 * n_names)
    group = (names >= n_names).astype(float)
    hits = 0
    for _ in range(n_sim):
        name_eff = rng.normal(0, name_sd, 2 * n_names)
        y = effect * group + name_eff[names] + rng.normal(0, 1, n_cells)[cells] + rng.normal(0, noise_sd, names.size)
        r = clustered_effect(pd.DataFrame({"outcome": y, "g": group, "cell": cells, "name": names}), "g",
                             cells="cell", cluster="name", level=level)
        hits += r["ci_low"] <= effect <= r["ci_high"]
    cov = hits / n_sim
    return {"coverage": cov, "mc_se": float(np.sqrt(cov * (1 - cov) / n_sim)), "n_sim": n_sim}


# -- design helpers --------------------------------------------------------------------------
#: Derbyshire's crossed design (the record's ``design``; the coverage harness reads it here).
_derbyshire_design = derbyshire_design


def _sources(df: pd.DataFrame) -> list[str]:
    require_columns(df, list(COLUMNS), "decisions table")
    return list(dict.fromkeys(df["source"].astype(str)))


# -- validity --------------------------------------------------------------------------------
def validity(df: pd.DataFrame, *, level: float = LEVEL) -> pd.DataFrame:
    """The job-fit and quality contrasts of every model, with the gate's verdict.

    Columns :data:`VALIDITY_COLUMNS` plus ``n_clusters``, ``cluster``, ``reason`` (why a
    contrast is not estimable) and ``verdict_reason``. ``job_fit``: a résumé scored against
    its own posting minus against another industry's posting (Derbyshire: same résumé and
    name; Webster Experiment 2a: same résumé type), résumé fixed effects, clustered on
    résumé × posting cell (Webster) or résumé (Derbyshire). ``quality``: Derbyshire's strong
    minus weak résumés against their own postings (:data:`DERBYSHIRE_WEAK`), posting fixed
    effects, clustered on résumé. A design without the contrast gets a NaN row with the reason.
    """
    rows = []
    for source in _sources(df):
        sub = df[df["source"] == source]
        for model, m in sub.groupby("model", sort=True):
            for contrast in ("job_fit", "quality"):
                r = _contrast(source, m, contrast, level)
                rows.append({"source": source, "model": model, "contrast": contrast, **r})
    out = pd.DataFrame(rows)
    if out.empty:
        return pd.DataFrame(columns=VALIDITY_COLUMNS + ["p", "n_clusters", "cluster", "reason", "verdict_reason"])
    verdicts = {}
    for (source, model), g in out.groupby(["source", "model"], sort=False):
        verdicts[(source, model)] = gate(g.set_index("contrast"), df[(df["source"] == source) & (df["model"] == model)])
    out["verdict"] = [verdicts[(s, m)][0] for s, m in zip(out["source"], out["model"])]
    out["verdict_reason"] = [verdicts[(s, m)][1] for s, m in zip(out["source"], out["model"])]
    cal = [_calibration(s, c, lo) for s, c, lo in zip(out["source"], out["contrast"], out["ci_low"])]
    out["calibrated"] = [c[0] for c in cal]
    out["calibration"] = [c[1] for c in cal]
    return out[VALIDITY_COLUMNS + ["p", "n_clusters", "cluster", "reason", "verdict_reason"]]


def _calibration(source: str, contrast: str, ci_low: float) -> tuple[bool, str]:
    """(calibrated, why) of a shipped record's validity interval (:data:`CALIBRATION`)."""
    if not np.isfinite(ci_low):
        return False, "no interval"
    calibrated, _, why = CALIBRATION.get((source, contrast), (False, (), "no harness row for this design"))
    return calibrated, why


def _contrast(source: str, m: pd.DataFrame, contrast: str, level: float) -> dict:
    """One validity contrast of one model's rows, as the source's record describes it."""
    nan = {"estimate": np.nan, "ci_low": np.nan, "ci_high": np.nan, "p": np.nan, "n": 0, "n_clusters": 0,
           "cluster": ""}
    spec = record(source).validity.get(contrast, "not in the design")
    if isinstance(spec, str):
        return nan | {"reason": "not estimable: " + spec}
    d = spec.rows(m)
    if d.empty:
        return nan | {"reason": spec.empty}
    r = clustered_effect(d, spec.term, cells=spec.cells, cluster=spec.cluster, level=level, arm_df=spec.arm_df)
    return {k: r[k] for k in ("estimate", "ci_low", "ci_high", "p", "n", "n_clusters")} | {
        "cluster": spec.cluster_label, "reason": r["reason"]}


def gate(contrasts: pd.DataFrame, rows: pd.DataFrame, *, spread: bool = True) -> tuple[str, str]:
    """The project's pass rule (:data:`popresume.screeners.validity.PASS_RULE`) applied to a
    recorded model as far as its design allows: (1) job fit's CI above 0; (2) the quality
    contrast's CI above 0; (3) stability under a harmless edit is not in these designs and is
    reported as untested; (4) parse rate (rows / the design's rows, where the design is
    known) >= 0.95 and own-posting scores with SD >= 1 point on a 0-100 scale and >= 3
    distinct values (``spread=False``: a 0/1 selection, where rule (4)'s spread does not apply).
    Returns (verdict, reasons): ``"pass (stability untested)"``, ``"fail"``
    or ``"not estimable"`` (a contrast of (1)-(2) is missing)."""
    fit, qual = contrasts.loc["job_fit"], contrasts.loc["quality"]
    if not (np.isfinite(fit["ci_low"]) and np.isfinite(qual["ci_low"])):
        missing = [c for c, r in (("job fit", fit), ("quality", qual)) if not np.isfinite(r["ci_low"])]
        return "not estimable", "the design has no " + " and no ".join(missing) + " contrast with an interval"
    reasons = []
    if not fit["ci_low"] > 0:
        reasons.append(f"posting: own − mismatched {fit['estimate']:.2f} [{fit['ci_low']:.2f}, {fit['ci_high']:.2f}]"
                       " does not exclude 0 from above")
    if not qual["ci_low"] > 0:
        reasons.append(f"quality: strong − weak {qual['estimate']:.2f} [{qual['ci_low']:.2f}, {qual['ci_high']:.2f}]"
                       " does not exclude 0 from above")
    rec, model = record(str(rows["source"].iloc[0])), str(rows["model"].iloc[0])
    requested = rec.requested.get(model)
    if requested:
        rate = float(rows["outcome"].notna().sum() / requested)
        if rate < MIN_PARSE_RATE:
            reasons.append(f"parse rate {rate:.3f} < {MIN_PARSE_RATE:g}")
    own = rec.own_posting(rows) if rec.own_posting else pd.Series(True, index=rows.index)
    scores = rows.loc[own.to_numpy(bool), "outcome"].dropna()
    if spread and (scores.std(ddof=1) < MIN_SD or scores.nunique() < MIN_DISTINCT):
        reasons.append(f"spread: SD {scores.std(ddof=1):.2f} with {scores.nunique()} distinct values")
    if reasons:
        return "fail", "; ".join(reasons)
    return "pass (stability untested)", "no harmless edit in the design: rule (3) untested"


def own_contrasts(df: pd.DataFrame, *, fit: str | None, quality: str | None, item: str = "item",
                  job: str = "job") -> dict[str, tuple[pd.DataFrame, dict]]:
    """The validity regressions of an auditor's own table: contrast -> (its rows, with the 0/1
    term as ``_t``; :func:`clustered_effect`'s keywords). ``job_fit``: résumé fixed effects,
    clustered on ``item``; ``quality``: posting fixed effects, clustered on ``item``, on the
    own-posting rows when ``fit`` is given, t on min(G1, G0) − 1 df (the term is constant
    within a résumé). The one place these designs are written: :func:`validity_from_columns`
    estimates them and :mod:`popresume.coverage.decisions` calibrates them."""
    out = {}
    if fit:
        out["job_fit"] = (df.assign(_t=df[fit].astype(float)), {"cells": item, "cluster": item, "arm_df": False})
    if quality:
        q = df[df[fit].astype(float) == 1] if fit else df
        out["quality"] = (q.assign(_t=q[quality].astype(float)), {"cells": job, "cluster": item, "arm_df": True})
    return out


def validity_from_columns(df: pd.DataFrame, *, fit: str | None = "fit", quality: str | None = None,
                          item: str = "item", job: str = "job", level: float = LEVEL,
                          calibrate=None, selection: bool = False) -> pd.DataFrame:
    """The two validity contrasts for any table of decisions with an ``outcome`` column (an
    auditor's own file): ``fit`` a 0/1 (or bool) column, 1 where the résumé was scored
    against its own posting; ``quality`` a 0/1 column, 1 for the stronger version of a
    résumé (scored against its own posting when ``fit`` is given). The regressions are
    :func:`own_contrasts`'. Columns :data:`VALIDITY_COLUMNS` (``source`` "own file",
    ``model`` from a ``model`` column or "all") plus ``p``, ``n_clusters``, ``reason``,
    ``verdict_reason`` and ``coverage``; ``verdict`` is :func:`gate`'s (its spread rule reads
    the outcome on a 0-100 scale; ``selection``: a 0/1 outcome, where it does not apply).

    ``calibrate(rows, term, keywords, job=job)``, where given, returns a dict with ``calibrated``,
    ``calibration`` (why) and ``coverage``: the coverage of the contrast's interval simulated
    at this design (:func:`popresume.coverage.decisions.design_calibration`). An interval it
    does not calibrate is not printed: its CI and p are NaN, ``reason`` says why, and the gate
    reads the contrast as missing. Without ``calibrate`` every interval is kept and
    ``calibrated`` is False ("not checked at this design"). Raises ``ValueError`` naming a
    missing column."""
    need = ["outcome", item] + [c for c in (fit, quality) if c] + ([job] if quality else [])
    require_columns(df, need, "decisions file")
    d = df.copy()
    if "model" not in d.columns:
        d["model"] = "all"
    rows = []
    for model, m in d.groupby("model", sort=True):
        res = {}
        for contrast, (sub, kw) in own_contrasts(m, fit=fit, quality=quality, item=item, job=job).items():
            r = clustered_effect(sub, "_t", level=level, **kw)
            cal = {"calibrated": False, "calibration": "not checked at this design", "coverage": np.nan}
            if np.isfinite(r["ci_low"]) and calibrate is not None:
                cal = calibrate(sub, "_t", kw, job=job if job in sub.columns else None)
                if not cal["calibrated"]:
                    r = r | {"ci_low": np.nan, "ci_high": np.nan, "p": np.nan,
                             "reason": "not estimable: " + cal["calibration"]}
            elif not np.isfinite(r["ci_low"]):
                cal["calibration"] = "no interval"
            res[contrast] = r | cal
        blank = {"estimate": np.nan, "ci_low": np.nan, "ci_high": np.nan, "p": np.nan, "n": 0, "n_clusters": 0,
                 "reason": "no column given", "calibrated": False, "calibration": "no interval", "coverage": np.nan}
        table = pd.DataFrame({c: res.get(c, blank) for c in ("job_fit", "quality")}).T
        on_own = m[m[fit].astype(float) == 1] if fit else m
        verdict, why = gate(table, on_own.assign(source="own file", model=model), spread=not selection)
        for contrast, r in table.iterrows():
            rows.append({"source": "own file", "model": model, "contrast": contrast, "estimate": r["estimate"],
                         "ci_low": r["ci_low"], "ci_high": r["ci_high"], "n": int(r["n"]), "verdict": verdict,
                         "calibrated": bool(r["calibrated"]), "calibration": r["calibration"], "p": r["p"],
                         "n_clusters": int(r["n_clusters"]), "reason": r["reason"], "verdict_reason": why,
                         "coverage": r["coverage"]})
    return pd.DataFrame(rows)


def verdicts(valid: pd.DataFrame) -> dict[tuple[str, str], str]:
    """(source, model) -> the verdict to print beside its effects: the gate's verdict where
    it was applied, else :data:`~popresume.decisions.schema.NOT_CARDED`."""
    out = {}
    for (s, m), g in valid.groupby(["source", "model"]):
        v = str(g["verdict"].iloc[0])
        out[(s, m)] = NOT_CARDED if v == "not estimable" else v
    return out


# -- group and name effects ------------------------------------------------------------------
def _reference(values: pd.Series, attribute: str, source: str = "") -> str | None:
    present = set(values.dropna().astype(str))
    for ref in record(source).reference.get(attribute, ()):
        if ref in present:
            return ref
    return None


def group_effects(df: pd.DataFrame, *, level: float = LEVEL, jackknife: bool = True) -> pd.DataFrame:
    """Group effects (race, sex) and, for re-cinq, each variant against the baseline, per model.

    Within résumé × job cells (× run where runs are separate prompts), OLS of the outcome on
    the group indicator with cell fixed effects, CI clustered by name. Where each group is
    one name (re-cinq: one name per variant), clustering by name is impossible: the CI is
    clustered by posting instead, ``n_names`` is 1 and ``note`` says the effect is one name's.
    ``jackknife`` adds ``carried_by_one_name``: True when the effect's CI excludes 0 but
    dropping one name of the group makes it include 0. ``p_holm`` and ``p_bh`` adjust over
    each source's whole family (every model × attribute × group). Columns
    :data:`GROUP_COLUMNS` plus ``p_bh``, ``n``, ``n_names``, ``n_clusters``, ``note``,
    ``carried_by_one_name``.
    """
    rows = []
    for source in _sources(df):
        sub = df[df["source"] == source]
        rec = record(source)
        for model, m in sub.groupby("model", sort=True):
            if rec.group_effects == "variants":
                rows += _variant_effects(m, source, model, level)
                continue
            m = m[m["signal"].eq("name")]  # the rows where only the name changes
            m = m.assign(cell=_cells(m, rec.group_cells))
            for attribute in ("race", "sex"):
                ref = _reference(m[attribute], attribute, source)
                if ref is None:
                    continue
                for group in sorted(set(m[attribute].dropna().astype(str)) - {ref}):
                    d = m[m[attribute].isin([ref, group])].assign(g=lambda x: (x[attribute] == group).astype(float))
                    r = clustered_effect(d, "g", cells="cell", cluster=rec.cluster, level=level)
                    names = d.loc[d["g"] == 1, "name"].dropna().unique()
                    row = {"source": source, "model": model, "attribute": attribute, "group": group,
                           "reference": ref, **{k: r[k] for k in ("estimate", "ci_low", "ci_high", "p", "n",
                                                                  "n_clusters")},
                           "n_names": int(len(names)), "note": r["reason"], "carried_by_one_name": False}
                    if (jackknife and len(names) <= JACKKNIFE_MAX_NAMES and np.isfinite(r["ci_low"])
                            and (r["ci_low"] > 0 or r["ci_high"] < 0)):
                        for name in names:
                            j = clustered_effect(d[d["name"] != name], "g", cells="cell", cluster=rec.cluster,
                                                 level=level)
                            if j["ci_low"] <= 0 <= j["ci_high"]:
                                row["carried_by_one_name"] = True
                                row["note"] = f"without {name} the interval includes 0"
                                break
                    rows.append(row)
    out = pd.DataFrame(rows)
    cols = GROUP_COLUMNS + ["p_bh", "n", "n_names", "n_clusters", "note", "carried_by_one_name"]
    if out.empty:
        return pd.DataFrame(columns=cols)
    out["p_holm"] = np.nan
    out["p_bh"] = np.nan
    for source, idx in out.groupby("source").groups.items():
        out.loc[idx, "p_holm"] = holm(out.loc[idx, "p"].to_numpy())
        out.loc[idx, "p_bh"] = benjamini_hochberg(out.loc[idx, "p"].to_numpy())
    return out[cols]


def _cells(m: pd.DataFrame, keys: tuple[str, ...]) -> pd.Series:
    """The cells group effects are compared within (the record's ``group_cells``): résumé ×
    job × run by default; Bloomberg's one ranking of eight résumés (job × run: each name sits
    on one résumé per ranking); B&M's employment ad (the résumés sent to one ad)."""
    return m[list(keys)].astype(str).agg("|".join, axis=1)


def _variant_effects(m: pd.DataFrame, source: str, model: str, level: float) -> list[dict]:
    """re-cinq: every variant minus the baseline, posting fixed effects, clustered by posting."""
    rows = []
    base = m[m["signal"] == "baseline"]
    for variant, v in m[~m["signal"].isin(["baseline"])].groupby("variant", sort=True):
        d = pd.concat([base, v]).assign(g=lambda x: (x["variant"] == variant).astype(float))
        r = clustered_effect(d, "g", cells="job", cluster="job", level=level)
        signal = str(v["signal"].iloc[0])
        attribute = "name" if signal == "firstName" else signal
        rows.append({"source": source, "model": model, "attribute": attribute, "group": variant,
                     "reference": "baseline", **{k: r[k] for k in ("estimate", "ci_low", "ci_high", "p", "n",
                                                                  "n_clusters")},
                     "n_names": 1 if signal == "firstName" else 0,
                     "note": ("one name: the interval is over postings and reruns, not over names"
                              if signal == "firstName" else r["reason"]),
                     "carried_by_one_name": signal == "firstName"})
    return rows


# -- noise floor -----------------------------------------------------------------------------
def noise_floor(df: pd.DataFrame) -> pd.DataFrame:
    """Run-to-run spread and placebo edits per model. Columns :data:`NOISE_COLUMNS`.

    ``rerun``: within each cell (same model, posting, résumé, variant, name) every pair of
    runs; ``mean_abs_change`` is the mean |difference| over pairs, ``sd`` the SD of the
    signed differences, ``n`` the number of pairs. ``placebo`` (re-cinq): each placebo
    variant's mean over runs minus the baseline's, per posting; mean |change|, SD and the
    number of variant × posting pairs. Sources whose runs are not repetitions of the same
    prompt (Bloomberg shuffles the order, B&M has one decision per résumé) get no rerun row.
    """
    rows = []
    for source in _sources(df):
        sub = df[df["source"] == source]
        rec = record(source)
        if rec.rerun_keys is None:
            continue
        keys = list(rec.rerun_keys)
        for model, m in sub.groupby("model", sort=True):
            spread = rerun_spread(m, keys)
            if spread["n"]:
                rows.append({"source": source, "model": model, "kind": "rerun",
                             **{k: spread[k] for k in ("mean_abs_change", "sd", "n")}})
            if rec.placebo:
                eff = placebo_effects(m)
                if len(eff):
                    rows.append({"source": source, "model": model, "kind": "placebo",
                                 "mean_abs_change": float(eff["change"].abs().mean()),
                                 "sd": float(eff["change"].std(ddof=1)), "n": int(len(eff))})
    return pd.DataFrame(rows, columns=NOISE_COLUMNS)


def rerun_spread(m: pd.DataFrame, keys: list[str]) -> dict:
    """Run-to-run spread of ``outcome`` over the cells ``keys`` identify (rows of one cell are
    reruns of the same prompt; rows without an outcome are left out).

    ``mean_abs_change``: mean |difference| over every pair of runs of a cell; ``sd``: the SD
    of those signed differences; ``n``: the number of pairs; ``n_cells``: cells with at least
    two runs; ``run_sd``: the pooled within-cell SD, sqrt(Σ (y − cell mean)² / Σ (k − 1)),
    which estimates one reply's run-to-run SD σ (a pair's difference has SD σ√2). NaN where
    no cell repeats."""
    m = m.dropna(subset=["outcome"])
    k = m[keys].astype("string").fillna("").agg("|".join, axis=1)
    diffs, ss, dof, cells = [], 0.0, 0, 0
    for _, y in m["outcome"].groupby(k.to_numpy()):
        v = y.to_numpy(float)
        if v.size > 1:
            i, j = np.triu_indices(v.size, 1)
            diffs.append(v[i] - v[j])
            ss += float(((v - v.mean()) ** 2).sum())
            dof += v.size - 1
            cells += 1
    d = np.concatenate(diffs) if diffs else np.array([])
    return {"mean_abs_change": float(np.abs(d).mean()) if d.size else np.nan,
            "sd": float(d.std(ddof=1)) if d.size > 1 else np.nan, "n": int(d.size), "n_cells": cells,
            "run_sd": float(np.sqrt(ss / dof)) if dof else np.nan}


#: columns of :func:`noise_floor_one_scale`
ONE_SCALE_COLUMNS = ["source", "model", "runs_per_cell", "run_sd", "rerun_single", "placebo_single",
                     "rerun_means", "rerun_means_how", "placebo_means", "ratio_single", "ratio_means",
                     "n_rerun_pairs", "n_placebo_pairs"]


def noise_floor_one_scale(df: pd.DataFrame) -> pd.DataFrame:
    """The rerun floor and the placebo edits of each model of a source with placebo edits (re-cinq's
    record) on the same two scales.

    :func:`noise_floor`'s ``rerun`` row compares two single replies and its ``placebo`` row two
    means of ``k`` runs (re-cinq: 5), whose pure noise is √k times smaller; this function sets
    them side by side on one scale at a time (mean |difference|, score units):

    * **single replies**: ``rerun_single`` is the mean |difference| over every pair of runs of
      one cell (same model, posting, résumé, variant); ``placebo_single`` the mean |difference|
      over every pair of one placebo variant's reply and one baseline reply on the same
      posting. Both observed; under pure noise they are equal.
    * **k-run means**: ``placebo_means`` is the mean |placebo variant's k-run mean − baseline's|
      per posting (observed, :func:`placebo_effects`). Two independent k-run means of *one*
      prompt would need 2k runs of each cell and the records hold k, so ``rerun_means`` is not
      observed: it is the mean |difference| two k-run means of pure noise would show,
      ``run_sd · √(2/k) · √(2/π)`` (``run_sd`` the pooled within-cell SD of
      :func:`rerun_spread`; the √(2/π) takes an SD to a mean |difference| for normal noise),
      and ``rerun_means_how`` says so.

    ``ratio_*`` = placebo / rerun on each scale: near 1 where the placebo edits move scores
    no more than rerunning does. Models without placebo edits have no row.
    """
    rows = []
    for source, sub in _sources_with(df, lambda r: r.placebo and r.rerun_keys is not None):
        rows += _one_scale_rows(sub.dropna(subset=["outcome"]), source)
    return pd.DataFrame(rows, columns=ONE_SCALE_COLUMNS)


def _one_scale_rows(sub: pd.DataFrame, source: str) -> list[dict]:
    """:func:`noise_floor_one_scale`'s rows of one source with placebo edits."""
    rows = []
    keys = list(record(source).rerun_keys)
    for model, m in sub.groupby("model", sort=True):
        if not (m["signal"] == "placebo").any():
            continue
        spread = rerun_spread(m, keys)
        k = int(m.groupby(keys, dropna=False)["run"].nunique().median())
        base = m[m["signal"] == "baseline"]
        diffs = []
        for (variant, job), v in m[m["signal"] == "placebo"].groupby(["variant", "job"]):
            b = base.loc[base["job"] == job, "outcome"].to_numpy(float)
            diffs.append(np.abs(v["outcome"].to_numpy(float)[:, None] - b[None, :]).ravel())
        d = np.concatenate(diffs) if diffs else np.array([])
        pl = placebo_effects(m)
        rerun_means = spread["run_sd"] * np.sqrt(2 / k) * np.sqrt(2 / np.pi) if k > 0 else np.nan
        placebo_means = float(pl["change"].abs().mean()) if len(pl) else np.nan
        rows.append({"source": source, "model": model, "runs_per_cell": k, "run_sd": spread["run_sd"],
                     "rerun_single": spread["mean_abs_change"],
                     "placebo_single": float(d.mean()) if d.size else np.nan,
                     "rerun_means": float(rerun_means),
                     "rerun_means_how": f"expected from the run SD (the records hold {k} runs per cell, "
                                        f"not the {2 * k} two independent {k}-run means need)",
                     "placebo_means": placebo_means,
                     "ratio_single": float(d.mean()) / spread["mean_abs_change"] if d.size else np.nan,
                     "ratio_means": placebo_means / rerun_means if rerun_means > 0 else np.nan,
                     "n_rerun_pairs": spread["n"], "n_placebo_pairs": int(d.size)})
    return rows


def _cell_change(m: pd.DataFrame, signal: str) -> pd.DataFrame:
    """Per posting: each variant of ``signal``'s mean over runs minus the baseline's."""
    means = m.groupby(["variant", "job"])["outcome"].mean()
    base = means.loc["baseline"]
    rows = []
    for variant in sorted(m.loc[m["signal"] == signal, "variant"].unique()):
        ch = (means.loc[variant] - base).dropna()
        rows += [{"variant": variant, "job": j, "change": float(c)} for j, c in ch.items()]
    return pd.DataFrame(rows, columns=["variant", "job", "change"])


def placebo_effects(m: pd.DataFrame) -> pd.DataFrame:
    """re-cinq, one model: each placebo variant's mean minus the baseline's, per posting."""
    return _cell_change(m, "placebo")


def name_vs_placebo(df: pd.DataFrame) -> pd.DataFrame:
    """Each re-cinq name effect against the same model's placebo effects (a placebo test).

    A variant's effect is its mean over postings of (variant − baseline) cell means. For each
    model with placebo edits: the name's effect, the placebo effects' largest |effect|, and
    ``placebo_p`` = (1 + number of placebos with |effect| >= |name's|) / (1 + number of
    placebos): with 7 placebos the smallest possible value is 1/8, so no single name can be
    told from the placebos at 0.05; ``pooled_share`` is the share of all the source's placebo
    effects (every model) whose |effect| in placebo SD units is at least the name's.
    """
    parts = [_name_vs_placebo(sub, source) for source, sub in _sources_with(df, lambda r: r.placebo)]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def _sources_with(df: pd.DataFrame, has) -> list[tuple[str, pd.DataFrame]]:
    """(source, its rows) for every source of ``df`` whose record satisfies ``has``."""
    return [(s, df[df["source"] == s]) for s in dict.fromkeys(df["source"].astype(str)) if has(record(s))]


def _name_vs_placebo(sub: pd.DataFrame, source: str) -> pd.DataFrame:
    rows = []
    pooled = []
    per_model = {}
    for model, m in sub.groupby("model", sort=True):
        pl = placebo_effects(m)
        if pl.empty:
            continue
        eff = pl.groupby("variant")["change"].mean()
        names = _cell_change(m, "firstName").groupby("variant")["change"].mean()
        sd = float(eff.std(ddof=1))
        per_model[model] = (eff, names, sd)
        pooled += list((eff / sd).abs()) if sd > 0 else []
    pooled = np.asarray(pooled)
    for model, (eff, names, sd) in per_model.items():
        for variant, e in names.items():
            k = int((eff.abs() >= abs(e)).sum())
            rows.append({"source": source, "model": model, "name": variant.removeprefix("firstName_"),
                         "effect": float(e), "placebo_max_abs": float(eff.abs().max()),
                         "placebo_sd": sd, "n_placebo": int(len(eff)),
                         "placebo_p": (1 + k) / (1 + len(eff)),
                         "exceeds_all_placebos": k == 0,
                         "pooled_share": float(np.mean(pooled >= abs(e) / sd)) if sd > 0 and pooled.size else np.nan})
    return pd.DataFrame(rows)


# -- drift and competence --------------------------------------------------------------------
def drift(df: pd.DataFrame, *, models: tuple[str, str] | None = None, level: float = LEVEL) -> pd.DataFrame:
    """Two models of one source on the same crossed design (Derbyshire: GPT-3.5 and GPT-5.1).

    For each contrast (job fit, quality, each race and sex group), the two models' estimates
    and their difference (second − first) from one OLS with the interaction, cell × model
    fixed effects, clustered on résumé (validity contrasts) or name (groups). Also each
    model's mean and SD of the outcome. The source is the one in ``df`` whose record has a
    crossed ``design``; ``models`` defaults to its two models.
    """
    crossed = _sources_with(df, lambda r: r.design is not None)
    if len(crossed) != 1:
        raise ValueError(f"drift needs the rows of one source with a crossed design, got {[s for s, _ in crossed]}")
    source, sub = crossed[0]
    sub = record(source).design(sub)
    if models is None:
        models = tuple(sorted(sub["model"].unique()))
    if len(models) != 2:
        raise ValueError(f"drift needs two models of the {source} source, got {list(models)}")
    a, b = models
    sub = sub[sub["model"].isin(models)].assign(later=lambda x: (x["model"] == b).astype(float))
    specs = [("job_fit", sub, "own", "item", "item"),
             ("quality", sub[sub["own"] == 1], "strong", "job", "item")]
    for attr in ("race", "sex"):
        ref = _reference(sub[attr], attr, source)
        for group in sorted(set(sub[attr].dropna()) - {ref}):
            d = sub[sub[attr].isin([ref, group])].assign(g=lambda x, gr=group, at=attr: (x[at] == gr).astype(float))
            specs.append((f"{attr}: {group} − {ref}", d, "g", "cell", "name"))
    rows = []
    for label, d, term, cells, cluster in specs:
        per = {mdl: clustered_effect(d[d["model"] == mdl], term, cells=cells, cluster=cluster, level=level,
                                     arm_df=label == "quality")
               for mdl in models}
        dd = d.assign(inter=d[term] * d["later"], mc=d[cells].astype(str) + "|" + d["model"])
        diff = _interaction(dd, term, "inter", "mc", cluster, level, arm_df=label == "quality")
        rows.append({"contrast": label, f"{a}": per[a]["estimate"], f"{a}_ci": (per[a]["ci_low"], per[a]["ci_high"]),
                     f"{b}": per[b]["estimate"], f"{b}_ci": (per[b]["ci_low"], per[b]["ci_high"]),
                     "difference": diff["estimate"], "ci_low": diff["ci_low"], "ci_high": diff["ci_high"],
                     "p": diff["p"], "cluster": cluster})
    out = pd.DataFrame(rows)
    out["p_holm"] = holm(out["p"].to_numpy())
    levels = sub.groupby("model")["outcome"].agg(["mean", "std", "size"])
    out.attrs["levels"] = levels
    return out


def _interaction(d: pd.DataFrame, term: str, inter: str, cells: str, cluster: str, level: float,
                 arm_df: bool = False) -> dict:
    """Coefficient of ``inter`` in outcome ~ term + inter + cell dummies, clustered; with
    ``arm_df`` and ``term`` constant within clusters, t on min(G1, G0) − 1 degrees of freedom
    (as in :func:`clustered_effect`)."""
    d = d[list(dict.fromkeys(["outcome", term, inter, cells, cluster]))].dropna()
    g = d[cells].astype(str).to_numpy()
    cols = d[[inter, term, "outcome"]].to_numpy(float)
    cols = cols - pd.DataFrame(cols).groupby(g).transform("mean").to_numpy()
    fit = OLS(cols[:, 2], cols[:, :2]).fit(cov_type="cluster",
                                              cov_kwds={"groups": pd.factorize(d[cluster].astype(str))[0]},
                                              use_t=True)
    lo, hi = fit.conf_int(alpha=1 - level)[0]
    out = {"estimate": float(fit.params[0]), "ci_low": float(lo), "ci_high": float(hi), "p": float(fit.pvalues[0])}
    arm = d[term].astype(float).groupby(d[cluster].astype(str)).agg(["min", "max"])
    if arm_df and (arm["min"] == arm["max"]).all():
        dof = int(min((arm["max"] == 1).sum(), (arm["max"] == 0).sum())) - 1
        if dof < 1:
            return out | {"ci_low": np.nan, "ci_high": np.nan, "p": np.nan}
        se = float(fit.bse[0])
        half = float(stats.t.ppf(0.5 + level / 2, dof)) * se
        out.update(ci_low=out["estimate"] - half, ci_high=out["estimate"] + half,
                   p=float(2 * stats.t.sf(abs(out["estimate"]) / se, dof)))
    return out


def competence(df: pd.DataFrame, *, level: float = LEVEL) -> pd.DataFrame:
    """Webster, per setting: own minus mismatched résumé (Experiment 2a, as in :func:`validity`)
    and keyword-stuffed minus plain waiter's résumé for the finance job (Experiment 2b; the
    replies are independent draws of one résumé pair, so the interval is HC1, not clustered),
    with Holm over each contrast's family of settings."""
    rows = []
    for source, sub in _sources_with(df, lambda r: r.keyword_job is not None):
        rows += _competence(sub, source, level)
    out = pd.DataFrame(rows)
    out["p_holm"] = np.nan
    for _, idx in out.groupby("contrast").groups.items():
        out.loc[idx, "p_holm"] = holm(out.loc[idx, "p"].to_numpy())
    return out


def _competence(sub: pd.DataFrame, source: str, level: float) -> list[dict]:
    rows = []
    for model, m in sub.groupby("model", sort=True):
        fit = _contrast(source, m, "job_fit", level)
        rows.append({"model": model, "contrast": "matched − mismatched", "estimate": fit["estimate"],
                     "ci_low": fit["ci_low"], "ci_high": fit["ci_high"], "n": fit["n"], "p": fit["p"]})
        kw = m[m["signal"].eq("keyword") & m["job"].eq(record(source).keyword_job)].dropna(subset=["outcome"])
        x = kw["variant"].eq("keyword_stuffed").to_numpy(float)
        res = OLS(kw["outcome"].to_numpy(float), np.column_stack([np.ones_like(x), x])).fit(cov_type="HC1", use_t=True)
        lo, hi = res.conf_int(alpha=1 - level)[1]
        rows.append({"model": model, "contrast": "keyword-stuffed − plain", "estimate": float(res.params[1]),
                     "ci_low": float(lo), "ci_high": float(hi), "n": int(len(kw)), "p": float(res.pvalues[1])})
    return rows


# -- LL144 as published ----------------------------------------------------------------------
#: The key of one published row: audit × rate definition × characteristic × category.
LL144_KEY = ["audit_id", "rate_definition", "characteristic", "category"]
#: Draws of a tool with no disparity per published analysis in the shipped file
#: (data/decisions/ll144_published.csv); :data:`LL144_REFINE` times more where a flag's p is
#: within three Monte Carlo standard errors of 0.05.
LL144_DRAWS = 20_000
LL144_REFINE = 10
#: A p below this reads "beyond chance" (the level whose type-I error popresume.coverage.decisions measures).
LL144_ALPHA = 0.05


def _category(aclu: pd.DataFrame) -> pd.Series:
    """The category label: the sex, the race/ethnicity, or race × sex (also where a race table
    prints a sex, and for the intersectional tables)."""
    grp, race, sex = aclu["protected_char_group"], aclu["race_ethnicity"].astype(str), aclu["sex"].astype(str)
    label = np.where(grp.eq("sex"), sex, np.where(grp.eq("race/ethnicity") & sex.eq("Total"), race,
                                                   race + " × " + sex))
    label = pd.Series(label, index=aclu.index)
    # two rows of one analysis with one label (an audit printing two unknown rows): number them
    dup = label.groupby([aclu["audit_id"], aclu["selection_or_scoring_rate"], grp, label]).cumcount()
    return label.where(dup.eq(0), label + " (" + (dup + 1).astype(str) + ")")


def _known(aclu: pd.DataFrame) -> pd.Series:
    """Rated categories: no Missing/Unknown, no Total inside an intersectional table, and in a
    sex or race table no row broken down by the other characteristic."""
    grp, race, sex = aclu["protected_char_group"], aclu["race_ethnicity"], aclu["sex"]
    unknown = sex.eq("Missing/Unknown") | race.eq("Missing/Unknown")
    total = grp.eq("intersectional") & (sex.eq("Total") | race.eq("Total"))
    mixed = (grp.eq("sex") & ~race.eq("Total")) | (grp.eq("race/ethnicity") & ~sex.eq("Total"))
    return ~(unknown | total | mixed)


def _analysis_seed(seed: int, key: tuple) -> int:
    """A seed per analysis from its key, so one analysis draws the same alone or among all."""
    return seed + zlib.crc32("|".join(map(str, key)).encode())


def _p_values(g: pd.DataFrame, n_sim: int, seed: int, refine: int) -> dict:
    """The chance columns of one analysis (:func:`popresume.ll144.chance_below`), with
    ``refine`` times the draws where a flag's p is within three standard errors of 0.05."""
    counted = (g["n"].notna() & g["selected"].notna() & g["n"].gt(0)).to_numpy()
    rated = (g["known"] & ~g["under_2pct"]).to_numpy() & counted
    out = {c: np.full(len(g), np.nan) for c in (CHANCE_COLUMN, "p_published", "p_recomputed")}
    out["p_draws"] = np.zeros(len(g), int)
    if rated.sum() < 2 or n_sim < 1:
        return out
    sizes = g.loc[counted, "n"].round().astype(np.int64).to_numpy()
    m = int(min(g.loc[counted, "selected"].round().clip(lower=0).sum(), sizes.sum()))
    if len(sizes) == 2 and rated[counted].all():  # two categories: exact
        ratios = g.loc[counted, ["ratio_2pct", "published_ratio"]].to_numpy(float)
        below, p_rec = chance_below_exact(sizes, m, observed=ratios[:, 0])
        _, p_pub = chance_below_exact(sizes, m, observed=ratios[:, 1])
        out[CHANCE_COLUMN][counted], out["p_published"][counted], out["p_recomputed"][counted] = below, p_pub, p_rec
        return out
    draws = n_sim
    flags = (g["published_ratio"] < FOUR_FIFTHS).to_numpy()[counted] & rated[counted]
    for _ in range(2):
        below, p_rec = chance_below(sizes, m, rated[counted], observed=g.loc[counted, "ratio_2pct"].to_numpy(),
                                    n_sim=draws, seed=seed)
        _, p_pub = chance_below(sizes, m, rated[counted], observed=g.loc[counted, "published_ratio"].to_numpy(),
                                n_sim=draws, seed=seed)
        se = np.sqrt(0.05 * 0.95 / draws)
        near = flags & ((np.abs(p_rec - LL144_ALPHA) < 3 * se) | (np.abs(p_pub - LL144_ALPHA) < 3 * se))
        if draws > n_sim or refine <= 1 or not near.any():
            break
        draws = n_sim * refine
    out[CHANCE_COLUMN][counted], out["p_published"][counted], out["p_recomputed"][counted] = below, p_pub, p_rec
    out["p_draws"][counted] = np.where(rated[counted], draws, 0)
    return out


def ll144_published(aclu: pd.DataFrame, *, n_sim: int = LL144_DRAWS, seed: int = 0, refine: int = LL144_REFINE,
                    tolerance: float = PUBLISHED_TOLERANCE) -> pd.DataFrame:
    """Every published LL144 ratio recomputed from its audit's printed numbers, with its status and p.

    One analysis is an audit × rate definition × characteristic (sex, race/ethnicity,
    intersectional); each is passed to :func:`popresume.ll144.published_ratios` (the one
    LL144 engine: ``rate``, ``ratio`` by the maximum rule, ``ratio_2pct``, ``under_2pct``,
    ``ratio_own`` against the row the audit printed as 1.00, ``status``,
    ``counts_reconstructed``). Selected counts are used as printed (some are n × rate, not
    whole numbers) and rounded for the draws.

    The chance columns (:func:`popresume.ll144.chance_below`, exact for two rated categories
    alone by :func:`popresume.ll144.chance_below_exact`; a tool that ignores the
    attribute, selecting the same number at random with the printed group sizes):
    :data:`popresume.ll144.CHANCE_COLUMN`, the chance of a ratio below
    :data:`~popresume.ll144.FOUR_FIFTHS`; ``p_recomputed``, the chance of a ratio at or below
    the one recomputed from the counts (``ratio_2pct``: the null's reference also leaves the
    categories under 2% out, so those get no p); ``p_published``, the same for the printed
    ratio; ``p_draws`` the draws behind them (``n_sim``, ``refine`` times more where a flag's
    p is within three Monte Carlo SEs of 0.05; 0 where exact or not tested). Each analysis
    draws with its own seed from ``seed`` and its key. ``n_sim=0`` skips them.

    Columns: :data:`LL144_KEY`, ``n``, ``selected``, ``printed_rate``, ``published_ratio``,
    the engine's, the chance columns, ``auditor``, ``tool_vendor``, ``published_flag``
    (printed ratio below four-fifths), ``zero_applicants`` and ``known``.
    """
    require_columns(aclu, list(LL144_COLUMNS), "LL144 audits table")
    d = pd.DataFrame({"audit_id": aclu["audit_id"], "rate_definition": aclu["selection_or_scoring_rate"],
                      "characteristic": aclu["protected_char_group"], "category": _category(aclu),
                      "known": _known(aclu), "n": aclu["number_of_applications"],
                      "selected": aclu["n_selected_or_n_above_median"], "printed_rate": aclu["result"],
                      "published_ratio": aclu["impact_ratio"], "auditor": aclu["auditor"],
                      "tool_vendor": aclu["tool_vendor"]})
    keys = ["audit_id", "rate_definition", "characteristic"]
    parts = []
    for key, g in d.groupby(keys, sort=False):
        g = published_ratios(g, tolerance=tolerance)
        chance = _p_values(g, n_sim, _analysis_seed(seed, key), refine)
        parts.append(pd.concat([g, pd.DataFrame(chance, index=g.index)], axis=1))
    out = pd.concat(parts).sort_index()
    out["published_flag"] = out["published_ratio"] < FOUR_FIFTHS
    out["zero_applicants"] = out["n"].eq(0)
    return out.reset_index(drop=True)


def ll144_file(table: pd.DataFrame) -> pd.DataFrame:
    """:func:`ll144_published`'s table as the file writes it (:data:`LL144_OUT_COLUMNS`): each
    p with the digits its draws support (:func:`popresume.ll144.format_probability`: "< 5e-05"
    where no draw of 20,000 was as low; three significant digits where exact), empty where not
    tested; the recomputed ratios to six
    decimals (the printed ones carry two to four)."""
    out = table.copy()
    for col in ("ratio", "ratio_2pct", "ratio_own", CHANCE_COLUMN):
        out[col] = out[col].round(6)
    for col in ("p_published", "p_recomputed"):
        out[col] = [format_probability(p, int(b)) if np.isfinite(p) else None
                    for p, b in zip(out[col], out["p_draws"])]
    return out[LL144_OUT_COLUMNS]


def ll144_summary(table: pd.DataFrame, by: str | None = None) -> pd.DataFrame:
    """Published ratios per status (:data:`popresume.ll144.PUBLISHED_STATUSES`), overall or
    ``by`` a column ("auditor", "tool_vendor"); rows whose ``by`` is "Unknown" read "not named"."""
    t = table[table["status"].notna()].copy()
    key = by or "all"
    t[key] = "all audits" if by is None else t[by].replace({"Unknown": "not named"})
    out = pd.crosstab(t[key], pd.Categorical(t["status"], categories=PUBLISHED_STATUSES), dropna=False)
    out.columns = list(PUBLISHED_STATUSES)
    out.insert(0, "published ratios", out.sum(axis=1))
    out.insert(0, "audits", t.groupby(key)["audit_id"].nunique())
    out.index.name = by or ""
    return out.sort_values("audits", ascending=False)


def ll144_flags(table: pd.DataFrame, *, alpha: float = LL144_ALPHA) -> dict:
    """What the chance test can say about the published flags (printed ratio below four-fifths):
    how many there are, how many are zero-applicant rows printed as 0, how many have counts to
    test (the others: under 2%, out of the null's reference, or fewer than two rated categories),
    and of those how many recomputed ratios are lower than a tool with no disparity gives
    with probability ``alpha`` (``beyond_chance``) and how many are not (``not_beyond_chance``:
    the counts cannot tell them from chance, which is not evidence that the tool is fair)."""
    flags = table[table["published_flag"]]
    real = flags[~flags["zero_applicants"]]
    tested = real[real["p_recomputed"].notna()]
    return {"published": int(len(flags)), "zero_applicants": int(flags["zero_applicants"].sum()),
            "real": int(len(real)), "tested": int(len(tested)),
            "beyond_chance": int((tested["p_recomputed"] < alpha).sum()),
            "not_beyond_chance": int((tested["p_recomputed"] >= alpha).sum()),
            "untested_under_2pct": int((real["p_recomputed"].isna() & real["under_2pct"].astype(bool)).sum()),
            "untested_other": int((real["p_recomputed"].isna() & ~real["under_2pct"].astype(bool)).sum()),
            "tested_published": int(real["p_published"].notna().sum()),
            "not_beyond_chance_published": int((real["p_published"] >= alpha).sum())}


def load_ll144_published() -> pd.DataFrame:
    """The shipped ``data/decisions/ll144_published.csv`` (:func:`ll144_file` of the ACLU's
    table, built by scripts/build_decisions_data.py), ready for :func:`ll144_summary` and
    :func:`ll144_flags`: ``published_flag`` and ``zero_applicants`` added, and each p read
    back as a number (a bound such as "< 5e-05" as its bound: on the same side of any level
    above it), its printed text kept in ``p_published_text`` / ``p_recomputed_text``."""
    t = pd.read_csv(data_path("decisions", "ll144_published.csv"))
    for col in ("p_published", "p_recomputed"):
        t[col + "_text"] = t[col]
        t[col] = pd.to_numeric(t[col].astype("string").str.lstrip("<> "), errors="raise")
    t["published_flag"] = t["published_ratio"] < FOUR_FIFTHS
    t["zero_applicants"] = t["n"].eq(0)
    return t


def ll144_single_reference(table: pd.DataFrame) -> pd.DataFrame:
    """Per analysis (audit × rate definition × characteristic): whether one reference rate
    gives every printed ratio (:func:`popresume.ll144.single_reference`), with the auditor."""
    rows = []
    for (audit, rate_def, char), g in table.groupby(["audit_id", "rate_definition", "characteristic"], sort=False):
        with np.errstate(invalid="ignore", divide="ignore"):
            rate = (g["selected"] / g["n"].where(g["n"] > 0)).to_numpy(float)
        rows.append({"audit_id": audit, "rate_definition": rate_def, "characteristic": char,
                     "auditor": g["auditor"].iloc[0] if "auditor" in g else None,
                     "single_reference": single_reference(rate, g["printed_rate"].to_numpy(float),
                                                          g["published_ratio"].to_numpy(float)),
                     "not_reproducible": int(g["status"].eq("not reproducible from the printed rates").sum())})
    return pd.DataFrame(rows)
