"""Audit metrics beside the causal decomposition: multiplicity, masking, adverse impact.

Everything here is a pure function over tidy tables:

* a *results table* has the layout of ``popresume_published_pse.csv`` — one row per
  audit (attribute, occupation, format, model) with ``{TE,NDE,NIE,BIE,RIE}_{estimate,ci_low,ci_high}``
  and a case label column (``cases`` for our runs, ``paper_cases`` in the published file);
* a *scores table* has one row per résumé with a ``score`` and the profile columns.

**Multiplicity.** PopResume (§5.1) calls a path-specific effect significant when its
own 95% bootstrap CI excludes 0, for each of 120 audits × 5 effects, with no
correction. The published table prints CIs, not p-values, so we recover them under
a normal approximation: ``SE ≈ (ci_high − ci_low) / (2 · 1.96)``, ``z = estimate / SE``,
two-sided ``p = 2 Φ(−|z|)``. Bootstrap percentile CIs need not be symmetric, so this
is an approximation; :func:`significance` reports how often the recovered ``p < 0.05``
agrees with "the CI excludes 0". Holm (FWER) and Benjamini–Hochberg (FDR) are then
applied over a family of tests (default: every effect of every audit in the table).

**Cases.** :func:`cases_from_significance` applies the five rules as stated in §5.2
to any significance pattern, so the case counts can be recounted after a correction.

**Adverse impact.** The EEOC four-fifths rule (29 CFR 1607.4(D)) compares selection
rates; NYC Local Law 144 (6 RCNY §5-300) asks bias audits of scoring tools for impact
ratios of the *scoring rate* — the share of a category scoring above the sample's
median score — relative to the highest category, by sex, race/ethnicity and their
intersection; a category under 2% of the data may be left out of the ratios. Both rules,
their intervals and their chance baselines live in :mod:`popresume.ll144`; the functions
here keep their names and call it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from popresume import ll144
from popresume.causal.cases import CASES, case_counts, flags_from_significance, labels_from_flags  # noqa: F401
from popresume.causal.effects import significant
from popresume.errors import require_columns
from popresume.multiplicity import ADJUSTERS as _ALL_ADJUSTERS
from popresume.multiplicity import benjamini_hochberg, holm  # noqa: F401  (re-exported)
from popresume.paths import DATA_DIR
from popresume.schema import NOT_CARDED_PUBLISHED, PSE_NAMES, VERDICT_COLUMN

Z975 = 1.959963984540054
KEY_COLUMNS = ("attribute", "occupation", "format", "model")


# --------------------------------------------------------------------------- p-values
def p_from_ci(estimate, ci_low, ci_high, *, level: float = 0.95) -> pd.DataFrame:
    """Approximate SE, z and two-sided p-value from a printed CI (normal approximation).

    ``SE = (ci_high − ci_low) / (2 z_{1−α/2})``; ``p = 2 Φ(−|estimate / SE|)``.
    Raises if an interval is inverted or has zero width (no SE can be recovered).

    Parameters
    ----------
    estimate, ci_low, ci_high : array_like
        Point estimates and their interval bounds.
    level : float
        The intervals' level.

    Returns
    -------
    pandas.DataFrame
        Columns ``se``, ``z`` and ``p``.

    Examples
    --------
    >>> p_from_ci([1.0], [0.5], [1.5]).round(4).to_dict("records")
    [{'se': 0.2551, 'z': 3.9199, 'p': 0.0001}]
    """
    est = np.atleast_1d(np.asarray(estimate, dtype=float))
    lo = np.atleast_1d(np.asarray(ci_low, dtype=float))
    hi = np.atleast_1d(np.asarray(ci_high, dtype=float))
    zc = stats.norm.ppf(0.5 + level / 2)
    width = hi - lo
    bad = ~(width > 0) & ~np.isnan(width)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"CI number {i} [{lo[i]}, {hi[i]}] has no positive width; cannot recover an SE")
    se = width / (2 * zc)
    z = est / se
    p = 2 * stats.norm.sf(np.abs(z))
    return pd.DataFrame({"se": se, "z": z, "p": p})


ADJUSTERS = {k: _ALL_ADJUSTERS[k] for k in ("holm", "bh")}


def _check_results(table: pd.DataFrame, effects: Iterable[str] = PSE_NAMES) -> None:
    require_columns(table, [f"{e}_{s}" for e in effects for s in ("estimate", "ci_low", "ci_high")], "results table")


def long_tests(table: pd.DataFrame, *, effects: Sequence[str] = PSE_NAMES, level: float = 0.95) -> pd.DataFrame:
    """One row per (audit, effect): estimate, CI, CI-excludes-0, approximate SE, z and p."""
    _check_results(table, effects)
    keys = [c for c in KEY_COLUMNS if c in table.columns]
    parts = []
    for e in effects:
        d = table[keys].copy()
        d.insert(0, "row", np.arange(len(table)))
        d["effect"] = e
        d["estimate"] = table[f"{e}_estimate"].to_numpy(float)
        d["ci_low"] = table[f"{e}_ci_low"].to_numpy(float)
        d["ci_high"] = table[f"{e}_ci_high"].to_numpy(float)
        parts.append(d)
    out = pd.concat(parts, ignore_index=True)
    out["ci_excludes_0"] = significant(out["ci_low"], out["ci_high"])
    # printed bounds of ±0.000: the sign bit carries the unrounded side (popresume.causal.cases)
    out["ci_excludes_0_signed"] = significant(out["ci_low"], out["ci_high"], signed_zero=True)
    pz = p_from_ci(out["estimate"], out["ci_low"], out["ci_high"], level=level)
    out[["se", "z", "p"]] = pz.to_numpy()
    return out.sort_values(["row", "effect"], key=lambda s: s.map(_effect_order) if s.name == "effect" else s,
                           ignore_index=True)


def _effect_order(e):
    return PSE_NAMES.index(e) if e in PSE_NAMES else len(PSE_NAMES)


def adjust(tests: pd.DataFrame, *, family: str = "all", alpha: float = 0.05) -> pd.DataFrame:
    """Add Holm and BH adjusted p-values and ``sig_{none,holm,bh}`` flags to :func:`long_tests` output.

    ``family``: "all" (every test in the table, the honest family for a paper that
    reports all of them), "attribute" (Table 4 and Table 5 separately) or "audit"
    (the five effects of one audit). ``sig_none`` is the paper's rule (CI excludes 0).
    """
    groups = {"all": None, "attribute": ["attribute"], "audit": ["row"]}
    if family not in groups:
        raise ValueError(f"unknown multiplicity family {family!r}; use one of {list(groups)}")
    out = tests.copy()
    for name, fn in ADJUSTERS.items():
        if groups[family] is None:
            out[f"p_{name}"] = fn(out["p"].to_numpy())
        else:
            out[f"p_{name}"] = out.groupby(groups[family], sort=False)["p"].transform(lambda s: fn(s.to_numpy()))
    out["sig_none"] = out["ci_excludes_0"]
    out["sig_holm"] = out["p_holm"] < alpha
    out["sig_bh"] = out["p_bh"] < alpha
    return out


def significance(table: pd.DataFrame, method: str = "none", *, family: str = "all",
                 alpha: float = 0.05, signed_zero: bool = False) -> pd.DataFrame:
    """Wide boolean table (rows of ``table`` × TE..RIE): is each effect significant under ``method``.

    ``method`` is "none" (the paper's CI-excludes-0 rule), "p" (recovered p < alpha,
    uncorrected), "holm" or "bh".

    Parameters
    ----------
    table : pandas.DataFrame
        A results table (``{E}_{estimate,ci_low,ci_high}``).
    method : {"none", "p", "holm", "bh"}
        The rule.
    family : str
        What one correction runs over: "all" rows at once, or per a key column's values.
    alpha : float
        The level of the corrected tests.
    signed_zero : bool
        Read a bound of ±0 by its sign (the published rounding).

    Returns
    -------
    pandas.DataFrame
        Booleans, one column per effect.

    Examples
    --------
    >>> from popresume.audit.metrics import published_table
    >>> published = published_table()  # the paper's Tables 4-5
    >>> significance(published.head(2), "holm").to_dict("records")[1]
    {'TE': True, 'NDE': False, 'NIE': False, 'BIE': False, 'RIE': False}
    """
    if method not in ("none", "p", "holm", "bh"):
        raise ValueError(f"unknown significance method {method!r}; use none, p, holm or bh")
    t = adjust(long_tests(table), family=family, alpha=alpha)
    if method == "p":
        t["sig_p"] = t["p"] < alpha
    if signed_zero:
        t["sig_none"] = t["ci_excludes_0_signed"]
    wide = t.pivot(index="row", columns="effect", values=f"sig_{method}")
    wide = wide.reindex(columns=list(PSE_NAMES)).astype(bool)
    wide.index = table.index
    wide.columns.name = None
    return wide


# --------------------------------------------------------------------------- cases
def cases_from_significance(sig: pd.DataFrame, estimates: pd.DataFrame | None = None, *,
                            rule: str = "stated") -> pd.Series:
    """Case labels C1–C5 from a significance pattern, by the rules of PopResume §5.2.

    ``sig``: boolean columns TE, NDE, NIE, BIE, RIE (e.g. after a Holm or BH correction).
    ``estimates``: the matching point estimates (needed for Case 2's NDE·NIE < 0), columns
    named like ``sig`` or ``{E}_estimate``. The rules themselves are
    ``popresume.causal.cases.flags_from_significance`` (``rule="paper"``: C3 and C4 also
    need NIE ≠ 0). Returns "C1,C5"-style strings, "-" when no case applies.

    Parameters
    ----------
    sig : pandas.DataFrame
        Booleans, one column per effect.
    estimates : pandas.DataFrame, optional
        The point estimates.
    rule : {"stated", "paper"}
        §5.2's definitions as written, or as the authors applied them.

    Returns
    -------
    pandas.Series
        One label per row.

    Examples
    --------
    >>> from popresume.audit.metrics import published_table
    >>> published = published_table()  # the paper's Tables 4-5
    >>> rows = published.head(3)
    >>> cases_from_significance(significance(rows), rows).tolist()
    ['C1,C5', '-', 'C1,C5']
    """
    if estimates is None:
        raise ValueError("cases_from_significance needs the point estimates (Case 2 uses NDE·NIE < 0)")

    def col(e):
        c = e if e in estimates.columns else f"{e}_estimate"
        require_columns(estimates, [c], "estimates table")
        return estimates[c].to_numpy(float)

    return labels_from_flags(flags_from_significance(sig, col("NDE"), col("NIE"), rule))


def recount_cases(table: pd.DataFrame, *, methods: Sequence[str] = ("none", "holm", "bh"),
                  family: str = "all", alpha: float = 0.05, rule: str = "stated") -> pd.DataFrame:
    """Case counts (rows C1..C5, none) under each significance method (columns).

    Counted over all audits (the paper counts C1 over the 80 audits without a photo:
    pass ``table[table.format != "image+photo"]`` for that denominator).

    Parameters
    ----------
    table : pandas.DataFrame
        A results table.
    methods : sequence of str
        Significance rules, as :func:`significance` takes them.
    family, alpha, rule
        As in :func:`significance` and :func:`cases_from_significance`.

    Returns
    -------
    pandas.DataFrame
        Counts; rows C1..C5 and ``none``, one column per method.

    Examples
    --------
    >>> from popresume.audit.metrics import published_table
    >>> published = published_table()  # the paper's Tables 4-5
    >>> recount_cases(published).loc["C1"].to_dict()
    {'none': 79, 'holm': 48, 'bh': 74}
    """
    out = {}
    for m in methods:
        sig = significance(table, m, family=family, alpha=alpha, signed_zero=(rule == "paper"))
        out[m] = case_counts(cases_from_significance(sig, table, rule=rule))[[*CASES, "none"]]
    return pd.DataFrame(out)


def recount_table(table: pd.DataFrame, *, family: str = "all", alpha: float = 0.05,
                  rule: str = "stated") -> pd.DataFrame:
    """Per audit: the case labels with no correction, Holm and BH (plus the printed labels if any).

    ``rule``: the case rule of :func:`cases_from_significance`; with ``"paper"`` the
    uncorrected significance also reads printed bounds of ±0.000 by their sign.
    Columns: the audit keys, ``paper_cases`` / ``cases`` when present, ``cases_none``,
    ``cases_holm``, ``cases_bh``.
    """
    keys = [c for c in KEY_COLUMNS if c in table.columns]
    out = table[keys].copy()
    for c in ("paper_cases", "cases"):
        if c in table.columns:
            out[c] = table[c].to_numpy()
    for m in ("none", "holm", "bh"):
        sig = significance(table, m, family=family, alpha=alpha, signed_zero=(rule == "paper" and m == "none"))
        out[f"cases_{m}"] = cases_from_significance(sig, table, rule=rule).to_numpy()
    return out


def surviving_findings(table: pd.DataFrame, *, family: str = "all", alpha: float = 0.05) -> pd.DataFrame:
    """Every effect the paper calls significant (CI excludes 0), with whether it survives Holm / BH.

    Parameters
    ----------
    table : pandas.DataFrame
        A results table.
    family : str
        As in :func:`significance`.
    alpha : float
        The level of the corrected tests.

    Returns
    -------
    pandas.DataFrame
        One row per significant effect, with its recovered p-value, the adjusted ones and
        ``survives_holm`` / ``survives_bh``.

    Examples
    --------
    >>> from popresume.audit.metrics import published_table
    >>> published = published_table()  # the paper's Tables 4-5
    >>> found = surviving_findings(published)
    >>> int(found["survives_holm"].sum()) <= int(found["survives_bh"].sum()) <= len(found)
    True
    """
    t = adjust(long_tests(table), family=family, alpha=alpha)
    t = t[t["sig_none"]].copy()
    t = t.rename(columns={"sig_holm": "survives_holm", "sig_bh": "survives_bh"})
    return t.drop(columns=["sig_none"]).reset_index(drop=True)


def multiplicity_summary(table: pd.DataFrame, *, family: str = "all", alpha: float = 0.05) -> pd.Series:
    """Headline numbers: tests, significant by the paper's rule, surviving Holm / BH, p/CI agreement."""
    t = adjust(long_tests(table), family=family, alpha=alpha)
    return pd.Series({
        "tests": len(t),
        "significant (CI excludes 0)": int(t["sig_none"].sum()),
        "recovered p < alpha agrees with CI rule": int(((t["p"] < alpha) == t["sig_none"]).sum()),
        "survive Holm": int((t["sig_none"] & t["sig_holm"]).sum()),
        "survive BH": int((t["sig_none"] & t["sig_bh"]).sum()),
        "Holm-significant total": int(t["sig_holm"].sum()),
        "BH-significant total": int(t["sig_bh"].sum()),
    }, name=f"family={family}")


# --------------------------------------------------------------------------- Case 2 masking
def te_alone(table: pd.DataFrame, *, method: str = "none", family: str = "all") -> pd.DataFrame:
    """What an auditor who looked only at TE would have concluded, next to the decomposition.

    Columns: ``te_verdict`` ("disparity" / "no disparity"), ``hidden_effects`` (the
    significant NDE/NIE/BIE/RIE the TE verdict does not reveal when TE ≃ 0),
    ``masked`` (TE ≃ 0 yet some path-specific effect ≠ 0) and ``case2`` (the stated
    cancellation rule).

    Parameters
    ----------
    table : pandas.DataFrame
        A results table.
    method : str
        The significance rule, as :func:`significance` takes it.
    family : str
        As in :func:`significance`.

    Returns
    -------
    pandas.DataFrame
        The keys, ``TE_estimate`` and the columns above.

    Examples
    --------
    >>> from popresume.audit.metrics import published_table
    >>> published = published_table()  # the paper's Tables 4-5
    >>> te_alone(published.head(1))[["te_verdict", "masked"]].to_dict("records")
    [{'te_verdict': 'disparity', 'masked': False}]
    """
    sig = significance(table, method, family=family)
    keys = [c for c in KEY_COLUMNS if c in table.columns]
    out = table[keys].copy()
    out["TE_estimate"] = table["TE_estimate"].to_numpy()
    out["te_verdict"] = np.where(sig["TE"], "disparity", "no disparity")
    others = [e for e in PSE_NAMES if e != "TE"]
    hidden = sig[others].apply(lambda r: ",".join(e for e in others if r[e]), axis=1)
    out["hidden_effects"] = np.where(~sig["TE"].to_numpy(), hidden.to_numpy(), "")
    out["masked"] = (~sig["TE"] & sig[others].any(axis=1)).to_numpy()
    out["case2"] = cases_from_significance(sig, table).str.contains("C2").to_numpy()
    return out


# --------------------------------------------------------------------------- adverse impact
# Thin calls into popresume.ll144, the one implementation of both rules (docs/DESIGN.md §7).
def selection_rates(df: pd.DataFrame, group: str | Sequence[str], *, score: str = "score",
                    select_top: float | None = 0.25, threshold: float | None = None) -> pd.DataFrame:
    """Four-fifths selection rate per group when the top ``select_top`` share (or ``score >= threshold``)
    is selected (:func:`popresume.ll144.selection_rates_at_cut`; rows with a missing group are left out).

    The four-fifths rule (EEOC Uniform Guidelines, 29 CFR 1607.4(D)): a group whose
    rate is below 4/5 of the highest group's rate shows adverse impact. Columns: the group
    column(s), n, selected, selection_rate, impact_ratio (rate / highest rate),
    four_fifths_ok, threshold (the score a résumé needed to be selected).

    Parameters
    ----------
    df : pandas.DataFrame
        One row per scored résumé.
    group : str or sequence of str
        The group column(s).
    score : str
        The score column.
    select_top : float or None
        The share selected, from the top down.
    threshold : float or None
        Select ``score >= threshold`` instead.

    Returns
    -------
    pandas.DataFrame
        One row per group.

    Examples
    --------
    >>> import pandas as pd
    >>> d = pd.DataFrame({"gender": ["F"] * 4 + ["M"] * 4, "score": [1, 2, 3, 6, 4, 5, 7, 8]})
    >>> selection_rates(d, "gender")[["gender", "selected", "impact_ratio", "four_fifths_ok"]].to_dict("records")
    [{'gender': 'F', 'selected': 0, 'impact_ratio': 0.0, 'four_fifths_ok': False}, {'gender': 'M', 'selected': 2, 'impact_ratio': 1.0, 'four_fifths_ok': True}]
    """
    cols = [group] if isinstance(group, str) else list(group)
    t = ll144.selection_rates_at_cut(df, cols, score, select_top=select_top, threshold=threshold)
    t = t[t["known"]].rename(columns={"rate": "selection_rate", "ratio": "impact_ratio", "cut": "threshold"})
    t["four_fifths_ok"] = t["impact_ratio"] >= ll144.FOUR_FIFTHS
    return t[[*cols, "n", "selected", "selection_rate", "impact_ratio", "four_fifths_ok", "threshold"]] \
        .reset_index(drop=True)


def four_fifths_ratio(df: pd.DataFrame, column: str, x0: str, x1: str, *, score: str = "score",
                      select_top: float | None = 0.25, threshold: float | None = None) -> float:
    """Selection-rate ratio rate(x0) / rate(x1), the four-fifths comparison for the audited contrast."""
    r = selection_rates(df, column, score=score, select_top=select_top, threshold=threshold).set_index(column)
    for v in (x0, x1):
        if v not in r.index:
            raise ValueError(f"group {v!r} does not occur in column {column!r}")
    if r.loc[x1, "selection_rate"] == 0:
        return float("inf") if r.loc[x0, "selection_rate"] > 0 else float("nan")
    return float(r.loc[x0, "selection_rate"] / r.loc[x1, "selection_rate"])


def ll144_impact_ratios(df: pd.DataFrame, *, score: str = "score", sex: str = "gender", race: str = "race",
                        min_share: float = 0.02) -> pd.DataFrame:
    """NYC Local Law 144 impact ratios for a scoring tool (6 RCNY §5-301(b)).

    Scoring rate = share of a category scoring above the median score of the whole
    sample; impact ratio = scoring rate / the highest category's scoring rate, within
    each breakdown ("sex", "race", "sex × race"). Categories under ``min_share`` of
    the data are flagged ``excluded`` and left out of the highest-rate reference, as
    the rule allows (they are still reported). The numbers are
    :func:`popresume.ll144.breakdown_table` without its intervals and unknown rows.

    Parameters
    ----------
    df, score, sex, race
        The scored rows and their columns, as :func:`popresume.ll144.breakdown_table` reads them.
    min_share : float
        Categories under this share are reported but not rated.

    Returns
    -------
    pandas.DataFrame
        One row per breakdown and category: ``n``, ``share``, ``above_median``,
        ``scoring_rate``, ``impact_ratio``, ``excluded``.

    Examples
    --------
    >>> import pandas as pd
    >>> d = pd.DataFrame({"gender": ["F", "F", "F", "M", "M", "M"], "race": ["A", "B", "B", "A", "B", "B"],
    ...                   "score": [1, 2, 6, 3, 4, 5]})
    >>> t = ll144_impact_ratios(d, min_share=0)
    >>> t.loc[t["breakdown"] == "sex", ["category", "scoring_rate", "impact_ratio"]].to_dict("records")
    [{'category': 'F', 'scoring_rate': 0.3333333333333333, 'impact_ratio': 0.5}, {'category': 'M', 'scoring_rate': 0.6666666666666666, 'impact_ratio': 1.0}]
    """
    t = ll144.breakdown_table(df, score=score, sex=sex, race=race, rule="median_split", min_share=min_share)
    t = t[t["known"]].rename(columns={"selected": "above_median", "rate": "scoring_rate", "ratio": "impact_ratio",
                                      "under_2pct": "excluded"})
    cols = ["breakdown", "category", "n", "share", "above_median", "scoring_rate", "impact_ratio", "excluded"]
    return t[cols].reset_index(drop=True)


def adverse_impact_summary(df: pd.DataFrame, *, attribute: str, x: str, x0: str, x1: str, score: str = "score",
                           select_top: float = 0.25) -> dict:
    """The outcome-level numbers for one audit cell: four-fifths ratio and LL144 scoring-rate ratio of x0 vs x1.

    Both cuts (the top ``select_top`` share, the median) are those of every row of ``df``.
    """
    ff = four_fifths_ratio(df, x, x0, x1, score=score, select_top=select_top)
    rates = ll144.category_counts(df, x, score, rule="median_split").set_index("category")
    r0, r1 = (rates.loc[str(v), "selected"] / rates.loc[str(v), "n"] if str(v) in rates.index else np.nan
              for v in (x0, x1))
    return {
        "attribute": attribute,
        "four_fifths_ratio": ff,
        "four_fifths_flag": bool(min(ff, 1 / ff) < ll144.FOUR_FIFTHS) if np.isfinite(ff) and ff > 0 else True,
        "ll144_scoring_rate_x0": float(r0),
        "ll144_scoring_rate_x1": float(r1),
        "ll144_impact_ratio": float(min(r0, r1) / max(r0, r1)) if max(r0, r1) > 0 else float("nan"),
        "mean_gap": float(df.loc[df[x] == x1, score].mean() - df.loc[df[x] == x0, score].mean()),
    }


def compare_with_causal(outcome: pd.DataFrame, results: pd.DataFrame, *, method: str = "none") -> pd.DataFrame:
    """Join outcome-level verdicts with the causal decomposition and name each disagreement.

    ``outcome``: one row per audit with the keys and ``four_fifths_flag`` (from
    :func:`adverse_impact_summary`). Disagreement kinds:

    * "missed: direct" — no four-fifths flag, yet NDE ≠ 0;
    * "missed: redlining" — no flag, yet RIE ≠ 0 (an impermissible proxy path);
    * "flagged: business necessity only" — flagged, but only BIE ≠ 0 among NDE/BIE/RIE
      (a disparity the employer may defend);
    * "flagged: no significant effect" — flagged while no effect is significant.

    Parameters
    ----------
    outcome : pandas.DataFrame
        Outcome verdicts, one row per audit (:func:`popresume.audit.outcome_table`).
    results : pandas.DataFrame
        The decomposition, one row per audit (``run_audit(...).table``).
    method : str
        The significance rule for the effects, as :func:`significance` takes it.

    Returns
    -------
    pandas.DataFrame
        The audits in both, with ``sig_{E}`` and ``disagreement`` ("" when they agree).

    Examples
    --------
    >>> from popresume.audit.metrics import published_table
    >>> published = published_table()  # the paper's Tables 4-5
    >>> import pandas as pd
    >>> row = published.iloc[[0]]
    >>> outcome = row[["attribute", "occupation", "format", "model"]].assign(four_fifths_flag=False)
    >>> compare_with_causal(outcome, row)["disagreement"].tolist()
    ['missed: direct; missed: redlining']
    """
    keys = [c for c in KEY_COLUMNS if c in outcome.columns and c in results.columns]
    sig = significance(results, method).add_prefix("sig_")
    r = pd.concat([results[keys].reset_index(drop=True), sig.reset_index(drop=True)], axis=1)
    return name_disagreements(outcome.merge(r, on=keys, how="inner", validate="one_to_one"))


def name_disagreements(m: pd.DataFrame) -> pd.DataFrame:
    """Add the ``disagreement`` column of :func:`compare_with_causal` to a table that already
    holds ``four_fifths_flag`` and the ``sig_{effect}`` flags (one row per audit)."""
    m = m.copy()
    flag = m["four_fifths_flag"].astype(bool)

    def kinds(row):
        out = []
        if not row["four_fifths_flag"]:
            if row["sig_NDE"]:
                out.append("missed: direct")
            if row["sig_RIE"]:
                out.append("missed: redlining")
        else:
            if row["sig_BIE"] and not row["sig_NDE"] and not row["sig_RIE"]:
                out.append("flagged: business necessity only")
            if not any(row[f"sig_{e}"] for e in PSE_NAMES):
                out.append("flagged: no significant effect")
        return "; ".join(out)

    m["disagreement"] = m.apply(kinds, axis=1) if len(m) else pd.Series(dtype="str")
    m["four_fifths_flag"] = flag
    return m


# --------------------------------------------------------------------------- side by side
def format_effects(table: pd.DataFrame, *, digits: int = 3, effects: Sequence[str] = PSE_NAMES) -> pd.DataFrame:
    """The effects as the paper prints them: "0.255 [0.194, 0.317]", with a "*" when the CI excludes 0.

    An effect without an interval (not estimable at the audit's overlap) prints its point
    estimate followed by "(not estimable)", never "[nan, nan]".
    """
    out = pd.DataFrame(index=table.index)
    for e in effects:
        est, lo, hi = (table[f"{e}_{s}"].to_numpy(float) for s in ("estimate", "ci_low", "ci_high"))
        star = np.where(significant(lo, hi), "*", "")
        out[e] = [f"{a:.{digits}f} (not estimable)" if np.isnan(b) or np.isnan(c)
                  else f"{a:.{digits}f} [{b:.{digits}f}, {c:.{digits}f}]{s}" for a, b, c, s in zip(est, lo, hi, star)]
    return out


def side_by_side(ours: pd.DataFrame, published: pd.DataFrame, *, digits: int = 3) -> pd.DataFrame:
    """Our audits and the published Tables 4-5 in one table, per (attribute, occupation, format).

    Columns: attribute, occupation, format, source ("ours" / "published"), model, cases and
    the five effects printed as "est [lo, hi]" ("*" = CI excludes 0). Only the
    configurations present in ``ours`` are kept. Our rows say which screener produced them
    (``model`` carries "(synthetic)" for the synthetic screener); when ``ours`` has a
    ``validity_verdict`` column, a "validity gate" column follows ``model`` (the paper
    reports no such check: its rows say ``schema.NOT_CARDED_PUBLISHED``).
    """
    keys = ["attribute", "occupation", "format"]
    pub = published.rename(columns={"paper_cases": "cases"})
    parts = []
    for src, t in (("ours", ours), ("published", pub)):
        d = t[keys + ["model"]].copy()
        d.insert(3, "source", src)
        if "validity_verdict" in ours.columns:
            d[VERDICT_COLUMN] = t["validity_verdict"].to_numpy() if src == "ours" else NOT_CARDED_PUBLISHED
        d["cases"] = t["cases"].to_numpy() if "cases" in t.columns else ""
        d = pd.concat([d.reset_index(drop=True), format_effects(t, digits=digits).reset_index(drop=True)], axis=1)
        parts.append(d)
    out = pd.concat(parts, ignore_index=True)
    present = ours[keys].drop_duplicates()
    out = out.merge(present, on=keys, how="inner")
    fmt_order = {"text": 0, "image": 1, "image+photo": 2}
    out["_f"] = out["format"].map(fmt_order)
    out["_s"] = (out["source"] != "ours").astype(int)
    return out.sort_values(["attribute", "occupation", "_f", "_s"], kind="stable").drop(columns=["_f", "_s"]) \
        .reset_index(drop=True)


def published_table(path=None) -> pd.DataFrame:
    """The published Tables 4-5 (data/published/popresume_published_pse.csv; copied from the shared data if absent)."""
    p = Path(path) if path is not None else DATA_DIR / "published" / "popresume_published_pse.csv"
    if not p.exists():
        raise FileNotFoundError(f"published table not found: {p}")
    try:
        return pd.read_csv(p)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise ValueError(f"{p} is not a CSV table: {str(e).strip().splitlines()[0]}") from None
