"""ACS PUMS person records: the paper's source for P1 (PopResume §4.1, Table 2).

Two real input formats are read into one tidy table (:data:`TIDY_COLUMNS`):

* an **IPUMS USA extract**: the DDI codebook ``usa_NNNNN.xml`` with its data file beside
  it, fixed-width ``usa_NNNNN.dat(.gz)`` or CSV ``usa_NNNNN.csv(.gz)`` (IPUMS serves
  both; the DDI names the ``.dat`` even when the CSV was delivered). The DDI is parsed
  with ``ipumspy``; the data are read here in chunks with pandas, because ipumspy casts
  every column before a bad value could be traced to its column and line, and reads
  the whole file at once. Variables read: SEX, AGE, RACE,
  HISPAN, STATEFIP, EDUCD (detailed attainment; EDUC alone cannot separate associate's
  from some college or master's from doctorate), EMPSTAT, OCC, PERWT, plus YEAR (or
  SAMPLE), which IPUMS preselects.
* the **Census Bureau's PUMS person CSV** ``psam_p*.csv`` / ``psam_pus*.csv`` (2017 on)
  or ``ss16p*.csv`` / ``ss16pus*.csv`` (earlier years): SEX, AGEP, RAC1P, HISP, ST, SCHL,
  ESR, OCCP (OCCP12 / OCCP10 in files that carry those instead), PWGTP; the year comes
  from SERIALNO (it starts with the year) or from the ``ssYY`` file name.

**Occupation codes depend on the year** (Census occupation coding schemes): the 2018
scheme from ACS 2018 (software developers 1021), the 2010 scheme for 2010–2017
(software developers 1020; registered nurses 3130 until the 2012 revision, 3255
after), the 3-digit 2000/2002 schemes before 2010. The codes are matched per row by its
YEAR (for multi-year samples YEAR is the last year, whose scheme the Census recodes
to). A year whose scheme cannot match (before 2010) is an error unless the extract has
IPUMS's harmonized OCC2010, which is then used.

Rows are filtered to the chosen occupations chunk by chunk while reading, so a national
extract (3.4 million people a year) needs memory only for the few thousand kept.

The tidy table has our schema's values: ``occupation`` (key, or missing for other jobs
when reading unfiltered), ``occ_code``, ``year``, ``gender`` F/M, ``race``
White/Black/API/Other, ``hispanic``, ``age``, ``state`` (USPS), ``edu_level`` (the 7 kept
levels; missing below high school), ``employed`` and ``weight`` (person weight).
:func:`acs_p1` turns it into P̂1, the person-weighted empirical distribution of
employed workers of one occupation.

Every bad input is an error that names the file, the column and the value, and for a
bad value the file's own line number (line 1 of a CSV is its header).

:func:`download_pums` fetches the Census PUMS person files for a year (``popresume data acs``).
"""

from __future__ import annotations

import re
import shutil
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import requests

from popresume.errors import require_columns
from popresume.io import atomic_path, write_parquet
from popresume.progress import progress_bar
from popresume.schema import EDU_LEVELS, OCCUPATIONS, RACES, check_occupations
from popresume.sources import STATE_USPS_BY_FIPS, STATES
from popresume.sources.calibration import check_age_range

TIDY_COLUMNS = ("occupation", "occ_code", "year", "gender", "race", "hispanic", "age", "state", "edu_level",
                "employed", "weight")
# ``year`` was added later: tidy tables written before it still load
_REQUIRED_TIDY = tuple(c for c in TIDY_COLUMNS if c != "year")

# Census occupation codes of the five occupations in each coding scheme (ACS OCC / OCCP).
OCC_SCHEMES: dict[str, dict[str, tuple[int, ...]]] = {
    # ACS 2018 on (2018 Census occupation codes)
    "census2018": {"nurse": (3255,), "teacher": (2310,), "software_developer": (1021,),
                   "accountant": (800,), "construction_laborer": (6260,)},
    # ACS 2010-2017 (2010 Census codes; registered nurses 3130 became 3255 in the 2012 revision)
    "census2010": {"nurse": (3130, 3255), "teacher": (2310,), "software_developer": (1020,),
                   "accountant": (800,), "construction_laborer": (6260,)},
    # IPUMS harmonized OCC2010 (any year)
    "occ2010": {"nurse": (3130,), "teacher": (2310,), "software_developer": (1020,),
                "accountant": (800,), "construction_laborer": (6260,)},
    # a table with no year: codes that mean these occupations in both 2010+ schemes
    "any2010+": {"nurse": (3255,), "teacher": (2310,), "software_developer": (1021, 1020),
                 "accountant": (800,), "construction_laborer": (6260,)},
}
for _s in OCC_SCHEMES.values():
    assert set(_s) == set(OCCUPATIONS)
ACS_OCC_CODES: dict[str, tuple[int, ...]] = OCC_SCHEMES["any2010+"]  # kept for callers that list codes
FIRST_YEAR_2010_CODES = 2010
FIRST_YEAR_2018_CODES = 2018


def occ_scheme(year: int | None) -> str | None:
    """The occupation coding scheme of ACS ``year`` (None: a scheme we cannot match)."""
    if year is None:
        return "any2010+"
    if year >= FIRST_YEAR_2018_CODES:
        return "census2018"
    if year >= FIRST_YEAR_2010_CODES:
        return "census2010"
    return None


IPUMS_VARIABLES = ("SEX", "AGE", "RACE", "HISPAN", "STATEFIP", "EDUCD", "EMPSTAT", "OCC", "PERWT")
PUMS_VARIABLES = ("SEX", "AGEP", "RAC1P", "HISP", "ST", "SCHL", "ESR", "OCCP", "PWGTP")
PUMS_OCC_COLUMNS = ("OCCP", "OCCP12", "OCCP10")  # in this order of preference

# IPUMS collections by the abbreviation in the DDI's <serName abbr=...>
IPUMS_COLLECTIONS = {
    "usa": "IPUMS USA", "cps": "IPUMS CPS", "atus": "IPUMS Time Use (ATUS)", "meps": "IPUMS MEPS",
    "nhis": "IPUMS NHIS", "ipumsi": "IPUMS International", "ahtus": "IPUMS Time Use (AHTUS)",
    "mtus": "IPUMS Time Use (MTUS)", "pma": "IPUMS PMA", "dhs": "IPUMS DHS", "nhgis": "IPUMS NHGIS",
    "highered": "IPUMS Higher Ed", "mnpc": "IPUMS Full Count", "nappa": "IPUMS NAPP",
}

# IPUMS RACE (general): 1 White, 2 Black, 3 AIAN, 4 Chinese, 5 Japanese, 6 Other Asian or
# Pacific Islander, 7 other, 8-9 multiple races.
IPUMS_RACE = {1: "White", 2: "Black", 4: "API", 5: "API", 6: "API"}
# PUMS RAC1P: 1 White alone, 2 Black alone, 6 Asian alone, 7 Native Hawaiian / Pacific Islander alone.
PUMS_RACE = {1: "White", 2: "Black", 6: "API", 7: "API"}


def _ipums_edu(e: pd.Series) -> pd.Series:
    """IPUMS EDUCD (detailed, numeric) → kept edu levels; below high school → missing."""
    out = pd.Series(pd.NA, index=e.index, dtype="object")
    rules = [((e >= 62) & (e <= 64), EDU_LEVELS[0]),          # HS diploma / GED
             ((e >= 65) & (e <= 71) | (e == 80) | (e == 90), EDU_LEVELS[1]),  # some college, no degree
             ((e >= 81) & (e <= 83), EDU_LEVELS[2]),          # associate's
             ((e == 100) | (e == 101), EDU_LEVELS[3]),        # bachelor's
             ((e >= 110) & (e <= 114), EDU_LEVELS[4]),        # master's (110-113: 5+ years college, older samples)
             (e == 115, EDU_LEVELS[5]),                       # professional degree
             (e == 116, EDU_LEVELS[6])]                       # doctorate
    for m, lvl in rules:
        out[m.fillna(False)] = lvl
    return out


def _pums_edu(s: pd.Series) -> pd.Series:
    """PUMS SCHL (numeric) → kept edu levels; below high school (1-15) → missing."""
    mapping = {16: EDU_LEVELS[0], 17: EDU_LEVELS[0], 18: EDU_LEVELS[1], 19: EDU_LEVELS[1],
               20: EDU_LEVELS[2], 21: EDU_LEVELS[3], 22: EDU_LEVELS[4], 23: EDU_LEVELS[5], 24: EDU_LEVELS[6]}
    return s.map(mapping).astype("object")


def _check_columns(cols, needed, where: str) -> None:
    cols = set(cols)
    missing = [c for c in needed if c not in cols]
    if missing:
        extra = ""
        if "EDUCD" in missing and "EDUC" in cols:
            extra = " (EDUC is present, but the detailed EDUCD is needed to tell associate's from some college and master's from doctorate)"
        raise ValueError(f"{where} is missing ACS column(s) {missing}{extra}")


def _lines(n: int, first: int) -> np.ndarray:
    return np.arange(first, first + n)


def _number(raw: pd.DataFrame, col: str, where: str, lines, *, required: bool = False) -> pd.Series:
    """Column ``col`` as floats; a non-numeric code (or, if ``required``, an empty one) is an
    error naming the column, the file and the file's own line."""
    s = raw[col]
    if pd.api.types.is_numeric_dtype(s):
        st, num, filled = s, s.astype(float), s.notna()
    else:  # text as read from the file (pandas' "str"/"string"/object dtypes alike)
        st = s.astype("string").str.strip()
        num = pd.to_numeric(st, errors="coerce").astype(float)
        filled = st.notna() & (st != "")
    bad = num.isna() & filled
    if bad.any():
        k = int(np.flatnonzero(bad.to_numpy())[0])
        raise ValueError(f"{where}, line {lines[k]}: column {col} has the non-numeric value {st.iloc[k]!r}")
    if required and num.isna().any():
        k = int(np.flatnonzero(num.isna().to_numpy())[0])
        raise ValueError(f"{where}, line {lines[k]}: column {col} is empty")
    return num


def _occupation(codes: pd.Series, years: pd.Series | None, where: str, lines, *,
                harmonized: pd.Series | None = None, occ_col: str = "OCC") -> tuple[pd.Series, pd.Series]:
    """Occupation key of each row from its code and its year's coding scheme.

    Returns (occupation key or missing, the code used). Rows of a year whose scheme
    cannot match use ``harmonized`` (IPUMS OCC2010) when given, else it is an error.
    """
    out = pd.Series(pd.NA, index=codes.index, dtype="object")
    used = codes.copy()
    groups = [(None, np.ones(len(codes), bool))] if years is None else \
        [(int(y), (years == y).to_numpy()) for y in pd.unique(years.dropna())]
    for y, m in groups:
        scheme = occ_scheme(y)
        c = codes[m]
        if scheme is None:
            if harmonized is None:
                k = int(np.flatnonzero(m)[0])
                raise ValueError(
                    f"{where}, line {lines[k]}: YEAR {y} uses the Census {'2000/2002' if y >= 2000 else 'pre-2000'} "
                    f"occupation codes in {occ_col}, which cannot match the five occupations (2010 or 2018 codes); "
                    "use an ACS sample from 2010 on, or add IPUMS's harmonized OCC2010 to the extract")
            scheme, c = "occ2010", harmonized[m]
            used[m] = c
        lookup = {code: occ for occ, cs in OCC_SCHEMES[scheme].items() for code in cs}
        out[m] = c.map(lookup).to_numpy(object)
    return out, used


def _keep(occupation: pd.Series, occupations) -> np.ndarray:
    if occupations is None:
        return np.ones(len(occupation), bool)
    return occupation.isin(list(occupations)).to_numpy()


def _finish(raw: pd.DataFrame, occupation, occ_code, year, cols: dict, race_map, edu_fn, hisp_fn, emp_fn,
            where: str, lines) -> pd.DataFrame:
    num = {k: _number(raw, c, where, lines, required=k in ("sex", "age", "weight")) for k, c in cols.items()}
    bad_sex = ~num["sex"].isin([1, 2])
    if bad_sex.any():
        k = int(np.flatnonzero(bad_sex.to_numpy())[0])
        raise ValueError(f"{where}, line {lines[k]}: column {cols['sex']} has value {raw[cols['sex']].iloc[k]!r}; "
                         "expected 1 (male) or 2 (female)")
    neg = num["weight"] < 0
    if neg.any():
        k = int(np.flatnonzero(neg.to_numpy())[0])
        raise ValueError(f"{where}, line {lines[k]}: column {cols['weight']} has the negative weight "
                         f"{raw[cols['weight']].iloc[k]!r}")
    out = pd.DataFrame({
        "occupation": pd.Series(occupation, dtype="object").to_numpy(object),
        "occ_code": pd.array(occ_code.to_numpy(), dtype="Int64") if len(occ_code) else pd.array([], dtype="Int64"),
        "year": pd.array(year.to_numpy(), dtype="Int64") if year is not None else pd.array([pd.NA] * len(raw), dtype="Int64"),
        "gender": np.where(num["sex"] == 2, "F", "M"),
        "race": num["race"].map(race_map).fillna("Other").to_numpy(object),
        "hispanic": hisp_fn(num["hisp"]).to_numpy(bool),
        "age": num["age"].astype(int).to_numpy(),
        "state": num["state"].map(STATE_USPS_BY_FIPS).astype("object").to_numpy(object),
        "edu_level": edu_fn(num["edu"]).to_numpy(object),
        "employed": emp_fn(num["emp"]).to_numpy(bool),
        "weight": num["weight"].astype(float).to_numpy(),
    })
    out.loc[out["state"].isna(), "state"] = None
    return out


def _empty_tidy() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype="object") for c in TIDY_COLUMNS}).astype(
        {"occ_code": "Int64", "year": "Int64", "age": int, "hispanic": bool, "employed": bool, "weight": float})


def _year_column(raw: pd.DataFrame, where: str, lines) -> pd.Series | None:
    if "YEAR" in raw.columns:
        return _number(raw, "YEAR", where, lines, required=True)
    if "SAMPLE" in raw.columns:  # IPUMS SAMPLE: 4-digit year then a 2-digit sample number
        return (_number(raw, "SAMPLE", where, lines, required=True) // 100)
    return None


def tidy_ipums(raw: pd.DataFrame, where: str = "IPUMS extract", *, occupations=None, first_line: int = 1,
               year: int | None = None) -> pd.DataFrame:
    """Map IPUMS USA variables (column names case-insensitive) to the tidy table.

    ``occupations``: keep only these occupation keys (None: every row). ``first_line``:
    the file line of the first row (for error messages). ``year``: the ACS year when the
    table has no YEAR/SAMPLE column (None: codes valid in both 2010+ schemes).
    """
    raw = raw.rename(columns=str.upper)
    _check_columns(raw.columns, IPUMS_VARIABLES, where)
    lines = _lines(len(raw), first_line)
    years = _year_column(raw, where, lines)
    if years is None and year is not None:
        years = pd.Series(float(year), index=raw.index)
    harm = _number(raw, "OCC2010", where, lines) if "OCC2010" in raw.columns else None
    cols = {"sex": "SEX", "age": "AGE", "race": "RACE", "hisp": "HISPAN", "state": "STATEFIP", "edu": "EDUCD",
            "emp": "EMPSTAT", "weight": "PERWT"}
    return _select_and_finish(raw, lines, "OCC", years, harm, occupations, cols, IPUMS_RACE, _ipums_edu,
                              lambda h: h.between(1, 4), lambda e: e == 1, where)


def _select_and_finish(raw, lines, occ_col, years, harmonized, occupations, cols, race_map, edu_fn, hisp_fn,
                       emp_fn, where) -> pd.DataFrame:
    """Occupation of every row by its year's scheme, keep the chosen ones, then map the rest."""
    codes = _number(raw, occ_col, where, lines)
    occupation, used = _occupation(codes, years, where, lines, harmonized=harmonized, occ_col=occ_col)
    keep = _keep(occupation, occupations)
    raw, lines, occupation, used = raw[keep], lines[keep], occupation[keep], used[keep]
    years = None if years is None else years[keep]
    return _finish(raw, occupation, used, years, cols, race_map, edu_fn, hisp_fn, emp_fn, where, lines)


def _pums_occ_column(cols, where: str) -> str:
    for c in PUMS_OCC_COLUMNS:
        if c in cols:
            return c
    raise ValueError(f"{where} is missing ACS column(s) ['OCCP'] (nor OCCP12 / OCCP10 found)")


def _pums_year_from_name(path) -> int | None:
    m = re.match(r"ss(\d\d)p", Path(path).name, re.I)
    return 2000 + int(m.group(1)) if m else None


def tidy_pums(raw: pd.DataFrame, where: str = "PUMS person file", *, occupations=None, first_line: int = 2,
              year: int | None = None) -> pd.DataFrame:
    """Map Census PUMS person variables to the tidy table (see :func:`tidy_ipums` for the options).

    The year comes from SERIALNO (its first four characters) when present, else ``year``.
    """
    raw = raw.rename(columns=str.upper)
    occ_col = _pums_occ_column(raw.columns, where)
    _check_columns(raw.columns, [c for c in PUMS_VARIABLES if c != "OCCP"], where)
    lines = _lines(len(raw), first_line)
    years = None
    if "SERIALNO" in raw.columns:
        head = raw["SERIALNO"].astype("string").str.strip().str[:4]
        years = pd.to_numeric(head, errors="coerce").astype(float)
        bad = years.isna() | (years < 1990) | (years > 2100)
        if bad.any():
            k = int(np.flatnonzero(bad.to_numpy())[0])
            raise ValueError(f"{where}, line {lines[k]}: column SERIALNO has the value {raw['SERIALNO'].iloc[k]!r}, "
                             "which does not start with the ACS year")
    elif year is not None:
        years = pd.Series(float(year), index=raw.index)
    if occ_col != "OCCP" and years is not None:  # OCCP12 / OCCP10 carry the 2010-scheme codes in any year
        years = years.clip(lower=FIRST_YEAR_2010_CODES, upper=FIRST_YEAR_2018_CODES - 1)
    cols = {"sex": "SEX", "age": "AGEP", "race": "RAC1P", "hisp": "HISP", "state": "ST", "edu": "SCHL",
            "emp": "ESR", "weight": "PWGTP"}
    return _select_and_finish(raw, lines, occ_col, years, None, occupations, cols, PUMS_RACE, _pums_edu,
                              lambda h: h > 1, lambda e: e.isin([1, 2, 4, 5]), where)


def _no_match_check(tidy: pd.DataFrame, occupations, n_rows: int, where: str, years_seen) -> pd.DataFrame:
    if occupations is not None and n_rows and tidy.empty:
        yrs = sorted(int(y) for y in years_seen) if years_seen else "unknown"
        raise ValueError(f"{where}: none of its {n_rows:,} people has an occupation code of {list(occupations)} "
                         f"(years {yrs}; codes by scheme: "
                         f"{ {s: OCC_SCHEMES[s] for s in dict.fromkeys(occ_scheme(y) for y in (years_seen or [None]))} })")
    return tidy


def _read_chunks(reader, tidy_fn, where: str, first_line: int, occupations):
    parts, n, years_seen = [], 0, set()
    for chunk in reader:
        t = tidy_fn(chunk, where, occupations=occupations, first_line=first_line + n)
        if "YEAR" in {c.upper() for c in chunk.columns}:
            ycol = [c for c in chunk.columns if c.upper() == "YEAR"][0]
            years_seen.update(pd.to_numeric(chunk[ycol], errors="coerce").dropna().unique().tolist())
        n += len(chunk)
        parts.append(t)
    tidy = pd.concat(parts, ignore_index=True) if parts else _empty_tidy()
    return _no_match_check(tidy, occupations, n, where, years_seen)


def _read_ddi(ddi_path: Path):
    from ipumspy import readers  # optional: the sources extra

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ipumspy's CitationWarning: the citation is in data/README.md
            return readers.read_ipums_ddi(ddi_path)
    except Exception as e:  # noqa: BLE001 - any parse failure is an unreadable DDI
        raise ValueError(f"unreadable IPUMS DDI codebook {ddi_path}: {type(e).__name__}: {e}") from e


def ipums_data_file(ddi_path, ddi=None) -> Path:
    """The data file of an IPUMS extract: the one the DDI names, or its ``.dat.gz`` / ``.csv`` /
    ``.csv.gz`` sibling (IPUMS delivers CSV extracts with a DDI that still names the ``.dat``)."""
    ddi_path = Path(ddi_path)
    ddi = ddi or _read_ddi(ddi_path)
    named = ddi_path.parent / Path(ddi.file_description.filename).name
    stem = named.name.split(".")[0]
    tried = [named] + [ddi_path.parent / f"{stem}{ext}" for ext in (".dat", ".dat.gz", ".csv", ".csv.gz")]
    for p in dict.fromkeys(tried):
        if p.exists():
            return p
    raise FileNotFoundError(f"IPUMS data file not found for {ddi_path}: tried "
                            f"{', '.join(p.name for p in dict.fromkeys(tried))} in {ddi_path.parent}")


def read_ipums(ddi_path, data_path=None, *, occupations=tuple(OCCUPATIONS), chunksize: int = 200_000) -> pd.DataFrame:
    """Read an IPUMS USA extract (DDI ``.xml`` + ``.dat``/``.dat.gz``/``.csv``/``.csv.gz``) to the tidy table.

    ``occupations``: occupation keys kept while reading (default: the five; None: every
    row). Raises, naming the file, for an extract of another IPUMS collection, a
    hierarchical extract, missing variables, a year whose occupation codes cannot match,
    a non-numeric code (with its column and line) or no matching person at all.
    """
    ddi_path = Path(ddi_path)
    if not ddi_path.exists():
        raise FileNotFoundError(f"IPUMS DDI codebook not found: {ddi_path}")
    ddi = _read_ddi(ddi_path)
    coll = (ddi.ipums_collection or "").lower()
    if coll != "usa":
        name = IPUMS_COLLECTIONS.get(coll, f"IPUMS collection {coll!r}")
        raise ValueError(f"{ddi_path} is an {name} extract (DDI series {coll!r}); P1 needs an IPUMS USA "
                         f"extract of the ACS (usa.ipums.org) with variables {list(IPUMS_VARIABLES)}")
    if ddi.file_description.structure != "rectangular":
        raise ValueError(f"{ddi_path} describes a {ddi.file_description.structure} extract; request a "
                         "rectangular extract of person records from IPUMS USA")
    desc = {v.name.upper(): v for v in ddi.data_description}
    missing = [c for c in IPUMS_VARIABLES if c not in desc]
    if "YEAR" not in desc and "SAMPLE" not in desc:
        missing.append("YEAR")
    if missing:
        extra = " (EDUC is present, but the detailed EDUCD is needed)" if "EDUCD" in missing and "EDUC" in desc else ""
        raise ValueError(f"IPUMS extract {ddi_path} is missing variable(s) {missing}{extra}")
    data_path = Path(data_path) if data_path is not None else ipums_data_file(ddi_path, ddi)
    if not data_path.exists():
        raise FileNotFoundError(f"IPUMS data file not found: {data_path} (for {ddi_path})")
    want = [c for c in (*IPUMS_VARIABLES, "YEAR", "SAMPLE", "OCC2010") if c in desc]
    where = f"IPUMS extract {data_path}"
    suffixes = [s.lower() for s in data_path.suffixes]
    compression = "gzip" if suffixes[-1:] == [".gz"] else None
    if ".csv" in suffixes:
        header = pd.read_csv(data_path, nrows=0, compression=compression).columns
        upper = {c.upper(): c for c in header}
        absent = [c for c in IPUMS_VARIABLES if c not in upper]
        if absent:
            raise ValueError(f"{where} lacks the column(s) {absent} that its DDI {ddi_path.name} lists")
        reader = pd.read_csv(data_path, usecols=[upper[c] for c in want if c in upper], dtype=str,
                             keep_default_na=False, chunksize=chunksize, compression=compression)
        first_line = 2  # line 1 is the header
    elif ".dat" in suffixes:
        vs = [desc[c] for c in want]
        reader = pd.read_fwf(data_path, colspecs=[(v.start, v.end) for v in vs], names=[v.name.upper() for v in vs],
                             dtype=str, keep_default_na=False, chunksize=chunksize, header=None,
                             encoding=ddi.file_description.encoding or "iso-8859-1", compression=compression)
        shifts = {v.name.upper(): v.shift for v in vs if v.shift}
        first_line = 1

        def _implied_decimals(chunks):
            # fixed-width IPUMS numbers carry implied decimals (dcml); CSV ones are written out
            for ch in chunks:
                for c, sh in shifts.items():
                    num = pd.to_numeric(ch[c].str.strip(), errors="coerce")
                    ch[c] = np.where(num.notna(), (num / 10 ** sh).astype(str), ch[c])
                yield ch
        reader = _implied_decimals(reader)
    else:
        raise ValueError(f"{where}: unknown data file type {data_path.name!r}; expected .dat(.gz) or .csv(.gz)")
    return _read_chunks(reader, tidy_ipums, where, first_line, occupations)


def read_pums_csv(path, *, occupations=tuple(OCCUPATIONS), chunksize: int = 500_000) -> pd.DataFrame:
    """Read a Census PUMS person CSV (``psam_p*.csv``, ``ss16p*.csv``) to the tidy table.

    ``occupations``: occupation keys kept while reading, chunk by chunk (default: the
    five; None: every row): the national file has ~3 million people.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"PUMS person file not found: {path}")
    where = f"PUMS person file {path}"
    header = pd.read_csv(path, nrows=0).columns
    upper = {c.upper(): c for c in header}
    occ_col = _pums_occ_column(upper, where)
    _check_columns(upper, [c for c in PUMS_VARIABLES if c != "OCCP"], where)
    year = _pums_year_from_name(path)
    if "SERIALNO" not in upper and year is None:
        raise ValueError(f"{where}: cannot tell its ACS year (no SERIALNO column, and the name is not "
                         "psam_p*/ssYYp*); the occupation codes depend on the year")
    use = [c for c in (*PUMS_VARIABLES[:-2], occ_col, "PWGTP", "SERIALNO") if c in upper]
    reader = pd.read_csv(path, usecols=[upper[c] for c in use], dtype=str, keep_default_na=False, chunksize=chunksize)

    def tidy_fn(chunk, where, *, occupations, first_line):
        return tidy_pums(chunk, where, occupations=occupations, first_line=first_line, year=year)
    return _read_chunks(reader, tidy_fn, where, 2, occupations)


PUMS_PERSON_GLOBS = ("psam_p*.csv", "psam_pus*.csv", "ss[0-9][0-9]p*.csv")


def pums_person_files(folder) -> list[Path]:
    """The PUMS person CSVs in ``folder``: ``psam_p*.csv`` (2017 on) and ``ssYYp*.csv`` (earlier)."""
    folder = Path(folder)
    files = {f for g in PUMS_PERSON_GLOBS for f in folder.iterdir()
             if f.is_file() and Path(f.name.lower()).match(g)}
    return sorted(files)


def validate_tidy(df: pd.DataFrame, where: str = "ACS table") -> pd.DataFrame:
    """Check a tidy ACS table has :data:`TIDY_COLUMNS` (``year`` optional); raise naming what is missing."""
    require_columns(df, _REQUIRED_TIDY, f"{where} (a tidy ACS table {list(TIDY_COLUMNS)}: "
                                        f"popresume.sources.acs.load_acs reads raw files)")
    neg = (df["weight"] < 0).to_numpy()
    if neg.any():
        raise ValueError(f"{where}: column 'weight' has a negative value at row {int(neg.argmax())}")
    if "year" not in df.columns:
        df = df.assign(year=pd.array([pd.NA] * len(df), dtype="Int64"))
    return df[list(TIDY_COLUMNS) + [c for c in df.columns if c not in TIDY_COLUMNS]]


def _is_tidy(df) -> bool:
    return isinstance(df, pd.DataFrame) and set(_REQUIRED_TIDY) <= set(df.columns)


def load_acs(source, *, occupations=tuple(OCCUPATIONS)) -> pd.DataFrame:
    """Read ACS data from any supported source into the tidy table.

    ``source``: a tidy DataFrame; a raw IPUMS or PUMS DataFrame (recognised by its columns);
    an IPUMS DDI ``.xml`` (its ``.dat``/``.dat.gz``/``.csv``/``.csv.gz`` beside it); a
    ``psam_p*.csv`` or ``ssYYp*.csv``; a folder of them; a tidy ``.parquet``; or a list of
    these (concatenated). ``occupations``: rows kept while reading raw data (default: the
    five; None: all rows; a tidy table is returned as it is).
    """
    if occupations is not None:
        occupations = check_occupations(list(occupations))
    if isinstance(source, pd.DataFrame):
        cols = {c.upper() for c in source.columns}
        if _is_tidy(source):
            return validate_tidy(source)
        if "PERWT" in cols or "STATEFIP" in cols:
            return tidy_ipums(source, "IPUMS table", occupations=occupations)
        if "PWGTP" in cols or "AGEP" in cols:
            return tidy_pums(source, "PUMS table", occupations=occupations)
        return validate_tidy(source)
    if isinstance(source, (list, tuple)):
        return pd.concat([load_acs(s, occupations=occupations) for s in source], ignore_index=True)
    path = Path(source)
    if not path.exists():
        raise FileNotFoundError(f"ACS source not found: {path}")
    if path.is_dir():
        files = pums_person_files(path)
        if files:
            return pd.concat([read_pums_csv(f, occupations=occupations) for f in files], ignore_index=True)
        ddis = sorted(path.glob("*.xml"))
        if len(ddis) == 1:
            return read_ipums(ddis[0], occupations=occupations)
        raise FileNotFoundError(f"no PUMS person files ({', '.join(PUMS_PERSON_GLOBS)}) and "
                                f"{'several' if ddis else 'no'} IPUMS DDI .xml in folder {path}")
    name = path.name.lower()
    if name.endswith(".xml"):
        return read_ipums(path, occupations=occupations)
    if name.endswith((".csv", ".csv.gz")):
        if re.match(r"usa_\d+\.csv", name):
            raise ValueError(f"{path} is the data of an IPUMS USA extract: give its DDI codebook "
                             f"{path.name.split('.')[0]}.xml (beside it) to --acs / load_acs")
        return read_pums_csv(path, occupations=occupations)
    if name.endswith((".dat", ".dat.gz")):
        raise ValueError(f"{path} is fixed-width IPUMS data: give its DDI codebook .xml instead")
    if name.endswith(".parquet"):
        return validate_tidy(pd.read_parquet(path), f"ACS table {path}")
    raise ValueError(f"unknown ACS file type {path.name!r}: give an IPUMS DDI .xml, a psam_p*.csv / ssYYp*.csv, "
                     "a folder of them, or a tidy .parquet")


def acs_p1(acs, occupation: str, *, age_range=(18, 44), races=RACES) -> pd.DataFrame:
    """P̂1 from ACS microdata: person-weighted cells of employed workers in ``occupation``.

    Rows outside the kept race groups, below high school or outside ``age_range`` are dropped
    (as in the paper). Hispanic workers stay in their race group (RACE / RAC1P): the
    paper's three groups are race groups; the ``hispanic`` column is kept for users who
    want otherwise. Raises if the age range lies entirely outside the ages in the data.
    """
    (occupation,) = check_occupations([occupation])
    df = acs if _is_tidy(acs) else load_acs(acs, occupations=[occupation])
    df = df[(df["occupation"] == occupation) & df["employed"]]
    if df.empty:
        raise ValueError(f"ACS data has no employed workers in occupation {occupation!r} "
                         f"(OCC codes: 2018+ {list(OCC_SCHEMES['census2018'][occupation])}, "
                         f"2010-2017 {list(OCC_SCHEMES['census2010'][occupation])})")
    amin, amax = int(df["age"].min()), int(df["age"].max())
    lo, hi = check_age_range(age_range, (18, 200), "the profile schema")
    if hi < amin or lo > amax:
        raise ValueError(f"age_range {lo}-{hi} is outside the ages in the ACS data for {occupation!r} ({amin}-{amax})")
    df = df[df["race"].isin(list(races)) & df["edu_level"].notna() & df["age"].between(lo, hi) & df["state"].notna()]
    if df.empty or df["weight"].sum() <= 0:
        raise ValueError(f"ACS data has no {occupation!r} workers aged {lo}-{hi} in races {list(races)}")
    cells = df.groupby(["gender", "race", "age", "state", "edu_level"], sort=True, observed=True)["weight"].sum()
    out = cells.reset_index().rename(columns={"weight": "p"})
    out["p"] = out["p"] / out["p"].sum()
    out["age"] = out["age"].astype(int)
    return out


# ---------------------------------------------------------------- download
PUMS_BASE_URL = "https://www2.census.gov/programs-surveys/acs/data/pums"


def pums_url(year: int, state: str | None = None, *, period: str = "1-Year", base_url: str = PUMS_BASE_URL) -> str:
    """URL of the Census PUMS person-file zip: ``csv_p<st>.zip`` for a state, ``csv_pus.zip`` for the US."""
    if state is None:
        name = "csv_pus.zip"
    else:
        st = state.upper()
        if st not in set(STATES["usps"]):
            raise ValueError(f"unknown state {state!r}; give a USPS code such as 'CA'")
        name = f"csv_p{st.lower()}.zip"
    return f"{base_url.rstrip('/')}/{int(year)}/{period}/{name}"


def download_pums(year: int, out_dir, *, state: str | None = None, period: str = "1-Year",
                  base_url: str = PUMS_BASE_URL, timeout: float = 60.0, progress: bool = False) -> list[Path]:
    """Download and unzip the Census PUMS person CSV(s) for ``year`` into ``out_dir``.

    The zip is streamed to a temporary file and moved into place only when complete; the
    extracted person files (``psam_p*.csv``, or ``ssYYp*.csv`` before 2017) are written the same
    way. Returns their paths.
    """
    if not (2000 <= int(year) <= 2100):
        raise ValueError(f"year {year!r} is not an ACS year")
    url = pums_url(year, state, period=period, base_url=base_url)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    zip_path = out_dir / url.rsplit("/", 1)[1]
    with requests.get(url, stream=True, timeout=timeout) as r:
        if r.status_code != 200:
            raise FileNotFoundError(f"download failed: HTTP {r.status_code} for {url}")
        total = int(r.headers.get("content-length", 0)) or None
        bar = None
        if progress:
            bar = progress_bar(total=total, unit="B", unit_scale=True, desc=zip_path.name)
        with atomic_path(zip_path, ".zip") as tmp, open(tmp, "wb") as fh:
            for block in r.iter_content(1 << 20):
                fh.write(block)
                if bar is not None:
                    bar.update(len(block))
        if bar is not None:
            bar.close()
    try:
        zf = zipfile.ZipFile(zip_path)
    except zipfile.BadZipFile as e:
        zip_path.unlink(missing_ok=True)
        raise ValueError(f"downloaded file from {url} is not a zip archive") from e
    out = []
    with zf:
        # psam_p*.csv from 2017 on, ssYYp*.csv before
        members = [m for m in zf.namelist() if re.match(r"(.*/)?(psam_p|ss\d\dp).*\.csv$", m, re.I)]
        if not members:
            raise ValueError(f"{zip_path} holds no PUMS person file psam_p*.csv / ssYYp*.csv "
                             f"(found {zf.namelist()[:5]})")
        for m in members:
            dest = out_dir / Path(m).name
            with atomic_path(dest, ".csv") as tmp, zf.open(m) as src, open(tmp, "wb") as dst:
                shutil.copyfileobj(src, dst)
            out.append(dest)
    return out


def save_tidy(df: pd.DataFrame, path) -> Path:
    """Write a tidy ACS table to Parquet atomically (what ``popresume data acs`` leaves)."""
    return write_parquet(validate_tidy(df), path)


__all__ = [
    "ACS_OCC_CODES", "OCC_SCHEMES", "TIDY_COLUMNS", "acs_p1", "download_pums", "ipums_data_file", "load_acs",
    "occ_scheme", "pums_person_files", "pums_url", "read_ipums", "read_pums_csv", "save_tidy", "tidy_ipums",
    "tidy_pums", "validate_tidy",
]
