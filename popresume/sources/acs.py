"""ACS PUMS person records: the paper's source for P1 (PopResume §4.1, Table 2).

Two real input formats are read into one tidy table (:data:`TIDY_COLUMNS`):

* an **IPUMS USA extract**: fixed-width ``.dat`` (optionally gzipped) described by its DDI
  codebook ``.xml``, read with ``ipumspy``. Variables (the ones the authors used): SEX, AGE,
  RACE, HISPAN, STATEFIP, EDUCD (detailed attainment; EDUC alone cannot separate associate's
  from some college or master's from doctorate), EMPSTAT, OCC, PERWT.
* the **Census Bureau's PUMS person CSV** ``psam_p*.csv`` (or ``psam_pus*.csv``): SEX, AGEP,
  RAC1P, HISP, ST, SCHL, ESR, OCCP, PWGTP.

The tidy table has our schema's values: ``occupation`` (key, or missing for other jobs),
``occ_code``, ``gender`` F/M, ``race`` White/Black/API/Other, ``hispanic``, ``age``,
``state`` (USPS), ``edu_level`` (the 7 kept levels; missing below high school),
``employed`` and ``weight`` (person weight). :func:`acs_p1` turns it into P̂1, the
person-weighted empirical distribution of employed workers of one occupation.

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

from popresume.schema import EDU_LEVELS, OCCUPATIONS, RACES, check_occupations
from popresume.sources import STATE_USPS_BY_FIPS, STATES

TIDY_COLUMNS = ("occupation", "occ_code", "gender", "race", "hispanic", "age", "state", "edu_level",
                "employed", "weight")

# Census occupation codes (ACS OCC / OCCP; 2018+ scheme, with the 2010-2017 software code).
ACS_OCC_CODES: dict[str, tuple[int, ...]] = {
    "nurse": (3255,),                 # Registered nurses
    "teacher": (2310,),               # Elementary and middle school teachers
    "software_developer": (1021, 1020),  # Software developers (2018+), ... applications & systems (2010-17)
    "accountant": (800,),             # Accountants and auditors
    "construction_laborer": (6260,),  # Construction laborers
}
assert set(ACS_OCC_CODES) == set(OCCUPATIONS)
_OCC_OF_CODE = {c: k for k, codes in ACS_OCC_CODES.items() for c in codes}

IPUMS_VARIABLES = ("SEX", "AGE", "RACE", "HISPAN", "STATEFIP", "EDUCD", "EMPSTAT", "OCC", "PERWT")
PUMS_VARIABLES = ("SEX", "AGEP", "RAC1P", "HISP", "ST", "SCHL", "ESR", "OCCP", "PWGTP")

# IPUMS RACE (general): 1 White, 2 Black, 3 AIAN, 4 Chinese, 5 Japanese, 6 Other Asian or
# Pacific Islander, 7 other, 8-9 multiple races.
IPUMS_RACE = {1: "White", 2: "Black", 4: "API", 5: "API", 6: "API"}
# PUMS RAC1P: 1 White alone, 2 Black alone, 6 Asian alone, 7 Native Hawaiian / Pacific Islander alone.
PUMS_RACE = {1: "White", 2: "Black", 6: "API", 7: "API"}


def _ipums_edu(educd: pd.Series) -> pd.Series:
    """IPUMS EDUCD (detailed) → kept edu levels; below high school → missing."""
    e = pd.to_numeric(educd, errors="coerce")
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


def _pums_edu(schl: pd.Series) -> pd.Series:
    """PUMS SCHL → kept edu levels; below high school (1-15) → missing."""
    s = pd.to_numeric(schl, errors="coerce")
    mapping = {16: EDU_LEVELS[0], 17: EDU_LEVELS[0], 18: EDU_LEVELS[1], 19: EDU_LEVELS[1],
               20: EDU_LEVELS[2], 21: EDU_LEVELS[3], 22: EDU_LEVELS[4], 23: EDU_LEVELS[5], 24: EDU_LEVELS[6]}
    return s.map(mapping).astype("object")


def _check_columns(df: pd.DataFrame, needed, where: str) -> None:
    missing = [c for c in needed if c not in df.columns]
    if missing:
        extra = ""
        if "EDUCD" in missing and "EDUC" in df.columns:
            extra = " (EDUC is present, but the detailed EDUCD is needed to tell associate's from some college and master's from doctorate)"
        raise ValueError(f"{where} is missing ACS column(s) {missing}{extra}")


def _finish(occ_code, gender, race, hispanic, age, state_fips, edu, employed, weight, where: str) -> pd.DataFrame:
    occ_code = pd.to_numeric(occ_code, errors="coerce").astype("Int64")
    fips = pd.to_numeric(state_fips, errors="coerce")
    state = fips.map(STATE_USPS_BY_FIPS)
    sex = pd.to_numeric(gender, errors="coerce")
    bad_sex = ~sex.isin([1, 2])
    if bad_sex.any():
        raise ValueError(f"{where}: SEX has value {gender[bad_sex].iloc[0]!r} at row {bad_sex.to_numpy().argmax()}; expected 1 or 2")
    out = pd.DataFrame({
        "occupation": occ_code.map(_OCC_OF_CODE).astype("object"),
        "occ_code": occ_code,
        "gender": np.where(sex == 2, "F", "M"),
        "race": race.astype("object"),
        "hispanic": hispanic.astype(bool),
        "age": pd.to_numeric(age, errors="raise").astype(int),
        "state": state.astype("object"),
        "edu_level": edu.astype("object"),
        "employed": employed.astype(bool),
        "weight": pd.to_numeric(weight, errors="raise").astype(float),
    })
    return out.reset_index(drop=True)


def tidy_ipums(raw: pd.DataFrame, where: str = "IPUMS extract") -> pd.DataFrame:
    """Map IPUMS USA variables to the tidy table (column names are case-insensitive)."""
    raw = raw.rename(columns=str.upper)
    _check_columns(raw, IPUMS_VARIABLES, where)
    race = pd.to_numeric(raw["RACE"], errors="coerce").map(IPUMS_RACE).fillna("Other")
    hisp = pd.to_numeric(raw["HISPAN"], errors="coerce")
    return _finish(raw["OCC"], raw["SEX"], race, hisp.between(1, 4), raw["AGE"], raw["STATEFIP"],
                   _ipums_edu(raw["EDUCD"]), pd.to_numeric(raw["EMPSTAT"], errors="coerce") == 1,
                   raw["PERWT"], where)


def tidy_pums(raw: pd.DataFrame, where: str = "PUMS person file") -> pd.DataFrame:
    """Map Census PUMS person variables to the tidy table."""
    raw = raw.rename(columns=str.upper)
    _check_columns(raw, PUMS_VARIABLES, where)
    race = pd.to_numeric(raw["RAC1P"], errors="coerce").map(PUMS_RACE).fillna("Other")
    hisp = pd.to_numeric(raw["HISP"], errors="coerce")
    esr = pd.to_numeric(raw["ESR"], errors="coerce")
    return _finish(raw["OCCP"], raw["SEX"], race, hisp > 1, raw["AGEP"], raw["ST"],
                   _pums_edu(raw["SCHL"]), esr.isin([1, 2, 4, 5]), raw["PWGTP"], where)


def read_ipums(ddi_path, data_path=None) -> pd.DataFrame:
    """Read an IPUMS USA extract (DDI ``.xml`` + fixed-width ``.dat``/``.dat.gz``) to the tidy table."""
    from ipumspy import readers

    ddi_path = Path(ddi_path)
    if not ddi_path.exists():
        raise FileNotFoundError(f"IPUMS DDI codebook not found: {ddi_path}")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ipumspy's CitationWarning: the citation is in data/README.md
            ddi = readers.read_ipums_ddi(ddi_path)
    except Exception as e:  # noqa: BLE001 - any parse failure is an unreadable DDI
        raise ValueError(f"unreadable IPUMS DDI codebook {ddi_path}: {type(e).__name__}: {e}") from e
    names = [v.name.upper() for v in ddi.data_description]
    missing = [c for c in IPUMS_VARIABLES if c not in names]
    if missing:
        extra = " (EDUC is present, but the detailed EDUCD is needed)" if "EDUCD" in missing and "EDUC" in names else ""
        raise ValueError(f"IPUMS extract {ddi_path} is missing variable(s) {missing}{extra}")
    if data_path is None:
        data_path = ddi_path.parent / Path(ddi.file_description.filename).name
    data_path = Path(data_path)
    if not data_path.exists() and Path(str(data_path) + ".gz").exists():
        data_path = Path(str(data_path) + ".gz")  # IPUMS serves extracts gzipped
    if not data_path.exists():
        raise FileNotFoundError(f"IPUMS data file not found: {data_path} (named in {ddi_path})")
    keep = [v.name for v in ddi.data_description if v.name.upper() in IPUMS_VARIABLES]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        raw = readers.read_microdata(ddi, data_path, subset=keep)
    return tidy_ipums(raw, where=f"IPUMS extract {data_path}")


def read_pums_csv(path, *, occupations_only: bool = True, chunksize: int = 500_000) -> pd.DataFrame:
    """Read a Census PUMS person CSV (``psam_p*.csv``) to the tidy table.

    With ``occupations_only`` only the five occupations' rows are kept (the national file
    has ~3 million people; the filter keeps memory small).
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"PUMS person file not found: {path}")
    header = pd.read_csv(path, nrows=0).columns
    upper = {c.upper(): c for c in header}
    missing = [c for c in PUMS_VARIABLES if c not in upper]
    if missing:
        raise ValueError(f"PUMS person file {path} is missing column(s) {missing}")
    codes = {c for cs in ACS_OCC_CODES.values() for c in cs}
    parts = []
    for chunk in pd.read_csv(path, usecols=[upper[c] for c in PUMS_VARIABLES], dtype=str, chunksize=chunksize):
        chunk.columns = [c.upper() for c in chunk.columns]
        if occupations_only:
            chunk = chunk[pd.to_numeric(chunk["OCCP"], errors="coerce").isin(codes)]
        parts.append(chunk)
    raw = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=list(PUMS_VARIABLES))
    return tidy_pums(raw, where=f"PUMS person file {path}")


def validate_tidy(df: pd.DataFrame, where: str = "ACS table") -> pd.DataFrame:
    """Check a tidy ACS table has :data:`TIDY_COLUMNS`; raise naming what is missing."""
    missing = [c for c in TIDY_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"{where} is missing column(s) {missing}; expected the tidy ACS table "
                         f"{list(TIDY_COLUMNS)} (use popresume.sources.acs.load_acs on raw files)")
    if (df["weight"] < 0).any():
        raise ValueError(f"{where}: column 'weight' has a negative value at row {(df['weight'] < 0).to_numpy().argmax()}")
    return df


def load_acs(source) -> pd.DataFrame:
    """Read ACS data from any supported source into the tidy table.

    ``source``: a tidy DataFrame; a raw IPUMS or PUMS DataFrame (recognised by its columns);
    an IPUMS DDI ``.xml`` (its ``.dat`` beside it); a ``psam_p*.csv``; a folder of
    ``psam_p*.csv``; a tidy ``.parquet``; or a list of these (concatenated).
    """
    if isinstance(source, pd.DataFrame):
        cols = {c.upper() for c in source.columns}
        if set(TIDY_COLUMNS) <= set(source.columns):
            return validate_tidy(source)
        if "PERWT" in cols or "STATEFIP" in cols:
            return tidy_ipums(source, "IPUMS table")
        if "PWGTP" in cols or "AGEP" in cols:
            return tidy_pums(source, "PUMS table")
        return validate_tidy(source)
    if isinstance(source, (list, tuple)):
        return pd.concat([load_acs(s) for s in source], ignore_index=True)
    path = Path(source)
    if not path.exists():
        raise FileNotFoundError(f"ACS source not found: {path}")
    if path.is_dir():
        files = sorted(path.glob("psam_p*.csv")) or sorted(path.glob("psam_p*.CSV"))
        if not files:
            raise FileNotFoundError(f"no psam_p*.csv PUMS person files in folder {path}")
        return pd.concat([read_pums_csv(f) for f in files], ignore_index=True)
    suffix = path.suffix.lower()
    if suffix == ".xml":
        return read_ipums(path)
    if suffix == ".csv":
        return read_pums_csv(path)
    if suffix == ".parquet":
        return validate_tidy(pd.read_parquet(path), f"ACS table {path}")
    raise ValueError(f"unknown ACS file type {path.name!r}: give an IPUMS DDI .xml, a psam_p*.csv, "
                     "a folder of them, or a tidy .parquet")


def acs_p1(acs, occupation: str, *, age_range=(18, 44), races=RACES) -> pd.DataFrame:
    """P̂1 from ACS microdata: person-weighted cells of employed workers in ``occupation``.

    Rows outside the kept race groups, below high school or outside ``age_range`` are dropped
    (as in the paper). Hispanic workers stay in their race group (RACE / RAC1P): the
    paper's three groups are race groups; the ``hispanic`` column is kept for users who
    want otherwise. Raises if the age range lies entirely outside the ages in the data.
    """
    from popresume.sources.calibration import check_age_range

    (occupation,) = check_occupations([occupation])
    df = acs if isinstance(acs, pd.DataFrame) and set(TIDY_COLUMNS) <= set(acs.columns) else load_acs(acs)
    df = df[(df["occupation"] == occupation) & df["employed"]]
    if df.empty:
        raise ValueError(f"ACS data has no employed workers in occupation {occupation!r} "
                         f"(OCC codes {list(ACS_OCC_CODES[occupation])})")
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
    extracted ``psam_p*.csv`` files are written the same way. Returns their paths.
    """
    import requests

    from popresume.io import atomic_path

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
            from tqdm.auto import tqdm

            bar = tqdm(total=total, unit="B", unit_scale=True, desc=zip_path.name)
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
        members = [m for m in zf.namelist() if re.match(r"(.*/)?psam_p.*\.csv$", m, re.I)]
        if not members:
            raise ValueError(f"{zip_path} holds no psam_p*.csv person file (found {zf.namelist()[:5]})")
        for m in members:
            dest = out_dir / Path(m).name
            with atomic_path(dest, ".csv") as tmp, zf.open(m) as src, open(tmp, "wb") as dst:
                shutil.copyfileobj(src, dst)
            out.append(dest)
    return out


def save_tidy(df: pd.DataFrame, path) -> Path:
    """Write a tidy ACS table to Parquet atomically (what ``popresume data acs`` leaves)."""
    from popresume.io import write_parquet

    return write_parquet(validate_tidy(df), path)


__all__ = [
    "ACS_OCC_CODES", "TIDY_COLUMNS", "acs_p1", "download_pums", "load_acs", "pums_url", "read_ipums",
    "read_pums_csv", "save_tidy", "tidy_ipums", "tidy_pums", "validate_tidy",
]
