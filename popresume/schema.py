"""The compendium's shared vocabulary: occupations, attribute levels, table columns.

Every stage imports its names from here so that a profile written by
``popresume.population`` is read by the résumé renderer, the screeners and the
estimator without translation. Values follow the paper's words (PopResume §4,
Table 2, Table 3, Appendix C.4).
"""

from __future__ import annotations

import re
from typing import Iterable

import pandas as pd

from popresume.errors import require_columns

# Occupation key -> label as printed in PopResume Tables 4-5 (and in
# data/popresume_published_pse.csv), the SOC code(s), and the Table 3 sample size.
OCCUPATIONS: dict[str, dict] = {
    "nurse": {"label": "Registered Nurses", "soc": "29-1141", "size": 17632},
    "teacher": {"label": "Elementary Middle School Teachers", "soc": "25-2021+25-2022", "size": 16188},
    "software_developer": {"label": "Software Developers", "soc": "15-1252", "size": 13370},
    "accountant": {"label": "Accountants Auditors", "soc": "13-2011", "size": 7784},
    "construction_laborer": {"label": "Construction Laborers", "soc": "47-2061", "size": 5910},
}
OCCUPATION_KEYS: tuple[str, ...] = tuple(OCCUPATIONS)
OCCUPATION_LABELS: dict[str, str] = {k: v["label"] for k, v in OCCUPATIONS.items()}
DEFAULT_SIZES: dict[str, int] = {k: v["size"] for k, v in OCCUPATIONS.items()}  # total 60,884

GENDERS: tuple[str, ...] = ("F", "M")
# The paper keeps three race groups and drops the others (§4.1).
RACES: tuple[str, ...] = ("White", "Black", "API")
RACE_LABELS = {"White": "White", "Black": "Black", "API": "Asian/Pacific Islander"}
# The seven ACS attainment categories the paper keeps (Figure 7c), in order.
EDU_LEVELS: tuple[str, ...] = (
    "High school graduate/GED",
    "Some college (no degree)",
    "Associate's degree",
    "Bachelor's",
    "Master's",
    "Professional degree",
    "Doctorate",
)
REGIONS: tuple[str, ...] = ("Northeast", "Midwest", "South", "West")
FORMATS: tuple[str, ...] = ("text", "image", "image+photo")
ATTRIBUTES: tuple[str, ...] = ("gender", "race")
PSE_NAMES: tuple[str, ...] = ("TE", "NDE", "NIE", "BIE", "RIE")

PROFILE_COLUMNS: tuple[str, ...] = (
    "resume_id", "occupation", "gender", "race", "age", "birth_year", "state",
    "region", "edu_level", "exp_year", "first_name", "surname",
)

_CATEGORICAL = {
    "occupation": OCCUPATION_KEYS,
    "gender": GENDERS,
    "race": RACES,
    "edu_level": EDU_LEVELS,
    "region": REGIONS,
}


# Profile columns that hold numbers; the others are text that is rendered into the résumé.
NUMERIC_PROFILE_COLUMNS: tuple[str, ...] = ("age", "birth_year", "exp_year")
# C0/C1 controls, DEL, and the Unicode line and paragraph separators: none belongs in a name
# control characters, line and paragraph separators, and the invisible format characters
# (zero-width spaces and joiners, bidirectional overrides such as U+202E and isolates such as
# U+2066, the Arabic letter mark, word joiners, BOM)
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")


def check_occupations(occupations: Iterable[str]) -> list[str]:
    """Return the occupations as a list, raising on an unknown key (naming it)."""
    occupations = list(occupations)
    unknown = [o for o in occupations if o not in OCCUPATIONS]
    if unknown:
        raise ValueError(f"unknown occupation(s) {unknown}; known: {list(OCCUPATION_KEYS)}")
    return occupations


def validate_profiles(df: pd.DataFrame) -> pd.DataFrame:
    """Check a profile table against the schema; raise naming the column, row and value.

    Returns ``df`` unchanged so it can be used inline.
    """
    require_columns(df, PROFILE_COLUMNS, "profile table")
    for col in PROFILE_COLUMNS:
        na = df[col].isna()
        if na.any():
            row = df.index[na.argmax()]
            raise ValueError(f"profile column {col!r} has a missing value (row {row!r})")
    for col in NUMERIC_PROFILE_COLUMNS:
        if not pd.api.types.is_numeric_dtype(df[col]) or pd.api.types.is_bool_dtype(df[col]):
            raise ValueError(f"profile column {col!r} has dtype {df[col].dtype} (e.g. {df[col].iloc[0]!r} in row "
                             f"{df.index[0]!r}); it must hold numbers: convert it, e.g. with pandas.to_numeric")
    for col in PROFILE_COLUMNS:
        if col in NUMERIC_PROFILE_COLUMNS:
            continue
        text = df[col].astype(str)
        bad = text.str.contains(_CONTROL, regex=True)
        if bad.any():
            i = int(bad.to_numpy().argmax())
            ch = _CONTROL.search(text.iloc[i]).group()
            raise ValueError(
                f"profile column {col!r} has a control character ({ch!r}) in row {df.index[i]!r} (resume_id "
                f"{df['resume_id'].iloc[i]!r}): {text.iloc[i]!r}; profile fields reach the screener's prompt "
                f"as written, so line breaks, NUL and other control characters are refused"
            )
    for col, levels in _CATEGORICAL.items():
        bad = ~df[col].isin(levels)
        if bad.any():
            i = bad.argmax()
            raise ValueError(
                f"profile column {col!r} has unknown value {df[col].iloc[i]!r} "
                f"(row {df.index[i]!r}, resume_id {df['resume_id'].iloc[i]!r}); expected one of {list(levels)}"
            )
    if df["resume_id"].duplicated().any():
        dup = df.loc[df["resume_id"].duplicated(), "resume_id"].iloc[0]
        raise ValueError(f"profile column 'resume_id' has duplicate value {dup!r}")
    too_long = df["exp_year"] > df["age"] - 18
    if too_long.any():
        i = too_long.argmax()
        raise ValueError(
            f"profile row {df.index[i]!r} (resume_id {df['resume_id'].iloc[i]!r}): exp_year "
            f"{df['exp_year'].iloc[i]} exceeds age - 18 = {df['age'].iloc[i] - 18}"
        )
    if (df["exp_year"] < 0).any():
        i = (df["exp_year"] < 0).argmax()
        raise ValueError(f"profile row {df.index[i]!r}: negative exp_year {df['exp_year'].iloc[i]}")
    return df

# The validity verdict every table of effects or decisions carries, in one column with one
# vocabulary on every page: "pass" or "fail" from a validity card (docs/DESIGN.md §4), or a
# "not carded" value that says why the numbers have no card.
VERDICT_COLUMN = "validity gate"
NOT_CARDED_PUBLISHED = "not carded (published model)"
NOT_CARDED_RECORDED = "not carded (recorded decisions)"
NOT_CARDED_HUMANS = "not carded (human recruiters)"
NOT_CARDED_NO_CARD = "not carded (no card run)"
