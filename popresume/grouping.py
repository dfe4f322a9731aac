"""Appendix C.4: grouping of high-cardinality attributes for stable PSE estimation.

Each threshold is strict, as the appendix words it ("exceeds"): a name whose share sits
exactly on a threshold is "neutral" (``inclusive=True`` gives the ≥ reading instead;
:func:`threshold_ties` lists the names the two readings put in different groups).

* first_name → gender typicality: P(female | name) from SSA counts; > 0.75 "female",
  < 0.25 (i.e. P(male | name) > 0.75) "male", otherwise "neutral".
* first_name → age typicality: the profile ages are cut into three equal cohorts (18-26
  "young", 27-35 "mid", 36-44 "old" for the paper's 18-44, via birth years relative to
  2023); P(cohort | name) from SSA counts of the name in those birth years; the cohort with
  probability > 0.5 names the group, otherwise "neutral".
* surname → "Asian" / "Black" / "White" when the Census 2010 share of that race among
  bearers of the surname is > 0.5, otherwise "neutral" (also for surnames not in the table).
* state → the four Census regions; edu_level (7 ACS levels) → low / medium / high.
* race → ``race_binary`` "White" / "Non-White", the paper's race contrast (Appendix E).

The statistics use the whole SSA name records of the cohorts (not the sampled profiles), so
a name's group is a property of the name, the same in every sample.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from popresume.errors import require_columns
from popresume.io import cached_tables
from popresume.schema import EDU_LEVELS
from popresume.sources import STATE_REGION
from popresume.sources.names import load_ssa_names, surname_race_probabilities, title_case

GENDER_THRESHOLD = 0.75
AGE_THRESHOLD = 0.5
SURNAME_THRESHOLD = 0.5
REFERENCE_YEAR = 2023
DEFAULT_AGE_RANGE = (18, 44)

EDU_GROUP: dict[str, str] = {
    "High school graduate/GED": "low",
    "Some college (no degree)": "low",
    "Associate's degree": "medium",
    "Bachelor's": "medium",
    "Master's": "high",
    "Professional degree": "high",
    "Doctorate": "high",
}
assert set(EDU_GROUP) == set(EDU_LEVELS)
SURNAME_GROUP_OF_RACE = {"API": "Asian", "Black": "Black", "White": "White"}
AGE_GROUPS = ("young", "mid", "old")


def age_cohorts(age_range=DEFAULT_AGE_RANGE) -> dict[str, tuple[int, int]]:
    """Three equal-width age cohorts over ``age_range``: young / mid / old → (lo, hi) ages."""
    lo, hi = int(age_range[0]), int(age_range[1])
    edges = np.linspace(lo, hi + 1, 4).round().astype(int)
    return {g: (int(edges[i]), int(edges[i + 1] - 1)) for i, g in enumerate(AGE_GROUPS)}


@cached_tables(maxsize=4)
def first_name_stats(age_range=DEFAULT_AGE_RANGE) -> pd.DataFrame:
    """Per first name: ``p_female`` and P(cohort | name) for the three cohorts, from SSA counts.

    Index: name; columns p_female, p_young, p_mid, p_old, n (total births).
    """
    cohorts = age_cohorts(age_range)
    lo, hi = int(age_range[0]), int(age_range[1])
    ssa = load_ssa_names((REFERENCE_YEAR - hi, REFERENCE_YEAR - lo))
    ssa = ssa[(ssa["year"] >= REFERENCE_YEAR - hi) & (ssa["year"] <= REFERENCE_YEAR - lo)]
    age = REFERENCE_YEAR - ssa["year"].to_numpy()
    cohort = np.full(len(ssa), "", dtype=object)
    for g, (a, b) in cohorts.items():
        cohort[(age >= a) & (age <= b)] = g
    t = pd.DataFrame({"name": ssa["name"].to_numpy(), "sex": ssa["sex"].to_numpy(), "cohort": cohort,
                      "n": ssa["n"].to_numpy()})
    by_sex = t.pivot_table(index="name", columns="sex", values="n", aggfunc="sum", fill_value=0)
    by_cohort = t.pivot_table(index="name", columns="cohort", values="n", aggfunc="sum", fill_value=0)
    n = by_sex.sum(axis=1)
    out = pd.DataFrame({"p_female": by_sex.get("F", 0) / n})
    for g in AGE_GROUPS:
        out[f"p_{g}"] = by_cohort.get(g, 0) / n
    out["n"] = n
    return out


def _above(p, threshold: float, inclusive: bool):
    return p >= threshold if inclusive else p > threshold


def gender_typicality(first_names, *, threshold: float = GENDER_THRESHOLD, age_range=DEFAULT_AGE_RANGE,
                      inclusive: bool = False) -> np.ndarray:
    """"female" / "male" / "neutral" for each first name (Appendix C.4: the share of one sex
    exceeds 0.75)."""
    p = pd.Series(np.asarray(first_names, dtype=object)).map(first_name_stats(tuple(age_range))["p_female"])
    p = p.to_numpy(float)
    female = _above(p, threshold, inclusive)
    male = _above(1 - p, threshold, inclusive) & ~female
    out = np.where(female, "female", np.where(male, "male", "neutral"))
    return np.asarray(out, dtype=object)


def age_typicality(first_names, *, threshold: float = AGE_THRESHOLD, age_range=DEFAULT_AGE_RANGE,
                   inclusive: bool = False) -> np.ndarray:
    """"young" / "mid" / "old" / "neutral" for each first name (Appendix C.4: the share of
    one cohort exceeds 0.5)."""
    stats = first_name_stats(tuple(age_range))
    names = pd.Series(np.asarray(first_names, dtype=object))
    probs = np.column_stack([names.map(stats[f"p_{g}"]).to_numpy(float) for g in AGE_GROUPS])
    probs = np.nan_to_num(probs, nan=0.0)
    best = probs.argmax(axis=1)
    typical = _above(probs.max(axis=1), threshold, inclusive)
    return np.where(typical, np.asarray(AGE_GROUPS, dtype=object)[best], "neutral").astype(object)


def surname_group(surnames, *, threshold: float = SURNAME_THRESHOLD, inclusive: bool = False) -> np.ndarray:
    """"Asian" / "Black" / "White" / "neutral" for each surname (Appendix C.4: the share of
    one race exceeds 0.5)."""
    probs = surname_race_probabilities()
    names = pd.Series([title_case(s) for s in np.asarray(surnames, dtype=object)])
    out = np.full(len(names), "neutral", dtype=object)
    for race, label in SURNAME_GROUP_OF_RACE.items():
        p = names.map(probs[race]).to_numpy(float)
        out[_above(np.nan_to_num(p, nan=0.0), threshold, inclusive)] = label
    return out


def threshold_ties(first_names, surnames, *, age_range=DEFAULT_AGE_RANGE) -> pd.DataFrame:
    """The distinct names that the ≥ and the > reading of the C.4 thresholds group differently.

    One row per (grouping, name): ``grouping`` (fn_gender / fn_age / surname_group),
    ``name``, ``strict`` (the group with >, the paper's "exceeds", used by the package) and
    ``inclusive`` (the group with ≥). Empty when no name sits exactly on a threshold.
    """
    rows = []
    first = pd.unique(pd.Series(np.asarray(first_names, dtype=object)).dropna())
    last = pd.unique(pd.Series(np.asarray(surnames, dtype=object)).dropna())
    for grouping, names, fn in (
        ("fn_gender", first, lambda v, inc: gender_typicality(v, age_range=age_range, inclusive=inc)),
        ("fn_age", first, lambda v, inc: age_typicality(v, age_range=age_range, inclusive=inc)),
        ("surname_group", last, lambda v, inc: surname_group(v, inclusive=inc)),
    ):
        strict, inclusive = fn(names, False), fn(names, True)
        moved = strict != inclusive
        rows.append(pd.DataFrame({"grouping": grouping, "name": names[moved],
                                  "strict": strict[moved], "inclusive": inclusive[moved]}))
    return pd.concat(rows, ignore_index=True)


def _map_or_raise(values, mapping: dict, what: str, expected: str) -> np.ndarray:
    """Map each value through ``mapping``; raise naming the first value it does not know."""
    s = pd.Series(np.asarray(values, dtype=object))
    out = s.map(mapping)
    if out.isna().any():
        raise ValueError(f"unknown {what} {s[out.isna()].iloc[0]!r}; expected {expected}")
    return out.to_numpy(object)


def edu_group(edu_level) -> np.ndarray:
    """low / medium / high for the 7 ACS levels (Appendix C.4)."""
    return _map_or_raise(edu_level, EDU_GROUP, "edu_level", f"one of {list(EDU_LEVELS)}")


def region_of(states) -> np.ndarray:
    """Census region of each USPS state code."""
    return _map_or_raise(states, STATE_REGION, "state", "a USPS code such as 'CA'")


def add_groups(profiles: pd.DataFrame, *, age_range=DEFAULT_AGE_RANGE) -> pd.DataFrame:
    """Copy of ``profiles`` with fn_gender, fn_age, surname_group, edu_group, race_binary
    (and region, when absent). Needs columns first_name, surname, edu_level, race, state."""
    state = () if "region" in profiles.columns else ("state",)  # region is derived from state when absent
    require_columns(profiles, ("first_name", "surname", "edu_level", "race", *state), "add_groups: profile table")
    out = profiles.copy()
    # look each distinct name up once
    fn = pd.Series(out["first_name"].unique())
    fn_g = dict(zip(fn, gender_typicality(fn, age_range=age_range)))
    fn_a = dict(zip(fn, age_typicality(fn, age_range=age_range)))
    sn = pd.Series(out["surname"].unique())
    sn_g = dict(zip(sn, surname_group(sn)))
    out["fn_gender"] = out["first_name"].map(fn_g).astype("str")
    out["fn_age"] = out["first_name"].map(fn_a).astype("str")
    out["surname_group"] = out["surname"].map(sn_g).astype("str")
    out["edu_group"] = pd.Series(edu_group(out["edu_level"]), index=out.index).astype("str")
    if "region" not in out.columns:
        out["region"] = pd.Series(region_of(out["state"]), index=out.index).astype("str")
    out["race_binary"] = np.where(out["race"] == "White", "White", "Non-White")
    out["race_binary"] = out["race_binary"].astype("str")
    return out
