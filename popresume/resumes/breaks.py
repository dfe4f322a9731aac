"""Career breaks of built résumés, by gender: what P2 turns into on the page.

With careers that end at 2023.12 (:data:`popresume.resumes.rules.CAREER_ENDS`), the months
between the first role and 2023.12 that ``exp_year`` does not cover are breaks between
roles. A screener that reads career breaks sees them; whether they differ by gender is a
property of P2's source (chapter 02, :func:`popresume.experience.describe_source`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from popresume.jobs import load_content
from popresume.resumes.rules import Resume, build_resume, month_index

LONG_BREAK_MONTHS = 24  # "breaks > 24 months": a résumé with more than two years off in all
BREAK_CELLS = ("age_band", "edu_level")  # who is compared with whom in the adjusted gap
AGE_BAND_YEARS = 5


def break_months(resume: Resume) -> int:
    """Months between consecutive roles of a résumé, summed (its career breaks)."""
    chron = list(reversed(resume.roles))
    return sum(month_index(later.start) - month_index(earlier.end) for earlier, later in zip(chron, chron[1:]))


def with_break_months(profiles: pd.DataFrame, *, seed: int = 0, content: dict | None = None) -> pd.DataFrame:
    """``profiles`` with a column ``break_months``: each row's résumé built with
    :func:`popresume.resumes.rules.build_resume` (default layout) and its breaks summed."""
    content = content or load_content()
    out = profiles.copy()
    out["break_months"] = [break_months(build_resume(p, seed=seed, content=content))
                           for p in profiles.to_dict("records")]
    return out


def breaks_by_gender(profiles: pd.DataFrame) -> pd.DataFrame:
    """Per occupation × gender, from profiles with ``break_months``: résumés, mean months of
    breaks, the share with breaks > 24 months and the mean exp_year / (age − 18)."""
    d = profiles.assign(long_break=profiles["break_months"] > LONG_BREAK_MONTHS,
                        worked=profiles["exp_year"] / (profiles["age"] - 18).clip(lower=1))
    return d.groupby(["occupation", "gender"]).agg(
        résumés=("break_months", "size"), mean_break_months=("break_months", "mean"),
        share_breaks_over_24=("long_break", "mean"), worked_share=("worked", "mean"))


def gender_break_gap(profiles: pd.DataFrame) -> pd.DataFrame:
    """Per occupation: women's minus men's mean break months and share of breaks > 24
    months, raw and among résumés of the same 5-year age band and edu_level.

    The adjusted gap compares women and men within each (age band, edu_level) cell where
    both are present and averages the cell differences with the women's counts as weights,
    so it is the gap P2 itself puts between a woman and a man of the same age and schooling;
    the raw gap adds the occupation's gender differences in age and schooling (P1).
    """
    d = profiles.assign(long_break=(profiles["break_months"] > LONG_BREAK_MONTHS).astype(float),
                        age_band=(profiles["age"] // AGE_BAND_YEARS) * AGE_BAND_YEARS)
    rows = []
    for occ, g in d.groupby("occupation", sort=False):
        raw = g.groupby("gender")[["break_months", "long_break"]].mean()
        cell = g.groupby([*BREAK_CELLS, "gender"])[["break_months", "long_break"]].agg(["mean", "size"])
        women = cell.xs("F", level="gender")
        men = cell.xs("M", level="gender")
        both = women.index.intersection(men.index)
        w = women.loc[both, ("break_months", "size")].to_numpy(float)
        adj = {c: float(np.average(women.loc[both, (c, "mean")] - men.loc[both, (c, "mean")], weights=w))
               if len(both) else float("nan") for c in ("break_months", "long_break")}
        rows.append({"occupation": occ,
                     "gap_break_months": raw.at["F", "break_months"] - raw.at["M", "break_months"],
                     "gap_share_over_24": raw.at["F", "long_break"] - raw.at["M", "long_break"],
                     "adjusted_gap_break_months": adj["break_months"],
                     "adjusted_gap_share_over_24": adj["long_break"],
                     "women_in_compared_cells": int(w.sum())})
    return pd.DataFrame(rows).set_index("occupation")
