"""The embedded default for P1 = P(gender, race, age, state, edu_level | J) (PopResume §4.1).

The paper draws P1 from 2023 ACS PUMS microdata, which cannot ship with this compendium
(IPUMS extracts may not be redistributed; the Census files are large downloads). The
default is **iterative proportional fitting (IPF, "raking") started from a seed that carries
measured associations**, raked to *published* one-way margins per occupation
(:func:`seeded_p1`). Pass ``acs=`` to :func:`popresume.population.generate_population` to use
real microdata instead. The earlier default, the product of independent margins, stays
available as ``method="margins"`` (:func:`independent_p1`) for comparison.

Published margins the table is raked to (files in ``data/calibration/``, sources in
``data/README.md``):

* share of women, and of White / Black / Asian workers: BLS CPS 2023 Table 11;
* age distribution in bins 16-19, 20-24, 25-34, 35-44, 45-54, 55-64: BLS CPS 2023 Table 11b;
* educational attainment of workers 25+: BLS Employment Projections Table 5.3 (ACS 2019/2021);
* state employment of registered nurses: BLS OEWS May 2020;
* population by state and race (White / Black / Asian alone): ACS 2021 1-year DP05.

Associations kept (measured facts; seeds in :mod:`popresume.sources.seeds`):

A. gender × age × education within the occupation: General Social Survey 1974-2018
   (``stevedata::gss_wages``), respondents with the occupation's 2010 Census code, all years
   pooled, in age bands 18-24 … 55-64 and four education groups;
B. race × education among employed people aged 18-64: ACS 2012 (``openintro::acs12``);
C. state × race: the population by state and race (ACS 2021 DP05).

IPF keeps every odds ratio of the seed that the margins do not fix (it finds the table
closest to the seed in Kullback-Leibler divergence among those with the published margins),
so the generated profiles carry A-C while matching every published margin exactly.

Modelling assumptions (each a named constant or argument below or in ``seeds``):

1. Race: the three kept groups are renormalised to sum to 1 (the paper drops other groups;
   CPS race groups include Hispanics of any race). Asian stands in for Asian/Pacific Islander.
2. Ages are uniform within each published bin (18-19 take 2/4 of the 16-19 bin); within a
   seed age band the seed is flat, the published age margin sets the single years.
3. Education: "less than high school" is dropped (the paper keeps 7 levels from high school
   up), and the published "doctoral or professional" share is split
   :data:`PROFESSIONAL_SHARE_OF_DOCTORAL` : rest between Professional degree and Doctorate.
   Degrees need a minimum age (:data:`MIN_AGE_FOR_DEGREE`); below it the cell is a
   structural zero. The published distribution (workers 25+) is matched on ages 25+; the
   levels under 25 follow the same raking factors, so the seed's age × education odds
   ratios decide how much less schooled the young are.
4. State: nurses use OEWS state employment shares; other occupations use state population
   shares (no state employment table was available for them).
5. Seeds: the GSS education groups are split into our finer levels in the proportions of
   the published margin (so the finer split is independent of gender and age); the
   race × education association is the one among *all* employed people in 2012, applied
   to every occupation (ACS12 has too few people per occupation and no occupation code);
   pooled GSS years mix 1974-2018 cohorts (the raking to 2019-2023 margins corrects the
   levels, not the odds ratios). Small seed cells are shrunk toward independence with
   ``seeds.SEED_PRIOR_STRENGTH`` pseudo-respondents (no silent zeros).
6. Independences left: race is independent of gender and age given education (within J);
   state depends on race only (independent of gender, age and education given race).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from popresume.io import cached_tables
from popresume.paths import data_path
from popresume.schema import EDU_LEVELS, GENDERS, OCCUPATIONS, RACES, check_occupations
from popresume.sources import STATE_USPS_BY_NAME, STATES, seeds

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


@cached_tables(maxsize=None)
def gender_shares(occupation: str) -> pd.Series:
    """P(gender | J) from CPS Table 11 (% women)."""
    (occupation,) = check_occupations([occupation])
    w = float(_row(_read("cps11_sex_race.csv"), CPS_SOC[occupation], "cps11_sex_race.csv")["pct_women"]) / 100
    return pd.Series([w, 1 - w], index=list(GENDERS), name="p")


@cached_tables(maxsize=None)
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


@cached_tables(maxsize=None)
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
    feasible = feasible_mask(ages)
    p = base[None, :] * feasible
    s = p.sum(axis=1, keepdims=True)
    if (s <= 0).any():
        raise ValueError(f"no feasible education level at age {int(ages[(s[:, 0] <= 0).argmax()])}")
    return pd.DataFrame(p / s, index=pd.Index(ages, name="age"), columns=list(EDU_LEVELS))


@cached_tables(maxsize=1)
def state_population() -> pd.DataFrame:
    """Population by state (USPS index) and race (DP05 2021), columns White/Black/API/total."""
    df = _read("state_race_shares.csv")
    df = df[df["state"].isin(STATE_USPS_BY_NAME)]
    out = pd.DataFrame({r: df[c].to_numpy(float) for r, c in POP_RACE_COLUMNS.items()})
    out["total"] = df["total_pop"].to_numpy(float)
    out.index = pd.Index(df["state"].map(STATE_USPS_BY_NAME).to_numpy(), name="state")
    return out.loc[STATES["usps"]]


@cached_tables(maxsize=None)
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


@cached_tables(maxsize=None)
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


P1_METHODS = ("seeded", "margins")


def default_p1(occupation: str, *, age_range: tuple[int, int] = (18, 44), races=RACES,
               method: str = "seeded", gss=None, acs12=None) -> pd.DataFrame:
    """The embedded joint P1 for one occupation as a cell table.

    Columns ``gender, race, age, state, edu_level, p`` (p sums to 1). ``method="seeded"``
    (default): IPF from the GSS / ACS 2012 seeds to the published margins
    (:func:`seeded_p1`); ``method="margins"``: the product of independent margins
    (:func:`independent_p1`, the pre-seed default, kept for comparison). ``gss`` / ``acs12``
    replace the seed microdata (tables with the columns of ``seeds.GSS_COLUMNS`` /
    ``seeds.ACS12_COLUMNS``).
    """
    if method == "seeded":
        return seeded_p1(occupation, age_range=age_range, races=races, gss=gss, acs12=acs12)
    if method == "margins":
        return independent_p1(occupation, age_range=age_range, races=races)
    raise ValueError(f"unknown P1 method {method!r}; expected one of {list(P1_METHODS)}")


def _cells(occupation: str, t: np.ndarray, ages: np.ndarray, races: tuple[str, ...]) -> pd.DataFrame:
    """Expand a (gender, race, age, edu) table with P(state | race) into the P1 cell table."""
    sr = state_race_joint(occupation, races)
    p_state_given_race = (sr / sr.sum(axis=0)).to_numpy()  # states × races
    g_i, r_i, a_i, e_i = np.nonzero(t > 0)
    n_s = p_state_given_race.shape[0]
    p = np.repeat(t[g_i, r_i, a_i, e_i], n_s) * p_state_given_race[:, r_i].T.ravel()
    out = pd.DataFrame({
        "gender": np.repeat(np.asarray(GENDERS, dtype=object)[g_i], n_s),
        "race": np.repeat(np.asarray(races, dtype=object)[r_i], n_s),
        "age": np.repeat(ages[a_i], n_s).astype(int),
        "state": np.tile(STATES["usps"].to_numpy(object), len(g_i)),
        "edu_level": np.repeat(np.asarray(EDU_LEVELS, dtype=object)[e_i], n_s),
        "p": p,
    })
    out = out[out["p"] > 0].reset_index(drop=True)
    out["p"] /= out["p"].sum()
    return out


def feasible_mask(ages) -> np.ndarray:
    """ages × EDU_LEVELS: True where the degree is possible at that age (assumption 3)."""
    min_age = np.array([MIN_AGE_FOR_DEGREE[e] for e in EDU_LEVELS])
    return np.asarray(ages, int)[:, None] >= min_age[None, :]


def seed_table(occupation: str, ages, races=RACES, *, gss=None, acs12=None) -> np.ndarray:
    """The IPF seed: array gender × race × age × edu_level (sums to 1), before raking.

    seed(g, r, a, e) = GSS(g, band(a), group(e) | J) · split(e | group(e)) · ACS12(r | edu3(e))
    · 1[e feasible at a], with split() the published margin within each GSS education group
    (assumption 5). See :mod:`popresume.sources.seeds` for the shrinkage of small cells.
    """
    ages = np.asarray(list(ages), int)
    gae = seeds.gss_seed(occupation, gss)  # gender × band × group
    pub = education_shares(occupation)
    groups = [seeds.EDU_GROUP_OF_LEVEL[e] for e in EDU_LEVELS]
    gsum = pub.groupby(groups).sum()
    split = np.array([pub[e] / gsum[g] if gsum[g] > 0 else 0.0 for e, g in zip(EDU_LEVELS, groups)])
    gi = np.array([seeds.EDU_GROUPS.index(g) for g in groups])
    band = seeds._age_band_index(ages)
    if (band < 0).any():
        raise ValueError(f"age {int(ages[band < 0][0])} is outside the seed's age bands {seeds.SEED_AGE_BANDS}")
    s_gae = gae[:, band, :][:, :, gi] * split[None, None, :]  # gender × age × edu
    re = seeds.acs_race_education(acs12)
    re = re.loc[list(races)]
    r_given_e3 = (re / re.sum(axis=0)).to_numpy()  # races × edu3
    e3 = [list(re.columns).index(seeds.ACS12_EDU_OF_LEVEL[e]) for e in EDU_LEVELS]
    r_given_e = r_given_e3[:, e3]  # races × edu
    t = s_gae[:, None, :, :] * r_given_e[None, :, None, :] * feasible_mask(ages)[None, None, :, :]
    return t / t.sum()


def rake(seed: np.ndarray, ages: np.ndarray, gender: np.ndarray, race: np.ndarray, age: np.ndarray,
         edu25: np.ndarray | None, *, tol: float = 1e-11, max_iter: int = 5000) -> np.ndarray:
    """IPF of a gender × race × age × edu seed to one-way margins.

    ``edu25`` is the education distribution of ages 25+ (None: no education constraint);
    its raking factor multiplies every age's cells of a level, so the seed's age × education
    odds ratios are kept. Cells that are zero in the seed stay zero (structural zeros).
    """
    t = np.asarray(seed, float).copy()
    old = ages >= 25

    def scale(axis, target):
        cur = t.sum(axis=tuple(i for i in range(4) if i != axis))
        f = np.divide(target, cur, out=np.zeros_like(cur), where=cur > 0)
        shape = [1, 1, 1, 1]
        shape[axis] = -1
        t[...] = t * f.reshape(shape)

    for _ in range(max_iter):
        scale(0, gender)
        scale(1, race)
        scale(2, age)
        if edu25 is not None and old.any():
            cur = t[:, :, old, :].sum(axis=(0, 1, 2))
            f = np.divide(edu25 * cur.sum(), cur, out=np.zeros_like(cur), where=cur > 0)
            t *= f[None, None, None, :]
        dev = max(np.abs(t.sum(axis=(1, 2, 3)) - gender).max(), np.abs(t.sum(axis=(0, 2, 3)) - race).max(),
                  np.abs(t.sum(axis=(0, 1, 3)) - age).max())
        if edu25 is not None and old.any():
            e = t[:, :, old, :].sum(axis=(0, 1, 2))
            dev = max(dev, np.abs(e / e.sum() - edu25).max())
        if dev < tol:
            break
    else:
        raise ValueError(f"IPF did not converge (largest margin error {dev:.2e}): the seed's zero cells "
                         "make the published margins unreachable")
    return t / t.sum()


@cached_tables(maxsize=None)
def _seeded_array(occupation: str, age_range: tuple[int, int], races: tuple[str, ...]):
    return _seeded_array_from(occupation, age_range, races, None, None)


def _seeded_array_from(occupation, age_range, races, gss, acs12):
    lo, hi = check_age_range(age_range, AGE_SUPPORT, "the published age tables (CPS Table 11b)")
    # the education margin is for ages 25+: fit on a range that contains 25, then cut
    fit_hi = max(hi, 25)
    ages = np.arange(lo, fit_hi + 1)
    g = gender_shares(occupation).to_numpy()
    r = race_shares(occupation, races).to_numpy()
    a = age_shares(occupation, (lo, fit_hi)).to_numpy()
    seed = seed_table(occupation, ages, races, gss=gss, acs12=acs12)
    t = rake(seed, ages, g, r, a, education_shares(occupation).to_numpy())
    if fit_hi > hi:
        keep = ages <= hi
        ages = ages[keep]
        t = rake(t[:, :, keep, :], ages, g, r, age_shares(occupation, (lo, hi)).to_numpy(), None)
    return ages, t


def seeded_p1(occupation: str, *, age_range: tuple[int, int] = (18, 44), races=RACES, gss=None,
              acs12=None) -> pd.DataFrame:
    """P1 by IPF from the measured seeds (associations A-C) to the published margins.

    Margins matched exactly: P(gender), P(race), P(age), P(edu_level | age >= 25) and, through
    P(state | race), P(state). Columns ``gender, race, age, state, edu_level, p``.
    """
    (occupation,) = check_occupations([occupation])
    races = tuple(races)
    if gss is None and acs12 is None:
        ages, t = _seeded_array(occupation, tuple(int(v) for v in age_range), races)
    else:
        ages, t = _seeded_array_from(occupation, tuple(int(v) for v in age_range), races, gss, acs12)
    return _cells(occupation, t, ages, races)


def independent_p1(occupation: str, *, age_range: tuple[int, int] = (18, 44), races=RACES) -> pd.DataFrame:
    """P1 as the product of independent margins (the pre-seed default; assumption 6 replaced).

    P(gender) · P(age) · P(state, race) · P(edu_level | age): gender, age, race and education
    independent within the occupation. Kept to show what the seeds change.
    """
    races = tuple(races)
    g = gender_shares(occupation).to_numpy()
    a = age_shares(occupation, age_range)
    ages = a.index.to_numpy()
    r = race_shares(occupation, races).to_numpy()
    ea = education_given_age(occupation, ages).to_numpy() * a.to_numpy()[:, None]
    t = g[:, None, None, None] * r[None, :, None, None] * ea[None, None, :, :]
    return _cells(occupation, t, ages, races)


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
