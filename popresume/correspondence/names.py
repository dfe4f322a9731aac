"""The name check: Appendix C.4's first-name grouping applied to B&M's 36 names.

B&M chose their names from Massachusetts birth certificates of 1974-79 (names most
distinctive of White or African-American babies) and labelled each by sex. Running
:mod:`popresume.grouping` (SSA gender typicality at 0.75 and age typicality at 0.5) on them
is an external check of the grouping against names that other people chose: does C.4 agree
with B&M's sex labels, which names does it call neutral, and in which birth years was
each name most common in the national SSA counts?
"""

from __future__ import annotations

import pandas as pd

from popresume.errors import require_columns
from popresume.grouping import (
    AGE_THRESHOLD,
    DEFAULT_AGE_RANGE,
    GENDER_THRESHOLD,
    REFERENCE_YEAR,
    age_typicality,
    first_name_stats,
    gender_typicality,
)
from popresume.sources.names import load_ssa_names

# B&M's applicants in 2001-02, aged like the paper's 18-44, were born 1957-1983; in the
# grouping's reference year (2023) those people are 40-66.
BM_ERA_AGE_RANGE = (18 + REFERENCE_YEAR - 2001, 44 + REFERENCE_YEAR - 2001)
_SEX_TO_GROUP = {"F": "female", "M": "male"}


def bm_names(df: pd.DataFrame) -> pd.DataFrame:
    """One row per first name: ``first_name``, ``race``, ``sex`` (B&M's labels), ``n`` résumés, callback rate."""
    require_columns(df, ["first_name", "race", "sex", "call"], "name table")
    g = df.groupby(["first_name", "race", "sex"], sort=True)["call"]
    out = pd.DataFrame({"n_resumes": g.size(), "callback_rate": g.mean()}).reset_index()
    dup = out["first_name"].duplicated()
    if dup.any():
        raise ValueError(f"first name {out.loc[dup, 'first_name'].iloc[0]!r} has two race/sex labels")
    return out


def ssa_peaks(names) -> pd.DataFrame:
    """For each name, the SSA birth year (1880-2017) in which it was the largest share of
    births of its more common sex (``peak_year``), that share per 1,000 births, and the year
    of the most births (``peak_count_year``). Names never in SSA data get NaN."""
    names = list(dict.fromkeys(names))
    ssa = load_ssa_names()
    totals = ssa.groupby(["year", "sex"])["n"].sum().rename("total")
    s = ssa[ssa["name"].isin(names)].join(totals, on=["year", "sex"])
    rows = []
    for name in names:
        t = s[s["name"] == name]
        if t.empty:
            rows.append({"first_name": name})
            continue
        sex = t.groupby("sex")["n"].sum().idxmax()
        t = t[t["sex"] == sex]
        share = t["n"] / t["total"]
        i = share.to_numpy().argmax()
        rows.append({"first_name": name, "ssa_sex": sex, "peak_year": int(t["year"].iloc[i]),
                     "peak_per_1000": float(1000 * share.iloc[i]),
                     "peak_count_year": int(t["year"].iloc[t["n"].to_numpy().argmax()]),
                     "ssa_births": int(t["n"].sum())})
    return pd.DataFrame(rows).set_index("first_name")


def name_check(df: pd.DataFrame, *, age_ranges: dict[str, tuple[int, int]] | None = None,
               peaks: bool = True) -> pd.DataFrame:
    """Appendix C.4 groups of B&M's first names, next to B&M's own labels.

    ``age_ranges``: label -> profile age range whose birth cohorts define the SSA statistics
    (default: the paper's 18-44 in 2023, ``"paper"``, and B&M's applicants, ``"bm_era"``
    = 18-44 in 2001). For each, columns ``p_female_<label>``, ``fn_gender_<label>``,
    ``fn_age_<label>`` and ``sex_agrees_<label>`` (C.4's gender group equals B&M's sex).
    With ``peaks``, the SSA peak years of :func:`ssa_peaks`.

    Parameters
    ----------
    df : pandas.DataFrame
        B&M's résumés.
    age_ranges : dict, optional
        Label -> age range.
    peaks : bool
        Add the SSA peak years.

    Returns
    -------
    pandas.DataFrame
        One row per first name.

    Examples
    --------
    >>> from popresume.correspondence import load_bertrand_mullainathan
    >>> check = name_check(load_bertrand_mullainathan(), peaks=False)
    >>> len(check), bool(check["sex_agrees_paper"].all())
    (36, True)
    """
    age_ranges = age_ranges or {"paper": DEFAULT_AGE_RANGE, "bm_era": BM_ERA_AGE_RANGE}
    out = bm_names(df).set_index("first_name")
    names = out.index.to_numpy()
    for label, rng in age_ranges.items():
        rng = tuple(int(a) for a in rng)
        stats = first_name_stats(rng)
        out[f"p_female_{label}"] = pd.Series(names, index=out.index).map(stats["p_female"]).to_numpy(float)
        out[f"fn_gender_{label}"] = gender_typicality(names, age_range=rng)
        out[f"fn_age_{label}"] = age_typicality(names, age_range=rng)
        out[f"sex_agrees_{label}"] = out[f"fn_gender_{label}"].to_numpy() == out["sex"].map(_SEX_TO_GROUP).to_numpy()
        # a name absent from the SSA cohorts: no statistic, so not an agreement either way
        out.loc[out[f"p_female_{label}"].isna(), f"fn_gender_{label}"] = "not in SSA cohorts"
    if peaks:
        out = out.join(ssa_peaks(names))
    return out


def name_check_summary(check: pd.DataFrame) -> pd.DataFrame:
    """Per cohort definition: names checked, agreement with B&M's sex, neutral names (listed).

    Parameters
    ----------
    check : pandas.DataFrame
        :func:`name_check`'s output.

    Returns
    -------
    pandas.DataFrame
        One row per cohort definition.

    Examples
    --------
    >>> from popresume.correspondence import load_bertrand_mullainathan
    >>> summary = name_check_summary(name_check(load_bertrand_mullainathan(), peaks=False))
    >>> summary[["names", "agree_with_bm_sex"]].to_dict("index")
    {'paper': {'names': 36, 'agree_with_bm_sex': 36}, 'bm_era': {'names': 36, 'agree_with_bm_sex': 36}}
    """
    labels = [c.removeprefix("sex_agrees_") for c in check.columns if c.startswith("sex_agrees_")]
    rows = []
    for lab in labels:
        g = check[f"fn_gender_{lab}"]
        rows.append({"cohorts": lab, "names": len(check),
                     "agree_with_bm_sex": int(check[f"sex_agrees_{lab}"].sum()),
                     "gender_neutral_names": ", ".join(check.index[g == "neutral"]) or "none",
                     "age_neutral_names": int((check[f"fn_age_{lab}"] == "neutral").sum()),
                     "not_in_ssa": ", ".join(check.index[g == "not in SSA cohorts"]) or "none",
                     "thresholds": f"gender {GENDER_THRESHOLD}, age {AGE_THRESHOLD}"})
    return pd.DataFrame(rows).set_index("cohorts")


__all__ = ["name_check", "name_check_summary", "ssa_peaks", "bm_names", "BM_ERA_AGE_RANGE"]
