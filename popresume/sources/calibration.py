"""The embedded default for P1 = P(gender, race, age, state, edu_level | J) (PopResume §4.1).

The paper draws P1 from 2023 ACS PUMS microdata, which cannot ship with this compendium
(IPUMS extracts may not be redistributed; the Census files are large downloads). The
default instead combines *published* one-way margins per occupation into a joint table.
Pass ``acs=`` to :func:`popresume.population.generate_population` to use real microdata.

Published facts (files in ``data/calibration/``, sources in ``data/README.md``):

* share of women, and of White / Black / Asian workers: BLS CPS 2023 Table 11;
* age distribution in bins 16-19, 20-24, 25-34, 35-44, 45-54, 55-64: BLS CPS 2023 Table 11b;
* educational attainment of workers 25+: BLS Employment Projections Table 5.3 (ACS 2019/2021);
* state employment of registered nurses: BLS OEWS May 2020;
* population by state and race (White / Black / Asian alone): ACS 2021 1-year DP05.

Modelling assumptions (each a named constant or argument below):

1. Race: the three kept groups are renormalised to sum to 1 (the paper drops other groups;
   CPS race groups include Hispanics of any race). Asian stands in for Asian/Pacific Islander.
2. Ages are uniform within each published bin (18-19 take 2/4 of the 16-19 bin).
3. Education: "less than high school" is dropped (the paper keeps 7 levels from high school
   up), and the published "doctoral or professional" share is split
   :data:`PROFESSIONAL_SHARE_OF_DOCTORAL` : rest between Professional degree and Doctorate.
   Degrees need a minimum age (:data:`MIN_AGE_FOR_DEGREE`); below it the level is impossible
   and the remaining levels are renormalised. The published distribution is for workers
   25+, and is applied unchanged from 25 on (every level is feasible at 25).
4. State: nurses use OEWS state employment shares; other occupations use state population
   shares (no state employment table was available for them).
5. State × race: iterative proportional fitting (IPF) of a seed table = the population by
   state and race (DP05) to the two margins P(state | J) and P(race | J). IPF keeps the
   seed's odds ratios (the state-race association of the general population) and matches
   both margins exactly; it is the minimum-KL table with those margins.
6. Gender, age, (race, state) and education are otherwise independent within an occupation
   (no published two-way tables exist at this occupational detail).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

from popresume.paths import data_path
from popresume.schema import EDU_LEVELS, GENDERS, OCCUPATIONS, RACES, check_occupations
from popresume.sources import STATE_USPS_BY_NAME, STATES

# CPS / EP row label for each occupation key (the SOC code is the join key; labels for reading).
CPS_SOC: dict[str, str] = {k: v["soc"] for k, v in OCCUPATIONS.items()}
# EP Table 5.3 lists teachers as 25-2021 and 25-2022 with one shared distribution.
EP_SOC: dict[str, str] = {**CPS_SOC, "teacher": "25-2021"}

# Assumption 3: share of "doctoral or professional degree" that is a professional degree.
PROFESSIONAL_SHARE_OF_DOCTORAL = 0.5
# Assumption 3: youngest age at which each level is plausible (typical US timelines).
MIN_AGE_FOR_DEGREE: dict[str, int] = {
    "High school graduate/GED": 18,
    "Some college (no degree)": 18,
    "Associate's degree": 20,
    "Bachelor's": 21,
    "Master's": 23,
    "Professional degree": 24,
    "Doctorate": 25,
}
# CPS Table 11b bins (lower, upper inclusive) -> column
AGE_BINS: dict[str, tuple[int, int]] = {
    "age_16_19": (16, 19), "age_20_24": (20, 24), "age_25_34": (25, 34),
    "age_35_44": (35, 44), "age_45_54": (45, 54), "age_55_64": (55, 64),
}
AGE_SUPPORT = (18, 64)  # ages the default tables cover (65+ is an open bin)
RACE_COLUMNS = {"White": "pct_white", "Black": "pct_black", "API": "pct_asian"}
POP_RACE_COLUMNS = {"White": "white_alone", "Black": "black_alone", "API": "asian_alone"}


def _read(name: str) -> pd.DataFrame:
    return pd.read_csv(data_path("calibration", name))


def _row(df: pd.DataFrame, soc: str, what: str) -> pd.Series:
    rows = df[df["soc"] == soc]
    if rows.empty:
        raise ValueError(f"calibration table {what} has no row for SOC {soc!r}")
    return rows.iloc[0]


@lru_cache(maxsize=None)
def gender_shares(occupation: str) -> pd.Series:
    """P(gender | J) from CPS Table 11 (% women)."""
    (occupation,) = check_occupations([occupation])
    w = float(_row(_read("cps11_sex_race.csv"), CPS_SOC[occupation], "cps11_sex_race.csv")["pct_women"]) / 100
    return pd.Series([w, 1 - w], index=list(GENDERS), name="p")


@lru_cache(maxsize=None)
def race_shares(occupation: str, races: tuple[str, ...] = RACES) -> pd.Series:
    """P(race | J) over the kept groups (CPS Table 11, renormalised: assumption 1)."""
    (occupation,) = check_occupations([occupation])
    row = _row(_read("cps11_sex_race.csv"), CPS_SOC[occupation], "cps11_sex_race.csv")
    p = pd.Series({r: float(row[RACE_COLUMNS[r]]) for r in races}, name="p")
    return p / p.sum()


def age_shares(occupation: str, age_range: tuple[int, int] = (18, 44)) -> pd.Series:
    """P(age | J) for single years in ``age_range`` (CPS Table 11b, uniform within bins)."""
    (occupation,) = check_occupations([occupation])
    lo, hi = check_age_range(age_range, AGE_SUPPORT, "the published age tables (CPS Table 11b)")
    row = _row(_read("cps11b_age.csv"), CPS_SOC[occupation], "cps11b_age.csv")
    ages = np.arange(lo, hi + 1)
    p = np.zeros(len(ages))
    for col, (a, b) in AGE_BINS.items():
        inside = (ages >= a) & (ages <= b)
        p[inside] = float(row[col]) / (b - a + 1)
    if p.sum() <= 0:
        raise ValueError(f"no workers in ages {lo}-{hi} for occupation {occupation!r}")
    return pd.Series(p / p.sum(), index=pd.Index(ages, name="age"), name="p")


@lru_cache(maxsize=None)
def education_shares(occupation: str) -> pd.Series:
    """P(edu_level | J, age >= 25) over the 7 kept levels (EP Table 5.3; assumption 3)."""
    (occupation,) = check_occupations([occupation])
    row = _row(_read("ep53_education.csv"), EP_SOC[occupation], "ep53_education.csv")
    doc = float(row["pct_doctoral_or_professional"])
    p = pd.Series({
        EDU_LEVELS[0]: float(row["pct_hs_diploma"]),
        EDU_LEVELS[1]: float(row["pct_some_college_no_degree"]),
        EDU_LEVELS[2]: float(row["pct_associate"]),
        EDU_LEVELS[3]: float(row["pct_bachelor"]),
        EDU_LEVELS[4]: float(row["pct_master"]),
        EDU_LEVELS[5]: doc * PROFESSIONAL_SHARE_OF_DOCTORAL,
        EDU_LEVELS[6]: doc * (1 - PROFESSIONAL_SHARE_OF_DOCTORAL),
    }, name="p")
    return p / p.sum()


def education_given_age(occupation: str, ages) -> pd.DataFrame:
    """P(edu_level | age, J): rows = ages, columns = EDU_LEVELS (assumption 3)."""
    base = education_shares(occupation).to_numpy()
    ages = np.asarray(list(ages), dtype=int)
    min_age = np.array([MIN_AGE_FOR_DEGREE[e] for e in EDU_LEVELS])
    feasible = ages[:, None] >= min_age[None, :]
    p = base[None, :] * feasible
    s = p.sum(axis=1, keepdims=True)
    if (s <= 0).any():
        raise ValueError(f"no feasible education level at age {int(ages[(s[:, 0] <= 0).argmax()])}")
    return pd.DataFrame(p / s, index=pd.Index(ages, name="age"), columns=list(EDU_LEVELS))


@lru_cache(maxsize=1)
def state_population() -> pd.DataFrame:
    """Population by state (USPS index) and race (DP05 2021), columns White/Black/API/total."""
    df = _read("state_race_shares.csv")
    df = df[df["state"].isin(STATE_USPS_BY_NAME)]
    out = pd.DataFrame({r: df[c].to_numpy(float) for r, c in POP_RACE_COLUMNS.items()})
    out["total"] = df["total_pop"].to_numpy(float)
    out.index = pd.Index(df["state"].map(STATE_USPS_BY_NAME).to_numpy(), name="state")
    return out.loc[STATES["usps"]]


@lru_cache(maxsize=None)
def state_shares(occupation: str) -> pd.Series:
    """P(state | J): OEWS employment for nurses, population shares otherwise (assumption 4)."""
    (occupation,) = check_occupations([occupation])
    emp = _read("state_employment_by_soc.csv")
    emp = emp[emp["soc"] == CPS_SOC[occupation]]
    if len(emp):
        s = pd.Series(emp["employment"].to_numpy(float), index=emp["state"].map(STATE_USPS_BY_NAME).to_numpy())
        s = s.reindex(STATES["usps"])
        if s.isna().any():
            raise ValueError(f"state_employment_by_soc.csv lacks state {s.index[s.isna().argmax()]!r} for {occupation!r}")
    else:
        s = state_population()["total"]
    s = s / s.sum()
    s.index.name = "state"
    return s.rename("p")


def state_source(occupation: str) -> str:
    """Which table P(state | J) comes from, for the book."""
    emp = _read("state_employment_by_soc.csv")
    return "BLS OEWS state employment (May 2020)" if (emp["soc"] == CPS_SOC[occupation]).any() \
        else "state population shares, ACS 2021 DP05 (assumption)"


def ipf(seed: np.ndarray, row_margin: np.ndarray, col_margin: np.ndarray, *, tol: float = 1e-12,
        max_iter: int = 1000) -> np.ndarray:
    """Iterative proportional fitting of a 2-D ``seed`` to row and column margins (sum 1)."""
    t = np.asarray(seed, float).copy()
    r = np.asarray(row_margin, float)
    c = np.asarray(col_margin, float)
    for _ in range(max_iter):
        rs = t.sum(axis=1)
        t *= np.divide(r, rs, out=np.zeros_like(r), where=rs > 0)[:, None]
        cs = t.sum(axis=0)
        t *= np.divide(c, cs, out=np.zeros_like(c), where=cs > 0)[None, :]
        if np.abs(t.sum(axis=1) - r).max() < tol:
            break
    return t / t.sum()


@lru_cache(maxsize=None)
def state_race_joint(occupation: str, races: tuple[str, ...] = RACES) -> pd.DataFrame:
    """P(state, race | J) by IPF of the state × race population table (assumption 5)."""
    seed = state_population()[list(races)].to_numpy()
    t = ipf(seed, state_shares(occupation).to_numpy(), race_shares(occupation, tuple(races)).to_numpy())
    return pd.DataFrame(t, index=STATES["usps"].rename("state"), columns=list(races))


def check_age_range(age_range, support: tuple[int, int], what: str) -> tuple[int, int]:
    """Validate an (lo, hi) age range against the ages a data source covers."""
    try:
        lo, hi = (int(a) for a in age_range)
    except (TypeError, ValueError):
        raise ValueError(f"age_range must be two integers (lo, hi), got {age_range!r}") from None
    if lo > hi:
        raise ValueError(f"age_range {age_range!r}: lower bound exceeds upper bound")
    if lo < max(18, support[0]) or hi > support[1]:
        raise ValueError(f"age_range {lo}-{hi} is outside the ages covered by {what} "
                         f"({max(18, support[0])}-{support[1]})")
    return lo, hi


def default_p1(occupation: str, *, age_range: tuple[int, int] = (18, 44), races=RACES) -> pd.DataFrame:
    """The embedded joint P1 for one occupation as a cell table.

    Columns ``gender, race, age, state, edu_level, p`` (p sums to 1): the product of
    P(gender) · P(age) · P(state, race) · P(edu_level | age), assumptions 1-6 above.
    """
    races = tuple(races)
    g = gender_shares(occupation)
    a = age_shares(occupation, age_range)
    sr = state_race_joint(occupation, races).stack().rename("p").reset_index()
    sr.columns = ["state", "race", "p"]
    sr = sr[sr["p"] > 0]
    ea = education_given_age(occupation, a.index).stack().rename("p").reset_index()
    ea.columns = ["age", "edu_level", "p"]
    ea = ea[ea["p"] > 0]
    ea["p"] = ea["p"] * ea["age"].map(a)
    # cross join gender × (age, edu) × (state, race)
    n_g, n_ea, n_sr = len(g), len(ea), len(sr)
    gi = np.repeat(np.arange(n_g), n_ea * n_sr)
    ei = np.tile(np.repeat(np.arange(n_ea), n_sr), n_g)
    si = np.tile(np.arange(n_sr), n_g * n_ea)
    out = pd.DataFrame({
        "gender": np.asarray(g.index)[gi],
        "race": sr["race"].to_numpy()[si],
        "age": ea["age"].to_numpy()[ei].astype(int),
        "state": sr["state"].to_numpy()[si],
        "edu_level": ea["edu_level"].to_numpy()[ei],
        "p": g.to_numpy()[gi] * ea["p"].to_numpy()[ei] * sr["p"].to_numpy()[si],
    })
    out["p"] /= out["p"].sum()
    return out


def published_margins(occupations=None) -> pd.DataFrame:
    """Tidy table of the published one-way margins the default is calibrated to.

    Columns ``occupation, variable, level, share`` for gender (women), race (kept groups,
    renormalised), age bin (18-44 part of the CPS bins, renormalised) and education (25+).
    Tests and the book compare generated profiles with this table.
    """
    occupations = check_occupations(occupations or list(OCCUPATIONS))
    rows = []
    for occ in occupations:
        for lvl, s in gender_shares(occ).items():
            rows.append((occ, "gender", lvl, s))
        for lvl, s in race_shares(occ).items():
            rows.append((occ, "race", lvl, s))
        for lvl, s in education_shares(occ).items():
            rows.append((occ, "edu_level", lvl, s))
        a = age_shares(occ, (18, 44))
        for name, (lo, hi) in AGE_BINS.items():
            if lo <= 44:
                rows.append((occ, "age_bin", f"{max(lo, 18)}-{min(hi, 44)}", float(a[(a.index >= lo) & (a.index <= hi)].sum())))
    return pd.DataFrame(rows, columns=["occupation", "variable", "level", "share"])
